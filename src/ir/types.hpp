// Types of the Tack IR: the scalar types of values and the array types of array parameters.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tack::ir {

// Every value in the IR has one of these types. Bool is a value type only: it is stored as one
// byte (0 or 1) where it must live in memory (local arrays, scalar argument slots).
enum class ScalarType : uint8_t { Bool, I8, I16, I32, I64, U8, U16, U32, U64, F32, F64 };

inline constexpr bool is_bool(ScalarType t) {
  return t == ScalarType::Bool;
}
inline constexpr bool is_signed_int(ScalarType t) {
  return t == ScalarType::I8 || t == ScalarType::I16 || t == ScalarType::I32 ||
         t == ScalarType::I64;
}
inline constexpr bool is_unsigned_int(ScalarType t) {
  return t == ScalarType::U8 || t == ScalarType::U16 || t == ScalarType::U32 ||
         t == ScalarType::U64;
}
// Integers proper: bool is not an integer type in the IR (lowering casts it first).
inline constexpr bool is_int(ScalarType t) {
  return is_signed_int(t) || is_unsigned_int(t);
}
inline constexpr bool is_float(ScalarType t) {
  return t == ScalarType::F32 || t == ScalarType::F64;
}
// Types that take part in arithmetic (+ - * ...): every type but bool.
inline constexpr bool is_numeric(ScalarType t) {
  return is_int(t) || is_float(t);
}

// Width in bits; bool counts as 1 bit as a value (8 in memory, see bytes_in_memory).
int bits(ScalarType t);
// Size of one element in memory, which is also the natural alignment of an atomic on it.
int bytes_in_memory(ScalarType t);
// "bool", "i8", ..., "f64": the spelling used by the printer and by the kernel language.
std::string_view name(ScalarType t);
std::optional<ScalarType> scalar_type_from_name(std::string_view name);

// The type of an array parameter: element type, rank (1 to 3: the dimensions of the array's
// shape) and vector width. A `tack.vec(n, dtype)` array has vec_width = n > 0: each element of
// its shape holds n scalars stored contiguously, and the IR addresses it with one more index
// than its rank (the vector component, last). Plain arrays have vec_width = 0.
struct ArrayType {
  ScalarType elem = ScalarType::F32;
  int rank = 1;
  int vec_width = 0;

  // Number of indices a load or store takes = number of extents the ABI passes.
  int index_count() const { return rank + (vec_width > 0 ? 1 : 0); }
  bool operator==(const ArrayType&) const = default;
};

// "array<f32, 2>" or "array<vec3<f32>, 1>".
std::string to_string(const ArrayType& t);

}  // namespace tack::ir
