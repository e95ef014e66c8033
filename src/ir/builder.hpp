// Checked helpers that build IR by hand: for lowering, for passes, and for unit tests. Each
// helper checks its operands' types at once (an internal error names the mismatch), so a bad
// tree fails where it is built instead of in the verifier or in a backend.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "ir/ir.hpp"

namespace tack::ir {

// ---------------------------------------------------------------- constants
// int_const wraps v to t's width (as the language's integer wrap does).
Expr int_const(ScalarType t, int64_t v);
// float_const rounds v to t (f32 or f64).
Expr float_const(ScalarType t, double v);
inline Expr const_i32(int32_t v) {
  return int_const(ScalarType::i32, v);
}
inline Expr const_i64(int64_t v) {
  return int_const(ScalarType::i64, v);
}
inline Expr const_u32(uint32_t v) {
  return int_const(ScalarType::u32, v);
}
inline Expr const_f32(float v) {
  return float_const(ScalarType::f32, v);
}
inline Expr const_f64(double v) {
  return float_const(ScalarType::f64, v);
}
Expr const_bool(bool v);
// A constant of any numeric type from an integer value (0 and 1 for bool).
Expr make_const(ScalarType t, int64_t v);

// ---------------------------------------------------------------- expressions
Expr var(ScalarType t, std::string name);

Expr binary(BinaryOp op, Expr a, Expr b);
inline Expr add(Expr a, Expr b) {
  return binary(BinaryOp::Add, std::move(a), std::move(b));
}
inline Expr sub(Expr a, Expr b) {
  return binary(BinaryOp::Sub, std::move(a), std::move(b));
}
inline Expr mul(Expr a, Expr b) {
  return binary(BinaryOp::Mul, std::move(a), std::move(b));
}
inline Expr truediv(Expr a, Expr b) {
  return binary(BinaryOp::TrueDiv, std::move(a), std::move(b));
}
inline Expr floordiv(Expr a, Expr b) {
  return binary(BinaryOp::FloorDiv, std::move(a), std::move(b));
}
inline Expr mod(Expr a, Expr b) {
  return binary(BinaryOp::Mod, std::move(a), std::move(b));
}
inline Expr power(Expr a, Expr b) {
  return binary(BinaryOp::Pow, std::move(a), std::move(b));
}
inline Expr bit_and(Expr a, Expr b) {
  return binary(BinaryOp::BitAnd, std::move(a), std::move(b));
}
inline Expr bit_or(Expr a, Expr b) {
  return binary(BinaryOp::BitOr, std::move(a), std::move(b));
}
inline Expr bit_xor(Expr a, Expr b) {
  return binary(BinaryOp::BitXor, std::move(a), std::move(b));
}
inline Expr shl(Expr a, Expr b) {
  return binary(BinaryOp::Shl, std::move(a), std::move(b));
}
inline Expr shr(Expr a, Expr b) {
  return binary(BinaryOp::Shr, std::move(a), std::move(b));
}

Expr compare(CompareOp op, Expr a, Expr b);
inline Expr lt(Expr a, Expr b) {
  return compare(CompareOp::Lt, std::move(a), std::move(b));
}
inline Expr le(Expr a, Expr b) {
  return compare(CompareOp::Le, std::move(a), std::move(b));
}
inline Expr gt(Expr a, Expr b) {
  return compare(CompareOp::Gt, std::move(a), std::move(b));
}
inline Expr ge(Expr a, Expr b) {
  return compare(CompareOp::Ge, std::move(a), std::move(b));
}
inline Expr eq(Expr a, Expr b) {
  return compare(CompareOp::Eq, std::move(a), std::move(b));
}
inline Expr ne(Expr a, Expr b) {
  return compare(CompareOp::Ne, std::move(a), std::move(b));
}

Expr logical_and(Expr a, Expr b);
Expr logical_or(Expr a, Expr b);
Expr logical_not(Expr a);
Expr neg(Expr a);
Expr invert(Expr a);
Expr select(Expr cond, Expr t, Expr f);
// Returns value itself when it already has type t.
Expr cast(ScalarType t, Expr value);
Expr call(MathFn fn, std::vector<Expr> args);

// ---------------------------------------------------------------- statements
Stmt let(std::string name, Expr value);
Stmt assign(std::string name, Expr value);
Stmt block(std::vector<Stmt> stmts);
Stmt if_then(Expr cond, Stmt then_body, Stmt else_body = nullptr);
// for name in range(start, stop, step); start, stop and step must share one integer type.
// lanes: see For::lanes.
Stmt for_range(std::string name, Expr start, Expr stop, Expr step, Stmt body, bool lanes = false);
Stmt while_loop(Expr cond, Stmt body);
Stmt break_stmt();
Stmt continue_stmt();
Stmt eval(Expr e);
Stmt labeled(std::string label, Stmt body);
Stmt exit_block(std::string label);
Stmt local_array(std::string name, ScalarType elem, std::vector<int64_t> dims);
Expr local_load(ScalarType elem, std::string name, std::vector<Expr> indices);
Stmt local_store(std::string name, std::vector<Expr> indices, Expr value);

// ---------------------------------------------------------------- arrays and the kernel

// An array parameter as seen while building: its index in the function and its type.
struct ArrayRef {
  int index = -1;
  ArrayType type;
};

Expr load(const ArrayRef& a, std::vector<Expr> indices);
Stmt store(const ArrayRef& a, std::vector<Expr> indices, Expr value, bool streaming = false);
Expr shape(const ArrayRef& a, int dim);
Expr atomic(AtomicOp op, const ArrayRef& a, std::vector<Expr> indices, Expr value);

// range(start, stop, step) for one ParallelFor dim; the one-argument form is range(stop).
ParallelDim range_dim(std::string name, Expr start, Expr stop, Expr step);
ParallelDim range_dim(std::string name, Expr stop);

// Builds a Function parameter by parameter, then prelude statements, then the ParallelFor.
class FunctionBuilder {
 public:
  explicit FunctionBuilder(std::string name, ScalarType default_float = ScalarType::f32);

  ArrayRef array_param(std::string name, ScalarType elem, int rank = 1, int vec_width = 0);
  // The parameter as an expression (a Param node).
  Expr scalar_param(std::string name, ScalarType type);

  FunctionBuilder& prelude(Stmt s);
  // Finishes the function with `parallel for dims: body`.
  Function build(std::vector<ParallelDim> dims, Stmt body);
  // Finishes with an arbitrary body (for verifier tests of malformed kernels).
  Function build_raw(Stmt body);

 private:
  Function fn_;
  std::vector<Stmt> prelude_;
};

}  // namespace tack::ir
