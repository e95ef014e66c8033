// The argument signature a kernel is compiled for: one entry per parameter, array or scalar,
// with its type. Dispatch computes it from the call's arguments (docs/design/dispatch.md); lowering
// types the kernel's body from it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/types.hpp"

namespace tack::compiler {

struct ArgType {
  enum class Kind : std::uint8_t { Array, Scalar };
  Kind kind = Kind::Scalar;
  ir::ScalarType type = ir::ScalarType::i32;  // scalar type, or the array's element type
  std::uint8_t rank = 0;                      // arrays: 1 to 3
  std::uint8_t vec_width = 0;                 // arrays: 0, or n for tack.vec(n, dtype)
  std::uint8_t mat_cols = 0;  // arrays: tack.mat(r, c, dtype) has vec_width r * c, mat_cols c
  std::uint8_t strided = 0;  // arrays: 1 for a tack.arrays.Strided of step > 1 (rows a pitch apart)
  std::uint8_t texture = 0;  // arrays: a tack::Texture3D's filter (TextureFilter), 0 otherwise

  bool is_array() const { return kind == Kind::Array; }
  bool operator==(const ArgType&) const = default;
};

// "array<f32, 1>, f32, i32": for messages and cache keys.
std::string to_string(const std::vector<ArgType>& signature);

// The float type that int / int and weakly typed float literals take: f64 when an f64 array is
// among the arguments (or an f64 scalar), f32 otherwise (docs/language.md, "Where types come
// from").
ir::ScalarType default_float_type(const std::vector<ArgType>& signature);

}  // namespace tack::compiler
