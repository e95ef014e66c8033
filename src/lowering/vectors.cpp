// Vectors and matrices (docs/design/vectors.md): values made of scalar components in the
// lowering only, like tuples; the IR and every backend stay scalar. A vector or matrix Value is a
// tuple of its components (a matrix row-major) with its shape in `rows`/`cols`; a vector local is
// a tuple symbol of one scalar local per component.
#include <functional>

#include "lowering/lowerer.hpp"
#include "lowering/typing.hpp"

namespace tack::lowering {
namespace {

using frontend::BinaryOp;
using frontend::SourceLoc;
using ir::MathFn;
using ir::ScalarType;

constexpr int kMaxSide = 4;  // vectors of up to 4 components, matrices up to 4x4

std::string shape_name(int rows, int cols) {
  return cols ? "mat" + std::to_string(rows) + "x" + std::to_string(cols)
              : "vec" + std::to_string(rows);
}

std::string shape_name(const Value& v) {
  return shape_name(v.rows, v.cols);
}

std::string quoted(BinaryOp op) {
  return "'" + std::string(frontend::spelling(op)) + "'";
}

Value vector_of(std::vector<Value> components) {
  Value v = Value::of_tuple(std::move(components));
  v.rows = static_cast<int>(v.tuple.size());
  return v;
}

const char* const kLetters = "xyzw";

}  // namespace

Value Lowerer::operand(const frontend::Expr& e) {
  Value v = lower_expr(e);
  if (v.array) {
    fail(e.loc, "'" + v.array->name + "' is an array; a number is needed here: index it (" +
                    v.array->name + "[i])");
  }
  if (v.is_none()) fail(e.loc, "this call returns no value; a number is needed here");
  if (v.is_plain_tuple()) {
    fail(e.loc, describe(v) +
                    " is not a number; a number is needed here: index it (t[0]) or "
                    "unpack it (a, b = t)" +
                    (v.tuple.size() <= kMaxSide
                         ? "; for a vector, write it as one: tack.Vector([...]) or [a, b]"
                         : ""));
  }
  return v;
}

ScalarType Lowerer::component_type(const Value& v) const {
  return type_of(v.tuple[0]);
}

Value Lowerer::make_vector(std::vector<Value> components, int rows, int cols, SourceLoc loc,
                           const std::string& what) {
  if (rows < 1 || rows > kMaxSide || cols < 0 || cols > kMaxSide) {
    fail(loc, what + " has " +
                  (cols ? std::to_string(rows) + "x" + std::to_string(cols)
                        : std::to_string(rows) + " components") +
                  "; Tack's vectors have 1 to 4 components and its matrices are at most 4x4; "
                  "use a local array (tack.local_array) for more");
  }
  bool any_bool = false, any_number = false, any_typed = false, any_float = false;
  for (const Value& c : components) {
    if (c.array) {
      fail(loc, what + " holds numbers, not arrays ('" + c.array->name + "'); index it (" +
                    c.array->name + "[i])");
    }
    if (c.is_none()) fail(loc, what + ": a call in it returns no value");
    if (c.is_tuple()) {
      fail(loc,
           what + " holds numbers; this component is " + describe(c) +
               (c.is_vector() && !cols ? "; a matrix is written with rows: [[a, b], [c, d]]" : ""));
    }
    const bool b = !c.is_weak() && ir::is_bool(c.expr->type);
    any_bool = any_bool || b;
    any_number = any_number || !b;
    any_typed = any_typed || !c.is_weak();
    any_float = any_float || (c.is_weak() && c.weak->is_float);
  }
  if (any_bool && any_number) {
    fail(loc, what +
                  " mixes bools and numbers; a vector's components have one type: convert "
                  "the bools (int(b)) or compare the numbers (x != 0)");
  }
  Value out = Value::of_tuple({});
  if (!any_typed) {
    // Only literals: they stay weak (so [1.0, 2.0] * x is x's type), as floats if one is.
    for (Value& c : components) {
      if (any_float && !c.weak->is_float) c.weak = Constant::of_float(c.weak->as_double());
    }
    out.tuple = std::move(components);
  } else if (any_bool) {
    out.tuple = std::move(components);
  } else {
    // From the first typed component: literals merge with a type, never with each other
    // first ([1, 2, b] of an u8 b is u8, as 1 + b is).
    size_t first = 0;
    while (components[first].is_weak()) ++first;
    Value acc = components[first];
    ScalarType t = type_of(acc);
    for (size_t k = 0; k < components.size(); ++k) {
      if (k == first) continue;
      t = merge_types(acc, components[k], loc, "the components of " + what);
      acc = Value::typed(ir::make_const(t, 0));
    }
    for (Value& c : components) c = Value::typed(coerce(c, t, loc, "the other components"));
    out.tuple = std::move(components);
  }
  out.rows = rows;
  out.cols = cols;
  return out;
}

Value Lowerer::lower_list(const frontend::Tuple& t) {
  Sequence seq(*this);
  for (const frontend::ExprPtr& e : t.elements) seq.add_operand(*e);
  std::vector<Value>& items = seq.values();
  const std::string what = "this list";
  if (!items[0].is_vecmat())
    return make_vector(std::move(items), static_cast<int>(items.size()), 0, t.loc, what);
  // A matrix from its rows: [[a, b], [c, d]] or [u, v] of vectors of one length.
  std::vector<Value> components;
  const int n = items[0].rows;
  for (size_t r = 0; r < items.size(); ++r) {
    const Value& row = items[r];
    if (!row.is_vector() || row.rows != n) {
      fail(t.elements[r]->loc, "the rows of a matrix are vectors of one length; row 0 is a " +
                                   shape_name(items[0]) + " and row " + std::to_string(r) + " is " +
                                   describe(row));
    }
    components.insert(components.end(), row.tuple.begin(), row.tuple.end());
  }
  return make_vector(std::move(components), static_cast<int>(items.size()), n, t.loc,
                     "this matrix");
}

Value Lowerer::construct_vector(const frontend::Call& c, bool matrix) {
  const std::string name = matrix ? "tack.Matrix" : "tack.Vector";
  const std::string example =
      matrix ? "tack.Matrix([[a, b], [c, d]]) or tack.Matrix([[a, b], [c, d]], tack.f32)"
             : "tack.Vector([x, y, z]) or tack.Vector([x, y, z], tack.f32)";
  if (c.args.empty() || c.args.size() > 2) {
    fail(c.loc, name + "() takes a list and optionally a dtype: " + example + "; got " +
                    std::to_string(c.args.size()) + " arguments");
  }
  Value v = lower_expr(*c.args[0]);
  if (v.is_plain_tuple()) {
    // A tuple of numbers (a module constant G = (0.0, -9.8, 0.0)): its elements; for a matrix,
    // a tuple of rows.
    std::vector<Value> items;
    for (const Value& e : v.tuple) {
      if (matrix && e.is_plain_tuple()) {
        Value row = e;
        row.rows = static_cast<int>(row.tuple.size());
        items.push_back(make_vector(row.tuple, row.rows, 0, c.args[0]->loc, "this row"));
      } else {
        items.push_back(e);
      }
    }
    if (!matrix) {
      v = make_vector(items, static_cast<int>(items.size()), 0, c.args[0]->loc, "this tuple");
    } else {
      std::vector<Value> flat;
      const int n = items[0].is_vector() ? items[0].rows : 0;
      for (const Value& row : items) {
        if (!row.is_vector() || row.rows != n) {
          fail(c.args[0]->loc, "tack.Matrix() takes rows of one length; this is " + describe(v));
        }
        flat.insert(flat.end(), row.tuple.begin(), row.tuple.end());
      }
      v = make_vector(flat, static_cast<int>(items.size()), n, c.args[0]->loc, "this matrix");
    }
  }
  if (v.array)
    fail(c.args[0]->loc, name + "() takes a list, not the array '" + v.array->name + "'");
  if (v.is_none()) fail(c.args[0]->loc, "this call returns no value");
  if (!v.is_vecmat() || v.is_matrix() != matrix) {
    fail(c.args[0]->loc, name + "() takes " + (matrix ? "a list of rows" : "a list of components") +
                             " (" + example + "); this is " + describe(v));
  }
  if (c.args.size() == 2) {
    const ScalarType t = dtype_argument(*c.args[1], name + "()");
    for (Value& e : v.tuple) {
      e = Value::typed(e.is_weak() ? make_constant(*e.weak, t) : ir::cast(t, e.expr));
    }
  }
  return v;
}

ScalarType Lowerer::dtype_argument(const frontend::Expr& e, const std::string& call) {
  const std::optional<ScalarType> t = dtype_named(e);
  if (!t) {
    fail(e.loc, "the second argument of " + call + " is a dtype (tack.f32, tack.i32, ...), not '" +
                    frontend::dotted_name(e) + "'");
  }
  return *t;
}

Value Lowerer::identity_matrix(const frontend::Call& c) {
  const Value n = lower_expr(*c.args[0]);
  if (!n.is_weak() || n.weak->is_float || n.weak->as_double() < 1 || n.weak->as_double() > 4) {
    fail(c.args[0]->loc,
         "tack.Matrix.identity(n) takes a constant n from 1 to 4 (the size of "
         "Tack's matrices); this is " +
             describe(n));
  }
  const int size = static_cast<int>(n.weak->as_double());
  std::optional<ScalarType> t;
  if (c.args.size() == 2) t = dtype_argument(*c.args[1], "tack.Matrix.identity()");
  std::vector<Value> components;
  for (int r = 0; r < size; ++r) {
    for (int k = 0; k < size; ++k) {
      const bool integer = t && !tack::is_float(*t);
      const Constant one_or_zero =
          integer ? Constant::of_int(r == k ? 1 : 0) : Constant::of_float(r == k ? 1.0 : 0.0);
      components.push_back(t ? Value::typed(make_constant(one_or_zero, *t))
                             : Value::literal(one_or_zero));
    }
  }
  return make_vector(std::move(components), size, size, c.loc, "tack.Matrix.identity()");
}

Value Lowerer::once(const Value& v) {
  if (v.is_tuple()) {
    std::vector<Value> out;
    for (const Value& e : v.tuple) out.push_back(once(e));
    return Value::like(v, std::move(out));
  }
  if (v.expr && !cheap_to_repeat(v.expr)) return Value::typed(spill(v.expr));
  return v;
}

namespace {

// Whether evaluating the value twice would repeat work or effects.
bool needs_once(const Value& v) {
  for (const Value& e : v.tuple) {
    if (needs_once(e)) return true;
  }
  return v.expr && !cheap_to_repeat(v.expr);
}

}  // namespace

void Lowerer::settle_repeated(Value& a, bool a_repeated, Value& b, bool b_repeated) {
  // Both, in order, so that a's reads stay before b's.
  if ((a_repeated && needs_once(a)) || (b_repeated && needs_once(b))) {
    a = once(a);
    b = once(b);
  }
}

namespace {

// The shapes of two operands of an element-wise construct: one of them may be a number.
void check_same_shape(const Lowerer& l, const Value& a, const Value& b, const std::string& op,
                      SourceLoc loc) {
  if (a.is_vecmat() && b.is_vecmat() && (a.rows != b.rows || a.cols != b.cols)) {
    l.fail(loc, op + " on " + l.describe(a) + " and " + l.describe(b) +
                    ": element-wise operations need one shape (or one side a number)" +
                    (a.is_matrix() != b.is_matrix() ? "; for a matrix product, use '@'" : ""));
  }
}

// Element k of an operand: its component, or the number itself.
const Value& element(const Value& v, size_t k) {
  return v.is_vecmat() ? v.tuple[k] : v;
}

}  // namespace

Value Lowerer::vector_binary(BinaryOp op, const Value& a0, const Value& b0, SourceLoc loc) {
  for (const Value* v : {&a0, &b0}) {
    if (v->is_plain_tuple()) {
      fail(loc, quoted(op) + " does not take tuples (" + describe(*v) +
                    "); a vector is written tack.Vector([...]) or [a, b]");
    }
  }
  Value a = a0, b = b0;
  if (op != BinaryOp::MatMul) {
    settle_repeated(a, !a.is_vecmat() && b.is_vecmat(), b, !b.is_vecmat() && a.is_vecmat());
  }
  if (op == BinaryOp::MatMul) {
    for (const Value* v : {&a, &b}) {
      if (!v->is_vecmat()) {
        fail(loc, "'@' multiplies vectors and matrices; this operand is " + describe(*v) +
                      "; scale with '*'");
      }
      if (ir::is_bool(component_type(*v))) fail(loc, "'@' takes numbers, not " + describe(*v));
    }
    // a (n x k) @ b (k x m); a vector on the left is a row, on the right a column.
    const int n = a.is_matrix() ? a.rows : 1, k = a.is_matrix() ? a.cols : a.rows;
    const int kb = b.is_matrix() ? b.rows : b.rows, m = b.is_matrix() ? b.cols : 1;
    if (k != kb) {
      fail(loc, "'@' of " + describe(a) + " and " + describe(b) + ": the inner sizes differ (" +
                    std::to_string(k) + " and " + std::to_string(kb) + ")");
    }
    settle_repeated(a, m > 1, b, n > 1);  // a's components are used m times, b's n times
    std::vector<Value> out;
    for (int r = 0; r < n; ++r) {
      for (int c = 0; c < m; ++c) {
        Value sum;
        for (int j = 0; j < k; ++j) {
          Value p = binary(BinaryOp::Mul, a.tuple[static_cast<size_t>(r * k + j)],
                           b.tuple[static_cast<size_t>(j * m + c)], loc);
          sum = j == 0 ? p : binary(BinaryOp::Add, sum, p, loc);
        }
        out.push_back(sum);
      }
    }
    if (!a.is_matrix() && !b.is_matrix()) return out[0];  // the dot product
    if (a.is_matrix() && b.is_matrix()) return make_vector(std::move(out), n, m, loc, "'@'");
    return make_vector(std::move(out), a.is_matrix() ? n : m, 0, loc, "'@'");
  }
  check_same_shape(*this, a, b, quoted(op), loc);
  const Value& shape = a.is_vecmat() ? a : b;
  std::vector<Value> out;
  for (size_t k = 0; k < shape.tuple.size(); ++k) {
    out.push_back(binary(op, element(a, k), element(b, k), loc));
  }
  return make_vector(std::move(out), shape.rows, shape.cols, loc, "the result of " + quoted(op));
}

Value Lowerer::vector_unary(frontend::UnaryOp op, const Value& v, SourceLoc loc) {
  std::vector<Value> out;
  for (const Value& c : v.tuple) out.push_back(unary(op, c, loc));
  return make_vector(std::move(out), v.rows, v.cols, loc, "the result");
}

Value Lowerer::vector_compare(frontend::CompareOp op, const Value& a0, const Value& b0,
                              SourceLoc loc) {
  const std::string sop = "'" + std::string(frontend::spelling(op)) + "'";
  Value a = a0, b = b0;
  settle_repeated(a, !a.is_vecmat() && b.is_vecmat(), b, !b.is_vecmat() && a.is_vecmat());
  check_same_shape(*this, a, b, sop, loc);
  const Value& shape = a.is_vecmat() ? a : b;
  std::vector<Value> out;
  for (size_t k = 0; k < shape.tuple.size(); ++k) {
    out.push_back(Value::typed(compare(op, element(a, k), element(b, k), loc)));
  }
  return make_vector(std::move(out), shape.rows, shape.cols, loc, "the mask");
}

Value Lowerer::vector_attribute(const Value& v, const frontend::Attribute& a) {
  const std::string& attr = a.attr;
  const size_t k = attr.size() == 1 ? std::string(kLetters).find(attr[0]) : std::string::npos;
  if (k != std::string::npos && v.is_vector()) {
    if (static_cast<int>(k) >= v.rows) {
      std::string have;
      for (int j = 0; j < v.rows; ++j) have += (j ? ", ." : ".") + std::string(1, kLetters[j]);
      fail(a.attr_loc,
           "'." + attr + "' is out of range for " + describe(v) + ", which has " + have);
    }
    return v.tuple[k];
  }
  static const char* const kMethods[] = {
      "dot", "cross", "norm", "norm_sqr",  "normalized", "sum",         "min",
      "max", "any",   "all",  "transpose", "trace",      "determinant", "inverse"};
  for (const char* m : kMethods) {
    if (attr == m) fail(a.attr_loc, "'" + attr + "' is a method; call it: ." + attr + "()");
  }
  fail(a.attr_loc, describe(v) + " has no attribute '" + attr + "'" +
                       (v.is_vector() ? "; its components are .x .y .z .w (as many as it has) "
                                        "or v[k]"
                                      : "; its elements are m[i, j], its rows m[i]"));
}

namespace {

// The index expressions of v[...] / m[...][...] as written: one per dimension.
std::vector<const frontend::Expr*> item_indices(const frontend::Subscript& s) {
  std::vector<const frontend::Expr*> idx;
  for (const frontend::ExprPtr& e : s.indices) {
    if (const auto* t = e->as<frontend::Tuple>(); t && !t->list) {
      for (const frontend::ExprPtr& x : t->elements) idx.push_back(x.get());
    } else {
      idx.push_back(e.get());
    }
  }
  return idx;
}

}  // namespace

// One index into `n` items: a constant in -n..n-1 (negative from the end, as for tuples), or an
// integer value (the item chosen at run time).
struct ItemIndex {
  std::optional<int> constant;
  ir::Expr runtime;
};

namespace {

ItemIndex resolve_index(Lowerer& l, const Value& iv, int n, SourceLoc loc,
                        const std::string& what) {
  const std::string range = "0 to " + std::to_string(n - 1);
  if (iv.is_weak()) {
    if (iv.weak->is_float) {
      l.fail(loc, "the index of " + what + " must be an integer, got " + iv.weak->text());
    }
    Int128 k = iv.weak->i;
    if (k < 0) k += n;
    if (k < 0 || k >= n) {
      l.fail(loc, "index " + iv.weak->text() + " is out of range for " + what + " (" + range +
                      ", or -" + std::to_string(n) + " to -1 from the end)");
    }
    return ItemIndex{static_cast<int>(k), nullptr};
  }
  if (!ir::is_int(iv.expr->type)) {
    l.fail(loc, "the index of " + what + " must be an integer, got " + l.describe(iv));
  }
  ir::Expr e = cheap_to_repeat(iv.expr) ? iv.expr : l.spill(iv.expr);
  return ItemIndex{std::nullopt, e};
}

// items[k] chosen at run time: a select chain, the last item when no other matches.
Value select_item(Lowerer& l, const std::vector<Value>& items, const ir::Expr& k) {
  Value out = items.back();
  for (size_t j = items.size() - 1; j-- > 0;) {
    const ir::Expr hit = ir::eq(k, ir::make_const(k->type, static_cast<int64_t>(j)));
    if (items[j].is_tuple()) {
      std::vector<Value> parts;
      for (size_t c = 0; c < items[j].tuple.size(); ++c) {
        parts.push_back(
            Value::typed(ir::select(hit, l.typed(items[j].tuple[c]), l.typed(out.tuple[c]))));
      }
      out = Value::like(items[j], std::move(parts));
    } else {
      out = Value::typed(ir::select(hit, l.typed(items[j]), l.typed(out)));
    }
  }
  return out;
}

// The rows of a matrix as vectors; the components of a vector.
std::vector<Value> items_of(const Value& v) {
  if (!v.is_matrix()) return v.tuple;
  std::vector<Value> rows;
  for (int r = 0; r < v.rows; ++r) {
    rows.push_back(vector_of(
        std::vector<Value>(v.tuple.begin() + r * v.cols, v.tuple.begin() + (r + 1) * v.cols)));
  }
  return rows;
}

}  // namespace

Value Lowerer::vector_item(const Value& v0, const frontend::Subscript& s) {
  std::vector<const frontend::Expr*> idx = item_indices(s);
  const int most = v0.is_matrix() ? 2 : 1;
  if (idx.empty() || static_cast<int>(idx.size()) > most) {
    fail(s.loc, describe(v0) + " takes " +
                    (v0.is_matrix() ? "one index (a row, m[i]) or two (an element, m[i, j])"
                                    : "one index (v[k])") +
                    ", got " + std::to_string(idx.size()));
  }
  Value v = v0;
  std::vector<Value> iv;
  {
    Sequence seq(*this);
    seq.add([&] { return v0; });
    for (const frontend::Expr* e : idx) seq.add_expr(*e);
    v = seq[0];
    for (size_t k = 0; k < idx.size(); ++k) iv.push_back(seq[k + 1]);
  }
  for (size_t k = 0; k < idx.size(); ++k) {
    const int n = v.rows;  // a matrix's rows, then the row's components
    const std::string what = describe(v) + (v.is_matrix() ? "'s rows" : "");
    ItemIndex i = resolve_index(*this, iv[k], n, idx[k]->loc, what);
    std::vector<Value> items = items_of(v);
    if (i.runtime) v = once(v), items = items_of(v);
    v = i.constant ? items[static_cast<size_t>(*i.constant)] : select_item(*this, items, i.runtime);
  }
  return v;
}

namespace {

Value sqrt_of(Lowerer& l, const Value& v) {
  const ScalarType t = l.type_of(v);
  const ScalarType ft = tack::is_float(t) ? t : l.default_float();
  ir::Expr e = v.is_weak() ? make_constant(*v.weak, ft) : ir::cast(ft, v.expr);
  return Value::typed(ir::call(MathFn::Sqrt, {e}));
}

// The components in the vector's float type (an integer vector: the default float).
Value float_vector(Lowerer& l, const Value& v) {
  const ScalarType t = l.component_type(v);
  if (tack::is_float(t)) return v;
  std::vector<Value> out;
  for (const Value& c : v.tuple) {
    out.push_back(Value::typed(c.is_weak() ? make_constant(*c.weak, l.default_float())
                                           : ir::cast(l.default_float(), c.expr)));
  }
  return Value::like(v, std::move(out));
}

Value sum_of(Lowerer& l, const std::vector<Value>& xs, SourceLoc loc) {
  Value s = xs[0];
  for (size_t k = 1; k < xs.size(); ++k) s = l.binary(BinaryOp::Add, s, xs[k], loc);
  return s;
}

}  // namespace

Value Lowerer::vector_method(const std::string& method, std::vector<Value> seq, SourceLoc loc) {
  Value self = seq[0];
  const size_t nargs = seq.size() - 1;
  auto args = [&](size_t lo, size_t hi, const std::string& usage) {
    if (nargs < lo || nargs > hi) {
      fail(loc,
           "." + method + "() takes " +
               (lo == hi ? std::to_string(lo) : std::to_string(lo) + " or " + std::to_string(hi)) +
               (hi == 1 && lo == 1 ? " argument" : " arguments") + " (" + usage + "), got " +
               std::to_string(nargs));
    }
  };
  auto need_vector = [&](const Value& v, const std::string& role) {
    if (!v.is_vector()) {
      fail(loc, "." + method + "() " + role + " a vector; this is " + describe(v));
    }
  };
  auto need_numbers = [&](const Value& v) {
    if (ir::is_bool(component_type(v))) {
      fail(loc,
           "." + method + "() takes numbers; " + describe(v) + " is a mask (use .any() or .all())");
    }
  };
  auto need_square = [&](int most) {
    if (!self.is_matrix() || self.rows != self.cols || self.rows > most) {
      fail(loc, "." + method + "() is defined for square matrices" +
                    (most < kMaxSide ? " of 2x2 and 3x3" : "") + "; this is " + describe(self));
    }
  };
  auto eps_arg = [&]() -> std::optional<Value> {
    if (nargs == 0) return std::nullopt;
    if (seq[1].is_vecmat()) fail(loc, "eps is a number, not " + describe(seq[1]));
    return seq[1];
  };
  if (method == "dot") {
    args(1, 1, "v.dot(w)");
    need_vector(self, "is a method of");
    need_vector(seq[1], "takes");
    need_numbers(self);
    need_numbers(seq[1]);
    return vector_binary(BinaryOp::MatMul, self, seq[1], loc);
  }
  if (method == "cross") {
    args(1, 1, "u.cross(v)");
    const Value& o = seq[1];
    if (!self.is_vector() || !o.is_vector() || self.rows != o.rows ||
        (self.rows != 3 && self.rows != 2)) {
      fail(loc,
           ".cross() takes two vec3 (or two vec2, giving the scalar z of their product); "
           "here " +
               describe(self) + " and " + describe(o));
    }
    need_numbers(self);
    need_numbers(o);
    const Value a = once(self), b = once(o);
    auto term = [&](int i, int j) {
      return binary(BinaryOp::Sub, binary(BinaryOp::Mul, a.tuple[i], b.tuple[j], loc),
                    binary(BinaryOp::Mul, a.tuple[j], b.tuple[i], loc), loc);
    };
    if (self.rows == 2) return term(0, 1);
    return make_vector({term(1, 2), term(2, 0), term(0, 1)}, 3, 0, loc, ".cross()");
  }
  if (method == "norm_sqr" || method == "norm" || method == "normalized") {
    if (method == "norm_sqr") {
      args(0, 0, "v.norm_sqr()");
    } else {
      args(0, 1, "v." + method + "() or v." + method + "(eps)");
    }
    need_numbers(self);
    const Value v = once(method == "normalized" ? float_vector(*this, self) : self);
    std::vector<Value> squares;
    for (const Value& x : v.tuple) squares.push_back(binary(BinaryOp::Mul, x, x, loc));
    Value ns = sum_of(*this, squares, loc);
    if (method == "norm_sqr") return ns;
    if (std::optional<Value> eps = eps_arg()) ns = binary(BinaryOp::Add, ns, *eps, loc);
    Value norm = sqrt_of(*this, ns);
    if (method == "norm") return norm;
    // v * (1 / |v|): one division, as a hand-written normalization does.
    const ScalarType ft = component_type(v);
    Value inv = Value::typed(spill(ir::truediv(ir::float_const(ft, 1.0), ir::cast(ft, norm.expr))));
    return vector_binary(BinaryOp::Mul, v, inv, loc);
  }
  if (method == "sum" || method == "min" || method == "max") {
    args(0, 0, "v." + method + "()");
    need_numbers(self);
    if (method == "sum") return sum_of(*this, self.tuple, loc);
    const ScalarType t = component_type(self);
    ir::Expr e = typed(self.tuple[0]);
    for (size_t k = 1; k < self.tuple.size(); ++k) {
      e = ir::call(method == "min" ? MathFn::Min : MathFn::Max, {e, typed(self.tuple[k])});
    }
    return Value::typed(ir::cast(t, e));
  }
  if (method == "any" || method == "all") {
    args(0, 0, "m." + method + "()");
    return reduce_mask(self, method == "any", loc);
  }
  if (method == "transpose") {
    args(0, 0, "m.transpose()");
    if (!self.is_matrix()) {
      fail(loc, ".transpose() is a method of matrices; this is " + describe(self));
    }
    std::vector<Value> out;
    for (int j = 0; j < self.cols; ++j) {
      for (int i = 0; i < self.rows; ++i) out.push_back(self.tuple[i * self.cols + j]);
    }
    return make_vector(std::move(out), self.cols, self.rows, loc, ".transpose()");
  }
  if (method == "trace") {
    args(0, 0, "m.trace()");
    need_square(kMaxSide);
    need_numbers(self);
    std::vector<Value> diag;
    for (int i = 0; i < self.rows; ++i) diag.push_back(self.tuple[i * self.cols + i]);
    return sum_of(*this, diag, loc);
  }
  if (method == "determinant" || method == "inverse") {
    args(0, 0, "m." + method + "()");
    need_square(3);
    need_numbers(self);
    const Value m = once(method == "inverse" ? float_vector(*this, self) : self);
    const int n = m.rows;
    auto at = [&](int i, int j) { return m.tuple[static_cast<size_t>(i * n + j)]; };
    auto mul = [&](const Value& a, const Value& b) { return binary(BinaryOp::Mul, a, b, loc); };
    auto sub = [&](const Value& a, const Value& b) { return binary(BinaryOp::Sub, a, b, loc); };
    // The cofactors C[i][j] (for 1x1, the 1).
    auto minor2 = [&](int r0, int r1, int c0, int c1) {
      return sub(mul(at(r0, c0), at(r1, c1)), mul(at(r0, c1), at(r1, c0)));
    };
    std::vector<Value> cof;
    if (n == 1) {
      cof.push_back(Value::literal(Constant::of_int(1)));
    } else if (n == 2) {
      cof = {at(1, 1), unary(frontend::UnaryOp::Neg, at(1, 0), loc),
             unary(frontend::UnaryOp::Neg, at(0, 1), loc), at(0, 0)};
    } else {
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
          // The cyclic form gives the sign: rows i+1, i+2 and columns j+1, j+2 (mod 3).
          cof.push_back(minor2((i + 1) % 3, (i + 2) % 3, (j + 1) % 3, (j + 2) % 3));
        }
      }
    }
    if (n > 1) cof = once(Value::like(Value::of_tuple({}), cof)).tuple;
    std::vector<Value> terms;
    for (int j = 0; j < n; ++j) terms.push_back(mul(at(0, j), cof[static_cast<size_t>(j)]));
    Value det = sum_of(*this, terms, loc);
    if (method == "determinant") return det;
    const ScalarType ft = component_type(m);
    Value inv = Value::typed(spill(ir::truediv(ir::float_const(ft, 1.0), typed(det))));
    std::vector<Value> out;
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) out.push_back(mul(cof[static_cast<size_t>(j * n + i)], inv));
    }
    return make_vector(std::move(out), n, n, loc, ".inverse()");
  }
  fail(loc, describe(self) + " has no method '" + method +
                "'; vectors have .dot .cross .norm .norm_sqr .normalized .sum .min .max "
                ".any .all, matrices also .transpose .trace .determinant .inverse");
}

