// Structural checks of kernels and device functions that need no types (see checks.hpp).
// They run on the AST so that their errors point at the user's statement; the lowering would
// only see the statement after it has been turned into IR.
#include "frontend/checks.hpp"

#include <map>
#include <string>

namespace tack::frontend {
namespace {

constexpr std::string_view kPureBareBuiltins[] = {"len", "int", "float", "bool",
                                                  "abs", "min", "max",   "pow"};

constexpr std::string_view kDtypeNames[] = {
    "bool_",   "int8",    "int16",   "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "i8",    "i16",   "i32",   "i64",    "u8",     "u16",
    "u32",     "u64",     "f16",     "f32",   "f64",   "bool",  "float"};

constexpr std::string_view kMathNames[] = {
    "sqrt",  "rsqrt",    "cbrt",     "exp",   "exp2",  "expm1", "log",  "log2",  "log10",
    "log1p", "sin",      "cos",      "tan",   "asin",  "acos",  "atan", "atan2", "sinh",
    "cosh",  "tanh",     "asinh",    "acosh", "atanh", "floor", "ceil", "trunc", "round",
    "fabs",  "fmod",     "copysign", "hypot", "pow",   "abs",   "min",  "max",   "isnan",
    "isinf", "isfinite", "erf",      "erfc",  "clamp"};

template <std::size_t N>
bool contains(const std::string_view (&names)[N], std::string_view name) {
  for (std::string_view n : names) {
    if (n == name) return true;
  }
  return false;
}

// Pre-order over e's subtree. Recursion depth is bounded by kMaxExprHeight.
template <class F>
void walk_expr(const Expr& e, F& f) {
  f(e);
  for_each_child(e, [&](const Expr& child) { walk_expr(child, f); });
}

// Pre-order over every statement of `block` and of its nested blocks, calling
// f(stmt, loop_depth) where loop_depth counts the loops around stmt inside `block`.
// Recursion depth is bounded by kMaxBlockDepth.
template <class F>
void walk_stmts(const Block& block, F& f, int loop_depth = 0) {
  for (const StmtPtr& s : block) {
    f(*s, loop_depth);
    const int inner = loop_depth + (s->is<For>() || s->is<While>() ? 1 : 0);
    for_each_block(*s, [&](const Block& b) { walk_stmts(b, f, inner); });
  }
}

// Every expression of one statement (not of nested statements), pre-order.
template <class F>
void walk_stmt_exprs(const Stmt& s, F& f) {
  for_each_expr(s, [&](const Expr& e) { walk_expr(e, f); });
}

class StructureChecker {
 public:
  StructureChecker(const Module& module, const FunctionDef& kernel)
      : module_(module), kernel_(kernel) {}

  // The call graph goes first: once no reachable function is recursive, purity (needed for
  // the statements before the parallel loop) is well defined.
  void run() {
    check_call_graph();
    check_top_level();
    check_body(kernel_, /*is_kernel=*/true);
  }

 private:
  [[noreturn]] void fail(const FunctionDef& where, SourceLoc loc, std::string message) const {
    module_.fail(&where, loc, std::move(message));
  }

  void check_top_level() {
    const For* loop = nullptr;
    for (const StmtPtr& s : kernel_.body) {
      // The kernel's value: `return v` as its last statement, after the parallel loop.
      const bool value = loop != nullptr && s->is<Return>() && s == kernel_.body.back();
      if (value && !s->as<Return>()->value) {
        fail(kernel_, s->loc, "a kernel's 'return' gives its value: return a number (return s)");
      }
      if (!value) check_no_return(*s);
      if (loop == nullptr) {
        if (const For* f = s->as<For>()) {
          loop = f;
        } else {
          check_effect_free(*s);
        }
      } else if (s->is<For>()) {
        fail(kernel_, s->loc,
             "a kernel has exactly one top-level parallel loop; this is a second one (the "
             "first is on line " +
                 std::to_string(loop->loc.line) +
                 "); nest it inside the first or write a "
                 "second kernel");
      } else if (s->is<While>()) {
        fail(kernel_, s->loc,
             "a loop after the parallel loop would run on one thread; fold the values in the "
             "parallel loop (s += x[i]) and use the result after it, or write a second kernel");
      }
    }
    if (loop == nullptr) {
      fail(kernel_, kernel_.loc,
           "kernel '" + kernel_.name +
               "' has no top-level parallel loop; its body must contain one 'for i in "
               "range(n)' or 'for i, j in tack.ndrange(n, m)' loop at the top level");
    }
  }

