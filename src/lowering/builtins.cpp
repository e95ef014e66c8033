// The builtins a kernel can call, in one table: Python's (len, int, float, bool, abs, min, max,
// pow, round), the math module's functions, tack's casts, math functions, atomics and local
// arrays (tack.zeros); and how each one is typed and lowered.
#include <cmath>
#include <map>

#include "lowering/lowerer.hpp"
#include "lowering/typing.hpp"

namespace tack::lowering {
namespace {

using frontend::SourceLoc;
using ir::MathFn;
using ir::ScalarType;

enum class Kind : uint8_t {
  Len,
  Int,
  Float,
  Bool,
  Abs,
  Min,
  Max,
  Pow,          // pow(a, b), tack.pow: a ** b
  Round,        // round(x): Python returns an int
  FloatFn,      // math functions: arguments converted to one float type
  IntRounding,  // math.floor/ceil/trunc: Python returns an int
  FloatPow,     // math.pow: always a float
  Rsqrt,
  Clamp,
  Cast,
  Atomic,
  StreamStore,  // tack.stream_store(a, index, value): a[index] = value, written around the caches
  Zeros,
  // tack.math (docs/language.md, "tack.math"), on scalars.
  Fract,
  Mix,
  Saturate,
  Step,
  Smoothstep,
  Sign,
  // Vectors and matrices (vectors.cpp).
  VectorCtor,
  MatrixCtor,
  MatrixIdentity,  // tack.Matrix.identity(n[, dtype])
  Any,
  All,
  Select,
  Length,
  Distance,
  Normalize,
  Dot,
  Cross,
  // Workgroups (workgroups.cpp, docs/design/workgroups.md).
  Barrier,
  ThreadId,
  BlockReduce,
};

struct Builtin {
  Kind kind;
  int min_args, max_args;  // max_args -1: no limit
  MathFn fn = MathFn::Sqrt;
  ScalarType type = ScalarType::f32;
  ir::AtomicOp atomic = ir::AtomicOp::Add;
};

const std::map<std::string, Builtin>& table() {
  static const std::map<std::string, Builtin> t = [] {
    std::map<std::string, Builtin> m;
    m["len"] = {Kind::Len, 1, 1};
    m["int"] = {Kind::Int, 1, 1};
    m["float"] = {Kind::Float, 1, 1};
    m["bool"] = {Kind::Bool, 1, 1};
    m["abs"] = m["tack.abs"] = {Kind::Abs, 1, 1};
    m["min"] = m["tack.min"] = {Kind::Min, 2, -1};
    m["max"] = m["tack.max"] = {Kind::Max, 2, -1};
    m["pow"] = m["tack.pow"] = {Kind::Pow, 2, 2};
    m["round"] = {Kind::Round, 1, 1};
    struct F {
      const char* name;
      MathFn fn;
      int args;
    };
    const F floats[] = {
        {"sqrt", MathFn::Sqrt, 1},   {"cbrt", MathFn::Cbrt, 1},
        {"sin", MathFn::Sin, 1},     {"cos", MathFn::Cos, 1},
        {"tan", MathFn::Tan, 1},     {"asin", MathFn::Asin, 1},
        {"acos", MathFn::Acos, 1},   {"atan", MathFn::Atan, 1},
        {"sinh", MathFn::Sinh, 1},   {"cosh", MathFn::Cosh, 1},
        {"tanh", MathFn::Tanh, 1},   {"asinh", MathFn::Asinh, 1},
        {"acosh", MathFn::Acosh, 1}, {"atanh", MathFn::Atanh, 1},
        {"exp", MathFn::Exp, 1},     {"exp2", MathFn::Exp2, 1},
        {"expm1", MathFn::Expm1, 1}, {"log", MathFn::Log, 1},
        {"log2", MathFn::Log2, 1},   {"log10", MathFn::Log10, 1},
        {"log1p", MathFn::Log1p, 1}, {"erf", MathFn::Erf, 1},
        {"erfc", MathFn::Erfc, 1},   {"atan2", MathFn::Atan2, 2},
        {"fmod", MathFn::Fmod, 2},   {"copysign", MathFn::Copysign, 2},
        {"hypot", MathFn::Hypot, 2}, {"isnan", MathFn::IsNan, 1},
        {"isinf", MathFn::IsInf, 1}, {"isfinite", MathFn::IsFinite, 1},
        {"fabs", MathFn::Abs, 1},
    };
    for (const F& f : floats) {
      Builtin b{Kind::FloatFn, f.args, f.args, f.fn};
      m[f.name] = m[std::string("math.") + f.name] = m[std::string("tack.") + f.name] = b;
    }
    // Python's math.floor returns an int; tack.floor keeps the float (as NumPy's floor does).
    const F rounding[] = {
        {"floor", MathFn::Floor, 1}, {"ceil", MathFn::Ceil, 1}, {"trunc", MathFn::Trunc, 1}};
    for (const F& f : rounding) {
      m[f.name] = m[std::string("math.") + f.name] = {Kind::IntRounding, 1, 1, f.fn};
      m[std::string("tack.") + f.name] = {Kind::FloatFn, 1, 1, f.fn};
    }
    m["tack.round"] = {Kind::FloatFn, 1, 1, MathFn::Round};
    m["math.pow"] = {Kind::FloatPow, 2, 2};
    m["tack.rsqrt"] = {Kind::Rsqrt, 1, 1};
    m["tack.clamp"] = m["tack.math.clamp"] = {Kind::Clamp, 3, 3};
    m["tack.math.fract"] = {Kind::Fract, 1, 1};
    m["tack.math.mix"] = {Kind::Mix, 3, 3};
    m["tack.math.saturate"] = {Kind::Saturate, 1, 1};
    m["tack.math.step"] = {Kind::Step, 2, 2};
    m["tack.math.smoothstep"] = {Kind::Smoothstep, 3, 3};
    m["tack.math.sign"] = {Kind::Sign, 1, 1};
    m["tack.Vector"] = {Kind::VectorCtor, 1, 2};
    m["tack.Matrix"] = {Kind::MatrixCtor, 1, 2};
    m["tack.Matrix.identity"] = {Kind::MatrixIdentity, 1, 2};
    m["any"] = m["tack.any"] = {Kind::Any, 1, 1};
    m["all"] = m["tack.all"] = {Kind::All, 1, 1};
    m["tack.select"] = {Kind::Select, 3, 3};
    for (const char* prefix : {"tack.", "tack.math."}) {
      const std::string p = prefix;
      m[p + "length"] = {Kind::Length, 1, 1};
      m[p + "distance"] = {Kind::Distance, 2, 2};
      m[p + "normalize"] = {Kind::Normalize, 1, 1};
      m[p + "dot"] = {Kind::Dot, 2, 2};
      m[p + "cross"] = {Kind::Cross, 2, 2};
    }
    const std::pair<const char*, ScalarType> casts[] = {
        {"bool", ScalarType::boolean}, {"bool_", ScalarType::boolean}, {"i8", ScalarType::i8},
        {"int8", ScalarType::i8},      {"i16", ScalarType::i16},       {"int16", ScalarType::i16},
        {"i32", ScalarType::i32},      {"int32", ScalarType::i32},     {"i64", ScalarType::i64},
        {"int64", ScalarType::i64},    {"u8", ScalarType::u8},         {"uint8", ScalarType::u8},
        {"u16", ScalarType::u16},      {"uint16", ScalarType::u16},    {"u32", ScalarType::u32},
        {"uint32", ScalarType::u32},   {"u64", ScalarType::u64},       {"uint64", ScalarType::u64},
        {"f32", ScalarType::f32},      {"float32", ScalarType::f32},   {"f64", ScalarType::f64},
        {"float64", ScalarType::f64},
    };
    for (const auto& [name, type] : casts) {
      m[std::string("tack.") + name] = {Kind::Cast, 1, 1, MathFn::Sqrt, type};
    }
    m["tack.atomic_add"] = {Kind::Atomic, 3, 3, MathFn::Sqrt, ScalarType::f32, ir::AtomicOp::Add};
    m["tack.atomic_min"] = {Kind::Atomic, 3, 3, MathFn::Sqrt, ScalarType::f32, ir::AtomicOp::Min};
    m["tack.atomic_max"] = {Kind::Atomic, 3, 3, MathFn::Sqrt, ScalarType::f32, ir::AtomicOp::Max};
    m["tack.stream_store"] = {Kind::StreamStore, 3, 3};
    m["tack.zeros"] = {Kind::Zeros, 1, 2};
    m["tack.local_array"] = {Kind::Zeros, 2, 2};
    m["tack.local_array_like"] = {Kind::Zeros, 2, 2};
    m["tack.shared"] = {Kind::Zeros, 2, 2};
    m["tack.shared_like"] = {Kind::Zeros, 2, 2};
    m["tack.barrier"] = {Kind::Barrier, 0, 0};
    m["tack.thread_id"] = {Kind::ThreadId, 0, 0};
    m["tack.block_sum"] = {Kind::BlockReduce, 1, 1, MathFn::Sqrt};
    m["tack.block_min"] = {Kind::BlockReduce, 1, 1, MathFn::Min};
    m["tack.block_max"] = {Kind::BlockReduce, 1, 1, MathFn::Max};
    return m;
  }();
  return t;
}

[[noreturn]] void unknown_function(const Lowerer& l, const std::string& name, SourceLoc loc) {
  if (name == "range" || name == "tack.ndrange") {
    l.fail(loc, name + "() is only allowed as the iterable of a for loop");
  }
  if (name == "tack.vec" || name == "tack.mat") {
    l.fail(loc, name +
                    "(...) is an array dtype; a vector value is tack.Vector([x, y, z]) (or "
                    "[x, y, z]), a matrix tack.Matrix([[a, b], [c, d]])");
  }
  if (name == "tack.f16" || name == "tack.float16") {
    l.fail(loc, "f16 is not supported in kernels; compute in f32 (tack.f32(...))");
  }
  if (name.rfind("tack.", 0) == 0 || name.rfind("math.", 0) == 0) {
    l.fail(loc, "unknown function '" + name + "'; docs/language.md lists the builtins");
  }
  l.fail(loc, "unknown function '" + name +
                  "'; a kernel calls builtins (docs/language.md) and the @tack.func functions "
                  "defined in the same source");
}

std::string call_name(const std::string& name) {
  return name + "()";
}

[[noreturn]] void arity_error(const Lowerer& l, const std::string& name, const Builtin& b,
                              size_t got, SourceLoc loc) {
  if (name == "pow" || name == "tack.pow") {
    if (got == 3) l.fail(loc, "pow() with a modulus (3 arguments) is not supported");
  }
  if (name == "round" && got == 2) {
    l.fail(loc,
           "round(x, ndigits) is not supported; round(x) rounds to an integer, "
           "tack.round(x) to a float");
  }
  if (name == "math.log" && got == 2) {
    l.fail(loc, "math.log(x, base) is not supported; write math.log(x) / math.log(base)");
  }
  std::string want = b.max_args < 0 ? "at least " + std::to_string(b.min_args)
                     : b.min_args == b.max_args
                         ? std::to_string(b.min_args)
                         : std::to_string(b.min_args) + " or " + std::to_string(b.max_args);
  l.fail(loc, call_name(name) + " takes " + want + " argument" +
                  (b.max_args == 1 && b.min_args == 1 ? "" : "s") + ", got " + std::to_string(got));
}

// Arguments of a float function, all converted to one float type: the widest float among the
// typed arguments, an integer counting as the default float.
std::vector<ir::Expr> float_args(Lowerer& l, std::vector<Value>& args) {
  std::optional<ScalarType> t;
  for (const Value& v : args) {
    if (v.is_weak()) continue;
    ScalarType vt = tack::is_float(v.expr->type) ? v.expr->type : l.default_float();
    t = t ? *promote(*t, vt) : vt;
  }
  ScalarType ft = t ? *t : l.default_float();
  std::vector<ir::Expr> out;
  for (const Value& v : args) {
    out.push_back(v.is_weak() ? make_constant(*v.weak, ft) : ir::cast(ft, v.expr));
  }
  return out;
}

// A weak float made an integer the way int()/math.floor do; Python raises on inf and nan.
Value int_literal(const Lowerer& l, double v, SourceLoc loc, const std::string& name) {
  if (!std::isfinite(v) || std::fabs(v) >= 18446744073709551616.0) {
    l.fail(loc, call_name(name) + " of the constant " + Constant::of_float(v).text() +
                    " has no 64-bit integer value");
  }
  return Value::literal(Constant::of_int(static_cast<Int128>(v)));
}

// The type numbers merge into for min/max/clamp; bools are refused.
ScalarType merged_number_type(Lowerer& l, const std::vector<Value>& args,
                              const std::vector<const frontend::Expr*>& exprs,
                              const std::string& name) {
  Value acc = args[0];
  ScalarType t = ScalarType::i32;
  for (size_t k = 0; k < args.size(); ++k) {
    if (!args[k].is_weak() && ir::is_bool(args[k].expr->type)) {
      l.fail(exprs[k]->loc, call_name(name) + " takes numbers, got a bool; convert it: int(...)");
    }
  }
  for (size_t k = 1; k < args.size(); ++k) {
    t = l.merge_types(acc, args[k], exprs[k]->loc, "the arguments of " + call_name(name));
    acc = Value::typed(ir::make_const(t, 0));
  }
  return t;
}

Value min_max(Lowerer& l, bool is_min, std::vector<Value>& args,
              const std::vector<const frontend::Expr*>& exprs, const std::string& name) {
  ScalarType t = merged_number_type(l, args, exprs, name);
  bool all_weak = true;
  for (const Value& v : args) all_weak = all_weak && v.is_weak();
  if (all_weak) {
    // Python's min/max: the first of equal values wins, but -0.0 is below +0.0 (as the code
    // the kernel's min/max compile to: min takes a -0.0 and max a +0.0 from either side).
    auto negative = [](const Constant& c) { return c.is_float && std::signbit(c.f); };
    Constant best = *args[0].weak;
    for (size_t k = 1; k < args.size(); ++k) {
      const Constant& c = *args[k].weak;
      const bool tie = fold_compare(frontend::CompareOp::Equal, c, best) &&
                       (is_min ? negative(c) && !negative(best) : negative(best) && !negative(c));
      if (tie || fold_compare(is_min ? frontend::CompareOp::Less : frontend::CompareOp::Greater, c,
                              best)) {
        best = c;
      }
    }
    return Value::literal(best);
  }
  MathFn fn = is_min ? MathFn::Min : MathFn::Max;
  ir::Expr e = l.coerce(args[0], t, exprs[0]->loc, "the other arguments");
  for (size_t k = 1; k < args.size(); ++k) {
    e = ir::call(fn, {e, l.coerce(args[k], t, exprs[k]->loc, "the other arguments")});
  }
  return Value::typed(e);
}

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

Value lower_atomic(Lowerer& l, const std::string& name, ir::AtomicOp op, const frontend::Call& c) {
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
void lower_stream_store(Lowerer& l, const std::string& name, const frontend::Call& c) {
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
}

}  // namespace

std::optional<ScalarType> Lowerer::dtype_named(const frontend::Expr& e) const {
  std::string name = module_.canonical(frames_.back()->fn->name, frontend::dotted_name(e));
  if (name == "float") return default_float();
  if (name == "int") return ScalarType::i64;
  if (name == "bool") return ScalarType::boolean;
  auto it = table().find(name);
  if (it != table().end() && it->second.kind == Kind::Cast) return it->second.type;
  return std::nullopt;
}

bool Lowerer::is_reserved_name(const std::string& name) const {
  return name == "tack" || name == "math" || name == "range" || name == "print" ||
         table().count(name) > 0 || module_.find_callee(frames_.back()->fn->name, name) != nullptr;
}

Value Lowerer::lower_call(const frontend::Call& c, bool discard) {
  std::string name = frontend::dotted_name(*c.func);
  // A method of a vector or matrix: v.dot(w), (a - b).norm(), p[i].normalized().
  if (const auto* at = c.func->as<frontend::Attribute>()) {
    const auto* base = at->value->as<frontend::Name>();
    const Symbol* s = base ? frame().scopes.lookup(base->id) : nullptr;
    if (name.empty() || (s && s->kind == SymbolKind::Tuple)) {
      Sequence seq(*this);
      seq.add([&] { return lower_expr(*at->value); });
      if (!seq[0].is_vecmat()) {
        fail(at->attr_loc, describe(seq[0]) + " has no methods; only vectors and matrices do");
      }
      for (const frontend::ExprPtr& a : c.args) seq.add_operand(*a);
      return vector_method(at->attr, std::move(seq.values()), at->attr_loc);
    }
  }
  if (name.empty()) {
    fail(c.loc, "only functions named directly can be called (f(x), tack.f32(x), math.sqrt(x))");
  }
  std::string head = name.substr(0, name.find('.'));
  if (const Symbol* s = frame().scopes.lookup(head)) {
    if (s->texture != 0 && name.find('.', head.size() + 1) == std::string::npos && head != name) {
      return lower_texture_sample(*s, name.substr(head.size() + 1), c);
    }
    if (head == name) {
      fail(c.func->loc,
           "'" + name + "' is " + (s->is_array() ? "an array" : "a number") + ", not a function");
    }
    fail(c.func->loc, "'" + name +
                          "(...)' is not supported: arrays and numbers have no methods "
                          "in kernels");
  }
  if (const frontend::FunctionDef* f = module_.find_callee(frame().fn->name, name)) {
    if (f->kind == frontend::FunctionKind::Func) return inline_call(*f, c, discard);
    if (f->kind == frontend::FunctionKind::Kernel) {
      fail(c.func->loc, "'" + name +
                            "' is a @tack.kernel and cannot be called from device "
                            "code; make it a @tack.func to call it");
    }
    fail(c.func->loc, "'" + name +
                          "' is not a device function; decorate it with @tack.func "
                          "to call it from a kernel");
  }
  name = module_.canonical(frame().fn->name, name);
  if (name.rfind("tack.random.", 0) == 0) return lower_random(name, c);
  if (name == "print") {
    lower_print(c);
    return Value{};
  }
  auto it = table().find(name);
  if (it == table().end()) unknown_function(*this, name, c.func->loc);
  const Builtin& b = it->second;
  size_t n = c.args.size();
  if (n < static_cast<size_t>(b.min_args) ||
      (b.max_args >= 0 && n > static_cast<size_t>(b.max_args))) {
    arity_error(*this, name, b, n, c.loc);
  }
  switch (b.kind) {
    case Kind::Len: {
      Value v = lower_expr(*c.args[0]);
      if (v.is_vecmat()) return Value::literal(Constant::of_int(v.rows));  // a matrix: rows
      if (v.is_tuple()) {
        return Value::literal(Constant::of_int(static_cast<Int128>(v.tuple.size())));
      }
      if (v.array && v.array->texture) refuse_texture(*v.array, c.args[0]->loc);
      if (!v.array)
        fail(c.args[0]->loc, "len() takes an array or a tuple; this is " +
                                 (v.is_none() ? std::string("no value")
                                              : "a number (" + type_name(type_of(v)) + ")"));
      if (v.array->kind == SymbolKind::LocalArray) {
        return Value::typed(ir::const_i64(v.array->dims[0]));
      }
      return Value::typed(ir::shape(ir::ArrayRef{v.array->param, v.array->array}, 0));
    }
    case Kind::Atomic:
      return lower_atomic(*this, name, b.atomic, c);
    case Kind::StreamStore:
      lower_stream_store(*this, name, c);
      return Value{};
    case Kind::Zeros:
      fail(c.loc, name +
                      "(...) creates a local array; it must be the whole right-hand side "
                      "of an assignment to a new name: buf = " +
                      name + "(...)");
    case Kind::VectorCtor:
    case Kind::MatrixCtor:
      return construct_vector(c, b.kind == Kind::MatrixCtor);
    case Kind::MatrixIdentity:
      return identity_matrix(c);
    case Kind::Barrier:
      use_workgroups("tack.barrier()", c.loc);
      emit(ir::Barrier::make(c.loc.line, c.loc.column));
      return Value{};
    case Kind::ThreadId:
      use_workgroups("tack.thread_id()", c.loc);
      return Value::typed(ir::ThreadId::make());
    case Kind::BlockReduce:
      use_workgroups(name + "()", c.loc);
      return block_reduce(name, b.fn == MathFn::Sqrt ? 0 : b.fn == MathFn::Min ? 1 : 2, c);
    default:
      break;
  }
  Sequence seq(*this);
  std::vector<const frontend::Expr*> exprs;
  for (const frontend::ExprPtr& a : c.args) {
    seq.add_operand(*a);
    exprs.push_back(a.get());
  }
  switch (b.kind) {
    case Kind::Any:
    case Kind::All:
      return reduce_mask(seq[0], b.kind == Kind::Any, c.loc);
    case Kind::Select:
      return vector_select(seq[0], seq[1], seq[2], c.loc);
    case Kind::Length:
    case Kind::Normalize:
    case Kind::Distance: {
      // Vectors: the norm, the unit vector, the norm of the difference. Numbers, as GLSL:
      // |x|, x / |x| (+-1; NaN for 0) and |a - b|, in the float type.
      Value v = seq[0];
      if (b.kind == Kind::Distance) {
        if (seq[0].is_vecmat() != seq[1].is_vecmat()) {
          fail(c.loc, call_name(name) + " takes two vectors or two numbers; here " +
                          describe(seq[0]) + " and " + describe(seq[1]));
        }
        v = binary(frontend::BinaryOp::Sub, seq[0], seq[1], c.loc);
      }
      if (v.is_matrix()) fail(exprs[0]->loc, call_name(name) + " takes a vector or a number");
      if (v.is_vector()) {
        return vector_method(b.kind == Kind::Normalize ? "normalized" : "norm", {v}, c.loc);
      }
      if (!v.is_weak() && ir::is_bool(v.expr->type)) {
        fail(exprs[0]->loc, call_name(name) + " takes a number, got a bool");
      }
      const ScalarType t = type_of(v);
      const ScalarType ft = tack::is_float(t) ? t : default_float();
      ir::Expr x = v.is_weak() ? make_constant(*v.weak, ft) : ir::cast(ft, v.expr);
      if (!cheap_to_repeat(x)) x = spill(x);
      ir::Expr magnitude = ir::call(MathFn::Abs, {x});
      if (b.kind == Kind::Normalize) return Value::typed(ir::truediv(x, magnitude));
      return Value::typed(magnitude);
    }
    case Kind::Dot:
    case Kind::Cross:
      if (!seq[0].is_vector()) {
        fail(exprs[0]->loc, call_name(name) + " takes two vectors; this is " + describe(seq[0]));
      }
      return vector_method(b.kind == Kind::Dot ? "dot" : "cross", {seq[0], seq[1]}, c.loc);
    default:
      break;
  }
  // Everything else is element-wise on vectors and matrices: applied per component, a number
  // argument the same in every one.
  auto apply = [&](std::vector<Value>& args) -> Value {
    Value& v = args[0];
    auto refuse_bool = [&](const char* hint) {
      if (!v.is_weak() && ir::is_bool(v.expr->type)) {
        fail(exprs[0]->loc, call_name(name) + " of a bool is not supported; " + hint);
      }
    };
    switch (b.kind) {
      case Kind::Int:
        if (v.is_weak())
          return v.weak->is_float ? int_literal(*this, std::trunc(v.weak->f), c.loc, name) : v;
        if (ir::is_int(v.expr->type)) return v;  // int() of an integer is the integer itself
        if (ir::is_bool(v.expr->type)) return Value::typed(ir::cast(ScalarType::i32, v.expr));
        return Value::typed(ir::cast(ScalarType::i64, v.expr));
      case Kind::Float:
        if (v.is_weak()) return Value::literal(Constant::of_float(v.weak->as_double()));
        if (tack::is_float(v.expr->type)) return v;
        return Value::typed(ir::cast(default_float(), v.expr));
      case Kind::Bool:
        return Value::typed(to_bool(v, exprs[0]->loc));
      case Kind::Abs:
        refuse_bool("convert it first: int(...)");
        if (v.is_weak()) {
          return Value::literal(v.weak->is_float
                                    ? Constant::of_float(std::fabs(v.weak->f))
                                    : Constant::of_int(v.weak->i < 0 ? -v.weak->i : v.weak->i));
        }
        return Value::typed(ir::call(MathFn::Abs, {v.expr}));
      case Kind::Min:
      case Kind::Max:
        return min_max(*this, b.kind == Kind::Min, args, exprs, name);
      case Kind::Pow:
        return binary(frontend::BinaryOp::Pow, args[0], args[1], c.loc);
      case Kind::Round:
      case Kind::IntRounding: {
        refuse_bool("convert it first: int(...)");
        MathFn fn = b.kind == Kind::Round ? MathFn::Round : b.fn;
        if (v.is_weak()) {
          if (!v.weak->is_float) return v;
          double x = v.weak->f;
          double r = fn == MathFn::Round   ? round_half_even(x)
                     : fn == MathFn::Floor ? std::floor(x)
                     : fn == MathFn::Ceil  ? std::ceil(x)
                                           : std::trunc(x);
          return int_literal(*this, r, c.loc, name);
        }
        if (ir::is_int(v.expr->type)) return v;
        // Python's round/math.floor/ceil/trunc give an int: i64, saturating, as int() does.
        return Value::typed(ir::cast(ScalarType::i64, ir::call(fn, {v.expr})));
      }
      case Kind::FloatFn:
      case Kind::FloatPow:
      case Kind::Rsqrt: {
        for (size_t k = 0; k < args.size(); ++k) {
          if (!args[k].is_weak() && ir::is_bool(args[k].expr->type)) {
            fail(exprs[k]->loc, call_name(name) + " takes numbers, got a bool");
          }
        }
        std::vector<ir::Expr> fargs = float_args(*this, args);
        if (b.kind == Kind::FloatPow) return Value::typed(ir::power(fargs[0], fargs[1]));
        if (b.kind == Kind::Rsqrt) {
          return Value::typed(ir::truediv(ir::float_const(fargs[0]->type, 1.0),
                                          ir::call(MathFn::Sqrt, {fargs[0]})));
        }
        return Value::typed(ir::call(b.fn, fargs));
      }
      case Kind::Clamp: {
        // clamp(x, lo, hi) = min(max(x, lo), hi), in the type the three merge into.
        ScalarType t = merged_number_type(*this, args, exprs, name);
        ir::Expr x = coerce(args[0], t, exprs[0]->loc, "the other arguments");
        ir::Expr lo = coerce(args[1], t, exprs[1]->loc, "the other arguments");
        ir::Expr hi = coerce(args[2], t, exprs[2]->loc, "the other arguments");
        return Value::typed(ir::call(MathFn::Min, {ir::call(MathFn::Max, {x, lo}), hi}));
      }
      case Kind::Cast:
        if (v.is_weak()) return Value::typed(make_constant(*v.weak, b.type));
        return Value::typed(ir::cast(b.type, v.expr));
      case Kind::Fract:
      case Kind::Mix:
      case Kind::Saturate:
      case Kind::Step:
      case Kind::Smoothstep: {
        // Float functions: the arguments' common type, an integer one giving the default float;
        // each argument used more than once is evaluated once (spilled unless a leaf).
        refuse_bool("convert it first: float(...)");
        ScalarType t = merged_number_type(*this, args, exprs, name);
        if (!tack::is_float(t)) t = default_float();
        std::vector<ir::Expr> a;
        for (size_t k = 0; k < args.size(); ++k) {
          ir::Expr e = coerce(args[k], t, exprs[k]->loc, "the other arguments");
          a.push_back(cheap_to_repeat(e) ? e : spill(e));
        }
        const ir::Expr zero = ir::make_const(t, 0), one = ir::make_const(t, 1);
        auto clamp01 = [&](const ir::Expr& x) {
          return ir::call(MathFn::Min, {ir::call(MathFn::Max, {x, zero}), one});
        };
        switch (b.kind) {
          case Kind::Fract:  // x - floor(x): in [0, 1) (1.0 itself for tiny negative x in f32)
            return Value::typed(ir::sub(a[0], ir::call(MathFn::Floor, {a[0]})));
          case Kind::Mix:  // a * (1 - t) + b * t: exactly a at t = 0 and b at t = 1
            return Value::typed(ir::add(ir::mul(a[0], ir::sub(one, a[2])), ir::mul(a[1], a[2])));
          case Kind::Saturate:
            return Value::typed(clamp01(a[0]));
          case Kind::Step:  // step(edge, x): 0 below the edge, 1 from it on
            return Value::typed(ir::select(ir::lt(a[1], a[0]), zero, one));
          default: {  // smoothstep(e0, e1, x): 3s^2 - 2s^3 of s = clamp((x - e0) / (e1 - e0))
            const ir::Expr s =
                spill(clamp01(ir::truediv(ir::sub(a[2], a[0]), ir::sub(a[1], a[0]))));
            return Value::typed(ir::mul(
                ir::mul(s, s), ir::sub(ir::make_const(t, 3), ir::mul(ir::make_const(t, 2), s))));
          }
        }
      }
      case Kind::Sign: {
        // NumPy's sign: -1, 0 or 1 in x's type; NaN stays NaN, -0.0 gives 0.
        refuse_bool("convert it first: int(...)");
        if (v.is_weak()) {
          const double x = v.weak->as_double();
          if (v.weak->is_float) {
            return Value::literal(Constant::of_float(x > 0    ? 1.0
                                                     : x < 0  ? -1.0
                                                     : x == x ? 0.0
                                                              : x));
          }
          return Value::literal(Constant::of_int(x > 0 ? 1 : x < 0 ? -1 : 0));
        }
        const ir::Expr x = cheap_to_repeat(v.expr) ? v.expr : spill(v.expr);
        const ScalarType t = x->type;
        ir::Expr rest = ir::make_const(t, 0);
        if (tack::is_float(t)) rest = ir::select(ir::eq(x, x), rest, x);
        if (ir::is_signed_int(t) || tack::is_float(t)) {
          rest = ir::select(ir::lt(x, ir::make_const(t, 0)), ir::make_const(t, -1), rest);
        }
        return Value::typed(
            ir::select(ir::gt(x, ir::make_const(t, 0)), ir::make_const(t, 1), rest));
      }
      case Kind::Len:
      case Kind::Atomic:
      case Kind::StreamStore:
      case Kind::Zeros:
      case Kind::VectorCtor:
      case Kind::MatrixCtor:
      case Kind::MatrixIdentity:
      case Kind::Any:
      case Kind::All:
      case Kind::Select:
      case Kind::Length:
      case Kind::Distance:
      case Kind::Normalize:
      case Kind::Dot:
      case Kind::Cross:
      case Kind::Barrier:
      case Kind::ThreadId:
      case Kind::BlockReduce:
        break;
    }
    fail(c.loc, "internal: unhandled builtin '" + name + "'");
  };
  std::vector<Value>& all = seq.values();
  const Value* shape = nullptr;
  for (size_t k = 0; k < all.size(); ++k) {
    const Value& a = all[k];
    if (!a.is_vecmat()) continue;
    if (shape && (shape->rows != a.rows || shape->cols != a.cols)) {
      fail(exprs[k]->loc, call_name(name) + " of " + describe(*shape) + " and " + describe(a) +
                              ": element-wise functions take vectors of one shape (or numbers)");
    }
    shape = &a;
  }
  if (!shape) return apply(all);
  if (b.kind == Kind::Bool) {
    fail(c.loc, "bool() of " + describe(*shape) + " is ambiguous; use any(v) or all(v)");
  }
  for (Value& a : all) {
    if (!a.is_vecmat()) a = once(a);
  }
  const int rows = shape->rows, cols = shape->cols;
  std::vector<Value> out;
  for (size_t k = 0; k < shape->tuple.size(); ++k) {
    std::vector<Value> one;
    for (const Value& a : all) one.push_back(a.is_vecmat() ? a.tuple[k] : a);
    out.push_back(apply(one));
  }
  return make_vector(std::move(out), rows, cols, c.loc, "the result of " + call_name(name));
}

void Lowerer::declare_local_array(const std::string& name, SourceLoc loc,
                                  const frontend::Call& call) {
  if (const Symbol* s = frame().scopes.lookup(name)) {
    fail(loc, "'" + name + "' already names " +
                  (s->is_array() ? std::string("an array") : std::string("a number")) +
                  (s->loc.line > 0 ? " (line " + std::to_string(s->loc.line) + ")" : "") +
                  "; a local array needs a new name");
  }
  if (name == "tack" || name == "math") {
    fail(loc, "'" + name + "' is the name of a module; choose another name for the local array");
  }
  // tack.zeros(shape[, dtype]), tack.local_array(dtype, shape), tack.local_array_like(a, shape):
  // one zero-filled local array, its dtype given, the default float, or the array a's.
  const std::string callee = frontend::dotted_name(*call.func);
  const bool zeros = callee == "tack.zeros";
  const bool like = callee == "tack.local_array_like" || callee == "tack.shared_like";
  const bool shared = callee == "tack.shared" || callee == "tack.shared_like";
  if (shared) use_workgroups(callee + "(...)", call.loc);
  size_t n = call.args.size();
  if (zeros ? (n < 1 || n > 2) : n != 2) {
    fail(call.loc, zeros ? "tack.zeros() takes a shape and a dtype (tack.zeros((4, 4), "
                           "tack.f32)), got " +
                               std::to_string(n) + " arguments"
                         : callee + "() takes " + (like ? "an array" : "a dtype") +
                               " and a shape (" + callee + (like ? "(x, 8)" : "(tack.f32, 8)") +
                               "), got " + std::to_string(n) + " arguments");
  }
  const frontend::Expr& shape_arg = zeros ? *call.args[0] : *call.args[1];
  std::vector<const frontend::Expr*> extents;
  if (const auto* t = shape_arg.as<frontend::Tuple>()) {
    for (const frontend::ExprPtr& e : t->elements) extents.push_back(e.get());
  } else {
    extents.push_back(&shape_arg);
  }
  if (extents.size() > 3) {
    fail(shape_arg.loc,
         "a local array has 1 to 3 dimensions, got " + std::to_string(extents.size()));
  }
  std::vector<int64_t> dims;
  for (const frontend::Expr* e : extents) {
    Value v = scalar(*e);
    if (!v.is_weak() || v.weak->is_float || v.weak->i <= 0 || v.weak->i > (Int128{1} << 40)) {
      fail(e->loc,
           "the shape of a local array must be positive integer constants (literals, "
           "module constants, or arithmetic on them: tack.zeros((4, 4), tack.f32)), got " +
               (v.is_weak() ? "the constant " + v.weak->text()
                            : "a value computed at run time (" + type_name(v.expr->type) + ")"));
    }
    dims.push_back(static_cast<int64_t>(v.weak->i));
  }
  ScalarType elem = default_float();
  if (like) {
    elem = array_of(*call.args[0], callee + "()")->type;
  } else if (n == 2) {
    const frontend::Expr& dtype_arg = zeros ? *call.args[1] : *call.args[0];
    auto t = dtype_named(dtype_arg);
    if (!t) {
      fail(dtype_arg.loc, "the dtype of " + callee +
                              " must be a Tack dtype such as tack.f32, "
                              "tack.int32, tack.float64, float, int or bool");
    }
    elem = *t;
  }
  int64_t bytes = ir::bytes_in_memory(elem);
  for (int64_t d : dims) bytes = bytes > ir::kMaxLocalArrayBytes ? bytes : bytes * d;
  if (bytes > ir::kMaxLocalArrayBytes) {
    std::string shape;
    for (int64_t d : dims) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
    fail(call.loc, "the local array '" + name + "' of shape (" + shape + ") and type " +
                       type_name(elem) + " needs more than " +
                       std::to_string(ir::kMaxLocalArrayBytes) +
                       " bytes; local arrays live on the stack of each iteration and are "
                       "limited to that size: use a smaller shape or an array argument");
  }
  Symbol s;
  s.kind = SymbolKind::LocalArray;
  s.name = name;
  s.ir_name = fresh(name);
  s.type = elem;
  s.loc = loc;
  s.dims = dims;
  emit(ir::LocalArrayDecl::make(s.ir_name, elem, dims, shared));
  frame().scopes.declare(new_symbol(std::move(s)));
}

}  // namespace tack::lowering