Value Lowerer::reduce_mask(const Value& v, bool any, SourceLoc loc) {
  if (!v.is_vecmat()) return Value::typed(to_bool(v, loc));
  ir::Expr e;
  for (const Value& c : v.tuple) {
    ir::Expr b = to_bool(c, loc);
    e = !e ? b : any ? ir::logical_or(e, b) : ir::logical_and(e, b);
  }
  return Value::typed(e);
}

Value Lowerer::vector_select(const Value& mask, const Value& a, const Value& b, SourceLoc loc) {
  for (const Value* v : {&mask, &a, &b}) {
    if (v->is_plain_tuple())
      fail(loc, "tack.select() takes numbers, bools and vectors, not " + describe(*v));
  }
  const Value* shape = nullptr;
  for (const Value* v : {&mask, &a, &b}) {
    if (!v->is_vecmat()) continue;
    if (shape && (shape->rows != v->rows || shape->cols != v->cols)) {
      fail(loc, "tack.select() of " + describe(mask) + ", " + describe(a) + " and " + describe(b) +
                    ": the vectors must have one shape");
    }
    shape = v;
  }
  auto pick = [&](const Value& m, const Value& x, const Value& y) {
    if (!m.is_weak() && m.expr && !ir::is_bool(m.expr->type)) {
      fail(loc, "tack.select()'s first argument is a bool or a mask, got " + describe(m) +
                    "; compare it (x != 0)");
    }
    ir::Expr cond = to_bool(m, loc);
    ScalarType t = merge_types(x, y, loc, "the two values of tack.select()");
    return Value::typed(ir::select(cond, coerce(x, t, loc, "the other value"),
                                   coerce(y, t, loc, "the other value")));
  };
  if (!shape) return pick(mask, a, b);
  const Value m = mask.is_vecmat() ? mask : once(mask);
  const Value x = a.is_vecmat() ? a : once(a), y = b.is_vecmat() ? b : once(b);
  std::vector<Value> out;
  for (size_t k = 0; k < shape->tuple.size(); ++k) {
    out.push_back(pick(element(m, k), element(x, k), element(y, k)));
  }
  return make_vector(std::move(out), shape->rows, shape->cols, loc, "tack.select()");
}

