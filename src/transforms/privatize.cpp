// privatize_atomics: atomic statements on private targets become plain read-modify-writes.
#include "transforms/privatize.hpp"

#include <set>
#include <string>

#include "ir/visitor.hpp"

namespace tack::transforms {

namespace {

class Privatize final : public ir::Mutator {
 public:
  Privatize(std::vector<bool> target, std::set<std::string> used)
      : target_(std::move(target)), used_(std::move(used)) {}

  ir::Stmt mutate(const ir::ExprStmt& n, const ir::Stmt& self) override {
    if (n.expr->kind != ir::NodeKind::AtomicRMW) return Mutator::mutate(n, self);
    const auto& a = static_cast<const ir::AtomicRMW&>(*n.expr);
    if (a.param < 0 || static_cast<std::size_t>(a.param) >= target_.size() ||
        !target_[static_cast<std::size_t>(a.param)]) {
      return Mutator::mutate(n, self);
    }
    std::vector<ir::Stmt> block;
    std::vector<ir::Expr> at;
    for (const ir::Expr& i : a.indices) {
      const std::string name = fresh();
      block.push_back(ir::Let::make(name, i));
      at.push_back(ir::Var::make(i->type, name));
    }
    const std::string value = fresh();
    block.push_back(ir::Let::make(value, a.value));
    const ir::Expr old = ir::ArrayLoad::make(a.type, a.param, at);
    const ir::Expr v = ir::Var::make(a.value->type, value);
    ir::Expr updated;
    switch (a.op) {
      case ir::AtomicOp::Add:
        updated = ir::Binary::make(ir::BinaryOp::Add, old, v);
        break;
      case ir::AtomicOp::Min:
        updated = ir::MathCall::make(ir::MathFn::Min, {old, v});
        break;
      case ir::AtomicOp::Max:
        updated = ir::MathCall::make(ir::MathFn::Max, {old, v});
        break;
    }
    block.push_back(ir::ArrayStore::make(a.param, std::move(at), std::move(updated)));
    return ir::Block::make(std::move(block));
  }

 private:
  std::string fresh() {
    std::string name;
    do {
      name = "tack_private_" + std::to_string(next_++);
    } while (!used_.insert(name).second);
    return name;
  }

  std::vector<bool> target_;
  std::set<std::string> used_;
  int next_ = 0;
};

}  // namespace

ir::Function privatize_atomics(const ir::Function& f,
                               const std::vector<analysis::PrivatizableTarget>& targets) {
  std::vector<bool> target(f.params.size(), false);
  for (const auto& t : targets) target[static_cast<std::size_t>(t.param)] = true;
  // Every name the function binds, so that fresh ones never collide.
  Privatize p(std::move(target), ir::bound_names(f.body));
  return p.mutate_function(f);
}

}  // namespace tack::transforms
