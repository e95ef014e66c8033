// Atomics and streaming stores: tack.atomic_add/min/max(a, index, value) and
// tack.stream_store(a, index, value) on array arguments.
#include "lowering/builtins/builtin.hpp"
#include "lowering/lowerer.hpp"

namespace tack::lowering {
namespace {

using ir::ScalarType;

// The index argument of an atomic or a streaming store: an expression, or a tuple of them.
std::vector<const frontend::Expr*> index_exprs(const frontend::Expr& index) {
  std::vector<const frontend::Expr*> idx;
  if (const auto* t = index.as<frontend::Tuple>()) {
    for (const frontend::ExprPtr& e : t->elements) idx.push_back(e.get());
  } else {
    idx.push_back(&index);
  }
  return idx;
}

// (i, r, c) of a tack.mat array with `cols` columns: the last two indices become the flat
// component r * cols + c.
void fold_matrix_index(std::vector<ir::Expr>& indices, int cols) {
  if (cols == 0) return;
  ir::Expr col = ir::cast(ScalarType::i64, indices.back());
  indices.pop_back();
  ir::Expr row = ir::cast(ScalarType::i64, indices.back());
  indices.pop_back();
  indices.push_back(ir::add(ir::mul(row, ir::const_i64(cols)), col));
}

Value lower_atomic(Lowerer& l, const BuiltinCall& bc, std::vector<Value>&) {
  const std::string& name = bc.name;
  const frontend::Call& c = bc.call;
  const ir::AtomicOp op = bc.builtin.atomic;
  std::string what = "the first argument of " + call_name(name);
  const Symbol* arr = l.array_of(*c.args[0], what);
  if (arr->kind == SymbolKind::LocalArray) {
    l.fail(c.args[0]->loc, "atomics work on array arguments; '" + arr->name +
                               "' is a local array, private to one iteration: update it "
                               "directly (" +
                               arr->name + "[i] += v)");
  }
  if (ir::is_bool(arr->type)) {
    l.fail(c.args[0]->loc, "atomics on bool arrays are not supported ('" + arr->name + "')");
  }
  const frontend::Expr& ie = *c.args[1];
  const std::vector<const frontend::Expr*> idx = index_exprs(ie);
  const int rank = arr->array.rank, width = arr->array.vec_width, cols = arr->mat_cols;
  int need = arr->array.index_count() + (cols ? 1 : 0);
  if (width > 0 && static_cast<int>(idx.size()) == rank) {
    // A whole vector or matrix element: one atomic per component, the old values a vector.
    Sequence seq(l);
    for (const frontend::Expr* e : idx) seq.add_expr(*e);
    size_t value = seq.add_operand(*c.args[2]);
    std::vector<ir::Expr> indices;
    for (size_t k = 0; k < idx.size(); ++k) {
      ir::Expr e = l.index(seq[k], idx[k]->loc);
      indices.push_back(cheap_to_repeat(e) ? e : l.spill(e));
    }
    const Value& v = seq[value];
    const int rows = cols ? width / cols : width;
    if (v.is_tuple() && !(v.is_vecmat() && v.rows == rows && v.cols == cols)) {
      l.fail(c.args[2]->loc, call_name(name) + " of a whole element of '" + arr->name +
                                 "' takes a value of its shape (or a number); this is " +
                                 l.describe(v));
    }
    const Value x = v.is_tuple() ? v : l.once(v);
    std::vector<Value> old;
    for (int k = 0; k < width; ++k) {
      std::vector<ir::Expr> at = indices;
      at.push_back(ir::const_i64(k));
      ir::Expr e = l.convert_store(x.is_tuple() ? x.tuple[static_cast<size_t>(k)] : x, arr->type,
                                   c.args[2]->loc, "the array '" + arr->name + "'");
      // Each atomic runs once, in component order, whether or not its old value is used.
      old.push_back(Value::typed(
          l.spill(ir::atomic(op, ir::ArrayRef{arr->param, arr->array}, std::move(at), e))));
    }
    Value out = Value::of_tuple(std::move(old));
    out.rows = rows;
    out.cols = cols;
    return out;
  }
  if (static_cast<int>(idx.size()) != need) {
    l.fail(ie.loc,
           "'" + arr->name + "' has rank " + std::to_string(arr->array.rank) +
               (arr->array.vec_width
                    ? " with vectors of " + std::to_string(arr->array.vec_width) + " components"
                    : "") +
               " and takes " + std::to_string(need) + " " +
               (need == 1 ? "index"
                          : "indices, as a tuple (" + name + "(" + arr->name + ", (i, j), v))") +
               ", got " + std::to_string(idx.size()));
  }
  Sequence seq(l);
  for (const frontend::Expr* e : idx) seq.add_expr(*e);
  size_t value = seq.add_expr(*c.args[2]);
  std::vector<ir::Expr> indices;
  for (size_t k = 0; k < idx.size(); ++k) indices.push_back(l.index(seq[k], idx[k]->loc));
  fold_matrix_index(indices, cols);
  ir::Expr v =
      l.convert_store(seq[value], arr->type, c.args[2]->loc, "the array '" + arr->name + "'");
  return Value::typed(ir::atomic(op, ir::ArrayRef{arr->param, arr->array}, indices, v));
}

// tack.stream_store(a, index, value): a[index] = value, in Python's order (the value, then the
// index), with the hint that the value will not be read again soon (docs/language.md).
Value lower_stream_store(Lowerer& l, const BuiltinCall& bc, std::vector<Value>&) {
  const std::string& name = bc.name;
  const frontend::Call& c = bc.call;
  std::string what = "the first argument of " + call_name(name);
  const Symbol* arr = l.array_of(*c.args[0], what);
  if (arr->kind == SymbolKind::LocalArray) {
    l.fail(c.args[0]->loc, call_name(name) + " writes array arguments; '" + arr->name +
                               "' is a local array, private to one iteration: assign to it (" +
                               arr->name + "[i] = v)");
  }
  const frontend::Expr& ie = *c.args[1];
  const std::vector<const frontend::Expr*> idx = index_exprs(ie);
  const int cols = arr->mat_cols;
  const int need = arr->array.index_count() + (cols ? 1 : 0);
  if (static_cast<int>(idx.size()) != need) {
    l.fail(ie.loc,
           call_name(name) + " writes one number: '" + arr->name + "' takes " +
               std::to_string(need) + " " +
               (need == 1 ? "index"
                          : "indices, as a tuple (" + name + "(" + arr->name + ", (i, j), v))") +
               (arr->array.vec_width ? " (the component last)" : "") + ", got " +
               std::to_string(idx.size()));
  }
  Sequence seq(l);
  const size_t value = seq.add_expr(*c.args[2]);
  for (const frontend::Expr* e : idx) seq.add_expr(*e);
  if (seq[value].is_tuple()) {
    l.fail(c.args[2]->loc, call_name(name) + " writes one number; this is " +
                               l.describe(seq[value]) + ": store its components one by one");
  }
  ir::Expr v =
      l.convert_store(seq[value], arr->type, c.args[2]->loc, "the array '" + arr->name + "'");
  std::vector<ir::Expr> indices;
  for (size_t k = 0; k < idx.size(); ++k) indices.push_back(l.index(seq[k + 1], idx[k]->loc));
  fold_matrix_index(indices, cols);
  l.emit(ir::store(ir::ArrayRef{arr->param, arr->array}, std::move(indices), std::move(v),
                   /*streaming=*/true));
  return Value{};
}

Builtin atomic(const char* op, ir::AtomicOp a, const char* doc) {
  const std::string name = std::string("tack.atomic_") + op;
  return {{name},
          3,
          3,
          Form::Raw,
          lower_atomic,
          name + "(a, index, value)",
          doc,
          Needs::Nothing,
          {name},
          ir::MathFn::Sqrt,
          ScalarType::f32,
          a};
}

}  // namespace

std::vector<Builtin> atomic_builtins() {
  return {
      atomic("add", ir::AtomicOp::Add, "a[index] += value atomically; returns the old value"),
      atomic("min", ir::AtomicOp::Min,
             "a[index] = min(a[index], value) atomically; returns the old value"),
      atomic("max", ir::AtomicOp::Max,
             "a[index] = max(a[index], value) atomically; returns the old value"),
      {{"tack.stream_store"},
       3,
       3,
       Form::Raw,
       lower_stream_store,
       "tack.stream_store(a, index, value)",
       "a[index] = value, written around the caches where the device can (non-temporal stores "
       "on the CPU)",
       Needs::Nothing,
       {"tack.stream_store"}},
  };
}

}  // namespace tack::lowering
