// atomic_targets: every AtomicRMW's array parameter with its element size.
#include "analysis/atomic_targets.hpp"

#include "ir/visitor.hpp"

namespace tack::analysis {

namespace {

class AtomicFinder final : public ir::Visitor {
 public:
  explicit AtomicFinder(size_t params) : used_(params, false) {}
  void visit(const ir::AtomicRMW& n) override {
    if (n.param >= 0 && static_cast<size_t>(n.param) < used_.size()) used_[n.param] = true;
    Visitor::visit(n);
  }
  std::vector<bool> used_;
};

}  // namespace

std::vector<AtomicTarget> atomic_targets(const ir::Function& f) {
  AtomicFinder finder(f.params.size());
  finder.visit_function(f);
  std::vector<AtomicTarget> out;
  for (size_t i = 0; i < f.params.size(); ++i) {
    if (finder.used_[i] && f.params[i].is_array()) {
      out.push_back({static_cast<int>(i), ir::bytes_in_memory(f.params[i].type)});
    }
  }
  return out;
}

}  // namespace tack::analysis
