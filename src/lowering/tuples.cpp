// Tuples (docs/design/tuples.md): tuple values, tuple locals, element access and unpacking
// assignments. The IR has no tuples: a tuple local is one scalar local per element.
#include "lowering/lowerer.hpp"
#include "lowering/typing.hpp"

namespace tack::lowering {
namespace {

using frontend::SourceLoc;

// A value that no assignment can change: a literal, a constant, a parameter, an extent.
bool is_constant(const Value& v) {
  if (v.is_weak()) return true;
  return v.expr && cheap_to_repeat(v.expr) && v.expr->kind != ir::NodeKind::Var;
}

std::string count_of(size_t n) {
  return std::to_string(n) + (n == 1 ? " element" : " elements");
}

}  // namespace

std::string Lowerer::describe(const Value& v) const {
  if (v.array) return "the array '" + v.array->name + "'";
  if (v.is_none()) return "no value";
  if (v.is_weak()) return "the constant " + v.weak->text();
  if (!v.is_tuple()) return type_name(v.expr->type);
  if (v.is_vecmat()) {
    return std::string("a ") +
           (v.cols ? "mat" + std::to_string(v.rows) + "x" + std::to_string(v.cols)
                   : "vec" + std::to_string(v.rows)) +
           " of " + type_name(type_of(v.tuple[0]));
  }
  std::string s = "a tuple of " + count_of(v.tuple.size()) + " (";
  for (size_t k = 0; k < v.tuple.size(); ++k) {
    const Value& e = v.tuple[k];
    s += (k ? ", " : "") +
         (e.is_tuple() ? std::string("tuple") : type_name(type_of(e)));  // literals: default
  }
  return s + ")";
}

Value Lowerer::lower_tuple(const frontend::Tuple& t) {
  if (t.list) return lower_list(t);
  Sequence seq(*this);
  for (const frontend::ExprPtr& e : t.elements) {
    seq.add([&] {
      Value v = lower_expr(*e);
      if (v.array) {
        fail(e->loc, "a tuple holds numbers, bools and tuples, not arrays ('" + v.array->name +
                         "'); pass the array itself, or index it (" + v.array->name + "[i])");
      }
      if (v.is_none()) fail(e->loc, "this call returns no value; it cannot be a tuple element");
      return v;
    });
  }
  return Value::of_tuple(std::move(seq.values()));
}

Value Lowerer::read_tuple(const Symbol& s) const {
  std::vector<Value> out;
  for (const Symbol* e : s.elements) {
    out.push_back(e->kind == SymbolKind::Tuple ? read_tuple(*e)
                                               : Value::typed(ir::var(e->type, e->ir_name)));
  }
  Value v = Value::of_tuple(std::move(out));
  v.rows = s.rows;
  v.cols = s.cols;
  return v;
}

Value Lowerer::tuple_item(const Value& tuple, const frontend::Subscript& s) {
  const size_t n = tuple.tuple.size();
  const std::string range = "an integer constant from " +
                            std::to_string(-static_cast<long long>(n)) + " to " +
                            std::to_string(n - 1);
  if (s.indices.size() != 1) {
    fail(s.loc,
         "a tuple takes one index, " + range + "; this has " + std::to_string(s.indices.size()));
  }
  const frontend::Expr& ie = *s.indices[0];
  Value iv = lower_expr(ie);
  if (!iv.is_weak() || iv.weak->is_float) {
    fail(ie.loc, "a tuple's index must be " + range +
                     " (the elements may have different types, so the index is resolved when "
                     "the kernel compiles); this index is " +
                     describe(iv));
  }
  Int128 k = iv.weak->i;
  if (k < 0) k += static_cast<Int128>(n);
  if (k < 0 || k >= static_cast<Int128>(n)) {
    fail(ie.loc, "tuple index " + iv.weak->text() + " is out of range for a tuple of " +
                     count_of(n) + "; use " + range);
  }
  return tuple.tuple[static_cast<size_t>(k)];
}

Symbol* Lowerer::make_tuple(const std::string& name, SourceLoc loc, const Value& v, bool init,
                            std::vector<ir::Stmt>* lets) {
  Symbol t;
  t.kind = SymbolKind::Tuple;
  t.name = name;
  t.loc = loc;
  t.prelude = in_prelude_;
  t.rows = v.rows;
  t.cols = v.cols;
  Symbol* out = new_symbol(std::move(t));
  for (size_t k = 0; k < v.tuple.size(); ++k) {
    const Value& e = v.tuple[k];
    const std::string element_name = name + "[" + std::to_string(k) + "]";
    if (e.is_tuple()) {
      Symbol* inner = make_tuple(element_name, loc, e, init, lets);
      out->elements.push_back(inner);
      continue;
    }
    Symbol s;
    s.kind = SymbolKind::Local;
    s.name = element_name;
    s.ir_name = fresh(name + "_" + std::to_string(k));
    s.type = type_of(e);
    s.loc = loc;
    s.prelude = in_prelude_;
    s.from_literal = e.is_weak();
    ir::Stmt let = ir::let(s.ir_name, init ? typed(e) : ir::make_const(s.type, 0));
    if (lets) {
      lets->push_back(let);
    } else {
      emit(let);
    }
    out->elements.push_back(new_symbol(std::move(s)));
  }
  return out;
}

Value Lowerer::settle(const Value& v) {
  if (v.is_tuple()) {
    std::vector<Value> out;
    for (const Value& e : v.tuple) out.push_back(settle(e));
    return Value::like(v, std::move(out));
  }
  if (is_constant(v)) return v;
  return Value::typed(spill(v.expr));
}

void Lowerer::assign_tuple(Symbol& s, const std::string& name, const Value& v,
                           SourceLoc value_loc) {
  if (!v.is_tuple()) {
    fail(value_loc, "'" + name + "' is a tuple of " + count_of(s.elements.size()) +
                        " (from its first assignment on line " + std::to_string(s.loc.line) +
                        "); it cannot be assigned " + describe(v) +
                        "; assign a tuple of the same length, or use a new name");
  }
  if (s.rows != v.rows || s.cols != v.cols) {
    Value shape = read_tuple(s);
    fail(value_loc, "'" + name + "' is " + describe(shape) +
                        " (from its first assignment on line " + std::to_string(s.loc.line) +
                        "); it cannot be assigned " + describe(v) +
                        "; assign a value of the same shape, or use a new name");
  }
  if (v.tuple.size() != s.elements.size()) {
    fail(value_loc, "'" + name + "' is a tuple of " + count_of(s.elements.size()) +
                        " (from its first assignment on line " + std::to_string(s.loc.line) +
                        "); it cannot be assigned " + describe(v) +
                        "; a tuple local keeps its length");
  }
  const Value saved = settle(v);  // the right side first: t = (t[1], t[0]) swaps
  for (size_t k = 0; k < s.elements.size(); ++k) {
    Symbol& e = *s.elements[k];
    if (e.kind == SymbolKind::Tuple) {
      assign_tuple(e, e.name, saved.tuple[k], value_loc);
    } else {
      if (saved.tuple[k].is_tuple()) {
        fail(value_loc,
             "'" + e.name + "' is " + type_name(e.type) + "; it cannot be assigned a tuple");
      }
      assign_scalar(&e, e.name, value_loc, saved.tuple[k], value_loc);
    }
  }
}

namespace {

void assign_target(Lowerer& l, const frontend::Expr& target, const Value& v, SourceLoc value_loc) {
  if (const auto* n = target.as<frontend::Name>()) {
    l.assign_name(n->id, n->loc, v, value_loc);
    return;
  }
  if (const auto* t = target.as<frontend::Tuple>()) {
    if (v.is_matrix()) {  // a matrix unpacks into its rows
      std::vector<Value> rows;
      for (int r = 0; r < v.rows; ++r) {
        Value row = Value::of_tuple(
            std::vector<Value>(v.tuple.begin() + r * v.cols, v.tuple.begin() + (r + 1) * v.cols));
        row.rows = v.cols;
        rows.push_back(std::move(row));
      }
      assign_target(l, target, Value::of_tuple(std::move(rows)), value_loc);
      return;
    }
    if (!v.is_tuple()) {
      l.fail(value_loc, "cannot unpack " + l.describe(v) + " into " +
                            std::to_string(t->elements.size()) +
                            " targets; the right side must be a tuple of as many values");
    }
    if (v.tuple.size() != t->elements.size()) {
      l.fail(value_loc,
             "cannot unpack " + l.describe(v) + " into " + std::to_string(t->elements.size()) +
                 " targets; " +
                 (v.tuple.size() > t->elements.size() ? "too many values" : "not enough values") +
                 " to unpack");
    }
    for (size_t k = 0; k < t->elements.size(); ++k) {
      assign_target(l, *t->elements[k], v.tuple[k], value_loc);
    }
    return;
  }
  if (l.is_component_target(target)) {
    l.assign_component(target, v, value_loc, std::nullopt, value_loc);
    return;
  }
  if (target.is<frontend::Attribute>()) {
    l.fail(target.loc,
           "only a vector local's components can be assigned as attributes (v.x = "
           "...)");
  }
  const auto& sub = *target.as<frontend::Subscript>();
  Sequence seq(l);
  seq.add([&] { return v; });
  Access acc = l.lower_access(sub, seq, /*whole=*/true);
  if (acc.whole) {
    l.store_whole(acc, seq[0], value_loc);
    return;
  }
  if (seq[0].is_tuple()) {
    l.fail(value_loc,
           "an array element holds one number; it cannot be assigned " + l.describe(seq[0]));
  }
  l.emit(l.store(acc, l.convert_store(seq[0], acc.array->type, value_loc,
                                      "the array '" + acc.array->name + "'")));
}

}  // namespace

void Lowerer::unpack(const frontend::Expr& target, const frontend::Expr& value) {
  Value v = lower_expr(value);
  if (v.array) {
    fail(value.loc, "cannot unpack the array '" + v.array->name +
                        "'; a tuple is unpacked, and an array's elements are read by index");
  }
  if (v.is_none()) fail(value.loc, "this call returns no value; there is nothing to unpack");
  assign_target(*this, target, settle(v), value.loc);
}

}  // namespace tack::lowering
