// streamed_outputs: every access of each array parameter, checked against the one shape a
// streamed output's stores may have.
#include "analysis/streamed_outputs.hpp"

#include <string>

#include "ir/visitor.hpp"

namespace tack::analysis {

namespace {

class Accesses final : public ir::Visitor {
 public:
  explicit Accesses(const ir::Function& f)
      : fn_(f), stored_(f.params.size(), false), refused_(f.params.size(), false) {}

  void visit(const ir::ParallelFor& n) override {
    for (const ir::ParallelDim& d : n.dims) {
      const bool unit = d.step->kind == ir::NodeKind::IntConst &&
                        static_cast<const ir::IntConst&>(*d.step).value == 1;
      if (!unit) unit_steps_ = false;
      dims_.push_back(d.name);
      visit_expr(d.start);
      visit_expr(d.stop);
      visit_expr(d.step);
    }
    in_loop_ = true;
    visit_stmt(n.body);
    in_loop_ = false;
  }
  void visit(const ir::For& n) override {
    ++inner_loops_;
    Visitor::visit(n);
    --inner_loops_;
  }
  void visit(const ir::While& n) override {
    ++inner_loops_;
    Visitor::visit(n);
    --inner_loops_;
  }
  void visit(const ir::Assign& n) override {
    for (const std::string& d : dims_) {
      if (n.name == d) unit_steps_ = false;  // a loop variable changed: its index is not its own
    }
    Visitor::visit(n);
  }
  void visit(const ir::ArrayLoad& n) override {
    refuse(n.param);
    Visitor::visit(n);
  }
  void visit(const ir::AtomicRMW& n) override {
    refuse(n.param);
    Visitor::visit(n);
  }
  void visit(const ir::ArrayStore& n) override {
    if (own_element(n.indices))
      mark(n.param);
    else
      refuse(n.param);
    Visitor::visit(n);
  }

  std::vector<bool> result() const {
    std::vector<bool> out(fn_.params.size(), false);
    if (!unit_steps_) return out;
    for (std::size_t p = 0; p < out.size(); ++p) {
      const ir::ParamDecl& d = fn_.params[p];
      const int bytes = d.is_array() ? ir::bytes_in_memory(d.type) : 0;
      out[p] = stored_[p] && !refused_[p] && d.vec_width == 0 && !d.strided &&
               (bytes == 4 || bytes == 8) && static_cast<std::size_t>(d.rank) == dims_.size();
    }
    return out;
  }

 private:
  // The store is the iteration's own element: in the loop, not in an inner one, at exactly the
  // loop's variables.
  bool own_element(const std::vector<ir::Expr>& indices) const {
    if (!in_loop_ || inner_loops_ > 0 || indices.size() != dims_.size()) return false;
    for (std::size_t k = 0; k < indices.size(); ++k) {
      const ir::Expr& e = indices[k];
      if (e->kind != ir::NodeKind::Var || static_cast<const ir::Var&>(*e).name != dims_[k])
        return false;
    }
    return true;
  }
  bool valid(int p) const { return p >= 0 && static_cast<std::size_t>(p) < fn_.params.size(); }
  void mark(int p) {
    if (valid(p)) stored_[p] = true;
  }
  void refuse(int p) {
    if (valid(p)) refused_[p] = true;
  }

  const ir::Function& fn_;
  std::vector<std::string> dims_;
  std::vector<bool> stored_, refused_;
  bool in_loop_ = false;
  int inner_loops_ = 0;
  bool unit_steps_ = true;
};

}  // namespace

std::vector<bool> streamed_outputs(const ir::Function& f) {
  if (f.parallel_for() == nullptr) return std::vector<bool>(f.params.size(), false);
  Accesses accesses(f);
  accesses.visit_function(f);
  return accesses.result();
}

}  // namespace tack::analysis
