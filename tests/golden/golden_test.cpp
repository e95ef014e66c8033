// Golden tests of the code generators, as LLVM's lit tests are: each golden is a self-contained
// kernel source (tests/golden/<name>.py) whose header names the argument types and the outputs
// to check, and the expected output of each (<name>[.<option>].ll for the unoptimized LLVM IR,
// .cl for OpenCL C, .cu for CUDA C). The source goes through the front end and the lowering
// for those types (compiler::build_ir, the verifier after it); each expected file starts with the
// Tack IR it came from, so it documents itself. Host-specific lines (data layout, triple, CPU and
// feature attributes) are normalized. Regenerate with tools/update_golden.sh after an intended
// change (it sets TACK_UPDATE_GOLDEN=1), and review the diff like code.
//
// The header of a golden source:
//   # args: array<f32, 1>, array<f32, 1>, f32       (the signature compiled for)
//   # outputs: llvm, llvm disjoint, opencl, opencl blocked, cuda debug
// An output is a code generator (llvm, opencl, cuda) and at most one option: llvm's disjoint and
// bounds_check, the C printers' debug and blocked.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "codegen/cuda/cuda_printer.hpp"
#include "codegen/llvm/llvm_codegen.hpp"
#include "codegen/opencl/opencl_printer.hpp"
#include "compiler/pipeline.hpp"
#include "frontend/parser.hpp"
#include "ir/printer.hpp"

namespace tack::codegen {
namespace {

namespace fs = std::filesystem;

struct Output {
  std::string generator;  // "llvm", "opencl", "cuda"
  std::string option;     // "", "disjoint", "bounds_check", "debug", "blocked"
};

struct GoldenCase {
  std::string name;  // the source's stem, also its kernel's name
  std::vector<compiler::ArgType> args;
  Output output;
  std::string source;

  std::string test_name() const {
    return name + "_" + output.generator + (output.option.empty() ? "" : "_" + output.option);
  }
  fs::path expected_path() const {
    const std::string ext = output.generator == "llvm"     ? ".ll"
                            : output.generator == "opencl" ? ".cl"
                                                           : ".cu";
    return fs::path(TACK_TEST_DATA_DIR) / "golden" /
           (name + (output.option.empty() ? "" : "." + output.option) + ext);
  }
};

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// "array<f32, 1>" or "f32".
compiler::ArgType parse_arg(const std::string& text, const std::string& file) {
  compiler::ArgType a;
  std::smatch m;
  static const std::regex array(R"(array<\s*(\w+)\s*,\s*([123])\s*>)");
  std::string type = text;
  if (std::regex_match(text, m, array)) {
    a.kind = compiler::ArgType::Kind::Array;
    type = m[1];
    a.rank = static_cast<std::uint8_t>(std::stoi(m[2]));
  }
  const auto t = scalar_type_from_name(type);
  if (!t) throw std::runtime_error(file + ": unknown argument type '" + text + "'");
  a.type = *t;
  return a;
}

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  std::string item;
  int depth = 0;
  for (char ch : list) {
    depth += ch == '<' ? 1 : ch == '>' ? -1 : 0;
    if (ch == ',' && depth == 0) {
      out.push_back(trim(item));
      item.clear();
    } else {
      item += ch;
    }
  }
  if (!trim(item).empty()) out.push_back(trim(item));
  return out;
}

// Every golden source and output, read from tests/golden.
std::vector<GoldenCase> discover() {
  std::vector<GoldenCase> all;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(TACK_TEST_DATA_DIR) / "golden")) {
    if (e.path().extension() == ".py") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& p : files) {
    std::ifstream in(p);
    std::stringstream text;
    text << in.rdbuf();
    std::vector<compiler::ArgType> args;
    std::vector<Output> outputs;
    std::istringstream lines(text.str());
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("# args:", 0) == 0) {
        for (const std::string& a : split(line.substr(7))) args.push_back(parse_arg(a, p));
      } else if (line.rfind("# outputs:", 0) == 0) {
        for (const std::string& o : split(line.substr(10))) {
          const auto space = o.find(' ');
          outputs.push_back(
              {o.substr(0, space), space == std::string::npos ? "" : trim(o.substr(space + 1))});
        }
      }
    }
    for (const Output& o : outputs) all.push_back({p.stem(), args, o, text.str()});
  }
  return all;
}

