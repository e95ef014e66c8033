// Printing and default-float rule of argument signatures.
#include "compiler/signature.hpp"

namespace tack::compiler {

std::string to_string(const std::vector<ArgType>& signature) {
  std::string s;
  for (const auto& a : signature) {
    if (!s.empty()) s += ", ";
    if (a.is_array()) {
      if (a.texture != 0) {
        s += "texture3d<" + std::string(ir::name(a.type)) + ", " +
             (a.texture == 2 ? "nearest" : "linear") + ">";
      } else if (a.mat_cols > 0) {
        s += "array<mat" + std::to_string(a.vec_width / a.mat_cols) + "x" +
             std::to_string(a.mat_cols) + "<" + std::string(ir::name(a.type)) + ">, " +
             std::to_string(a.rank) + (a.strided ? ", strided" : "") + ">";
      } else {
        s += ir::to_string(ir::ArrayType{a.type, a.rank, a.vec_width, a.strided != 0});
      }
    } else {
      s += ir::name(a.type);
    }
  }
  return s;
}

ir::ScalarType default_float_type(const std::vector<ArgType>& signature) {
  for (const auto& a : signature) {
    if (a.type == ir::ScalarType::f64) return ir::ScalarType::f64;
  }
  return ir::ScalarType::f32;
}

}  // namespace tack::compiler
