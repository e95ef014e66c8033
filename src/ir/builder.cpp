// Checked IR construction helpers and FunctionBuilder.
#include "ir/builder.hpp"

#include <string>

#include "ir/printer.hpp"
#include "support/error.hpp"

namespace tack::ir {

namespace {

std::string show(const Expr& e) {
  return e ? to_string(e) + " : " + std::string(name(e->type)) : std::string("<null>");
}

void need(bool ok, const char* what, const Expr& a, const Expr& b = nullptr) {
  TACK_INTERNAL_ASSERT(ok, std::string("IR builder: ") + what + " (got " + show(a) +
                               (b ? ", " + show(b) : std::string()) + ")");
}

void need_index_list(const std::vector<Expr>& idx, size_t count, const char* what) {
  TACK_INTERNAL_ASSERT(idx.size() == count, std::string("IR builder: ") + what + " takes " +
                                                std::to_string(count) + " indices, got " +
                                                std::to_string(idx.size()));
  for (const Expr& i : idx) need(i && is_int(i->type), "an index must be an integer", i);
}

// Wraps v to the width and signedness of integer type t.
int64_t wrap_to(ScalarType t, int64_t v) {
  uint64_t u = static_cast<uint64_t>(v);
  switch (t) {
    case ScalarType::i8:
      return static_cast<int8_t>(u);
    case ScalarType::i16:
      return static_cast<int16_t>(u);
    case ScalarType::i32:
      return static_cast<int32_t>(u);
    case ScalarType::u8:
      return static_cast<uint8_t>(u);
    case ScalarType::u16:
      return static_cast<uint16_t>(u);
    case ScalarType::u32:
      return static_cast<uint32_t>(u);
    default:
      return v;
  }
}

}  // namespace

Expr int_const(ScalarType t, int64_t v) {
  TACK_INTERNAL_ASSERT(is_int(t), "int_const of non-integer type " + std::string(name(t)));
  return IntConst::make(t, wrap_to(t, v));
}

Expr float_const(ScalarType t, double v) {
  TACK_INTERNAL_ASSERT(is_float(t), "float_const of non-float type " + std::string(name(t)));
  if (t == ScalarType::f32) v = static_cast<double>(static_cast<float>(v));
  return FloatConst::make(t, v);
}

Expr const_bool(bool v) {
  return BoolConst::make(v);
}

Expr make_const(ScalarType t, int64_t v) {
  if (is_bool(t)) return const_bool(v != 0);
  if (is_float(t)) return float_const(t, static_cast<double>(v));
  return int_const(t, v);
}

Expr var(ScalarType t, std::string n) {
  return Var::make(t, std::move(n));
}

Expr binary(BinaryOp op, Expr a, Expr b) {
  need(a && b && a->type == b->type, "binary operands must have one type", a, b);
  ScalarType t = a->type;
  switch (op) {
    case BinaryOp::TrueDiv:
      need(is_float(t), "'/' takes floats (lowering casts int / int to the default float)", a);
      break;
    case BinaryOp::BitAnd:
    case BinaryOp::BitOr:
    case BinaryOp::BitXor:
      need(is_int(t) || is_bool(t), "bitwise operators take integers or bools", a);
      break;
    case BinaryOp::Shl:
    case BinaryOp::Shr:
      need(is_int(t), "shifts take integers", a);
      break;
    default:
      need(is_numeric(t), "arithmetic takes numbers, not bool", a);
  }
  return Binary::make(op, std::move(a), std::move(b));
}

Expr compare(CompareOp op, Expr a, Expr b) {
  need(a && b && a->type == b->type, "compared operands must have one type", a, b);
  return Compare::make(op, std::move(a), std::move(b));
}

Expr logical_and(Expr a, Expr b) {
  need(a && b && is_bool(a->type) && is_bool(b->type), "'and' takes bools", a, b);
  return Logical::make(LogicalOp::And, std::move(a), std::move(b));
}

Expr logical_or(Expr a, Expr b) {
  need(a && b && is_bool(a->type) && is_bool(b->type), "'or' takes bools", a, b);
  return Logical::make(LogicalOp::Or, std::move(a), std::move(b));
}

Expr logical_not(Expr a) {
  need(a && is_bool(a->type), "'not' takes a bool", a);
  return Unary::make(UnaryOp::Not, std::move(a));
}

Expr neg(Expr a) {
  need(a && is_numeric(a->type), "negation takes a number", a);
  return Unary::make(UnaryOp::Neg, std::move(a));
}

Expr invert(Expr a) {
  need(a && is_int(a->type), "'~' takes an integer", a);
  return Unary::make(UnaryOp::Invert, std::move(a));
}

Expr select(Expr cond, Expr t, Expr f) {
  need(cond && is_bool(cond->type), "a select condition must be bool", cond);
  need(t && f && t->type == f->type, "select arms must have one type", t, f);
  return Select::make(std::move(cond), std::move(t), std::move(f));
}

Expr cast(ScalarType t, Expr value) {
  need(value != nullptr, "cast of a null value", value);
  if (value->type == t) return value;
  return Cast::make(t, std::move(value));
}

Expr call(MathFn fn, std::vector<Expr> args) {
  TACK_INTERNAL_ASSERT(static_cast<int>(args.size()) == arity(fn),
                       std::string("IR builder: ") + std::string(fn_name(fn)) + " takes " +
                           std::to_string(arity(fn)) + " arguments");
  for (const Expr& a : args) {
    need(a && a->type == args[0]->type, "math arguments must have one type", args[0], a);
  }
  bool any_numeric = fn == MathFn::Abs || fn == MathFn::Min || fn == MathFn::Max;
  need(any_numeric ? is_numeric(args[0]->type) : is_float(args[0]->type),
       any_numeric ? "abs/min/max take numbers" : "this math function takes floats", args[0]);
  return MathCall::make(fn, std::move(args));
}

Stmt let(std::string n, Expr value) {
  return Let::make(std::move(n), std::move(value));
}
Stmt assign(std::string n, Expr value) {
  return Assign::make(std::move(n), std::move(value));
}
Stmt block(std::vector<Stmt> stmts) {
  return Block::make(std::move(stmts));
}
Stmt if_then(Expr cond, Stmt then_body, Stmt else_body) {
  need(cond && is_bool(cond->type), "an if condition must be bool", cond);
  return If::make(std::move(cond), std::move(then_body), std::move(else_body));
}
Stmt for_range(std::string n, Expr start, Expr stop, Expr step, Stmt body, bool lanes) {
  need(start && is_int(start->type), "a range takes integers", start);
  need(stop && stop->type == start->type, "range bounds must have one type", start, stop);
  need(step && step->type == start->type, "range bounds must have one type", start, step);
  return For::make(std::move(n), std::move(start), std::move(stop), std::move(step),
                   std::move(body), lanes);
}
Stmt while_loop(Expr cond, Stmt body) {
  need(cond && is_bool(cond->type), "a while condition must be bool", cond);
  return While::make(std::move(cond), std::move(body));
}
Stmt break_stmt() {
  return Break::make();
}
Stmt continue_stmt() {
  return Continue::make();
}
Stmt eval(Expr e) {
  return ExprStmt::make(std::move(e));
}
Stmt labeled(std::string label, Stmt body) {
  return LabeledBlock::make(std::move(label), std::move(body));
}
Stmt exit_block(std::string label) {
  return ExitBlock::make(std::move(label));
}

Stmt local_array(std::string n, ScalarType elem, std::vector<int64_t> dims) {
  TACK_INTERNAL_ASSERT(!dims.empty() && dims.size() <= 3, "a local array has 1 to 3 dims");
  for (int64_t d : dims) TACK_INTERNAL_ASSERT(d > 0, "a local array's extents are positive");
  return LocalArrayDecl::make(std::move(n), elem, std::move(dims));
}
Expr local_load(ScalarType elem, std::string n, std::vector<Expr> indices) {
  for (const Expr& i : indices) need(i && is_int(i->type), "an index must be an integer", i);
  return LocalArrayLoad::make(elem, std::move(n), std::move(indices));
}
Stmt local_store(std::string n, std::vector<Expr> indices, Expr value) {
  for (const Expr& i : indices) need(i && is_int(i->type), "an index must be an integer", i);
  return LocalArrayStore::make(std::move(n), std::move(indices), std::move(value));
}

Expr load(const ArrayRef& a, std::vector<Expr> indices) {
  need_index_list(indices, a.type.index_count(), "an array load");
  return ArrayLoad::make(a.type.elem, a.index, std::move(indices));
}

Stmt store(const ArrayRef& a, std::vector<Expr> indices, Expr value, bool streaming) {
  need_index_list(indices, a.type.index_count(), "an array store");
  need(value && value->type == a.type.elem, "a stored value must have the element type", value);
  return ArrayStore::make(a.index, std::move(indices), std::move(value), streaming);
}

Expr shape(const ArrayRef& a, int dim) {
  TACK_INTERNAL_ASSERT(dim >= 0 && dim < a.type.index_count(),
                       "shape of dimension " + std::to_string(dim) + " of an array with " +
                           std::to_string(a.type.index_count()) + " dims");
  return ArrayShape::make(a.index, dim);
}

Expr atomic(AtomicOp op, const ArrayRef& a, std::vector<Expr> indices, Expr value) {
  need_index_list(indices, a.type.index_count(), "an atomic");
  need(value && value->type == a.type.elem, "an atomic's value must have the element type", value);
  need(is_numeric(value->type), "atomics take numbers", value);
  return AtomicRMW::make(op, a.index, std::move(indices), std::move(value));
}

ParallelDim range_dim(std::string n, Expr start, Expr stop, Expr step) {
  need(start && is_int(start->type), "a range takes integers", start);
  need(stop && stop->type == start->type, "range bounds must have one type", start, stop);
  need(step && step->type == start->type, "range bounds must have one type", start, step);
  return ParallelDim{std::move(n), std::move(start), std::move(stop), std::move(step)};
}

ParallelDim range_dim(std::string n, Expr stop) {
  need(stop && is_int(stop->type), "a range takes integers", stop);
  ScalarType t = stop->type;
  return range_dim(std::move(n), int_const(t, 0), std::move(stop), int_const(t, 1));
}

FunctionBuilder::FunctionBuilder(std::string n, ScalarType default_float) {
  fn_.name = std::move(n);
  fn_.default_float = default_float;
}

ArrayRef FunctionBuilder::array_param(std::string n, ScalarType elem, int rank, int vec_width) {
  ArrayType t{elem, rank, vec_width};
  fn_.params.push_back(ParamDecl::array(std::move(n), t));
  return ArrayRef{static_cast<int>(fn_.params.size()) - 1, t};
}

Expr FunctionBuilder::scalar_param(std::string n, ScalarType type) {
  fn_.params.push_back(ParamDecl::scalar(std::move(n), type));
  return Param::make(type, static_cast<int>(fn_.params.size()) - 1);
}

FunctionBuilder& FunctionBuilder::prelude(Stmt s) {
  prelude_.push_back(std::move(s));
  return *this;
}

Function FunctionBuilder::build(std::vector<ParallelDim> dims, Stmt body) {
  std::vector<Stmt> stmts = prelude_;
  stmts.push_back(ParallelFor::make(std::move(dims), std::move(body)));
  return build_raw(Block::make(std::move(stmts)));
}

Function FunctionBuilder::build_raw(Stmt body) {
  Function f = fn_;
  f.body = std::move(body);
  return f;
}

}  // namespace tack::ir
