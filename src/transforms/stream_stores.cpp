// stream_stores: the flagged parameters' stores become streaming stores.
#include "transforms/stream_stores.hpp"

#include "ir/visitor.hpp"

namespace tack::transforms {

namespace {

class StreamStores final : public ir::Mutator {
 public:
  explicit StreamStores(const std::vector<bool>& streamed) : streamed_(streamed) {}

  ir::Stmt mutate(const ir::ArrayStore& n, const ir::Stmt& self) override {
    const auto p = static_cast<std::size_t>(n.param);
    if (n.param < 0 || p >= streamed_.size() || !streamed_[p] || n.streaming) return self;
    return ir::ArrayStore::make(n.param, n.indices, n.value, /*streaming=*/true);
  }

 private:
  const std::vector<bool>& streamed_;
};

}  // namespace

ir::Function stream_stores(const ir::Function& fn, const std::vector<bool>& streamed) {
  StreamStores mutator(streamed);
  return mutator.mutate_function(fn);
}

}  // namespace tack::transforms
