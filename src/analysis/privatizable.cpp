// privatizable_atomic_targets: atomic statements on arrays that nothing else touches.
#include "analysis/privatizable.hpp"

#include <optional>

#include "ir/visitor.hpp"

namespace tack::analysis {

namespace {

class Uses final : public ir::Visitor {
 public:
  explicit Uses(std::size_t params) : op_(params), ok_(params, true), seen_(params, false) {}

  // Statements of the parallel loop's body: atomics there may qualify.
  void in_parallel_body(bool b) { in_body_ = b; }

  void visit(const ir::ExprStmt& n) override {
    if (n.expr->kind == ir::NodeKind::AtomicRMW) {
      const auto& a = static_cast<const ir::AtomicRMW&>(*n.expr);
      statement_atomic(a);
      // Its indices and value are ordinary expressions: any use of a target there disqualifies.
      for (const auto& i : a.indices) visit_expr(i);
      visit_expr(a.value);
      return;
    }
    Visitor::visit(n);
  }
  void visit(const ir::AtomicRMW& n) override {  // an atomic whose old value is used
    disqualify(n.param);
    Visitor::visit(n);
  }
  void visit(const ir::ArrayLoad& n) override {
    disqualify(n.param);
    Visitor::visit(n);
  }
  void visit(const ir::ArrayStore& n) override {
    disqualify(n.param);
    Visitor::visit(n);
  }

  bool qualifies(std::size_t p) const { return ok_[p] && seen_[p]; }
  ir::AtomicOp op(std::size_t p) const { return *op_[p]; }

 private:
  void statement_atomic(const ir::AtomicRMW& a) {
    const auto p = static_cast<std::size_t>(a.param);
    if (p >= ok_.size()) return;
    if (!in_body_ || (op_[p] && *op_[p] != a.op)) ok_[p] = false;
    op_[p] = a.op;
    seen_[p] = true;
  }
  void disqualify(int param) {
    if (param >= 0 && static_cast<std::size_t>(param) < ok_.size()) ok_[param] = false;
  }

  std::vector<std::optional<ir::AtomicOp>> op_;
  std::vector<bool> ok_, seen_;
  bool in_body_ = false;
};

}  // namespace

std::vector<PrivatizableTarget> privatizable_atomic_targets(const ir::Function& f) {
  const ir::ParallelFor* loop = f.parallel_for();
  if (loop == nullptr) return {};
  Uses uses(f.params.size());
  for (const ir::Stmt& s : f.prelude()) uses.visit_stmt(s);
  for (const ir::ParallelDim& d : loop->dims) {
    uses.visit_expr(d.start);
    uses.visit_expr(d.stop);
    uses.visit_expr(d.step);
  }
  uses.in_parallel_body(true);
  uses.visit_stmt(loop->body);
  std::vector<PrivatizableTarget> out;
  for (std::size_t p = 0; p < f.params.size(); ++p) {
    const ir::ParamDecl& d = f.params[p];
    if (!d.is_array() || d.vec_width != 0 || !ir::is_int(d.type) || !uses.qualifies(p)) continue;
    out.push_back({static_cast<int>(p), uses.op(p)});
  }
  return out;
}

}  // namespace tack::analysis