  void check_no_return(const Stmt& top) {
    auto visit_stmt = [&](const Stmt& s, int) {
      if (s.is<Return>()) {
        fail(kernel_, s.loc,
             "'return' in a kernel gives the kernel's value and is its last statement, after "
             "the parallel loop (return s); inside the loop, write results to array arguments "
             "(device functions, @tack.func, may return values anywhere)");
      }
    };
    visit_stmt(top, 0);
    for_each_block(top, [&](const Block& b) { walk_stmts(b, visit_stmt); });
  }

  // A statement before the parallel loop: runs once per launch or once per iteration, which
  // is unobservable only when it has no effect.
  void check_effect_free(const Stmt& s) {
    const std::string why = "; statements before the parallel loop must be effect-free";
    switch (s.kind) {
      case StmtKind::Assign:
      case StmtKind::AugAssign: {
        const Expr& target = s.is<Assign>() ? *s.as<Assign>()->target : *s.as<AugAssign>()->target;
        if (!assigns_names_only(target)) {
          fail(kernel_, s.loc,
               "a store to an array before the parallel loop is not allowed" + why +
                   "; move it into the loop");
        }
        break;
      }
      case StmtKind::ExprStmt:
      case StmtKind::Pass:
        break;
      default:
        fail(kernel_, s.loc,
             "only assignments to names may come before the parallel loop, not '" +
                 std::string(kind_name(s.kind)) + "'" + why + "; move it into the loop");
    }
    if (is_shared_declaration(s)) return;  // declared at the top of the loop body
    auto visit_expr = [&](const Expr& e) {
      const Call* call = e.as<Call>();
      if (call == nullptr) return;
      const std::string name = dotted_name(*call->func);
      if (!is_pure_call(kernel_, name)) {
        fail(kernel_, call->loc,
             "the call to '" + (name.empty() ? std::string("<expression>") : name) +
                 "' may have effects and is not allowed before the parallel loop" + why);
      }
    };
    walk_stmt_exprs(s, visit_expr);
  }

  // Checks that hold in kernels and device functions alike.
  void check_body(const FunctionDef& fn, bool is_kernel) {
    const For* parallel = is_kernel ? parallel_loop(fn) : nullptr;
    auto visit_stmt = [&](const Stmt& s, int) {
      const For* f = s.as<For>();
      if (f == nullptr || f == parallel || f->range != LoopRange::NDRange) return;
      fail(fn, f->iter_loc,
           is_kernel ? "tack.ndrange(...) may only be the kernel's top-level parallel loop; "
                       "use nested range() loops here"
                     : "tack.ndrange(...) may only be a kernel's parallel loop, not a loop in "
                       "a device function; use nested range() loops");
    };
    walk_stmts(fn.body, visit_stmt);
    if (parallel != nullptr) {
      auto visit_loop_stmt = [&](const Stmt& s, int loop_depth) {
        if (s.is<Break>() && loop_depth == 0) {
          fail(fn, s.loc,
               "'break' cannot leave the parallel loop: its iterations run independently; "
               "use 'continue' to skip the rest of an iteration");
        }
      };
      walk_stmts(parallel->body, visit_loop_stmt);
    }
  }

  // The module function a call of `name` in `caller` reaches (a bare name, or an alias the host
  // bound); tack.x and math.x are builtins.
  const FunctionDef* module_function(const FunctionDef& caller, const std::string& name) const {
    if (name.empty()) return nullptr;
    return module_.find_callee(caller.name, name);
  }

  bool is_pure_call(const FunctionDef& caller, const std::string& name) {
    if (const FunctionDef* fn = module_function(caller, name)) return is_pure_function(*fn);
    return is_pure_builtin(name);
  }

  // A module function is pure when it stores to no array and calls only pure functions.
  // check_call_graph has already refused recursion among the functions the kernel reaches; a
  // cycle met here anyway counts as impure.
  bool is_pure_function(const FunctionDef& fn) {
    const auto [it, inserted] = purity_.try_emplace(&fn, Purity::InProgress);
    if (!inserted) return it->second == Purity::Pure;
    bool pure = true;
    auto visit_stmt = [&](const Stmt& s, int) {
      if (const auto* a = s.as<Assign>(); a && !assigns_names_only(*a->target)) pure = false;
      if (const auto* a = s.as<AugAssign>(); a && !a->target->is<Name>()) pure = false;
    };
    walk_stmts(fn.body, visit_stmt);
    for (const CallSite& site : list_calls(fn)) {
      if (!pure) break;
      if (!is_pure_call(fn, site.callee)) pure = false;
    }
    purity_[&fn] = pure ? Purity::Pure : Purity::Impure;
    return pure;
  }

