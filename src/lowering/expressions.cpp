// Lowering of expressions: names, literals, attributes, array elements, operators with Python's
// semantics and the promotion rules, comparisons (chained), and/or/not, conditional expressions.
#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>

#include "lowering/lowerer.hpp"
#include "lowering/typing.hpp"

namespace tack::lowering {
namespace {

using frontend::SourceLoc;

ir::BinaryOp ir_op(frontend::BinaryOp op) {
  switch (op) {
    case frontend::BinaryOp::Add:
      return ir::BinaryOp::Add;
    case frontend::BinaryOp::Sub:
      return ir::BinaryOp::Sub;
    case frontend::BinaryOp::Mul:
      return ir::BinaryOp::Mul;
    case frontend::BinaryOp::TrueDiv:
      return ir::BinaryOp::TrueDiv;
    case frontend::BinaryOp::FloorDiv:
      return ir::BinaryOp::FloorDiv;
    case frontend::BinaryOp::Mod:
      return ir::BinaryOp::Mod;
    case frontend::BinaryOp::Pow:
      return ir::BinaryOp::Pow;
    case frontend::BinaryOp::BitAnd:
      return ir::BinaryOp::BitAnd;
    case frontend::BinaryOp::BitOr:
      return ir::BinaryOp::BitOr;
    case frontend::BinaryOp::BitXor:
      return ir::BinaryOp::BitXor;
    case frontend::BinaryOp::Shl:
      return ir::BinaryOp::Shl;
    case frontend::BinaryOp::Shr:
      return ir::BinaryOp::Shr;
    case frontend::BinaryOp::MatMul:
      break;  // vectors and matrices only (vectors.cpp)
  }
  return ir::BinaryOp::Add;
}

ir::CompareOp ir_op(frontend::CompareOp op) {
  switch (op) {
    case frontend::CompareOp::Lt:
      return ir::CompareOp::Lt;
    case frontend::CompareOp::Le:
      return ir::CompareOp::Le;
    case frontend::CompareOp::Gt:
      return ir::CompareOp::Gt;
    case frontend::CompareOp::Ge:
      return ir::CompareOp::Ge;
    case frontend::CompareOp::Eq:
      return ir::CompareOp::Eq;
    case frontend::CompareOp::Ne:
      return ir::CompareOp::Ne;
  }
  return ir::CompareOp::Eq;
}

std::string quoted(frontend::BinaryOp op) {
  return "'" + std::string(frontend::spelling(op)) + "'";
}

// The name is not a symbol of the current function: say what it is instead.
[[noreturn]] void name_error(const Lowerer& l, const std::string& id, SourceLoc loc) {
  if (id == "tack" || id == "math") {
    l.fail(loc, "'" + id +
                    "' is a module; use its functions and constants (tack.f32(x), "
                    "math.sqrt(x), math.pi)");
  }
  if (l.is_reserved_name(id)) l.fail(loc, "'" + id + "' is a function; call it: " + id + "(...)");
  if (const Symbol* e = l.frames_.back()->scopes.expired(id)) {
    std::string line = std::to_string(e->loc.line);
    if (e->loop_var) {
      l.fail(loc, "the loop variable '" + id + "' (line " + line +
                      ") does not exist after its loop in Tack; keep the value you need in a "
                      "local assigned inside the loop");
    }
    if (e->kind == SymbolKind::LocalArray) {
      l.fail(loc, "the local array '" + id + "' (line " + line +
                      ") exists only in the block that declares it; declare it before that "
                      "block to use it here");
    }
    l.fail(loc, "'" + id + "' (line " + line + ") is not defined here");
  }
  if (l.frames_.size() > 1 && l.frames_.front()->scopes.lookup(id)) {
    l.fail(loc, "unknown name '" + id + "': '" + id +
                    "' belongs to the kernel, and a device function sees only its own parameters "
                    "and locals; pass it as an argument");
  }
  l.fail(loc, "unknown name '" + id + "'");
}

// Whether the base of a subscript is a tuple rather than an array: a tuple local, or an
// expression (a call, a parenthesized tuple, a subscript of one) that is not a name.
bool indexes_a_tuple(Lowerer& l, const frontend::Expr& base) {
  if (const auto* n = base.as<frontend::Name>()) {
    const Symbol* s = l.frame().scopes.lookup(n->id);
    if (s) return s->kind == SymbolKind::Tuple;
    return l.module_.find_constant(l.frame().fn->name, n->id) != nullptr;  // a host constant
  }
  if (const auto* sub = base.as<frontend::Subscript>()) return indexes_a_tuple(l, *sub->value);
  return !base.is<frontend::Attribute>();  // a call, a tuple or list, (a + b)[0], ...
}

[[noreturn]] void fail_maybe_unassigned(const Lowerer& l, const frontend::Name& n,
                                        const Symbol& s) {
  if (s.from_loop) {
    l.fail(n.loc, "'" + n.id + "' may be used before it is assigned: the loop on line " +
                      std::to_string(s.loc.line) +
                      " that assigns it may run no iteration (its range is not constant); "
                      "assign it a value before the loop, e.g. " +
                      n.id + " = 0");
  }
  l.fail(n.loc, "'" + n.id + "' may be used before it is assigned: it is first assigned on line " +
                    std::to_string(s.loc.line) +
                    ", inside an if or a loop that does not assign it on every path to here; "
                    "assign it a value before that statement");
}

Value lower_name(Lowerer& l, const frontend::Name& n) {
  Symbol* s = l.frame().scopes.lookup(n.id);
  if (!s) {
    // Not the function's own: a host constant, unless Python would make it a local (assigned
    // anywhere in the function) or it went out of scope here.
    const frontend::FunctionDef& fn = *l.frame().fn;
    const ConstantValue* c = l.module_.find_constant(fn.name, n.id);
    if (c && !l.frame().scopes.expired(n.id) && !l.assigned_in(fn).count(n.id)) {
      return l.constant_value(*c, n.id, n.loc);
    }
    name_error(l, n.id, n.loc);
  }
  switch (s->kind) {
    case SymbolKind::Local:
      if (!s->typed) {
        l.fail(n.loc, "'" + n.id +
                          "' is used before it is assigned (its first assignment is on "
                          "line " +
                          std::to_string(s->loc.line) + "); assign it before this use, e.g. " +
                          n.id + " = 0");
      }
      if (!s->assigned) fail_maybe_unassigned(l, n, *s);
      return Value::typed(ir::var(s->type, s->ir_name));
    case SymbolKind::Tuple:
      if (!s->assigned) fail_maybe_unassigned(l, n, *s);
      return l.read_tuple(*s);
    case SymbolKind::Value:
      return Value::typed(s->value);
    case SymbolKind::ArrayParam:
    case SymbolKind::LocalArray:
      return Value::of_array(s);
  }
  return Value{};
}

std::optional<double> math_constant(const std::string& dotted) {
  if (dotted == "math.pi") return std::numbers::pi;
  if (dotted == "math.e") return std::numbers::e;
  if (dotted == "math.tau") return 2.0 * std::numbers::pi;
  if (dotted == "math.inf") return HUGE_VAL;
  if (dotted == "math.nan") return std::nan("");
  return std::nullopt;
}

Value lower_attribute(Lowerer& l, const frontend::Attribute& a) {
  std::string dotted = frontend::dotted_name(a);
  const auto* head = a.value->as<frontend::Name>();
  if (!(head && l.frame().scopes.lookup(head->id))) {  // m.pi with `import math as m`
    dotted = l.module_.canonical(l.frame().fn->name, dotted);
  }
  if (auto c = math_constant(dotted)) return Value::literal(Constant::of_float(*c));
  const auto* base = a.value->as<frontend::Name>();
  if (!base && dotted.empty()) {  // (a + b).x, p[i].y, f(x).z
    Value v = l.lower_expr(*a.value);
    if (v.is_vecmat()) return l.vector_attribute(v, a);
    l.fail(a.attr_loc, l.describe(v) + " has no attribute '" + a.attr + "'");
  }
  if (base) {
    if (const Symbol* s = l.frame().scopes.lookup(base->id)) {
      if (s->kind == SymbolKind::Tuple && s->rows > 0) {
        if (!s->assigned) fail_maybe_unassigned(l, *base, *s);
        return l.vector_attribute(l.read_tuple(*s), a);
      }
      if (s->is_array() && a.attr == "shape") {
        l.fail(a.loc, "'" + dotted + "' is a tuple; index it with a constant: " + dotted + "[0]");
      }
      if (s->is_array()) {
        l.fail(a.attr_loc,
               "arrays have no attribute '" + a.attr + "' in kernels; use a.shape[k] or len(a)");
      }
      l.fail(a.attr_loc, "'" + base->id + "' is a number and has no attribute '" + a.attr + "'");
    }
    const frontend::FunctionDef& fn = *l.frame().fn;
    if (l.module_.find_constant(fn.name, base->id) && !l.frame().scopes.expired(base->id) &&
        !l.assigned_in(fn).count(base->id)) {  // a vector constant's component: ORIGIN.x
      const Value v = lower_name(l, *base);
      if (v.is_vecmat()) return l.vector_attribute(v, a);
      l.fail(a.attr_loc, "the constant '" + base->id + "' is " + l.describe(v) +
                             " and has no attribute '" + a.attr + "'");
    }
    if (base->id == "tack" || base->id == "math") {
      if (l.is_reserved_name(dotted)) {
        l.fail(a.loc, "'" + dotted + "' is a function or a type; call it: " + dotted + "(...)");
      }
      l.fail(a.attr_loc,
             "unknown attribute '" + dotted + "'" +
                 (base->id == "math" ? "; the math constants are math.pi, math.e, math.tau, "
                                       "math.inf and math.nan"
                                     : ""));
    }
    name_error(l, base->id, base->loc);
  }
  l.fail(a.attr_loc, "unknown attribute '" + a.attr + "'");
}

Value lower_shape(Lowerer& l, const frontend::Subscript& s, const frontend::Attribute& at) {
  const Symbol* arr = l.array_of(*at.value, "'.shape'");
  if (s.indices.size() != 1) {
    l.fail(s.loc,
           "'" + arr->name + ".shape' takes one index, got " + std::to_string(s.indices.size()));
  }
  Value k = l.scalar(*s.indices[0]);
  int rank =
      arr->kind == SymbolKind::ArrayParam ? arr->array.rank : static_cast<int>(arr->dims.size());
  std::string range = rank == 1 ? "0" : "0 to " + std::to_string(rank - 1);
  if (!k.is_weak() || k.weak->is_float) {
    l.fail(s.indices[0]->loc, "the index of '" + arr->name +
                                  ".shape' must be an integer constant (" + range + "), got " +
                                  l.describe(k));
  }
  Int128 d = k.weak->i;
  if (d < 0) d += rank;
  if (d < 0 || d >= rank) {
    l.fail(s.indices[0]->loc, "'" + arr->name + "' has rank " + std::to_string(rank) + ", so '" +
                                  arr->name + ".shape[" + k.weak->text() +
                                  "]' is out of range; use " + range);
  }
  if (arr->kind == SymbolKind::LocalArray) {
    return Value::typed(ir::const_i64(arr->dims[static_cast<size_t>(d)]));
  }
  return Value::typed(ir::shape(ir::ArrayRef{arr->param, arr->array}, static_cast<int>(d)));
}

Value lower_unary(Lowerer& l, const frontend::Unary& u) {
  if (u.op == frontend::UnaryOp::Not) {
    ir::Expr c = l.lower_condition(*u.operand);
    if (const auto* b = c->as<ir::BoolConst>()) return Value::typed(ir::const_bool(!b->value));
    return Value::typed(ir::logical_not(c));
  }
  Value v = l.operand(*u.operand);
  if (v.is_vecmat()) return l.vector_unary(u.op, v, u.loc);
  return l.unary(u.op, v, u.loc);
}

}  // namespace

Value Lowerer::unary(frontend::UnaryOp op_kind, const Value& v, SourceLoc loc) {
  std::string op(frontend::spelling(op_kind));
  if (v.is_weak()) {
    Folded f = fold_unary(op_kind, *v.weak);
    if (!f.value) fail(loc, f.error);
    return Value::literal(*f.value);
  }
  ir::ScalarType t = v.expr->type;
  if (ir::is_bool(t)) {
    fail(loc, op_kind == frontend::UnaryOp::Invert
                  ? "'~' does not take a bool (Python gives -1 or -2); use 'not'"
                  : "unary '" + op + "' does not take a bool; convert it first: int(...)");
  }
  switch (op_kind) {
    case frontend::UnaryOp::Neg:
      return Value::typed(ir::neg(v.expr));
    case frontend::UnaryOp::Pos:
      return v;
    case frontend::UnaryOp::Invert:
      if (tack::is_float(t)) fail(loc, "'~' takes an integer, got " + type_name(t));
      return Value::typed(ir::invert(v.expr));
    case frontend::UnaryOp::Not:
      break;
  }
  return v;
}

namespace {

const char* kAndOrValue =
    " where 'and'/'or' is used as a value: Python's 'x or y' gives one of its operands, not a "
    "bool; compare explicitly (x != 0 or ...), or use a conditional expression (x if x != 0 "
    "else y)";

Value lower_logical(Lowerer& l, const frontend::Logical& lg) {
  auto need_bool = [&](const Value& v, const frontend::Expr& e) {
    if (!v.expr || !ir::is_bool(v.expr->type)) {
      l.fail(e.loc, "this operand of '" + std::string(frontend::spelling(lg.op)) + "' is " +
                        l.describe(v) + "; Tack accepts only bool operands" + kAndOrValue);
    }
  };
  Value a = l.scalar(*lg.lhs);
  need_bool(a, *lg.lhs);
  std::vector<ir::Stmt> stmts;
  Value b;
  {
    Redirect r(l, stmts);
    b = l.scalar(*lg.rhs);
  }
  need_bool(b, *lg.rhs);
  ir::LogicalOp op = lg.op == frontend::LogicalOp::And ? ir::LogicalOp::And : ir::LogicalOp::Or;
  return Value::typed(l.lazy_logical(op, a.expr, std::move(stmts), b.expr));
}

// The comparisons after the first of a chain, each evaluated only if the ones before hold.
ir::Expr chain_rest(Lowerer& l, const frontend::Compare& c, size_t k, const Value& prev) {
  Value next = l.scalar(*c.rest[k]);
  bool more = k + 1 < c.ops.size();
  // Used twice: a leaf is repeated, anything else is evaluated once into a temporary (repeating
  // a pure expression would be correct, but nested chains would grow exponentially).
  if (more && next.expr && !cheap_to_repeat(next.expr)) next = Value::typed(l.spill(next.expr));
  ir::Expr cmp = l.compare(c.ops[k], prev, next, c.op_locs[k]);
  if (!more) return cmp;
  std::vector<ir::Stmt> stmts;
  ir::Expr rest;
  {
    Redirect r(l, stmts);
    rest = chain_rest(l, c, k + 1, next);
  }
  return l.lazy_logical(ir::LogicalOp::And, cmp, std::move(stmts), rest);
}

Value lower_compare(Lowerer& l, const frontend::Compare& c) {
  Sequence seq(l);
  if (c.ops.size() == 1) {
    seq.add_operand(*c.first);
    seq.add_operand(*c.rest[0]);
    if (seq[0].is_vecmat() || seq[1].is_vecmat()) {
      return l.vector_compare(c.ops[0], seq[0], seq[1], c.op_locs[0]);  // a mask
    }
    return Value::typed(l.compare(c.ops[0], seq[0], seq[1], c.op_locs[0]));
  }
  seq.add_expr(*c.first);
  seq.add_expr(*c.rest[0]);
  // `a < b < c`: b is evaluated once, so a b that is not a leaf goes into a temporary (a first,
  // when it reads memory, to keep the order).
  if (seq[1].expr && !cheap_to_repeat(seq[1].expr)) {
    if (seq[0].expr && reads_memory(seq[0].expr)) seq[0] = Value::typed(l.spill(seq[0].expr));
    seq[1] = Value::typed(l.spill(seq[1].expr));
  }
  ir::Expr first = l.compare(c.ops[0], seq[0], seq[1], c.op_locs[0]);
  std::vector<ir::Stmt> stmts;
  ir::Expr rest;
  {
    Redirect r(l, stmts);
    rest = chain_rest(l, c, 1, seq[1]);
  }
  return Value::typed(l.lazy_logical(ir::LogicalOp::And, first, std::move(stmts), rest));
}

Value lower_conditional(Lowerer& l, const frontend::Conditional& c) {
  ir::Expr cond = l.lower_condition(*c.cond);
  std::vector<ir::Stmt> then_stmts, else_stmts;
  Value tv, fv;
  {
    Redirect r(l, then_stmts);
    tv = l.operand(*c.then_value);
  }
  {
    Redirect r(l, else_stmts);
    fv = l.operand(*c.else_value);
  }
  if (tv.is_vecmat() || fv.is_vecmat()) {
    // Vectors and matrices of one shape, component by component.
    if (tv.rows != fv.rows || tv.cols != fv.cols) {
      l.fail(c.loc, "the two values of the conditional expression are " + l.describe(tv) + " and " +
                        l.describe(fv) + "; they must have one shape");
    }
    if (!cheap_to_repeat(cond)) cond = l.spill(cond);
    const bool lazy = !then_stmts.empty() || !else_stmts.empty();
    std::vector<Value> out;
    for (size_t k = 0; k < tv.tuple.size(); ++k) {
      const Value& a = tv.tuple[k];
      const Value& b = fv.tuple[k];
      ir::ScalarType t = l.merge_types(a, b, c.loc, "the two values of the conditional expression");
      ir::Expr te = l.coerce(a, t, c.then_value->loc, "the other value");
      ir::Expr fe = l.coerce(b, t, c.else_value->loc, "the other value");
      if (!lazy) {
        out.push_back(Value::typed(ir::select(cond, te, fe)));
        continue;
      }
      std::string r = l.fresh("_v");
      l.emit(ir::let(r, ir::make_const(t, 0)));
      then_stmts.push_back(ir::assign(r, te));
      else_stmts.push_back(ir::assign(r, fe));
      out.push_back(Value::typed(ir::var(t, r)));
    }
    if (lazy) {
      l.emit(ir::if_then(cond, ir::block(std::move(then_stmts)), ir::block(std::move(else_stmts))));
    }
    return l.make_vector(std::move(out), tv.rows, tv.cols, c.loc, "the conditional expression");
  }
  ir::ScalarType t = l.merge_types(tv, fv, c.loc, "the two values of the conditional expression");
  ir::Expr te = l.coerce(tv, t, c.then_value->loc, "the other value");
  ir::Expr fe = l.coerce(fv, t, c.else_value->loc, "the other value");
  if (then_stmts.empty() && else_stmts.empty()) return Value::typed(ir::select(cond, te, fe));
  // An arm needs statements: only the chosen one may run them.
  std::string r = l.fresh("_v");
  l.emit(ir::let(r, ir::make_const(t, 0)));
  then_stmts.push_back(ir::assign(r, te));
  else_stmts.push_back(ir::assign(r, fe));
  l.emit(ir::if_then(cond, ir::block(std::move(then_stmts)), ir::block(std::move(else_stmts))));
  return Value::typed(ir::var(t, r));
}

}  // namespace

Value Lowerer::lower_expr(const frontend::Expr& e) {
  using namespace frontend;
  NestingGuard nesting(*this, e.loc);
  switch (e.kind) {
    case ExprKind::IntLiteral:
      return Value::literal(Constant::of_int(static_cast<Int128>(e.as<IntLiteral>()->value)));
    case ExprKind::FloatLiteral:
      return Value::literal(Constant::of_float(e.as<FloatLiteral>()->value));
    case ExprKind::BoolLiteral:
      return Value::typed(ir::const_bool(e.as<BoolLiteral>()->value));
    case ExprKind::Name:
      return lower_name(*this, *e.as<Name>());
    case ExprKind::Attribute:
      return lower_attribute(*this, *e.as<Attribute>());
    case ExprKind::Subscript: {
      const auto& s = *e.as<Subscript>();
      const auto* at = s.value->as<Attribute>();
      if (at && at->attr == "shape") return lower_shape(*this, s, *at);
      if (indexes_a_tuple(*this, *s.value)) {
        Value base = lower_expr(*s.value);
        if (!base.is_tuple()) {
          fail(s.value->loc,
               "only arrays, tuples and vectors can be indexed; this is " + describe(base));
        }
        if (base.is_vecmat()) return vector_item(base, s);
        return tuple_item(base, s);
      }
      Sequence seq(*this);
      Access acc = lower_access(s, seq, /*whole=*/true);
      if (acc.whole) return load_whole(acc);
      return Value::typed(load(acc));
    }
    case ExprKind::Call:
      return lower_call(*e.as<Call>(), /*discard=*/false);
    case ExprKind::Unary:
      return lower_unary(*this, *e.as<Unary>());
    case ExprKind::Binary: {
      const auto& b = *e.as<Binary>();
      Sequence seq(*this);
      seq.add_operand(*b.lhs);
      seq.add_operand(*b.rhs);
      return binary(b.op, seq[0], seq[1], b.op_loc);
    }
    case ExprKind::Logical:
      return lower_logical(*this, *e.as<Logical>());
    case ExprKind::Compare:
      return lower_compare(*this, *e.as<Compare>());
    case ExprKind::Conditional:
      return lower_conditional(*this, *e.as<Conditional>());
    case ExprKind::Tuple:
      if (e.as<Tuple>()->list) return lower_list(*e.as<Tuple>());
      return lower_tuple(*e.as<Tuple>());
    case ExprKind::String:
      fail(e.loc,
           "a string is only allowed as an argument of print() or as an assert's "
           "message; kernels compute on numbers");
  }
  return Value{};
}

Value Lowerer::scalar(const frontend::Expr& e) {
  Value v = operand(e);
  if (v.is_vecmat()) {
    fail(e.loc, describe(v) + " is not a number; a number is needed here: take " +
                    (v.is_vector() ? "a component (v.x, v[0])" : "an element (m[i, j])") +
                    " or reduce it (.sum(), .norm(), .dot(w))");
  }
  return v;
}

ir::Expr Lowerer::lower_condition(const frontend::Expr& e) {
  if (const auto* lg = e.as<frontend::Logical>()) {
    ir::Expr a = lower_condition(*lg->lhs);
    std::vector<ir::Stmt> stmts;
    ir::Expr b;
    {
      Redirect r(*this, stmts);
      b = lower_condition(*lg->rhs);
    }
    ir::LogicalOp op = lg->op == frontend::LogicalOp::And ? ir::LogicalOp::And : ir::LogicalOp::Or;
    return lazy_logical(op, a, std::move(stmts), b);
  }
  return to_bool(lower_expr(e), e.loc);
}

ir::Expr Lowerer::to_bool(const Value& v, SourceLoc loc) {
  if (v.array) {
    fail(loc, "the array '" + v.array->name + "' has no truth value; test an element (" +
                  v.array->name + "[i] != 0)");
  }
  if (v.is_none()) fail(loc, "this call returns no value; it cannot be tested");
  if (v.is_vecmat()) {
    fail(loc, describe(v) +
                  " has no single truth value; test all components (all(m)) or any (any(m)), "
                  "or a component (v.x > 0)");
  }
  if (v.is_tuple()) {
    fail(loc, describe(v) +
                  " is always true in Python; test an element (t[0] != 0) or compare the "
                  "elements one by one");
  }
  if (v.is_weak()) return ir::const_bool(truth(*v.weak));
  if (ir::is_bool(v.expr->type)) return v.expr;
  return ir::ne(v.expr, ir::make_const(v.expr->type, 0));
}

ir::Expr Lowerer::lazy_logical(ir::LogicalOp op, ir::Expr lhs, std::vector<ir::Stmt> rhs_stmts,
                               ir::Expr rhs) {
  if (rhs_stmts.empty()) {
    return op == ir::LogicalOp::And ? ir::logical_and(lhs, rhs) : ir::logical_or(lhs, rhs);
  }
  std::string r = fresh("_c");
  emit(ir::let(r, lhs));
  ir::Expr rv = ir::var(ir::ScalarType::boolean, r);
  rhs_stmts.push_back(ir::assign(r, rhs));
  emit(ir::if_then(op == ir::LogicalOp::And ? rv : ir::logical_not(rv),
                   ir::block(std::move(rhs_stmts))));
  return rv;
}

ir::ScalarType Lowerer::type_of(const Value& v) const {
  if (v.is_weak()) return default_type(*v.weak, default_float());
  TACK_INTERNAL_ASSERT(v.expr != nullptr, "type_of a value without an expression");
  return v.expr->type;
}

ir::Expr Lowerer::typed(const Value& v) const {
  if (v.is_weak()) return make_constant(*v.weak, type_of(v));
  return v.expr;
}

ir::Expr Lowerer::coerce(const Value& v, ir::ScalarType to, SourceLoc loc,
                         const std::string& what) {
  if (!v.is_weak()) return ir::cast(to, v.expr);
  const Constant& c = *v.weak;
  if (ir::is_int(to) && (c.is_float || !fits(c, to))) {
    fail(loc, "the constant " + c.text() + " does not fit in " + type_name(to) + ", the type of " +
                  what +
                  (c.is_float ? "; convert the other side to a float (float(x))"
                              : "; convert the other side to a wider type, or wrap the "
                                "constant explicitly with " +
                                    cast_spelling(to)));
  }
  if (ir::is_bool(to)) {
    fail(loc, "the constant " + c.text() + " cannot take the type bool of " + what +
                  "; write True or False");
  }
  return make_constant(c, to);
}

ir::Expr Lowerer::convert_store(const Value& v, ir::ScalarType to, SourceLoc loc,
                                const std::string& what) {
  if (v.array) fail(loc, "an array cannot be stored into an element of " + what);
  if (v.is_none()) fail(loc, "this call returns no value; it cannot be stored");
  if (!v.is_weak()) return ir::cast(to, v.expr);
  const Constant& c = *v.weak;
  if (ir::is_int(to) && !c.is_float && !fits(c, to)) {
    fail(loc, "the constant " + c.text() + " does not fit in " + type_name(to) +
                  ", the element type of " + what + "; wrap it explicitly with " +
                  cast_spelling(to) + " if that is meant");
  }
  if (ir::is_int(to) && c.is_float && !std::isfinite(c.f)) {
    fail(loc, "the constant " + c.text() + " cannot be stored into " + what + " (elements of " +
                  type_name(to) + ")");
  }
  return make_constant(c, to);
}

Value Lowerer::binary(frontend::BinaryOp op, const Value& a, const Value& b, SourceLoc loc) {
  using frontend::BinaryOp;
  for (const Value* v : {&a, &b}) {
    if (v->array) {
      fail(loc, quoted(op) + " does not take arrays ('" + v->array->name +
                    "' is an array); index it: " + v->array->name + "[i]");
    }
    if (v->is_none()) fail(loc, "an operand of " + quoted(op) + " is a call that returns nothing");
  }
  if (a.is_tuple() || b.is_tuple() || op == BinaryOp::MatMul) return vector_binary(op, a, b, loc);
  if (a.is_weak() && b.is_weak()) {
    Folded f = fold_binary(op, *a.weak, *b.weak);
    if (!f.value)
      fail(loc, f.error + " (" + a.weak->text() + " " + std::string(frontend::spelling(op)) + " " +
                    b.weak->text() + ")");
    return Value::literal(*f.value);
  }
  bool bitwise = op == BinaryOp::BitAnd || op == BinaryOp::BitOr || op == BinaryOp::BitXor;
  bool shift = op == BinaryOp::Shl || op == BinaryOp::Shr;
  bool a_bool = !a.is_weak() && ir::is_bool(a.expr->type);
  bool b_bool = !b.is_weak() && ir::is_bool(b.expr->type);
  if (a_bool || b_bool) {
    if (bitwise && a_bool && b_bool) return Value::typed(ir::binary(ir_op(op), a.expr, b.expr));
    if (!bitwise && !shift) {
      // Python's bools are integers (True + 1 is 2; summing a mask counts it): a bool beside a
      // typed number takes its type (NumPy's rule), else it is an i32.
      auto number = [](const Value& v, const Value& other) {
        const bool typed = !other.is_weak() && !ir::is_bool(other.expr->type);
        return Value::typed(ir::cast(typed ? other.expr->type : ir::ScalarType::i32, v.expr));
      };
      return binary(op, a_bool ? number(a, b) : a, b_bool ? number(b, a) : b, loc);
    }
    fail(loc, quoted(op) + " does not take a bool and a number (here " + describe(a) + " and " +
                  describe(b) + "); convert the bool first (int(b)), or use " +
                  "'and'/'or'/'not' for logic");
  }
  ir::ScalarType t;
  if (a.is_weak() || b.is_weak()) {
    const Constant& c = a.is_weak() ? *a.weak : *b.weak;
    ir::ScalarType other = a.is_weak() ? b.expr->type : a.expr->type;
    if (tack::is_float(other)) {
      t = other;
    } else if (c.is_float) {
      t = default_float();
    } else if (fits(c, other)) {
      t = other;
    } else {
      fail(loc, "the constant " + c.text() + " does not fit in " + type_name(other) +
                    ", the type of the other operand of " + quoted(op) +
                    "; convert that operand to a wider type (e.g. tack.i64(x)), or wrap the "
                    "constant explicitly with " +
                    cast_spelling(other));
    }
  } else {
    auto p = promote(a.expr->type, b.expr->type);
    if (!p) {
      fail(loc, quoted(op) + " on " + type_name(a.expr->type) + " and " + type_name(b.expr->type) +
                    ": no type holds both (u64 and a signed integer); convert one operand, "
                    "e.g. tack.i64(x) or tack.u64(y)");
    }
    t = *p;
  }
  switch (op) {
    case BinaryOp::TrueDiv:
    case BinaryOp::FloorDiv:
    case BinaryOp::Mod:
      if (b.is_weak() && b.weak->is_zero()) {
        fail(loc, "division by zero (" + quoted(op) + " by the constant " + b.weak->text() + ")");
      }
      if (op == BinaryOp::TrueDiv && ir::is_int(t)) t = default_float();  // int / int is a float
      break;
    case BinaryOp::Pow:
      if (ir::is_int(t) && b.is_weak() && !b.weak->is_float && b.weak->i < 0) {
        fail(loc,
             "an integer to a negative power is a float in Python, but Tack's integer '**' "
             "stays an integer; write float(x) ** " +
                 b.weak->text());
      }
      break;
    default:
      if ((bitwise || shift) && tack::is_float(t)) {
        fail(loc, quoted(op) + " takes integers, got " + describe(a) + " and " + describe(b));
      }
      if (shift && b.is_weak() && b.weak->i < 0) fail(loc, "negative shift count");
  }
  return Value::typed(ir::binary(ir_op(op), coerce(a, t, loc, "the other operand"),
                                 coerce(b, t, loc, "the other operand")));
}

ir::Expr Lowerer::compare(frontend::CompareOp op, const Value& a, const Value& b, SourceLoc loc) {
  std::string sop = "'" + std::string(frontend::spelling(op)) + "'";
  for (const Value* v : {&a, &b}) {
    if (v->array) {
      fail(loc, sop + " does not compare arrays ('" + v->array->name + "'); compare elements");
    }
    if (v->is_none()) fail(loc, "an operand of " + sop + " is a call that returns nothing");
  }
  if (a.is_weak() && b.is_weak()) return ir::const_bool(fold_compare(op, *a.weak, *b.weak));
  bool a_bool = !a.is_weak() && ir::is_bool(a.expr->type);
  bool b_bool = !b.is_weak() && ir::is_bool(b.expr->type);
  ir::ScalarType t;
  if (a_bool && b_bool) {
    if (op == frontend::CompareOp::Eq || op == frontend::CompareOp::Ne) {
      return ir::compare(ir_op(op), a.expr, b.expr);
    }
    t = ir::ScalarType::i32;  // False < True, as Python orders them
  } else if (a.is_weak() || b.is_weak()) {
    const Constant& c = a.is_weak() ? *a.weak : *b.weak;
    ir::ScalarType other = a.is_weak() ? b.expr->type : a.expr->type;
    if (ir::is_bool(other)) other = ir::ScalarType::i32;  // True == 1, as in Python
    if (tack::is_float(other)) {
      t = other;
    } else if (c.is_float) {
      t = default_float();
    } else if (fits(c, other)) {
      t = other;
    } else if (auto p = promote(other, default_type(c, default_float()))) {
      t = *p;  // x < 300 with x an u8 compares in a type that holds both
    } else {
      fail(loc, "the constant " + c.text() + " cannot be compared with a " + type_name(other) +
                    " value: no type holds both; convert the value, e.g. tack.i64(x)");
    }
  } else if (a_bool || b_bool) {
    t = a_bool ? b.expr->type : a.expr->type;
  } else {
    auto p = promote(a.expr->type, b.expr->type);
    if (!p) {
      fail(loc, sop + " on " + type_name(a.expr->type) + " and " + type_name(b.expr->type) +
                    ": no type holds both (u64 and a signed integer); convert one operand, "
                    "e.g. tack.i64(x) or tack.u64(y)");
    }
    t = *p;
  }
  return ir::compare(ir_op(op), coerce(a, t, loc, "the other operand"),
                     coerce(b, t, loc, "the other operand"));
}

ir::ScalarType Lowerer::merge_types(const Value& a, const Value& b, SourceLoc loc,
                                    const std::string& what) {
  for (const Value* v : {&a, &b}) {
    if (v->array) fail(loc, what + " must be numbers, not the array '" + v->array->name + "'");
    if (v->is_none()) fail(loc, what + " must be numbers; a call here returns nothing");
  }
  if (a.is_weak() && b.is_weak()) {
    if (a.weak->is_float || b.weak->is_float) return default_float();
    auto p = promote(type_of(a), type_of(b));
    if (!p) fail(loc, what + " (" + a.weak->text() + ", " + b.weak->text() + ") need 65 bits");
    return *p;
  }
  if (a.is_weak() || b.is_weak()) {
    const Constant& c = a.is_weak() ? *a.weak : *b.weak;
    ir::ScalarType other = a.is_weak() ? b.expr->type : a.expr->type;
    ir::ScalarType ct = default_type(c, default_float());
    if (ir::is_bool(other) || (ir::is_int(other) && c.is_float)) return ct;
    if (tack::is_float(other) || fits(c, other)) return other;
    auto p = promote(other, ct);
    if (!p) {
      fail(loc, what + " are " + type_name(other) + " and the constant " + c.text() +
                    ", which no type holds both; convert one of them explicitly");
    }
    return *p;
  }
  auto m = merge(a.expr->type, b.expr->type);
  if (!m) {
    fail(loc, what + " are " + type_name(a.expr->type) + " and " + type_name(b.expr->type) +
                  ", which have no common type; convert one of them, e.g. with tack.i64(...)");
  }
  return *m;
}

const Symbol* Lowerer::array_of(const frontend::Expr& e, const std::string& what) {
  const auto* n = e.as<frontend::Name>();
  if (!n) fail(e.loc, what + " needs an array, named by a parameter or a local array");
  const Symbol* s = frame().scopes.lookup(n->id);
  if (!s) name_error(*this, n->id, n->loc);
  if (!s->is_array()) {
    fail(e.loc, what + " needs an array; '" + n->id + "' is a number (" + type_name(s->type) + ")");
  }
  if (s->texture) refuse_texture(*s, e.loc);
  return s;
}

Access Lowerer::lower_access(const frontend::Subscript& s, Sequence& seq, bool whole) {
  // a[i][j] is a[i, j]; a[(i, j)] too.
  std::vector<const frontend::Subscript*> chain;
  const frontend::Expr* base = &s;
  while (const auto* sub = base->as<frontend::Subscript>()) {
    chain.push_back(sub);
    base = sub->value.get();
  }
  std::reverse(chain.begin(), chain.end());
  const auto* n = base->as<frontend::Name>();
  if (!n) fail(base->loc, "only arrays can be indexed, by their name (a[i])");
  const Symbol* arr = frame().scopes.lookup(n->id);
  if (!arr) name_error(*this, n->id, n->loc);
  if (arr->kind == SymbolKind::Tuple) {
    fail(n->loc, "'" + n->id +
                     "' is a tuple, and tuples cannot be changed element by element; assign "
                     "the whole tuple (" +
                     n->id + " = (a, b))");
  }
  if (!arr->is_array()) {
    fail(n->loc, "'" + n->id + "' is a number (" + type_name(arr->type) +
                     "), not an array; it cannot be indexed");
  }
  if (arr->texture) refuse_texture(*arr, n->loc);
  bool local = arr->kind == SymbolKind::LocalArray;
  int rank = local ? static_cast<int>(arr->dims.size()) : arr->array.rank;
  std::vector<const frontend::Expr*> idx;
  std::vector<frontend::ExprPtr> zeros;  // a[None]: index 0 in every dimension
  for (const frontend::Subscript* sub : chain) {
    if (sub->none) {
      if (chain.size() != 1) {
        fail(sub->loc, "a[None] is the element of a one-element array, alone: write '" + arr->name +
                           "[None]' or index every dimension");
      }
      for (int d = 0; d < rank; ++d) {
        auto zero = std::make_unique<frontend::IntLiteral>(sub->loc);
        zero->text = "0";
        idx.push_back(zero.get());
        zeros.push_back(std::move(zero));
      }
    }
    for (const frontend::ExprPtr& e : sub->indices) {
      if (const auto* t = e->as<frontend::Tuple>()) {
        for (const frontend::ExprPtr& x : t->elements) idx.push_back(x.get());
      } else {
        idx.push_back(e.get());
      }
    }
  }
  int width = local ? 0 : arr->array.vec_width;
  // A tack.mat(r, c) array: its element is indexed by row and column, stored flat.
  const int mat_cols = local ? 0 : arr->mat_cols;
  const int mat_rows = mat_cols ? width / mat_cols : 0;
  int need = local ? rank : arr->array.index_count() + (mat_cols ? 1 : 0);
  int got = static_cast<int>(idx.size());
  const bool whole_element = whole && width > 0 && got == rank;
  if (got != need && !whole_element) {
    static const char* const kNames[] = {"i", "j", "k", "l"};
    std::string example = arr->name + "[";
    for (int k = 0; k < need; ++k) {
      const char* n = k < rank ? kNames[k] : mat_cols ? (k == rank ? "r" : "c") : "c";
      example += (k ? ", " : "") + std::string(n);
    }
    example += "]";
    const std::string element =
        mat_cols ? "matrices of " + std::to_string(mat_rows) + "x" + std::to_string(mat_cols)
                 : "vectors of " + std::to_string(width);
    if (width > 0 && got == rank) {
      fail(s.loc, "'" + arr->name + "' holds " + element + " " + type_name(arr->type) +
                      (mat_cols ? " (tack.mat)" : " (tack.vec)") +
                      "; one component is needed here: " + example +
                      (mat_cols ? "" : " with c in 0.." + std::to_string(width - 1)));
    }
    fail(s.loc, std::string(local ? "the local array '" : "'") + arr->name + "' has rank " +
                    std::to_string(rank) +
                    (width ? " with " + element + (mat_cols ? "" : " components") : "") +
                    " and takes " + std::to_string(need) + " " + (need == 1 ? "index" : "indices") +
                    " (" + example + "), got " + std::to_string(got));
  }
  size_t first = seq.values().size();
  for (const frontend::Expr* e : idx) seq.add_expr(*e);
  Access acc;
  acc.array = arr;
  acc.whole = whole_element;
  for (int k = 0; k < got; ++k) {
    const Value& v = seq[first + static_cast<size_t>(k)];
    int64_t extent = local       ? arr->dims[static_cast<size_t>(k)]
                     : k < rank  ? -1
                     : !mat_cols ? width
                     : k == rank ? mat_rows
                                 : mat_cols;
    if (v.is_weak() && !v.weak->is_float && extent >= 0 && v.weak->i >= extent) {
      fail(idx[static_cast<size_t>(k)]->loc,
           "index " + v.weak->text() + " is out of range for " +
               (local ? "dimension " + std::to_string(k) + " of the local array '" + arr->name +
                            "' (extent " + std::to_string(extent) + ")"
                : mat_cols ? std::string(k == rank ? "the rows" : "the columns") + " of '" +
                                 arr->name + "' (" + std::to_string(extent) + ")"
                           : "the vector component of '" + arr->name + "' (width " +
                                 std::to_string(width) + ")"));
    }
    acc.indices.push_back(index(v, idx[static_cast<size_t>(k)]->loc));
  }
  if (mat_cols && !whole_element) {  // p[i, r, c]: component r * cols + c
    ir::Expr c = acc.indices.back();
    acc.indices.pop_back();
    ir::Expr r = acc.indices.back();
    acc.indices.pop_back();
    r = ir::cast(ir::ScalarType::i64, r);
    c = ir::cast(ir::ScalarType::i64, c);
    acc.indices.push_back(ir::add(ir::mul(r, ir::const_i64(mat_cols)), c));
  }
  return acc;
}

ir::Expr Lowerer::index(const Value& v, SourceLoc loc) {
  if (v.is_weak()) {
    const Constant& c = *v.weak;
    if (c.is_float) fail(loc, "an index must be an integer, got the float constant " + c.text());
    if (c.i < 0) {
      fail(loc, "negative index " + c.text() +
                    ": Tack does not count from the end as Python does; write the position "
                    "explicitly (a.shape[0] - 1)");
    }
    return make_constant(c, default_type(c, default_float()));
  }
  ir::ScalarType t = v.expr->type;
  if (!ir::is_int(t)) {
    fail(loc, "an index must be an integer, got " + type_name(t) + "; convert it with int(...)");
  }
  return v.expr;
}

ir::Expr Lowerer::load(const Access& a) {
  if (a.array->kind == SymbolKind::LocalArray) {
    return ir::local_load(a.array->type, a.array->ir_name, a.indices);
  }
  return ir::load(ir::ArrayRef{a.array->param, a.array->array}, a.indices);
}

ir::Stmt Lowerer::store(const Access& a, ir::Expr value) {
  if (a.array->kind == SymbolKind::LocalArray) {
    return ir::local_store(a.array->ir_name, a.indices, std::move(value));
  }
  return ir::store(ir::ArrayRef{a.array->param, a.array->array}, a.indices, std::move(value));
}

void Lowerer::spill_before(std::vector<Value>& values, size_t mark) {
  std::vector<ir::Stmt> lets;
  std::function<void(Value&)> save = [&](Value& v) {
    for (Value& e : v.tuple) save(e);  // tuples, vectors and matrices: their elements
    if (!v.expr || !reads_memory(v.expr)) return;
    std::string name = fresh("_t");
    lets.push_back(ir::let(name, v.expr));
    v.expr = ir::var(v.expr->type, name);
  };
  for (Value& v : values) save(v);
  out_->insert(out_->begin() + static_cast<std::ptrdiff_t>(mark), lets.begin(), lets.end());
}

ir::Expr Lowerer::spill(ir::Expr e) {
  std::string name = fresh("_t");
  emit(ir::let(name, e));
  return ir::var(e->type, name);
}

}  // namespace tack::lowering
