// Calls of builtins: the name a call resolves to (a method of a vector, a texture's sample, a
// device function, print, a builtin), the arity, the arguments lowered in order, and the
// element-wise mapping of a builtin over vectors and matrices. The builtins themselves are a
// table, one entry each, in lowering/builtins/ (builtin.hpp).
#include "lowering/builtins/builtin.hpp"
#include "lowering/lowerer.hpp"

namespace tack::lowering {
namespace {

using frontend::SourceLoc;
using ir::ScalarType;

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
  if (name.rfind("tack.random.", 0) == 0) {
    // The family's names, from the table.
    std::string names;
    std::vector<std::string> fns;
    for (const Builtin& b : all_builtins()) {
      if (b.family == kRandomFamily)
        fns.push_back(b.names[0].substr(std::string("tack.random.").size()));
    }
    for (size_t k = 0; k < fns.size(); ++k) {
      names += (k == 0 ? "" : k + 1 == fns.size() ? " and " : ", ") + fns[k];
    }
    l.fail(loc, "unknown function '" + name + "'; tack.random has " + names);
  }
  if (name.rfind("tack.", 0) == 0 || name.rfind("math.", 0) == 0) {
    l.fail(loc, "unknown function '" + name + "'; docs/language.md lists the builtins");
  }
  l.fail(loc, "unknown function '" + name +
                  "'; a kernel calls builtins (docs/language.md) and the @tack.func functions "
                  "defined in the same source");
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

}  // namespace

std::optional<ScalarType> Lowerer::dtype_named(const frontend::Expr& e) const {
  std::string name = module_.canonical(frames_.back()->fn->name, frontend::dotted_name(e));
  if (name == "float") return default_float();
  if (name == "int") return ScalarType::i64;
  if (name == "bool") return ScalarType::boolean;
  const Builtin* b = find_builtin(name);
  if (b != nullptr && b->family == kCastsFamily) return b->type;
  return std::nullopt;
}

bool Lowerer::is_reserved_name(const std::string& name) const {
  return name == "tack" || name == "math" || name == "range" || name == "print" ||
         find_builtin(name) != nullptr ||
         module_.find_callee(frames_.back()->fn->name, name) != nullptr;
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
  if (name == "print") {
    lower_print(c);
    return Value{};
  }
  const Builtin* found = find_builtin(name);
  if (found == nullptr) unknown_function(*this, name, c.func->loc);
  const Builtin& b = *found;
  const size_t n = c.args.size();
  if (n < static_cast<size_t>(b.min_args) ||
      (b.max_args >= 0 && n > static_cast<size_t>(b.max_args))) {
    arity_error(*this, name, b, n, c.loc);
  }
  if (b.needs == Needs::Workgroups) use_workgroups(name + "()", c.loc);
  BuiltinCall call{b, name, c, {}};
  for (const frontend::ExprPtr& a : c.args) call.exprs.push_back(a.get());
  std::vector<Value> none;
  if (b.form == Form::Raw) return b.lower(*this, call, none);
  Sequence seq(*this);
  for (const frontend::ExprPtr& a : c.args) seq.add_operand(*a);
  std::vector<Value>& all = seq.values();
  if (b.form == Form::Operands) return b.lower(*this, call, all);
  // Element-wise on vectors and matrices: applied per component, a number argument the same in
  // every one.
  const Value* shape = nullptr;
  for (size_t k = 0; k < all.size(); ++k) {
    const Value& a = all[k];
    if (!a.is_vecmat()) continue;
    if (shape && (shape->rows != a.rows || shape->cols != a.cols)) {
      fail(call.exprs[k]->loc, call_name(name) + " of " + describe(*shape) + " and " + describe(a) +
                                   ": element-wise functions take vectors of one shape (or "
                                   "numbers)");
    }
    shape = &a;
  }
  if (!shape) return b.lower(*this, call, all);
  if (name == "bool") {
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
    out.push_back(b.lower(*this, call, one));
  }
  return make_vector(std::move(out), rows, cols, c.loc, "the result of " + call_name(name));
}

}  // namespace tack::lowering
