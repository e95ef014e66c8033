// One switch over the ten array element types: with_scalar_type(t, f) calls f with a value of t's
// C++ type (a tag: only its type matters) and returns what f returns.
#pragma once

#include <cstdint>
#include <utility>

#include "support/error.hpp"
#include "tack/dtype.hpp"

namespace tack::detail {

template <class F>
decltype(auto) with_scalar_type(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::i8:
      return std::forward<F>(f)(std::int8_t{});
    case ScalarType::i16:
      return std::forward<F>(f)(std::int16_t{});
    case ScalarType::i32:
      return std::forward<F>(f)(std::int32_t{});
    case ScalarType::i64:
      return std::forward<F>(f)(std::int64_t{});
    case ScalarType::u8:
      return std::forward<F>(f)(std::uint8_t{});
    case ScalarType::u16:
      return std::forward<F>(f)(std::uint16_t{});
    case ScalarType::u32:
      return std::forward<F>(f)(std::uint32_t{});
    case ScalarType::u64:
      return std::forward<F>(f)(std::uint64_t{});
    case ScalarType::f32:
      return std::forward<F>(f)(float{});
    case ScalarType::f64:
    case ScalarType::boolean:  // no array holds bool (check_array_dtype)
      break;
  }
  TACK_INTERNAL_ASSERT(t == ScalarType::f64, "with_scalar_type takes an array element type");
  return std::forward<F>(f)(double{});
}

}  // namespace tack::detail
