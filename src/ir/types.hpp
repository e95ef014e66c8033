// Types of the Tack IR: the scalar types of values and the array types of array parameters.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tack/dtype.hpp"

namespace tack::ir {

// Every value in the IR has a tack::ScalarType (include/tack/dtype.hpp): the ten array element
// types and `boolean`, a value type only, stored as one byte (0 or 1) where it must live in
// memory (local arrays, scalar argument slots). Names, sizes and kinds come from that one table.
using ScalarType = tack::ScalarType;

inline constexpr bool is_bool(ScalarType t) {
  return t == ScalarType::boolean;
}
inline constexpr bool is_signed_int(ScalarType t) {
  return t == ScalarType::i8 || t == ScalarType::i16 || t == ScalarType::i32 ||
         t == ScalarType::i64;
}
inline constexpr bool is_unsigned_int(ScalarType t) {
  return t == ScalarType::u8 || t == ScalarType::u16 || t == ScalarType::u32 ||
         t == ScalarType::u64;
}
// Integers proper: bool is not an integer type in the IR (lowering casts it first).
inline constexpr bool is_int(ScalarType t) {
  return is_signed_int(t) || is_unsigned_int(t);
}
// Types that take part in arithmetic (+ - * ...): every type but bool.
inline constexpr bool is_numeric(ScalarType t) {
  return is_int(t) || tack::is_float(t);
}

// Width in bits; bool counts as 1 bit as a value (8 in memory, see bytes_in_memory).
inline constexpr int bits(ScalarType t) {
  return is_bool(t) ? 1 : 8 * static_cast<int>(tack::itemsize(t));
}
// Size of one element in memory, which is also the natural alignment of an atomic on it.
inline constexpr int bytes_in_memory(ScalarType t) {
  return static_cast<int>(tack::itemsize(t));
}
// The IR's type names: tack::name ("bool", "i8", ..., "f64"), the kernel language's spelling.
using tack::name;

// The type of an array parameter: element type, rank (1 to 3: the dimensions of the array's
// shape) and vector width. A `tack.vec(n, dtype)` array has vec_width = n > 0: each element of
// its shape holds n scalars stored contiguously, and the IR addresses it with one more index
// than its rank (the vector component, last). Plain arrays have vec_width = 0.
struct ArrayType {
  ScalarType elem = ScalarType::f32;
  int rank = 1;
  int vec_width = 0;
  // tack.arrays.Strided: consecutive first-dimension indices are `pitch` elements apart (a
  // value the ABI passes after the extents) instead of one row apart.
  bool strided = false;

  // Number of indices a load or store takes = number of extents the ABI passes.
  int index_count() const { return rank + (vec_width > 0 ? 1 : 0); }
  // Number of i64 values the ABI passes after the data pointer: the extents, then the pitch.
  int abi_count() const { return index_count() + (strided ? 1 : 0); }
  bool operator==(const ArrayType&) const = default;
};

// "array<f32, 2>" or "array<vec3<f32>, 1>".
std::string to_string(const ArrayType& t);

}  // namespace tack::ir
