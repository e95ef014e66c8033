// Python's builtins in kernels: len, int, float, bool, abs, min, max, pow, round, any, all.
#include <cmath>

#include "lowering/builtins/builtin.hpp"
#include "lowering/lowerer.hpp"
#include "lowering/typing.hpp"

namespace tack::lowering {
namespace {

using ir::MathFn;
using ir::ScalarType;

Value lower_len(Lowerer& l, const BuiltinCall& c, std::vector<Value>&) {
  const frontend::Expr& arg = *c.call.args[0];
  Value v = l.lower_expr(arg);
  if (v.is_vecmat()) return Value::literal(Constant::of_int(v.rows));  // a matrix: its rows
  if (v.is_tuple()) return Value::literal(Constant::of_int(static_cast<Int128>(v.tuple.size())));
  if (v.array && v.array->texture) l.refuse_texture(*v.array, arg.loc);
  if (!v.array) {
    l.fail(arg.loc, "len() takes an array or a tuple; this is " +
                        (v.is_none() ? std::string("no value")
                                     : "a number (" + type_name(l.type_of(v)) + ")"));
  }
  if (v.array->kind == SymbolKind::LocalArray) return Value::typed(ir::const_i64(v.array->dims[0]));
  return Value::typed(ir::shape(ir::ArrayRef{v.array->param, v.array->array}, 0));
}

Value lower_int(Lowerer& l, const BuiltinCall& c, std::vector<Value>& args) {
  const Value& v = args[0];
  if (v.is_weak()) return v.weak->is_float ? int_literal(l, std::trunc(v.weak->f), c) : v;
  if (ir::is_int(v.expr->type)) return v;  // int() of an integer is the integer itself
  if (ir::is_bool(v.expr->type)) return Value::typed(ir::cast(ScalarType::i32, v.expr));
  return Value::typed(ir::cast(ScalarType::i64, v.expr));
}

Value lower_float(Lowerer& l, const BuiltinCall&, std::vector<Value>& args) {
  const Value& v = args[0];
  if (v.is_weak()) return Value::literal(Constant::of_float(v.weak->as_double()));
  if (tack::is_float(v.expr->type)) return v;
  return Value::typed(ir::cast(l.default_float(), v.expr));
}

Value lower_bool(Lowerer& l, const BuiltinCall& c, std::vector<Value>& args) {
  return Value::typed(l.to_bool(args[0], c.exprs[0]->loc));
}

Value lower_abs(Lowerer& l, const BuiltinCall& c, std::vector<Value>& args) {
  const Value& v = args[0];
  refuse_bool(l, c, v, "convert it first: int(...)");
  if (v.is_weak()) {
    return Value::literal(v.weak->is_float
                              ? Constant::of_float(std::fabs(v.weak->f))
                              : Constant::of_int(v.weak->i < 0 ? -v.weak->i : v.weak->i));
  }
  return Value::typed(ir::call(MathFn::Abs, {v.expr}));
}

Value min_max(Lowerer& l, const BuiltinCall& c, std::vector<Value>& args, bool is_min) {
  const ScalarType t = merged_number_type(l, c, args);
  bool all_weak = true;
  for (const Value& v : args) all_weak = all_weak && v.is_weak();
  if (all_weak) {
    // Python's min/max: the first of equal values wins, but -0.0 is below +0.0 (as the code
    // the kernel's min/max compile to: min takes a -0.0 and max a +0.0 from either side).
    auto negative = [](const Constant& k) { return k.is_float && std::signbit(k.f); };
    Constant best = *args[0].weak;
    for (size_t k = 1; k < args.size(); ++k) {
      const Constant& x = *args[k].weak;
      const bool tie = fold_compare(frontend::CompareOp::Eq, x, best) &&
                       (is_min ? negative(x) && !negative(best) : negative(best) && !negative(x));
      if (tie ||
          fold_compare(is_min ? frontend::CompareOp::Lt : frontend::CompareOp::Gt, x, best)) {
        best = x;
      }
    }
    return Value::literal(best);
  }
  const MathFn fn = is_min ? MathFn::Min : MathFn::Max;
  ir::Expr e = l.coerce(args[0], t, c.exprs[0]->loc, "the other arguments");
  for (size_t k = 1; k < args.size(); ++k) {
    e = ir::call(fn, {e, l.coerce(args[k], t, c.exprs[k]->loc, "the other arguments")});
  }
  return Value::typed(e);
}

Value lower_min(Lowerer& l, const BuiltinCall& c, std::vector<Value>& args) {
  return min_max(l, c, args, true);
}

Value lower_max(Lowerer& l, const BuiltinCall& c, std::vector<Value>& args) {
  return min_max(l, c, args, false);
}

Value lower_pow(Lowerer& l, const BuiltinCall& c, std::vector<Value>& args) {
  return l.binary(frontend::BinaryOp::Pow, args[0], args[1], c.loc());
}

Value lower_any(Lowerer& l, const BuiltinCall& c, std::vector<Value>& args) {
  return l.reduce_mask(args[0], true, c.loc());
}

Value lower_all(Lowerer& l, const BuiltinCall& c, std::vector<Value>& args) {
  return l.reduce_mask(args[0], false, c.loc());
}

}  // namespace

// round(x), and math.floor/ceil/trunc (math.cpp): Python gives an int.
Value lower_int_rounding(Lowerer& l, const BuiltinCall& c, std::vector<Value>& args) {
  const Value& v = args[0];
  refuse_bool(l, c, v, "convert it first: int(...)");
  const MathFn fn = c.builtin.fn;
  if (v.is_weak()) {
    if (!v.weak->is_float) return v;
    const double x = v.weak->f;
    const double r = fn == MathFn::Round   ? round_half_even(x)
                     : fn == MathFn::Floor ? std::floor(x)
                     : fn == MathFn::Ceil  ? std::ceil(x)
                                           : std::trunc(x);
    return int_literal(l, r, c);
  }
  if (ir::is_int(v.expr->type)) return v;
  // An i64, saturating, as int() does.
  return Value::typed(ir::cast(ScalarType::i64, ir::call(fn, {v.expr})));
}

std::vector<Builtin> python_builtins() {
  constexpr Form E = Form::ElementWise;
  return {
      {{"len"},
       1,
       1,
       Form::Raw,
       lower_len,
       "len(a)",
       "`a.shape[0]` (i64); a tuple's or vector's length, a matrix's rows"},
      {{"int"},
       1,
       1,
       E,
       lower_int,
       "int(x)",
       "an integer stays itself; a float becomes i64 (truncated, saturating); a bool i32"},
      {{"float"},
       1,
       1,
       E,
       lower_float,
       "float(x)",
       "a float stays itself; anything else the default float"},
      {{"bool"}, 1, 1, E, lower_bool, "bool(x)", "`x != 0`"},
      {{"abs", "tack.abs"},
       1,
       1,
       E,
       lower_abs,
       "abs(x)",
       "|x| in x's type (the most negative integer wraps to itself)"},
      {{"min", "tack.min"},
       2,
       -1,
       E,
       lower_min,
       "min(a, b, ...)",
       "the least of two or more numbers in their common type (Python's ties; -0.0 below +0.0)"},
      {{"max", "tack.max"},
       2,
       -1,
       E,
       lower_max,
       "max(a, b, ...)",
       "the greatest of two or more numbers in their common type (Python's ties; +0.0 above -0.0)"},
      {{"pow", "tack.pow"}, 2, 2, E, lower_pow, "pow(a, b)", "`a ** b`"},
      {{"round"},
       1,
       1,
       E,
       lower_int_rounding,
       "round(x)",
       "Python's: an integer (i64), halves to even; integers unchanged",
       Needs::Nothing,
       {},
       MathFn::Round},
      {{"any", "tack.any"},
       1,
       1,
       Form::Operands,
       lower_any,
       "any(m)",
       "whether any component of a mask is true (a number or bool: its truth)"},
      {{"all", "tack.all"},
       1,
       1,
       Form::Operands,
       lower_all,
       "all(m)",
       "whether every component of a mask is true (a number or bool: its truth)"},
  };
}

}  // namespace tack::lowering
