// private_array_bytes: the sizes of every local array declared in a kernel.
#include "analysis/private_memory.hpp"

#include "ir/visitor.hpp"

namespace tack::analysis {

namespace {

class LocalArraySizes final : public ir::Visitor {
 public:
  void visit(const ir::LocalArrayDecl& n) override {
    if (n.shared) return;  // one per workgroup, not per work item
    std::int64_t bytes = ir::bytes_in_memory(n.elem);
    for (std::int64_t d : n.dims) bytes *= d;  // the verifier bounds each array's size
    total += bytes;
    Visitor::visit(n);
  }
  std::int64_t total = 0;
};

}  // namespace

std::int64_t private_array_bytes(const ir::Function& f) {
  LocalArraySizes sizes;
  sizes.visit_function(f);
  return sizes.total;
}

}  // namespace tack::analysis
