// Local arrays: buf = tack.zeros(shape[, dtype]), tack.local_array(dtype, shape),
// tack.local_array_like(a, shape). A statement form (statements.cpp calls declare_local_array);
// as a call anywhere else they are the error saying so.
#include "lowering/builtins/builtin.hpp"
#include "lowering/lowerer.hpp"
#include "lowering/typing.hpp"

namespace tack::lowering {

using frontend::SourceLoc;
using ir::ScalarType;

Value lower_local_array_call(Lowerer& l, const BuiltinCall& c, std::vector<Value>&) {
  l.fail(c.loc(), c.name +
                      "(...) creates a local array; it must be the whole right-hand side "
                      "of an assignment to a new name: buf = " +
                      c.name + "(...)");
}

std::vector<Builtin> local_array_builtins() {
  const auto entry = [](const char* name, int min_args, const char* signature, const char* doc) {
    return Builtin{{name}, min_args, 2, Form::Raw, lower_local_array_call, signature, doc};
  };
  return {
      entry("tack.zeros", 1, "buf = tack.zeros(shape[, dtype])",
            "a zero-filled local array of each iteration (the default float without a dtype)"),
      entry("tack.local_array", 2, "buf = tack.local_array(dtype, shape)",
            "a zero-filled local array of each iteration"),
      entry("tack.local_array_like", 2, "buf = tack.local_array_like(a, shape)",
            "a zero-filled local array of a's element type"),
  };
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
