// Names and sizes of the IR's scalar and array types.
#include "ir/types.hpp"

namespace tack::ir {

std::string to_string(const ArrayType& t) {
  std::string elem(name(t.elem));
  if (t.vec_width > 0) elem = "vec" + std::to_string(t.vec_width) + "<" + elem + ">";
  return "array<" + elem + ", " + std::to_string(t.rank) + (t.strided ? ", strided" : "") + ">";
}

}  // namespace tack::ir
