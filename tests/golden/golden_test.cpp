// Golden tests of the code generators: the unoptimized LLVM IR of a few kernels, compared as
// full text with tests/golden/<name>.ll, and the OpenCL C and CUDA C the shared C-style printer
// makes of them (<name>.cl, <name>.cu). Each file starts with the Tack IR it was generated
// from, so it documents itself. Host-specific lines (data layout, triple, CPU and feature
// attributes) are normalized. Regenerate with tools/update_golden.sh after an intended change
// (it sets TACK_UPDATE_GOLDEN=1), and review the diff like code.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>

#include "codegen/cuda/cuda_printer.hpp"
#include "codegen/llvm/llvm_codegen.hpp"
#include "codegen/opencl/opencl_printer.hpp"
#include "ir/builder.hpp"
#include "ir/printer.hpp"

namespace tack::codegen {
namespace {

using namespace tack::ir;

struct GoldenCase {
  const char* name;
  std::function<Function()> kernel;
  CodegenOptions opts;
};

const Expr kI = Var::make(ScalarType::i64, "i");
const Expr kJ = Var::make(ScalarType::i64, "j");

Function triad() {
  FunctionBuilder fb("triad");
  ArrayRef a = fb.array_param("a", ScalarType::f32);
  ArrayRef b = fb.array_param("b", ScalarType::f32);
  ArrayRef c = fb.array_param("c", ScalarType::f32);
  Expr s = fb.scalar_param("s", ScalarType::f32);
  return fb.build({range_dim("i", shape(c, 0))},
                  block({store(c, {kI}, add(load(a, {kI}), mul(s, load(b, {kI}))))}));
}

Function stencil2d() {
  FunctionBuilder fb("stencil2d");
  ArrayRef in = fb.array_param("src", ScalarType::f64, 2);
  ArrayRef out = fb.array_param("dst", ScalarType::f64, 2);
  fb.prelude(let("rows", sub(shape(in, 0), const_i64(1))));
  Expr up = load(in, {sub(kI, const_i64(1)), kJ});
  return fb.build({range_dim("i", const_i64(1), var(ScalarType::i64, "rows"), const_i64(1)),
                   range_dim("j", shape(in, 1))},
                  block({store(out, {kI, kJ}, mul(const_f64(0.5), add(up, load(in, {kI, kJ}))))}));
}

Function python_int_ops() {
  FunctionBuilder fb("python_int_ops");
  ArrayRef a = fb.array_param("a", ScalarType::i32);
  ArrayRef q = fb.array_param("q", ScalarType::i32);
  Expr d = fb.scalar_param("d", ScalarType::i32);
  Expr x = load(a, {kI});
  return fb.build(
      {range_dim("i", shape(a, 0))},
      block({store(q, {kI}, add(floordiv(x, d), mod(x, d))), store(a, {kI}, shr(x, d))}));
}

Function histogram() {
  FunctionBuilder fb("histogram");
  ArrayRef v = fb.array_param("values", ScalarType::f32);
  ArrayRef bins = fb.array_param("bins", ScalarType::i32);
  Expr nb = cast(ScalarType::f32, shape(bins, 0));
  Expr bin = cast(ScalarType::i64, call(MathFn::Floor, {mul(load(v, {kI}), nb)}));
  return fb.build(
      {range_dim("i", shape(v, 0))},
      block({if_then(logical_and(ge(bin, const_i64(0)), lt(bin, shape(bins, 0))),
                     block({eval(atomic(AtomicOp::Add, bins, {bin}, const_i32(1)))}))}));
}

Function loops() {
  FunctionBuilder fb("loops");
  ArrayRef out = fb.array_param("out", ScalarType::i64);
  Expr k = var(ScalarType::i64, "k");
  return fb.build({range_dim("i", shape(out, 0))},
                  block({let("acc", const_i64(0)),
                         for_range("k", kI, const_i64(0), const_i64(-1),
                                   block({if_then(eq(k, const_i64(3)), block({continue_stmt()})),
                                          if_then(gt(var(ScalarType::i64, "acc"), const_i64(100)),
                                                  block({break_stmt()})),
                                          assign("acc", add(var(ScalarType::i64, "acc"), k))})),
                         store(out, {kI}, var(ScalarType::i64, "acc"))}));
}

const std::vector<GoldenCase>& cases() {
  static const std::vector<GoldenCase> all = {
      {"triad", triad, {}},
      {"triad_disjoint", triad, {.disjoint = true}},
      {"stencil2d", stencil2d, {}},
      {"python_int_ops", python_int_ops, {}},
      {"histogram_bounds_checked", histogram, {.bounds_check = true}},
      {"loops", loops, {}},
  };
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

std::string golden_text(const GoldenCase& c) {
  Function f = c.kernel();
  std::string header = "; Golden test of the LLVM code generator (unoptimized IR), options:";
  header += c.opts.disjoint ? " disjoint" : "";
  header += c.opts.bounds_check ? " bounds_check" : "";
  header += !c.opts.disjoint && !c.opts.bounds_check ? " default" : "";
  header += "\n; Regenerate with tools/update_golden.sh. Tack IR:\n";
  std::istringstream ir(to_string(f));
  for (std::string line; std::getline(ir, line);) header += ";   " + line + "\n";
  return header + normalize(emit_llvm_ir(f, c.opts, false));
}

std::string path_of(const GoldenCase& c) {
  return std::string(TACK_TEST_DATA_DIR) + "/golden/" + c.name + ".ll";
}

class Golden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(Golden, MatchesFile) {
  const GoldenCase& c = GetParam();
  std::string actual = golden_text(c);
  const char* update = std::getenv("TACK_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(path_of(c), std::ios::binary) << actual;
    GTEST_SKIP() << "wrote " << path_of(c);
  }
  std::ifstream file(path_of(c), std::ios::binary);
  ASSERT_TRUE(file) << "missing " << path_of(c) << ": run tools/update_golden.sh";
  std::stringstream expected;
  expected << file.rdbuf();
  EXPECT_EQ(actual, expected.str())
      << "generated IR differs from " << path_of(c) << "; if intended, run tools/update_golden.sh";
}

INSTANTIATE_TEST_SUITE_P(Kernels, Golden, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<GoldenCase>& info) {
                           return std::string(info.param.name);
                         });

// ---- OpenCL C and CUDA C ---------------------------------------------------------------------

struct GoldenSourceCase {
  const char* name;
  std::function<Function()> kernel;
  CStylePrinter::Options opts;
  bool cuda;
};

const std::vector<GoldenSourceCase>& source_cases() {
  static const std::vector<GoldenSourceCase> all = {
      {"triad", triad, {}, false},
      {"triad_blocked", triad, {.debug = false, .blocked = true}, false},
      {"stencil2d", stencil2d, {}, false},
      {"python_int_ops", python_int_ops, {}, false},
      {"histogram_bounds_checked", histogram, {.debug = true, .blocked = false}, false},
      {"loops", loops, {}, false},
      {"triad", triad, {}, true},
      {"stencil2d", stencil2d, {}, true},
      {"python_int_ops", python_int_ops, {}, true},
      {"histogram_bounds_checked", histogram, {.debug = true, .blocked = false}, true},
      {"loops", loops, {}, true},
  };
  return all;
}

std::string source_golden_text(const GoldenSourceCase& c) {
  Function f = c.kernel();
  std::string header =
      std::string("// Golden test of the ") + (c.cuda ? "CUDA" : "OpenCL") + " C printer, options:";
  header += c.opts.debug ? " debug" : "";
  header += c.opts.blocked ? " blocked" : "";
  header += !c.opts.debug && !c.opts.blocked ? " default" : "";
  header += "\n// Regenerate with tools/update_golden.sh. Tack IR:\n";
  std::istringstream ir(to_string(f));
  for (std::string line; std::getline(ir, line);) header += "//   " + line + "\n";
  const std::string text =
      c.cuda ? CudaPrinter().print(f, c.opts) : OpenClPrinter().print(f, c.opts);
  return header + text;
}

std::string source_path_of(const GoldenSourceCase& c) {
  return std::string(TACK_TEST_DATA_DIR) + "/golden/" + c.name + (c.cuda ? ".cu" : ".cl");
}

class GoldenSource : public ::testing::TestWithParam<GoldenSourceCase> {};

TEST_P(GoldenSource, MatchesFile) {
  const GoldenSourceCase& c = GetParam();
  const std::string actual = source_golden_text(c);
  const char* update = std::getenv("TACK_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(source_path_of(c), std::ios::binary) << actual;
    GTEST_SKIP() << "wrote " << source_path_of(c);
  }
  std::ifstream file(source_path_of(c), std::ios::binary);
  ASSERT_TRUE(file) << "missing " << source_path_of(c) << ": run tools/update_golden.sh";
  std::stringstream expected;
  expected << file.rdbuf();
  EXPECT_EQ(actual, expected.str()) << "generated source differs from " << source_path_of(c)
                                    << "; if intended, run tools/update_golden.sh";
}

INSTANTIATE_TEST_SUITE_P(Kernels, GoldenSource, ::testing::ValuesIn(source_cases()),
                         [](const ::testing::TestParamInfo<GoldenSourceCase>& info) {
                           return std::string(info.param.name) +
                                  (info.param.cuda ? "_cuda" : "_opencl");
                         });

// The golden kernels also run: the reviewed text is code that works.
TEST(GoldenKernels, AllCompileToObjects) {
  for (const GoldenCase& c : cases()) {
    EXPECT_FALSE(compile_to_object(c.kernel(), c.opts).empty()) << c.name;
  }
}

}  // namespace
}  // namespace tack::codegen
