// written_array_params: collect store and atomic targets, then close over aliases.
#include "analysis/written_arrays.hpp"

#include "ir/visitor.hpp"

namespace tack::analysis {

namespace {

class StoreTargets final : public ir::Visitor {
 public:
  explicit StoreTargets(const ir::Function& f) : fn_(f), written_(f.params.size(), false) {}

  void visit(const ir::ArrayStore& n) override {
    mark(n.param);
    Visitor::visit(n);
  }
  void visit(const ir::AtomicRMW& n) override {
    mark(n.param);
    Visitor::visit(n);
  }

  bool traced() const { return traced_; }
  std::vector<bool> written() const { return written_; }

 private:
  void mark(int index) {
    if (index < 0 || static_cast<size_t>(index) >= fn_.params.size() ||
        !fn_.params[index].is_array()) {
      traced_ = false;
      return;
    }
    written_[index] = true;
  }

  const ir::Function& fn_;
  std::vector<bool> written_;
  bool traced_ = true;
};

// Pairs (a, b): parameter a may name the same storage as parameter b inside the kernel body
// because one was copied into the other. The IR has no such copies, so the relation is empty;
// this is the one place to extend when it gets them.
std::vector<std::pair<int, int>> name_copies(const ir::Function&) {
  return {};
}

}  // namespace

std::optional<std::vector<bool>> written_array_params(const ir::Function& f) {
  StoreTargets targets(f);
  targets.visit_function(f);
  if (!targets.traced()) return std::nullopt;
  std::vector<bool> written = targets.written();
  // A write through either name of a copy writes both: iterate to a fixed point.
  std::vector<std::pair<int, int>> copies = name_copies(f);
  for (bool changed = true; changed;) {
    changed = false;
    for (auto [a, b] : copies) {
      if (written[a] != written[b]) {
        written[a] = written[b] = true;
        changed = true;
      }
    }
  }
  return written;
}

}  // namespace tack::analysis
