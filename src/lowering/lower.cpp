// Lowering of a kernel as a whole: parameters from the signature, the effect-free prelude, the
// parallel loop; plus the helpers every part of the lowering shares.
#include "lowering/lower.hpp"

#include <algorithm>

#include "frontend/checks.hpp"
#include "lowering/lowerer.hpp"
#include "lowering/typing.hpp"

namespace tack::lowering {
namespace {

using frontend::SourceLoc;

std::string arg_list(const frontend::FunctionDef& f) {
  std::string s;
  for (const frontend::Param& p : f.params) s += (s.empty() ? "" : ", ") + p.name;
  return s;
}

}  // namespace

Lowerer::Lowerer(const frontend::Module& module, const frontend::FunctionDef& kernel,
                 const std::vector<compiler::ArgType>& signature, KernelPart part)
    : module_(module), kernel_(kernel), signature_(signature), part_(part) {}

void Lowerer::fail(SourceLoc loc, const std::string& message) const {
  module_.fail(frames_.empty() ? &kernel_ : frames_.back()->fn, loc, message);
}

Symbol* Lowerer::new_symbol(Symbol s) {
  symbols_.push_back(std::move(s));
  return &symbols_.back();
}

RangeBounds Lowerer::range_bounds(std::vector<Value> args,
                                  const std::vector<const frontend::Expr*>& exprs) {
  static const char* const kRole[3][3] = {
      {"stop", "", ""}, {"start", "stop", ""}, {"start", "stop", "step"}};
  const size_t n = args.size();
  std::optional<ir::ScalarType> t;
  for (size_t k = 0; k < n; ++k) {
    const Value& v = args[k];
    std::string role = std::string("the ") + kRole[n - 1][k] + " of range()";
    if (v.is_weak()) {
      if (v.weak->is_float) {
        fail(exprs[k]->loc, role + " is the float " + v.weak->text() +
                                "; range() takes integers (write an integer literal)");
      }
      continue;
    }
    ir::ScalarType vt = type_of(v);
    if (!ir::is_int(vt)) {
      fail(exprs[k]->loc,
           role + " is " + type_name(vt) + "; range() takes integers: convert it with int(...)");
    }
    if (!t) {
      t = vt;
    } else if (auto p = promote(*t, vt)) {
      t = p;
    } else {
      fail(exprs[k]->loc, "the bounds of range() are " + type_name(*t) + " and " + type_name(vt) +
                              ", which have no common integer type; convert one of them, e.g. "
                              "with tack.i64(...)");
    }
  }
  for (size_t k = 0; k < n; ++k) {
    if (!args[k].is_weak()) continue;
    const Constant& c = *args[k].weak;
    ir::ScalarType ct = default_type(c, default_float());
    if (!t) {
      t = ct;
    } else if (!fits(c, *t)) {
      auto p = promote(*t, ct);
      if (!p) {
        fail(exprs[k]->loc, "the range() bound " + c.text() + " does not fit in " + type_name(*t) +
                                ", the type of the other bounds");
      }
      t = p;
    }
  }
  if (n == 3 && args[2].is_weak() && args[2].weak->is_zero()) {
    fail(exprs[2]->loc, "range() step must not be zero");
  }
  auto conv = [&](size_t k) { return coerce(args[k], *t, exprs[k]->loc, "the other bounds"); };
  RangeBounds r;
  r.start = n >= 2 ? conv(0) : ir::int_const(*t, 0);
  r.stop = n == 1 ? conv(0) : conv(1);
  r.step = n == 3 ? conv(2) : ir::int_const(*t, 1);
  return r;
}

ir::Function Lowerer::run() {
  frontend::check_kernel_structure(module_, kernel_);
  if (signature_.size() != kernel_.params.size()) {
    throw TypeError("kernel '" + kernel_.name + "' takes " + std::to_string(kernel_.params.size()) +
                    " argument(s) (" + arg_list(kernel_) + "), got " +
                    std::to_string(signature_.size()));
  }
  fn_.name = kernel_.name;
  fn_.default_float = compiler::default_float_type(signature_);
  frames_.push_back(std::make_unique<Frame>());
  frame().fn = &kernel_;
  frame().scopes.push();

  for (const frontend::Param& p : kernel_.params) names_.reserve(p.name);
  for (size_t k = 0; k < kernel_.params.size(); ++k) {
    const frontend::Param& p = kernel_.params[k];
    const compiler::ArgType& a = signature_[k];
    Symbol s;
    s.name = p.name;
    s.type = a.type;
    s.loc = p.loc;
    s.param = static_cast<int>(k);
    if (a.is_array()) {
      TACK_INTERNAL_ASSERT(a.rank >= 1 && a.rank <= 3,
                           "signature: array '" + p.name + "' of rank " + std::to_string(a.rank));
      s.kind = SymbolKind::ArrayParam;
      s.array = ir::ArrayType{a.type, a.rank, a.vec_width, a.strided != 0};
      s.mat_cols = a.mat_cols;
      s.texture = a.texture;
      fn_.params.push_back(ir::ParamDecl::array(p.name, s.array));
    } else {
      s.kind = SymbolKind::Value;
      s.value = ir::Param::make(a.type, static_cast<int>(k));
      fn_.params.push_back(ir::ParamDecl::scalar(p.name, a.type));
    }
    frame().scopes.declare(new_symbol(std::move(s)));
  }

  // Scalar parameters the kernel assigns become locals: before the parallel loop when it is
  // assigned there (then shared, read-only in the loop), else private to each iteration and
  // set from the argument at its start (the original Tack's meaning: each iteration has its own
  // copy of the argument's value; nothing carries to the next iteration or to the caller).
  const frontend::For* loop = frontend::parallel_loop(kernel_);
  std::vector<AssignedName> in_prelude, in_loop;
  for (const frontend::StmtPtr& s : kernel_.body) {
    if (s.get() == loop) {
      for (const frontend::StmtPtr& b : loop->body) assigned_names(*b, in_loop);
      break;
    }
    assigned_names(*s, in_prelude);
  }
  auto copy_params = [&](const std::vector<AssignedName>& assigned, bool prelude) {
    for (const AssignedName& a : assigned) {
      Symbol* p = frame().scopes.lookup(a.name);
      if (!p || p->kind != SymbolKind::Value) continue;
      Symbol copy = *p;
      copy.kind = SymbolKind::Local;
      copy.ir_name = fresh(a.name);
      copy.prelude = prelude;
      copy.assigned = true;  // the argument's value, in the prelude or in each iteration
      emit(ir::let(copy.ir_name, p->value));
      Symbol* declared = new_symbol(std::move(copy));
      frame().scopes.declare(declared);
      if (!prelude) frame().tracked.push_back(declared);
    }
  };

  std::vector<ir::Stmt> prelude;
  Redirect to_prelude(*this, prelude);
  in_prelude_ = true;
  copy_params(in_prelude, true);
  // `smem = tack.shared(...)` before the loop is declared at the top of the loop body, where
  // every item of a workgroup shares it.
  std::vector<const frontend::Stmt*> shared_decls;
  for (const frontend::StmtPtr& s : kernel_.body) {
    if (s.get() == loop) break;
    if (frontend::is_shared_declaration(*s)) {
      shared_decls.push_back(s.get());
      continue;
    }
    size_t mark = prelude.size();
    lower_stmt(*s);
    for (size_t k = mark; k < prelude.size(); ++k) {
      if (writes_memory(prelude[k])) {
        fail(s->loc,
             "this statement has an effect (a store, an atomic or a local array); "
             "statements before the parallel loop must be effect-free");
      }
    }
  }

  // The parallel loop's bounds: evaluated once, in the prelude.
  std::vector<std::vector<const frontend::Expr*>> dim_args;
  if (loop->range == frontend::LoopRange::Range) {
    dim_args.emplace_back();
    for (const frontend::ExprPtr& a : loop->args) dim_args.back().push_back(a.get());
  } else {
    for (const frontend::ExprPtr& a : loop->args) {
      dim_args.emplace_back();
      if (const auto* t = a->as<frontend::Tuple>()) {
        if (t->elements.size() < 2 || t->elements.size() > 3) {
          fail(a->loc,
               "a dimension of tack.ndrange is an extent n or a range (start, stop) or "
               "(start, stop, step); this tuple has " +
                   std::to_string(t->elements.size()) + " elements");
        }
        for (const frontend::ExprPtr& e : t->elements) dim_args.back().push_back(e.get());
      } else {
        dim_args.back().push_back(a.get());
      }
    }
  }
  size_t mark = prelude.size();
  Sequence seq(*this);
  for (const auto& d : dim_args) {
    for (const frontend::Expr* e : d) seq.add_expr(*e);
  }
  std::vector<ir::ParallelDim> dims;
  size_t next = 0;
  for (size_t d = 0; d < dim_args.size(); ++d) {
    std::vector<Value> vals(
        seq.values().begin() + static_cast<std::ptrdiff_t>(next),
        seq.values().begin() + static_cast<std::ptrdiff_t>(next + dim_args[d].size()));
    next += dim_args[d].size();
    RangeBounds b = range_bounds(std::move(vals), dim_args[d]);
    const frontend::Identifier& target = loop->targets[d];
    dims.push_back(ir::ParallelDim{target.name, b.start, b.stop, b.step});
    if (contains_atomic(b.start) || contains_atomic(b.stop) || contains_atomic(b.step)) {
      fail(loop->iter_loc,
           "the bounds of the parallel loop are evaluated once, before it, and "
           "must be effect-free: no atomics");
    }
  }
  for (size_t k = mark; k < prelude.size(); ++k) {
    if (writes_memory(prelude[k])) {
      fail(loop->iter_loc,
           "the bounds of the parallel loop are evaluated once, before it, and "
           "must be effect-free: a device function called here stores to memory");
    }
  }

  // In-loop reductions and the statements after the loop: two parts (values.cpp).
  std::vector<Reduction> reductions = find_reductions(*loop);
  add_hidden_params(reductions);
  if (part_ == KernelPart::Epilogue) {
    prelude.push_back(epilogue(*loop, reductions));
    fn_.body = ir::block(std::move(prelude));
    return fn_;
  }
  bool after_loop = false;
  for (const frontend::StmtPtr& s : kernel_.body) {
    if (after_loop && !s->is<frontend::Pass>()) fn_.has_epilogue = true;
    after_loop = after_loop || s.get() == loop;
  }

  std::vector<ir::Stmt> body;
  {
    Redirect to_body(*this, body);
    ScopeGuard scope(*this);
    in_prelude_ = false;
    bind_partials(reductions);
    for (size_t d = 0; d < dims.size(); ++d) {
      const frontend::Identifier& target = loop->targets[d];
      if (Symbol* old = frame().scopes.lookup(target.name)) {
        fail(target.loc, "the loop variable '" + target.name + "' reuses the name of " +
                             (old->kind == SymbolKind::Local ? "the local" : "the parameter") +
                             " '" + target.name + "'; choose another name");
      }
      Symbol s;
      s.kind = SymbolKind::Local;
      s.name = target.name;
      s.ir_name = fresh(target.name);
      s.type = dims[d].type();
      s.loc = target.loc;
      s.loop_var = true;
      dims[d].name = s.ir_name;
      iteration_.push_back(ir::cast(ir::ScalarType::i64, ir::var(s.type, s.ir_name)));
      frame().scopes.declare(new_symbol(std::move(s)));
    }
    copy_params(in_loop, false);
    for (const frontend::Stmt* d : shared_decls) lower_stmt(*d);
    lower_stmts(loop->body);
  }
  if (!reductions.empty() && fn_.workgroups.line > 0) {
    fail(reductions[0].symbol->loc,
         "'" + reductions[0].name +
             "' is folded in the parallel loop (a reduction), which cannot be combined with "
             "workgroups; use tack.block_sum and friends, or tack.sum after the kernel");
  }
  if (reductions.empty()) {
    prelude.push_back(ir::ParallelFor::make(std::move(dims), ir::block(std::move(body))));
  } else {
    for (const frontend::Identifier& t : loop->targets) fn_.loop_names.push_back(t.name);
    ir::Stmt blocked = blocked_loop(std::move(dims), std::move(body), reductions, prelude);
    prelude.push_back(std::move(blocked));
  }
  fn_.body = ir::block(std::move(prelude));
  check_uniform_barriers();
  return fn_;
}

ir::Function lower_kernel(const frontend::Module& module, const frontend::FunctionDef& kernel,
                          const std::vector<compiler::ArgType>& signature, KernelPart part) {
  return Lowerer(module, kernel, signature, part).run();
}

}  // namespace tack::lowering
