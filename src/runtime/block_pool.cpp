#include "runtime/block_pool.hpp"

#include <cstdlib>
#include <vector>

namespace tack::detail {

BlockPool::BlockPool(std::size_t cap, std::function<void(void*)> release)
    : release_(std::move(release)), cap_(cap) {}

BlockPool::~BlockPool() {
  release_all();
}

std::pair<void*, std::size_t> BlockPool::take(std::size_t size) {
  if (size < kPoolMinBytes) return {nullptr, 0};
  std::lock_guard lock(mutex_);
  auto it = blocks_.lower_bound(size);
  if (it == blocks_.end() || it->first > size + size / 4) return {nullptr, 0};
  const std::pair<void*, std::size_t> block{it->second.p, it->first};
  held_ -= it->first;
  blocks_.erase(it);
  return block;
}

bool BlockPool::give(void* p, std::size_t capacity) {
  if (capacity < kPoolMinBytes || capacity > cap_) return false;
  std::vector<void*> evicted;
  {
    std::lock_guard lock(mutex_);
    // Full: the blocks freed longest ago make room (a program's next requests are most like its
    // latest frees).
    while (held_ + capacity > cap_ && !blocks_.empty()) {
      auto oldest = blocks_.begin();
      for (auto it = blocks_.begin(); it != blocks_.end(); ++it)
        if (it->second.stamp < oldest->second.stamp) oldest = it;
      evicted.push_back(oldest->second.p);
      held_ -= oldest->first;
      blocks_.erase(oldest);
    }
    blocks_.emplace(capacity, Block{p, ++stamp_});
    held_ += capacity;
  }
  for (void* e : evicted) release_(e);  // outside the lock: a release may call back in
  return true;
}

void BlockPool::release_all() {
  std::vector<void*> all;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [size, block] : blocks_) all.push_back(block.p);
    blocks_.clear();
    held_ = 0;
  }
  for (void* p : all) release_(p);
}

std::size_t BlockPool::held() const {
  std::lock_guard lock(mutex_);
  return held_;
}

std::size_t pool_cap_from_env(const char* name, std::size_t fallback) {
  const char* s = std::getenv(name);
  if (s == nullptr) return fallback;
  char* end = nullptr;
  const unsigned long long mb = std::strtoull(s, &end, 10);
  if (end == s || *end != '\0') return fallback;
  return static_cast<std::size_t>(std::min<unsigned long long>(mb, 1ull << 40)) << 20;
}

}  // namespace tack::detail
