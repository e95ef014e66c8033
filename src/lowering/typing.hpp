// The typing rules of the kernel language: the promotion table for two typed operands, which
// conversions a local accepts implicitly, and the type-describing words of error messages.
// docs/language.md ("Types and semantics") is the user-facing statement of these rules.
#pragma once

#include <optional>
#include <string>

#include "ir/types.hpp"

namespace tack::lowering {

// The common type of two typed numeric operands of an arithmetic or comparison operator:
//   same type                      -> that type
//   f32 with f64                   -> f64
//   an integer with a float        -> the float
//   two signed or two unsigned     -> the wider
//   signed with unsigned           -> the signed type if it is wider, else the signed type of
//                                     twice the unsigned width (u8+i8 -> i16, u32+i32 -> i64)
//   u64 with any signed type       -> none (no 64-bit type holds both; the user converts)
// Bool is not numeric: callers decide what bool means in their context first.
std::optional<ir::ScalarType> promote(ir::ScalarType a, ir::ScalarType b);

// The common type of two values that merge into one (the arms of `a if c else b`, the returns
// of a device function): promote(), except that bool merges with any type into that type.
std::optional<ir::ScalarType> merge(ir::ScalarType a, ir::ScalarType b);

// Whether a `from` value converts implicitly to a local of type `to`: the conversion never loses
// a value's meaning (NumPy's "safe" casting): bool to anything; an integer to any float; f32 to
// f64; an integer to a wider integer of the same signedness, or unsigned to a wider signed type.
bool converts_implicitly(ir::ScalarType from, ir::ScalarType to);

// "f32", "i64", "bool": the names users see (they are also tack.f32, tack.i64, ...).
std::string type_name(ir::ScalarType t);

// The cast a user writes to convert to t: "tack.f32(...)", "int(...)" is not used because its
// result type depends on the argument.
std::string cast_spelling(ir::ScalarType t);

}  // namespace tack::lowering
