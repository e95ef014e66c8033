// Host constants (docs/language.md, "Constants"): names a function reads but does not define,
// bound by the host (Python's module globals and closure variables) when the kernel is made.
#include "lowering/lowerer.hpp"
#include "lowering/typing.hpp"

namespace tack::lowering {

namespace {

// Whether the values are 1 to `most` numbers of one kind (all bools, or all numbers).
bool vector_components(const std::vector<Value>& v, std::size_t most = 4) {
  if (v.empty() || v.size() > most) return false;
  int bools = 0;
  for (const Value& e : v) {
    if (e.is_tuple() || e.array || e.is_none()) return false;
    bools += !e.is_weak() && ir::is_bool(e.expr->type);
  }
  return bools == 0 || bools == static_cast<int>(v.size());
}

}  // namespace

// A module constant's tuple of numbers is a vector (the original Tack's meaning: ORIGIN + p),
// and a tuple of equal rows of numbers a matrix; any other tuple stays a tuple. Indexing and
// unpacking work on both.
Value Lowerer::vector_constant(std::vector<Value> elements, const std::string& name,
                               frontend::SourceLoc loc) {
  const std::string what = "the constant '" + name + "'";
  const int n = static_cast<int>(elements.size());
  if (vector_components(elements)) return make_vector(std::move(elements), n, 0, loc, what);
  bool rows = elements.size() <= 4;
  for (const Value& r : elements) {
    rows = rows && r.is_vector() && r.rows == elements[0].rows && r.rows >= 1;
  }
  if (rows) {
    std::vector<Value> flat;
    for (const Value& r : elements) flat.insert(flat.end(), r.tuple.begin(), r.tuple.end());
    if (vector_components(flat, 16) && (elements[0].rows > 1 || elements.size() > 1)) {
      return make_vector(std::move(flat), n, elements[0].rows, loc, what);
    }
  }
  return Value::of_tuple(std::move(elements));
}

Value Lowerer::constant_value(const ConstantValue& c, const std::string& name,
                              frontend::SourceLoc loc) {
  auto as_constant = [&](const Scalar& v) {
    switch (v.kind) {
      case Scalar::Kind::Int:
      case Scalar::Kind::Bool:
        return Constant::of_int(static_cast<Int128>(v.i));
      case Scalar::Kind::UInt:
        return Constant::of_int(static_cast<Int128>(v.u));
      case Scalar::Kind::Float:
        break;
    }
    return Constant::of_float(v.f);
  };
  switch (c.kind) {
    case ConstantValue::Kind::Number:
      if (c.value.kind == Scalar::Kind::Bool) return Value::typed(ir::const_bool(c.value.i != 0));
      return Value::literal(as_constant(c.value));
    case ConstantValue::Kind::Typed: {
      const ir::ScalarType t = c.dtype;
      if (ir::is_bool(t)) {
        return Value::typed(ir::const_bool(c.value.kind == Scalar::Kind::Float
                                               ? c.value.f != 0.0
                                               : c.value.i != 0 || c.value.u != 0));
      }
      const Constant k = as_constant(c.value);
      if (ir::is_int(t) && (k.is_float || !fits(k, t))) {
        fail(loc, "the constant '" + name + "' is " + k.text() + " of dtype " + type_name(t) +
                      ", which " + (k.is_float ? "is not an integer" : "does not fit") +
                      "; give it a value of its dtype, or a wider dtype");
      }
      return Value::typed(make_constant(k, t));
    }
    case ConstantValue::Kind::Tuple: {
      std::vector<Value> elements;
      for (const ConstantValue& e : c.elements) elements.push_back(constant_value(e, name, loc));
      if (elements.empty()) {
        fail(loc, "the constant '" + name +
                      "' is an empty tuple; a kernel's tuples have at least "
                      "one element");
      }
      return vector_constant(std::move(elements), name, loc);
    }
    case ConstantValue::Kind::Unsupported:
      break;
  }
  fail(loc, "'" + name + "' is " + c.what +
                " outside the kernel; a kernel reads only int, float and bool values (and "
                "tuples of them, or tack.constant(v, dtype)) from its module and closure, as "
                "constants: pass '" +
                name + "' as an argument instead");
}

}  // namespace tack::lowering