// Drops what depends on the machine that generated the file.
std::string normalize(const std::string& ir) {
  std::istringstream in(ir);
  std::string line, out;
  static const std::regex cpu("\"target-cpu\"=\"[^\"]*\"");
  static const std::regex features("\"target-features\"=\"[^\"]*\"");
  while (std::getline(in, line)) {
    if (line.rfind("; ModuleID", 0) == 0 || line.rfind("source_filename", 0) == 0 ||
        line.rfind("target datalayout", 0) == 0 || line.rfind("target triple", 0) == 0) {
      continue;
    }
    line = std::regex_replace(line, cpu, "\"target-cpu\"=\"<host>\"");
    line = std::regex_replace(line, features, "\"target-features\"=\"<host>\"");
    out += line + "\n";
  }
  return out;
}

ir::Function compile(const GoldenCase& c) {
  const frontend::Module module = frontend::parse_module(c.source);
  return compiler::build_ir(module, c.name, c.args);
}

// The expected file's text: a header naming the source and the output, the Tack IR, the code.
std::string generate(const GoldenCase& c) {
  const ir::Function f = compile(c);
  const bool llvm = c.output.generator == "llvm";
  const std::string comment = llvm ? ";" : "//";
  std::string text = comment + " Golden test: tests/golden/" + c.name + ".py, " +
                     c.output.generator + (c.output.option.empty() ? "" : " " + c.output.option) +
                     "\n" + comment + " Regenerate with tools/update_golden.sh. Tack IR:\n";
  std::istringstream ir(to_string(f));
  for (std::string line; std::getline(ir, line);) text += comment + "   " + line + "\n";
  const std::string& o = c.output.option;
  if (llvm) {
    CodegenOptions opts;
    opts.disjoint = o == "disjoint";
    opts.bounds_check = o == "bounds_check";
    if (!o.empty() && !opts.disjoint && !opts.bounds_check) {
      throw std::runtime_error(c.name + ": llvm has no option '" + o + "'");
    }
    return text + normalize(emit_llvm_ir(f, opts, false));
  }
  CStylePrinter::Options opts;
  opts.debug = o == "debug";
  opts.blocked = o == "blocked";
  if (!o.empty() && !opts.debug && !opts.blocked) {
    throw std::runtime_error(c.name + ": " + c.output.generator + " has no option '" + o + "'");
  }
  if (c.output.generator == "opencl") return text + OpenClPrinter().print(f, opts);
  if (c.output.generator == "cuda") return text + CudaPrinter().print(f, opts);
  throw std::runtime_error(c.name + ": unknown generator '" + c.output.generator + "'");
}

class Golden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(Golden, MatchesFile) {
  const GoldenCase& c = GetParam();
  const std::string actual = generate(c);
  const fs::path path = c.expected_path();
  const char* update = std::getenv("TACK_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    GTEST_SKIP() << "wrote " << path;
  }
  std::ifstream file(path, std::ios::binary);
  ASSERT_TRUE(file) << "missing " << path << ": run tools/update_golden.sh";
  std::stringstream expected;
  expected << file.rdbuf();
  EXPECT_EQ(actual, expected.str())
      << "generated code differs from " << path << "; if intended, run tools/update_golden.sh";
}

INSTANTIATE_TEST_SUITE_P(Kernels, Golden, ::testing::ValuesIn(discover()),
                         [](const ::testing::TestParamInfo<GoldenCase>& info) {
                           return info.param.test_name();
                         });

// Every expected file belongs to an output some golden source names (none is left behind when
// a source or an output is removed), and there are goldens at all.
TEST(GoldenFiles, EachIsSomeSourcesOutput) {
  std::set<fs::path> expected;
  for (const GoldenCase& c : discover()) expected.insert(c.expected_path());
  EXPECT_GE(expected.size(), 10u);
  for (const auto& e : fs::directory_iterator(fs::path(TACK_TEST_DATA_DIR) / "golden")) {
    const std::string ext = e.path().extension();
    if (ext != ".ll" && ext != ".cl" && ext != ".cu") continue;
    EXPECT_TRUE(expected.count(e.path())) << e.path() << " is no golden source's output";
  }
}

// The golden kernels also run: the reviewed text is code that works.
TEST(GoldenKernels, AllCompileToObjects) {
  for (const GoldenCase& c : discover()) {
    if (c.output.generator != "llvm") continue;
    CodegenOptions opts;
    opts.disjoint = c.output.option == "disjoint";
    opts.bounds_check = c.output.option == "bounds_check";
    EXPECT_FALSE(compile_to_object(compile(c), opts).empty()) << c.test_name();
  }
}

}  // namespace
}  // namespace tack::codegen