// ------------------------------------------------------------------------ component targets

namespace {

// The vector local a target like v.x, v[k], m[i, j] or m[i][j] names, or null.
Symbol* component_base(Lowerer& l, const frontend::Expr& target,
                       std::vector<const frontend::Expr*>* indices, int* letter) {
  const frontend::Expr* base = &target;
  std::vector<const frontend::Subscript*> chain;
  if (const auto* a = target.as<frontend::Attribute>()) {
    base = a->value.get();
    const size_t k =
        a->attr.size() == 1 ? std::string(kLetters).find(a->attr[0]) : std::string::npos;
    if (letter) *letter = k == std::string::npos ? -2 : static_cast<int>(k);
  }
  while (const auto* sub = base->as<frontend::Subscript>()) {
    chain.push_back(sub);
    base = sub->value.get();
  }
  const auto* n = base->as<frontend::Name>();
  if (!n) return nullptr;
  Symbol* s = l.frame().scopes.lookup(n->id);
  if (!s || s->kind != SymbolKind::Tuple || s->rows == 0) return nullptr;
  if (indices) {
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      for (const frontend::Expr* e : item_indices(**it)) indices->push_back(e);
    }
  }
  return s;
}

}  // namespace

bool Lowerer::is_component_target(const frontend::Expr& target) {
  return component_base(*this, target, nullptr, nullptr) != nullptr;
}

