// What several builtin families share.
#include <cmath>

#include "lowering/builtins/builtin.hpp"
#include "lowering/lowerer.hpp"

namespace tack::lowering {

ir::ScalarType merged_number_type(Lowerer& l, const BuiltinCall& c,
                                  const std::vector<Value>& args) {
  for (size_t k = 0; k < args.size(); ++k) {
    if (!args[k].is_weak() && ir::is_bool(args[k].expr->type)) {
      l.fail(c.exprs[k]->loc,
             call_name(c.name) + " takes numbers, got a bool; convert it: int(...)");
    }
  }
  Value acc = args[0];
  ir::ScalarType t = ir::ScalarType::i32;
  for (size_t k = 1; k < args.size(); ++k) {
    t = l.merge_types(acc, args[k], c.exprs[k]->loc, "the arguments of " + call_name(c.name));
    acc = Value::typed(ir::make_const(t, 0));
  }
  return t;
}

Value int_literal(const Lowerer& l, double v, const BuiltinCall& c) {
  if (!std::isfinite(v) || std::fabs(v) >= 18446744073709551616.0) {
    l.fail(c.loc(), call_name(c.name) + " of the constant " + Constant::of_float(v).text() +
                        " has no 64-bit integer value");
  }
  return Value::literal(Constant::of_int(static_cast<Int128>(v)));
}

void refuse_bool(const Lowerer& l, const BuiltinCall& c, const Value& v, const char* hint) {
  if (!v.is_weak() && ir::is_bool(v.expr->type)) {
    l.fail(c.exprs[0]->loc, call_name(c.name) + " of a bool is not supported; " + hint);
  }
}

}  // namespace tack::lowering
