// Names and sizes of the IR's scalar and array types.
#include "ir/types.hpp"

namespace tack::ir {

std::optional<ScalarType> value_type_from_name(std::string_view n) {
  if (n == name(ScalarType::boolean)) return ScalarType::boolean;
  for (int i = 0; i < kScalarTypeCount; ++i) {
    auto t = static_cast<ScalarType>(i);
    if (name(t) == n) return t;
  }
  return std::nullopt;
}

std::string to_string(const ArrayType& t) {
  std::string elem(name(t.elem));
  if (t.vec_width > 0) elem = "vec" + std::to_string(t.vec_width) + "<" + elem + ">";
  return "array<" + elem + ", " + std::to_string(t.rank) + ">";
}

}  // namespace tack::ir
