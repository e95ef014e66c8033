// Names and sizes of the IR's scalar and array types.
#include "ir/types.hpp"

#include <array>

namespace tack::ir {

namespace {

struct TypeInfo {
  ScalarType type;
  std::string_view name;
  int bits;
  int bytes;
};

constexpr std::array<TypeInfo, 11> kTypes = {{
    {ScalarType::Bool, "bool", 1, 1},
    {ScalarType::I8, "i8", 8, 1},
    {ScalarType::I16, "i16", 16, 2},
    {ScalarType::I32, "i32", 32, 4},
    {ScalarType::I64, "i64", 64, 8},
    {ScalarType::U8, "u8", 8, 1},
    {ScalarType::U16, "u16", 16, 2},
    {ScalarType::U32, "u32", 32, 4},
    {ScalarType::U64, "u64", 64, 8},
    {ScalarType::F32, "f32", 32, 4},
    {ScalarType::F64, "f64", 64, 8},
}};

const TypeInfo& info(ScalarType t) {
  return kTypes[static_cast<size_t>(t)];
}

}  // namespace

int bits(ScalarType t) {
  return info(t).bits;
}
int bytes_in_memory(ScalarType t) {
  return info(t).bytes;
}
std::string_view name(ScalarType t) {
  return info(t).name;
}

std::optional<ScalarType> scalar_type_from_name(std::string_view n) {
  for (const TypeInfo& i : kTypes) {
    if (i.name == n) return i.type;
  }
  return std::nullopt;
}

std::string to_string(const ArrayType& t) {
  std::string elem(name(t.elem));
  if (t.vec_width > 0) elem = "vec" + std::to_string(t.vec_width) + "<" + elem + ">";
  return "array<" + elem + ", " + std::to_string(t.rank) + ">";
}

}  // namespace tack::ir
