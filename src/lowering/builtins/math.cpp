// Math in kernels: the math module's functions (also spelled tack.<name> and bare), Python's and
// NumPy's roundings, tack.rsqrt, tack.clamp and tack.math's shading-language helpers.
#include <cmath>

#include "lowering/builtins/builtin.hpp"
#include "lowering/lowerer.hpp"
#include "lowering/typing.hpp"

namespace tack::lowering {
namespace {

using ir::MathFn;
using ir::ScalarType;

// Arguments of a float function, all converted to one float type: the widest float among the
// typed arguments, an integer counting as the default float.
std::vector<ir::Expr> float_args(Lowerer& l, const BuiltinCall& c, std::vector<Value>& args) {
  for (size_t k = 0; k < args.size(); ++k) {
    if (!args[k].is_weak() && ir::is_bool(args[k].expr->type)) {
      l.fail(c.exprs[k]->loc, call_name(c.name) + " takes numbers, got a bool");
    }
  }
  std::optional<ScalarType> t;
  for (const Value& v : args) {
    if (v.is_weak()) continue;
    const ScalarType vt = tack::is_float(v.expr->type) ? v.expr->type : l.default_float();
    t = t ? *promote(*t, vt) : vt;
  }
  const ScalarType ft = t ? *t : l.default_float();
  std::vector<ir::Expr> out;
  for (const Value& v : args) {
    out.push_back(v.is_weak() ? make_constant(*v.weak, ft) : ir::cast(ft, v.expr));
  }
  return out;
}

Value lower_float_fn(Lowerer& l, const BuiltinCall& c, std::vector<Value>& args) {
  return Value::typed(ir::call(c.builtin.fn, float_args(l, c, args)));
}

Value lower_float_pow(Lowerer& l, const BuiltinCall& c, std::vector<Value>& args) {
  const std::vector<ir::Expr> a = float_args(l, c, args);
  return Value::typed(ir::power(a[0], a[1]));
}

Value lower_rsqrt(Lowerer& l, const BuiltinCall& c, std::vector<Value>& args) {
  const std::vector<ir::Expr> a = float_args(l, c, args);
  return Value::typed(
      ir::truediv(ir::float_const(a[0]->type, 1.0), ir::call(MathFn::Sqrt, {a[0]})));
}

// clamp(x, lo, hi) = min(max(x, lo), hi), in the type the three merge into.
Value lower_clamp(Lowerer& l, const BuiltinCall& c, std::vector<Value>& args) {
  const ScalarType t = merged_number_type(l, c, args);
  const ir::Expr x = l.coerce(args[0], t, c.exprs[0]->loc, "the other arguments");
  const ir::Expr lo = l.coerce(args[1], t, c.exprs[1]->loc, "the other arguments");
  const ir::Expr hi = l.coerce(args[2], t, c.exprs[2]->loc, "the other arguments");
  return Value::typed(ir::call(MathFn::Min, {ir::call(MathFn::Max, {x, lo}), hi}));
}

// tack.math's float functions: the arguments' common type, an integer one giving the default
// float; each argument used more than once is evaluated once (spilled unless a leaf).
struct Shading {
  ScalarType t;
  std::vector<ir::Expr> a;
  ir::Expr zero, one;
  ir::Expr clamp01(const ir::Expr& x) const {
    return ir::call(MathFn::Min, {ir::call(MathFn::Max, {x, zero}), one});
  }
};

Shading shading_args(Lowerer& l, const BuiltinCall& c, std::vector<Value>& args) {
  refuse_bool(l, c, args[0], "convert it first: float(...)");
  ScalarType t = merged_number_type(l, c, args);
  if (!tack::is_float(t)) t = l.default_float();
  Shading s{t, {}, ir::make_const(t, 0), ir::make_const(t, 1)};
  for (size_t k = 0; k < args.size(); ++k) {
    ir::Expr e = l.coerce(args[k], t, c.exprs[k]->loc, "the other arguments");
    s.a.push_back(cheap_to_repeat(e) ? e : l.spill(e));
  }
  return s;
}

// x - floor(x): in [0, 1) (1.0 itself for tiny negative x in f32).
Value lower_fract(Lowerer& l, const BuiltinCall& c, std::vector<Value>& args) {
  const Shading s = shading_args(l, c, args);
  return Value::typed(ir::sub(s.a[0], ir::call(MathFn::Floor, {s.a[0]})));
}

// a * (1 - t) + b * t: exactly a at t = 0 and b at t = 1.
Value lower_mix(Lowerer& l, const BuiltinCall& c, std::vector<Value>& args) {
  const Shading s = shading_args(l, c, args);
  return Value::typed(ir::add(ir::mul(s.a[0], ir::sub(s.one, s.a[2])), ir::mul(s.a[1], s.a[2])));
}

Value lower_saturate(Lowerer& l, const BuiltinCall& c, std::vector<Value>& args) {
  const Shading s = shading_args(l, c, args);
  return Value::typed(s.clamp01(s.a[0]));
}

// step(edge, x): 0 below the edge, 1 from it on.
Value lower_step(Lowerer& l, const BuiltinCall& c, std::vector<Value>& args) {
  const Shading s = shading_args(l, c, args);
  return Value::typed(ir::select(ir::lt(s.a[1], s.a[0]), s.zero, s.one));
}

// smoothstep(e0, e1, x): 3s^2 - 2s^3 of s = clamp((x - e0) / (e1 - e0)).
Value lower_smoothstep(Lowerer& l, const BuiltinCall& c, std::vector<Value>& args) {
  const Shading s = shading_args(l, c, args);
  const ir::Expr u =
      l.spill(s.clamp01(ir::truediv(ir::sub(s.a[2], s.a[0]), ir::sub(s.a[1], s.a[0]))));
  return Value::typed(
      ir::mul(ir::mul(u, u), ir::sub(ir::make_const(s.t, 3), ir::mul(ir::make_const(s.t, 2), u))));
}

// NumPy's sign: -1, 0 or 1 in x's type; NaN stays NaN, -0.0 gives 0.
Value lower_sign(Lowerer& l, const BuiltinCall& c, std::vector<Value>& args) {
  const Value& v = args[0];
  refuse_bool(l, c, v, "convert it first: int(...)");
  if (v.is_weak()) {
    const double x = v.weak->as_double();
    if (v.weak->is_float) {
      return Value::literal(Constant::of_float(x > 0 ? 1.0 : x < 0 ? -1.0 : x == x ? 0.0 : x));
    }
    return Value::literal(Constant::of_int(x > 0 ? 1 : x < 0 ? -1 : 0));
  }
  const ir::Expr x = cheap_to_repeat(v.expr) ? v.expr : l.spill(v.expr);
  const ScalarType t = x->type;
  ir::Expr rest = ir::make_const(t, 0);
  if (tack::is_float(t)) rest = ir::select(ir::eq(x, x), rest, x);
  if (ir::is_signed_int(t) || tack::is_float(t)) {
    rest = ir::select(ir::lt(x, ir::make_const(t, 0)), ir::make_const(t, -1), rest);
  }
  return Value::typed(ir::select(ir::gt(x, ir::make_const(t, 0)), ir::make_const(t, 1), rest));
}

}  // namespace

std::vector<Builtin> math_builtins() {
  constexpr Form E = Form::ElementWise;
  constexpr Needs all = Needs::Nothing;
  std::vector<Builtin> out;
  // math.<f>, also tack.<f> and bare (from math import sqrt): floats in, the float type kept.
  struct F {
    const char* name;
    MathFn fn;
    int args;
    const char* doc;
  };
  const F floats[] = {
      {"sqrt", MathFn::Sqrt, 1, "the square root"},
      {"cbrt", MathFn::Cbrt, 1, "the cube root"},
      {"sin", MathFn::Sin, 1, "the sine"},
      {"cos", MathFn::Cos, 1, "the cosine"},
      {"tan", MathFn::Tan, 1, "the tangent"},
      {"asin", MathFn::Asin, 1, "the arc sine"},
      {"acos", MathFn::Acos, 1, "the arc cosine"},
      {"atan", MathFn::Atan, 1, "the arc tangent"},
      {"sinh", MathFn::Sinh, 1, "the hyperbolic sine"},
      {"cosh", MathFn::Cosh, 1, "the hyperbolic cosine"},
      {"tanh", MathFn::Tanh, 1, "the hyperbolic tangent"},
      {"asinh", MathFn::Asinh, 1, "the inverse hyperbolic sine"},
      {"acosh", MathFn::Acosh, 1, "the inverse hyperbolic cosine"},
      {"atanh", MathFn::Atanh, 1, "the inverse hyperbolic tangent"},
      {"exp", MathFn::Exp, 1, "e ** x"},
      {"exp2", MathFn::Exp2, 1, "2 ** x"},
      {"expm1", MathFn::Expm1, 1, "e ** x - 1, accurate near 0"},
      {"log", MathFn::Log, 1, "the natural logarithm"},
      {"log2", MathFn::Log2, 1, "the base-2 logarithm"},
      {"log10", MathFn::Log10, 1, "the base-10 logarithm"},
      {"log1p", MathFn::Log1p, 1, "log(1 + x), accurate near 0"},
      {"erf", MathFn::Erf, 1, "the error function"},
      {"erfc", MathFn::Erfc, 1, "1 - erf(x), accurate for large x"},
      {"atan2", MathFn::Atan2, 2, "the angle of the point (x, y), y first"},
      {"fmod", MathFn::Fmod, 2, "the remainder of x / y with x's sign (C's fmod)"},
      {"copysign", MathFn::Copysign, 2, "|x| with y's sign"},
      {"hypot", MathFn::Hypot, 2, "sqrt(x * x + y * y) without overflow"},
      {"isnan", MathFn::IsNan, 1, "whether x is NaN (a bool)"},
      {"isinf", MathFn::IsInf, 1, "whether x is infinite (a bool)"},
      {"isfinite", MathFn::IsFinite, 1, "whether x is finite (a bool)"},
      {"fabs", MathFn::Abs, 1, "|x| as a float"},
  };
  for (const F& f : floats) {
    const std::string n = f.name;
    out.push_back({{"math." + n, "tack." + n, n},
                   f.args,
                   f.args,
                   E,
                   lower_float_fn,
                   "math." + n + (f.args == 1 ? "(x)" : "(x, y)"),
                   f.doc,
                   all,
                   {},
                   f.fn});
  }
  // Python's math.floor/ceil/trunc give an int; tack.floor/ceil/trunc/round keep the float (as
  // NumPy's do).
  const F rounding[] = {{"floor", MathFn::Floor, 1, "rounded down"},
                        {"ceil", MathFn::Ceil, 1, "rounded up"},
                        {"trunc", MathFn::Trunc, 1, "rounded toward zero"}};
  for (const F& f : rounding) {
    const std::string n = f.name;
    out.push_back({{"math." + n, n},
                   1,
                   1,
                   E,
                   lower_int_rounding,
                   "math." + n + "(x)",
                   std::string("x ") + f.doc + ", Python's: an integer (i64); integers unchanged",
                   all,
                   {},
                   f.fn});
    out.push_back({{"tack." + n},
                   1,
                   1,
                   E,
                   lower_float_fn,
                   "tack." + n + "(x)",
                   std::string("x ") + f.doc + ", NumPy's: the float type is kept",
                   all,
                   {},
                   f.fn});
  }
  out.push_back({{"tack.round"},
                 1,
                 1,
                 E,
                 lower_float_fn,
                 "tack.round(x)",
                 "x rounded to the nearest, halves to even, NumPy's: the float type is kept",
                 all,
                 {},
                 MathFn::Round});
  out.push_back({{"math.pow"},
                 2,
                 2,
                 E,
                 lower_float_pow,
                 "math.pow(x, y)",
                 "x ** y in the float type (the wider float, or the default float)"});
  out.push_back({{"tack.rsqrt"}, 1, 1, E, lower_rsqrt, "tack.rsqrt(x)", "1 / sqrt(x)"});
  out.push_back({{"tack.clamp", "tack.math.clamp"},
                 3,
                 3,
                 E,
                 lower_clamp,
                 "tack.math.clamp(x, lo, hi)",
                 "min(max(x, lo), hi) in the common type",
                 all,
                 {"tack.math.clamp"}});
  out.push_back({{"tack.math.fract"},
                 1,
                 1,
                 E,
                 lower_fract,
                 "tack.math.fract(x)",
                 "x - floor(x)",
                 all,
                 {"tack.math.fract"}});
  out.push_back({{"tack.math.mix"},
                 3,
                 3,
                 E,
                 lower_mix,
                 "tack.math.mix(a, b, t)",
                 "a * (1 - t) + b * t",
                 all,
                 {"tack.math.mix"}});
  out.push_back({{"tack.math.saturate"},
                 1,
                 1,
                 E,
                 lower_saturate,
                 "tack.math.saturate(x)",
                 "clamp(x, 0, 1)",
                 all,
                 {"tack.math.saturate"}});
  out.push_back({{"tack.math.step"},
                 2,
                 2,
                 E,
                 lower_step,
                 "tack.math.step(edge, x)",
                 "0 below the edge, else 1",
                 all,
                 {"tack.math.step"}});
  out.push_back({{"tack.math.smoothstep"},
                 3,
                 3,
                 E,
                 lower_smoothstep,
                 "tack.math.smoothstep(e0, e1, x)",
                 "Hermite interpolation between 0 and 1 as x goes from e0 to e1",
                 all,
                 {"tack.math.smoothstep"}});
  out.push_back({{"tack.math.sign"},
                 1,
                 1,
                 E,
                 lower_sign,
                 "tack.math.sign(x)",
                 "-1, 0 or 1 in x's type (NumPy's: NaN stays NaN)",
                 all,
                 {"tack.math.sign"}});
  return out;
}

}  // namespace tack::lowering
