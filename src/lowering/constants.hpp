// Compile-time values of literal expressions (`1`, `2.5`, `-1`, `1 << 20`, `math.pi`): they are
// weakly typed, so lowering folds them with Python's semantics and gives them a type only when
// they meet a typed operand or a destination (docs/language.md, "Literals are weakly typed").
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "frontend/ast.hpp"
#include "ir/ir.hpp"

namespace tack::lowering {

// Python ints are unbounded; folding happens in 128 bits and a result outside the union of the
// i64 and u64 ranges is a CompileError, so every folded integer fits some IR type.
__extension__ typedef __int128 Int128;

struct Constant {
  bool is_float = false;
  Int128 i = 0;    // when !is_float
  double f = 0.0;  // when is_float

  static Constant of_int(Int128 v) { return Constant{false, v, 0.0}; }
  static Constant of_float(double v) { return Constant{true, 0, v}; }
  double as_double() const { return is_float ? f : static_cast<double>(i); }
  bool is_zero() const { return is_float ? f == 0.0 : i == 0; }
  // As Python prints it: "300", "-1", "0.5", "inf".
  std::string text() const;
};

// A folded value, or why folding failed (what Python would raise), as a message fragment.
struct Folded {
  std::optional<Constant> value;
  std::string error;
};

Folded fold_binary(frontend::BinaryOp op, const Constant& a, const Constant& b);
// Neg, Pos and Invert (Not is a truth test, see truth()).
Folded fold_unary(frontend::UnaryOp op, const Constant& a);
bool fold_compare(frontend::CompareOp op, const Constant& a, const Constant& b);
bool truth(const Constant& c);

// Whether integer constant c is in the range of integer type t.
bool fits(const Constant& c, ir::ScalarType t);
// The type a constant takes when nothing else decides: i32, else i64, else u64 for integers;
// the function's default float for floats.
ir::ScalarType default_type(const Constant& c, ir::ScalarType default_float);
// The constant as an IR constant of type t. Integers wrap to t (callers check fits() first when
// wrapping is not what the program asked for); floats round to t; bool is c != 0.
ir::Expr make_constant(const Constant& c, ir::ScalarType t);
// Python's round(x) on a float: half to even.
double round_half_even(double v);

}  // namespace tack::lowering
