// Workgroups (docs/design/workgroups.md): tack.shared arrays, tack.barrier(), tack.thread_id()
// and the block reductions, and the check that every barrier is reached by every work item of a
// group (uniform control flow), which the lowering proves or refuses.
#include <set>

#include "ir/visitor.hpp"
#include "lowering/lowerer.hpp"
#include "lowering/typing.hpp"

namespace tack::lowering {

using frontend::SourceLoc;

// What the workgroup lowering keeps while a kernel is lowered (Lowerer::workgroups_).
struct WorkgroupState {
  std::set<std::string> block_results;  // locals holding block reduction results (uniform)
};

Owned<WorkgroupState> make_workgroup_state() {
  return {new WorkgroupState, [](WorkgroupState* s) { delete s; }};
}

void Lowerer::use_workgroups(const std::string& what, SourceLoc loc) {
  if (in_prelude_) {
    fail(loc, what +
                  " is only allowed inside the parallel loop: workgroups exist only while it "
                  "runs");
  }
  if (fn_.workgroups.line == 0) {
    fn_.workgroups = ir::WorkgroupUse{loc.line, loc.column, what, module_.source.line(loc.line)};
  }
}

Value Lowerer::block_reduce(const std::string& name, int op, const frontend::Call& c) {
  Value v = scalar(*c.args[0]);
  const ir::ScalarType t = type_of(v);
  if (ir::is_bool(t)) {
    fail(c.args[0]->loc, name + "() takes a number, got a bool; convert it first: int(...)");
  }
  // A tree over the group in a shared scratch array: lane k combines k and k + s for s = 128,
  // 64, ..., 1, a barrier after each step; the same order on every run. Integers wrap, min/max
  // follow the NaN rule of min()/max().
  const std::string scratch = fresh("_block");
  const int size = ir::kWorkgroupSize;
  emit(ir::LocalArrayDecl::make(scratch, t, {size}, true));
  const ir::Expr lane = ir::ThreadId::make();
  emit(ir::local_store(scratch, {lane}, typed(v)));
  const ir::Stmt barrier = ir::Barrier::make(c.loc.line, c.loc.column);
  emit(barrier);
  for (int s = size / 2; s >= 1; s /= 2) {
    const ir::Expr other = ir::add(lane, ir::const_i32(s));
    const ir::Expr a = ir::local_load(t, scratch, {lane});
    const ir::Expr b = ir::local_load(t, scratch, {other});
    const ir::Expr combined = op == 0   ? ir::add(a, b)
                              : op == 1 ? ir::call(ir::MathFn::Min, {a, b})
                                        : ir::call(ir::MathFn::Max, {a, b});
    emit(ir::if_then(ir::lt(lane, ir::const_i32(s)),
                     ir::block({ir::local_store(scratch, {lane}, combined)})));
    emit(barrier);
  }
  const std::string result = fresh("_block_result");
  emit(ir::let(result, ir::local_load(t, scratch, {ir::const_i32(0)})));
  emit(barrier);  // every lane has read the result before the scratch is written again
  workgroups_->block_results.insert(result);
  return Value::typed(ir::var(t, result));
}

namespace {

class Varying;
bool divergent_exit(Varying& varying, const ir::Stmt& s, bool in_varying, const std::string& label);

// Which locals may differ between the work items of a group: the parallel loop's variables,
// thread_id(), anything read from memory or an atomic, and every local assigned from such a
// value, under a condition that is itself varying, or in a loop (or inlined function) that a
// varying break, continue or return can leave early. Locals are unique IR names, so the set is
// flow-insensitive, computed to a fixed point. A block reduction's result is the same for all.
class Varying final : public ir::Visitor {
 public:
  Varying(std::set<std::string> seeds, const std::set<std::string>& uniform)
      : names(std::move(seeds)), uniform_(uniform) {}

  bool of(const ir::Expr& e) {
    struct Finder : ir::Visitor {
      const std::set<std::string>& names;
      bool found = false;
      explicit Finder(const std::set<std::string>& n) : names(n) {}
      void visit(const ir::ThreadId&) override { found = true; }
      void visit(const ir::ArrayLoad&) override { found = true; }
      void visit(const ir::LocalArrayLoad&) override { found = true; }
      void visit(const ir::AtomicRMW&) override { found = true; }
      void visit(const ir::Var& v) override { found = found || names.count(v.name) > 0; }
    } f(names);
    f.visit_expr(e);
    return f.found;
  }

  void visit(const ir::Let& n) override { assign(n.name, n.value); }
  void visit(const ir::Assign& n) override { assign(n.name, n.value); }
  void visit(const ir::If& n) override {
    branch(of(n.cond), [&] {
      visit_stmt(n.then_body);
      visit_stmt(n.else_body);
    });
  }
  void visit(const ir::For& n) override {
    const bool v = of(n.start) || of(n.stop) || of(n.step);
    if (v || divergent_ > 0) mark(n.name);
    branch(v || divergent_exit(*this, n.body, false, ""), [&] { visit_stmt(n.body); });
  }
  void visit(const ir::While& n) override {
    branch(of(n.cond) || divergent_exit(*this, n.body, false, ""), [&] { visit_stmt(n.body); });
  }
  void visit(const ir::LabeledBlock& n) override {
    branch(divergent_exit(*this, n.body, false, n.label), [&] { visit_stmt(n.body); });
  }
  // The parallel loop's body: a varying `continue` in it diverges the rest of the iteration.
  void run(const ir::Stmt& body) {
    branch(divergent_exit(*this, body, false, ""), [&] { visit_stmt(body); });
  }