  // Depth-first over the module functions reachable from the kernel, with an explicit stack
  // (a long chain of helpers must not exhaust the C++ stack). A call to a function still on the
  // stack closes a cycle: that call is the recursive one.
  void check_call_graph() {
    struct Frame {
      const FunctionDef* fn;
      std::vector<CallSite> calls;
      std::size_t next = 0;
    };
    std::map<const FunctionDef*, bool> on_stack;  // true: on the stack; false: finished
    std::vector<Frame> stack;
    stack.push_back({&kernel_, list_calls(kernel_)});
    on_stack[&kernel_] = true;
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next == top.calls.size()) {
        on_stack[top.fn] = false;
        stack.pop_back();
        continue;
      }
      const CallSite& site = top.calls[top.next++];
      const FunctionDef* callee = module_function(*top.fn, site.callee);
      if (callee == nullptr) continue;
      const FunctionDef& caller = *top.fn;
      const auto state = on_stack.find(callee);
      if (state != on_stack.end() && state->second) {
        std::string cycle;
        bool in_cycle = false;
        for (const Frame& f : stack) {
          in_cycle = in_cycle || f.fn == callee;
          if (in_cycle) cycle += f.fn->name + " -> ";
        }
        cycle += callee->name;
        fail(caller, site.call->loc,
             "recursive call to '" + callee->name + "' (" + cycle +
                 "); device functions are inlined at each call and cannot be recursive");
      }
      if (callee->kind == FunctionKind::Kernel) {
        fail(caller, site.call->loc,
             "'" + callee->name +
                 "' is a @tack.kernel and cannot be called from device code; "
                 "make it a @tack.func to call it");
      }
      if (state != on_stack.end()) continue;  // finished earlier, no cycle through it
      check_body(*callee, /*is_kernel=*/false);
      on_stack[callee] = true;
      stack.push_back({callee, list_calls(*callee)});
    }
  }

  enum class Purity { InProgress, Pure, Impure };

  const Module& module_;
  const FunctionDef& kernel_;
  std::map<const FunctionDef*, Purity> purity_;
};

}  // namespace

bool is_pure_builtin(std::string_view dotted) {
  if (contains(kPureBareBuiltins, dotted)) return true;
  // tack.math and tack.random compute values only (an unknown name there is the lowering's
  // error).
  if (dotted.starts_with("tack.math.") || dotted.starts_with("tack.random.")) return true;
  if (contains(kMathNames, dotted)) return true;  // from math import sqrt
  for (std::string_view prefix : {std::string_view("tack."), std::string_view("math.")}) {
    if (dotted.substr(0, prefix.size()) != prefix) continue;
    const std::string_view rest = dotted.substr(prefix.size());
    if (contains(kMathNames, rest)) return true;
    if (prefix == "tack." && contains(kDtypeNames, rest)) return true;
  }
  return false;
}

bool is_shared_declaration(const Stmt& s) {
  const auto* a = s.as<Assign>();
  const auto* c = a && a->target->is<Name>() ? a->value->as<Call>() : nullptr;
  if (c == nullptr) return false;
  const std::string callee = dotted_name(*c->func);
  return callee == "tack.shared" || callee == "tack.shared_like";
}

const For* parallel_loop(const FunctionDef& kernel) {
  for (const StmtPtr& s : kernel.body) {
    if (const For* f = s->as<For>()) return f;
  }
  return nullptr;
}

std::vector<CallSite> list_calls(const FunctionDef& function) {
  std::vector<CallSite> calls;
  auto visit_expr = [&](const Expr& e) {
    if (const Call* c = e.as<Call>()) calls.push_back({dotted_name(*c->func), c});
  };
  auto visit_stmt = [&](const Stmt& s, int) { walk_stmt_exprs(s, visit_expr); };
  walk_stmts(function.body, visit_stmt);
  return calls;
}

void check_kernel_structure(const Module& module, const FunctionDef& kernel) {
  StructureChecker(module, kernel).run();
}

}  // namespace tack::frontend