void Lowerer::assign_component(const frontend::Expr& target, const Value& value0,
                               SourceLoc value_loc, std::optional<BinaryOp> op, SourceLoc op_loc) {
  std::vector<const frontend::Expr*> idx;
  int letter = -1;
  Symbol* s = component_base(*this, target, &idx, &letter);
  if (!s) {
    fail(target.loc,
         "only a vector's components (v.x = ..., v[k] = ...) and a matrix's "
         "elements (m[i, j] = ...) can be assigned this way");
  }
  const std::string& name = s->name;
  if (!s->assigned) {
    fail(target.loc, "'" + name + "' may be used before it is assigned (first assigned on line " +
                         std::to_string(s->loc.line) + "); assign the whole vector first");
  }
  if (s->prelude && !in_prelude_) {
    fail(target.loc, "'" + name + "' was computed before the parallel loop (line " +
                         std::to_string(s->loc.line) +
                         ") and is shared by all iterations, so the loop cannot change it; copy "
                         "it into a new local first (my_" +
                         name + " = " + name + ")");
  }
  Value whole = read_tuple(*s);
  // The indices, after the value (Python evaluates the right side first).
  std::vector<ItemIndex> at;
  std::vector<int> sizes;
  if (letter >= 0) {
    if (!whole.is_vector() || letter >= whole.rows) {
      fail(target.loc, "'" + std::string(1, kLetters[letter]) + "' is not a component of '" + name +
                           "' (" + describe(whole) + ")");
    }
    at.push_back(ItemIndex{letter, nullptr});
  } else if (letter == -2) {
    fail(target.loc, "'" + name + "' is " + describe(whole) +
                         "; only its components .x .y .z .w can be assigned as attributes");
  }
  const int most = whole.is_matrix() ? 2 : 1;
  if (letter < 0 && (idx.empty() || static_cast<int>(idx.size()) > most)) {
    fail(target.loc,
         "'" + name + "' is " + describe(whole) + " and takes " +
             (whole.is_matrix() ? "one index (a row) or two (an element)" : "one index") +
             ", got " + std::to_string(idx.size()));
  }
  Value v = settle(value0);  // the right side first: v[k] = v[0] + 1 reads the old v[0]
  for (size_t k = 0; k < idx.size(); ++k) {
    Value iv = scalar(*idx[k]);
    at.push_back(
        resolve_index(*this, iv, k == 0 ? whole.rows : whole.cols, idx[k]->loc, "'" + name + "'"));
  }
  // The flat components the target covers, each with the condition that selects it (null:
  // always), and the part of the value it takes.
  struct Part {
    size_t flat;
    ir::Expr when;
    size_t of_value;  // index into the value's components, or 0 for a number
  };
  std::vector<Part> parts;
  const int cols = whole.is_matrix() ? whole.cols : 1;
  auto hit = [](const ItemIndex& i, int k) -> ir::Expr {
    return i.runtime ? ir::eq(i.runtime, ir::make_const(i.runtime->type, k)) : nullptr;
  };
  auto both = [](ir::Expr a, ir::Expr b) {
    return !a ? b : !b ? a : ir::logical_and(std::move(a), std::move(b));
  };
  const bool element = !whole.is_matrix() || at.size() == 2;
  for (int r = 0; r < whole.rows; ++r) {
    if (at[0].constant && *at[0].constant != r) continue;
    if (element && whole.is_matrix()) {
      for (int c = 0; c < cols; ++c) {
        if (at[1].constant && *at[1].constant != c) continue;
        parts.push_back(
            Part{static_cast<size_t>(r * cols + c), both(hit(at[0], r), hit(at[1], c)), 0});
      }
    } else if (element) {
      parts.push_back(Part{static_cast<size_t>(r), hit(at[0], r), 0});
    } else {
      for (int c = 0; c < cols; ++c) {
        parts.push_back(
            Part{static_cast<size_t>(r * cols + c), hit(at[0], r), static_cast<size_t>(c)});
      }
    }
  }
  const std::string target_text =
      element ? "an element of '" + name + "'" : "a row of '" + name + "'";
  if (element && v.is_tuple()) {
    fail(value_loc, target_text + " is one number (" + type_name(component_type(whole)) +
                        "); it cannot be assigned " + describe(v));
  }
  if (!element && !(v.is_vector() && v.rows == cols) && v.is_tuple()) {
    fail(value_loc, target_text + " is a vec" + std::to_string(cols) + "; it cannot be assigned " +
                        describe(v));
  }
  if (!element && !v.is_tuple()) v = once(v);  // a number for the whole row
  for (const Part& p : parts) {
    Symbol& e = *s->elements[p.flat];
    Value x = v.is_tuple() ? v.tuple[p.of_value] : v;
    const Value old = Value::typed(ir::var(e.type, e.ir_name));
    if (op) x = binary(*op, old, x, op_loc);
    if (p.when) {  // an index known at run time: only the component it names
      std::vector<ir::Stmt> body;
      {
        Redirect r(*this, body);
        assign_scalar(&e, e.name, value_loc, x, value_loc);
      }
      emit(ir::if_then(p.when, ir::block(std::move(body))));
      continue;
    }
    assign_scalar(&e, e.name, value_loc, x, value_loc);
  }
}

