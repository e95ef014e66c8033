// Helpers of the lowering tests: parse a module, lower one kernel for a signature through the
// pipeline (so the verifier runs), print the IR.
#pragma once

#include <string>
#include <vector>

#include "compiler/pipeline.hpp"
#include "compiler/signature.hpp"
#include "frontend/parser.hpp"
#include "ir/printer.hpp"

namespace tack::lowering::test {

using compiler::ArgType;
using ir::ScalarType;

inline ArgType arr(ScalarType t, int rank = 1, int vec_width = 0) {
  ArgType a;
  a.kind = ArgType::Kind::Array;
  a.type = t;
  a.rank = static_cast<std::uint8_t>(rank);
  a.vec_width = static_cast<std::uint8_t>(vec_width);
  return a;
}

inline ArgType num(ScalarType t) {
  ArgType a;
  a.kind = ArgType::Kind::Scalar;
  a.type = t;
  return a;
}

inline const ArgType f32s = arr(ScalarType::f32);
inline const ArgType f64s = arr(ScalarType::f64);
inline const ArgType i32s = arr(ScalarType::i32);
inline const ArgType i64s = arr(ScalarType::i64);

// The IR of kernel `kernel` of `source` for `signature`, verified.
inline ir::Function lower(const std::string& source, const std::vector<ArgType>& signature,
                          const std::string& kernel = "k") {
  frontend::Module m = frontend::parse_module(source);
  return compiler::build_ir(m, kernel, signature);
}

inline std::string ir_text(const std::string& source, const std::vector<ArgType>& signature,
                           const std::string& kernel = "k") {
  return ir::to_string(lower(source, signature, kernel));
}

// The body of the parallel loop only, without its first and last line and one indentation
// level less: what most tests compare.
inline std::string loop_body(const std::string& source, const std::vector<ArgType>& signature,
                             const std::string& kernel = "k") {
  std::string text = ir_text(source, signature, kernel);
  size_t start = text.find("parallel for");
  start = text.find('\n', start) + 1;
  size_t end = text.rfind("\n  }\n}");
  std::string body = text.substr(start, end - start + 1);
  std::string out;
  size_t pos = 0;
  while (pos < body.size()) {
    size_t nl = body.find('\n', pos);
    std::string line = body.substr(pos, nl - pos);
    out += (line.size() >= 4 ? line.substr(4) : line) + "\n";
    pos = nl + 1;
  }
  return out;
}

}  // namespace tack::lowering::test