  std::set<std::string> names;
  bool changed = false;

 private:
  void assign(const std::string& name, const ir::Expr& value) {
    if (uniform_.count(name)) return;
    if (divergent_ > 0 || of(value)) mark(name);
  }
  void mark(const std::string& name) { changed = names.insert(name).second || changed; }
  template <class F>
  void branch(bool varying, F&& body) {
    divergent_ += varying;
    body();
    divergent_ -= varying;
  }

  const std::set<std::string>& uniform_;
  int divergent_ = 0;
};

// Whether `s` holds a break/continue (for a loop) or an exit of `label` under a condition that
// varies: the rest of the loop or block is then reached by some work items only.
bool divergent_exit(Varying& varying, const ir::Stmt& s, bool in_varying,
                    const std::string& label) {
  if (!s) return false;
  switch (s->kind) {
    case ir::NodeKind::Break:
    case ir::NodeKind::Continue:
      return in_varying && label.empty();
    case ir::NodeKind::ExitBlock:
      return in_varying && s->as<ir::ExitBlock>()->label == label;
    case ir::NodeKind::Block:
      for (const ir::Stmt& x : s->as<ir::Block>()->stmts) {
        if (divergent_exit(varying, x, in_varying, label)) return true;
      }
      return false;
    case ir::NodeKind::If: {
      const auto& n = *s->as<ir::If>();
      const bool v = in_varying || varying.of(n.cond);
      return divergent_exit(varying, n.then_body, v, label) ||
             divergent_exit(varying, n.else_body, v, label);
    }
    case ir::NodeKind::LabeledBlock:
      return divergent_exit(varying, s->as<ir::LabeledBlock>()->body, in_varying, label);
    case ir::NodeKind::For:  // a nested loop's own break/continue stay inside it
      return !label.empty() && divergent_exit(varying, s->as<ir::For>()->body, true, label);
    case ir::NodeKind::While:
      return !label.empty() && divergent_exit(varying, s->as<ir::While>()->body, true, label);
    default:
      return false;
  }
}

// The first barrier that some work items of a group might not reach, or null.
class BarrierCheck final : public ir::Visitor {
 public:
  explicit BarrierCheck(Varying& v) : varying_(v) {}

  void run(const ir::Stmt& body) {
    inside(divergent_exit(varying_, body, false, ""), [&] { visit_stmt(body); });
  }

  void visit(const ir::Barrier& n) override {
    if (divergent_ > 0 && !bad) bad = &n;
  }
  void visit(const ir::If& n) override {
    inside(varying_.of(n.cond), [&] {
      visit_stmt(n.then_body);
      visit_stmt(n.else_body);
    });
  }
  void visit(const ir::For& n) override {
    const bool v = varying_.of(n.start) || varying_.of(n.stop) || varying_.of(n.step) ||
                   divergent_exit(varying_, n.body, false, "");
    inside(v, [&] { visit_stmt(n.body); });
  }
  void visit(const ir::While& n) override {
    const bool v = varying_.of(n.cond) || divergent_exit(varying_, n.body, false, "");
    inside(v, [&] { visit_stmt(n.body); });
  }
  void visit(const ir::LabeledBlock& n) override {
    inside(divergent_exit(varying_, n.body, false, n.label), [&] { visit_stmt(n.body); });
  }

  const ir::Barrier* bad = nullptr;

 private:
  template <class F>
  void inside(bool varying, F&& body) {
    divergent_ += varying;
    body();
    divergent_ -= varying;
  }
  Varying& varying_;
  int divergent_ = 0;
};

}  // namespace

void Lowerer::check_uniform_barriers() {
  if (fn_.workgroups.line == 0) return;
  const ir::ParallelFor* loop = fn_.parallel_for();
  if (!loop) return;
  std::set<std::string> seeds;
  for (const ir::ParallelDim& d : loop->dims) seeds.insert(d.name);
  Varying varying(std::move(seeds), workgroups_->block_results);
  do {
    varying.changed = false;
    varying.run(loop->body);
  } while (varying.changed);
  BarrierCheck check(varying);
  check.run(loop->body);
  if (const ir::Barrier* b = check.bad) {
    fail(SourceLoc{b->line, b->column},
         "every work item of a group must reach this barrier (tack.barrier() or a block "
         "reduction), but it is under a condition or loop that may differ between them (one "
         "that depends on the loop variable, tack.thread_id(), an array element or a local "
         "computed from them, or after such a break, continue or return); move it out, or "
         "make the condition depend only on scalar arguments and block reduction results");
  }
}

}  // namespace tack::lowering