// ------------------------------------------------------------------ whole elements of arrays

Value Lowerer::load_whole(const Access& acc) {
  std::vector<ir::Expr> indices;
  for (const ir::Expr& i : acc.indices) indices.push_back(cheap_to_repeat(i) ? i : spill(i));
  const ir::ArrayType& t = acc.array->array;
  std::vector<Value> out;
  for (int c = 0; c < t.vec_width; ++c) {
    std::vector<ir::Expr> at = indices;
    at.push_back(ir::const_i64(c));
    out.push_back(Value::typed(load(Access{acc.array, std::move(at)})));
  }
  const int cols = acc.array->mat_cols;
  return make_vector(std::move(out), cols ? t.vec_width / cols : t.vec_width, cols,
                     frontend::SourceLoc{}, "the element");
}

void Lowerer::store_whole(const Access& acc, const Value& value, SourceLoc value_loc) {
  const ir::ArrayType& t = acc.array->array;
  const std::string what = "the array '" + acc.array->name + "'";
  const int cols = acc.array->mat_cols, rows = cols ? t.vec_width / cols : t.vec_width;
  if (value.is_tuple() && !(value.is_vecmat() && value.rows == rows && value.cols == cols)) {
    fail(value_loc, "an element of '" + acc.array->name + "' is a " +
                        (cols ? "mat" + std::to_string(rows) + "x" + std::to_string(cols)
                              : "vec" + std::to_string(rows)) +
                        " of " + type_name(t.elem) + "; it cannot be assigned " + describe(value));
  }
  // Everything the value reads is read before the first store: p[i] = [p[i, 1], p[i, 0]] swaps.
  std::vector<ir::Expr> parts;
  for (int c = 0; c < t.vec_width; ++c) {
    const Value& x = value.is_tuple() ? value.tuple[static_cast<size_t>(c)] : value;
    ir::Expr e = convert_store(x, t.elem, value_loc, what);
    if (reads_memory(e) || (!value.is_tuple() && !cheap_to_repeat(e))) e = spill(e);
    parts.push_back(e);
    if (!value.is_tuple()) break;
  }
  std::vector<ir::Expr> indices;
  for (const ir::Expr& i : acc.indices) indices.push_back(cheap_to_repeat(i) ? i : spill(i));
  for (int c = 0; c < t.vec_width; ++c) {
    std::vector<ir::Expr> at = indices;
    at.push_back(ir::const_i64(c));
    emit(store(Access{acc.array, std::move(at)}, parts[value.is_tuple() ? c : 0]));
  }
}

}  // namespace tack::lowering
