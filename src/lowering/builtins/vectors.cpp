// Vectors and matrices (docs/design/vectors.md): tack.Vector, tack.Matrix, tack.Matrix.identity,
// tack.select, and the geometry functions (length, distance, normalize, dot, cross; also spelled
// tack.math.<name>). Their values are lowering/vectors.cpp's.
#include "lowering/builtins/builtin.hpp"
#include "lowering/lowerer.hpp"

namespace tack::lowering {
namespace {

using ir::MathFn;
using ir::ScalarType;

Value lower_vector_ctor(Lowerer& l, const BuiltinCall& c, std::vector<Value>&) {
  return l.construct_vector(c.call, false);
}

Value lower_matrix_ctor(Lowerer& l, const BuiltinCall& c, std::vector<Value>&) {
  return l.construct_vector(c.call, true);
}

Value lower_identity(Lowerer& l, const BuiltinCall& c, std::vector<Value>&) {
  return l.identity_matrix(c.call);
}

Value lower_select(Lowerer& l, const BuiltinCall& c, std::vector<Value>& args) {
  return l.vector_select(args[0], args[1], args[2], c.loc());
}

// Vectors: the norm, the unit vector, the norm of the difference. Numbers, as GLSL: |x|, x / |x|
// (+-1; NaN for 0) and |a - b|, in the float type.
Value norm_like(Lowerer& l, const BuiltinCall& c, Value v, bool normalize) {
  if (v.is_matrix()) l.fail(c.exprs[0]->loc, call_name(c.name) + " takes a vector or a number");
  if (v.is_vector()) return l.vector_method(normalize ? "normalized" : "norm", {v}, c.loc());
  if (!v.is_weak() && ir::is_bool(v.expr->type)) {
    l.fail(c.exprs[0]->loc, call_name(c.name) + " takes a number, got a bool");
  }
  const ScalarType t = l.type_of(v);
  const ScalarType ft = tack::is_float(t) ? t : l.default_float();
  ir::Expr x = v.is_weak() ? make_constant(*v.weak, ft) : ir::cast(ft, v.expr);
  if (!cheap_to_repeat(x)) x = l.spill(x);
  ir::Expr magnitude = ir::call(MathFn::Abs, {x});
  if (normalize) return Value::typed(ir::truediv(x, magnitude));
  return Value::typed(magnitude);
}

Value lower_length(Lowerer& l, const BuiltinCall& c, std::vector<Value>& args) {
  return norm_like(l, c, args[0], false);
}

Value lower_normalize(Lowerer& l, const BuiltinCall& c, std::vector<Value>& args) {
  return norm_like(l, c, args[0], true);
}

Value lower_distance(Lowerer& l, const BuiltinCall& c, std::vector<Value>& args) {
  if (args[0].is_vecmat() != args[1].is_vecmat()) {
    l.fail(c.loc(), call_name(c.name) + " takes two vectors or two numbers; here " +
                        l.describe(args[0]) + " and " + l.describe(args[1]));
  }
  return norm_like(l, c, l.binary(frontend::BinaryOp::Sub, args[0], args[1], c.loc()), false);
}

Value dot_or_cross(Lowerer& l, const BuiltinCall& c, std::vector<Value>& args, const char* m) {
  if (!args[0].is_vector()) {
    l.fail(c.exprs[0]->loc,
           call_name(c.name) + " takes two vectors; this is " + l.describe(args[0]));
  }
  return l.vector_method(m, {args[0], args[1]}, c.loc());
}

Value lower_dot(Lowerer& l, const BuiltinCall& c, std::vector<Value>& args) {
  return dot_or_cross(l, c, args, "dot");
}

Value lower_cross(Lowerer& l, const BuiltinCall& c, std::vector<Value>& args) {
  return dot_or_cross(l, c, args, "cross");
}

}  // namespace

std::vector<Builtin> vector_builtins() {
  constexpr Form ops = Form::Operands;
  constexpr Needs all = Needs::Nothing;
  return {
      {{"tack.Vector"},
       1,
       2,
       Form::Raw,
       lower_vector_ctor,
       "tack.Vector([x, y, z][, dtype])",
       "a small vector value",
       all,
       {"tack.Vector"}},
      {{"tack.Matrix"},
       1,
       2,
       Form::Raw,
       lower_matrix_ctor,
       "tack.Matrix([[a, b], [c, d]][, dtype])",
       "a small matrix value (row-major)",
       all,
       {"tack.Matrix"}},
      {{"tack.Matrix.identity"},
       1,
       2,
       Form::Raw,
       lower_identity,
       "tack.Matrix.identity(n[, dtype])",
       "the n x n identity matrix (n a constant from 1 to 4); its ones and zeros are weakly "
       "typed like literals without a dtype",
       all,
       {"tack.Matrix.identity"}},
      {{"tack.select"},
       3,
       3,
       ops,
       lower_select,
       "tack.select(mask, a, b)",
       "component-wise a where mask, else b",
       all,
       {"tack.select"}},
      {{"tack.length", "tack.math.length"},
       1,
       1,
       ops,
       lower_length,
       "tack.length(v)",
       "the Euclidean length of a vector (|x| of a number)",
       all,
       {"tack.length", "tack.math.length"}},
      {{"tack.distance", "tack.math.distance"},
       2,
       2,
       ops,
       lower_distance,
       "tack.distance(a, b)",
       "the length of a - b",
       all,
       {"tack.distance", "tack.math.distance"}},
      {{"tack.normalize", "tack.math.normalize"},
       1,
       1,
       ops,
       lower_normalize,
       "tack.normalize(v)",
       "v divided by its length",
       all,
       {"tack.normalize", "tack.math.normalize"}},
      // tack.dot is also the host's dot product of two arrays (tack.algorithms).
      {{"tack.dot", "tack.math.dot"},
       2,
       2,
       ops,
       lower_dot,
       "tack.math.dot(a, b)",
       "the dot product of two vectors",
       all,
       {"tack.math.dot"}},
      {{"tack.cross", "tack.math.cross"},
       2,
       2,
       ops,
       lower_cross,
       "tack.cross(a, b)",
       "the cross product of two 3-vectors",
       all,
       {"tack.cross", "tack.math.cross"}},
  };
}

}  // namespace tack::lowering
