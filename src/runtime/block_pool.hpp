// A pool of freed device allocations, kept to be handed out again (docs/memory-model.md,
// "Freed memory is kept"). A backend gives a block when its last array drops it and takes one
// for a new allocation of about the same size. Safe where a block's earlier work is ordered
// before any later use: the CPU (launches complete before they return) and an in-order device
// queue (work on the new owner is enqueued after the old owner's).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

namespace tack::detail {

// Blocks of at least this many bytes are kept; smaller ones cost little to allocate.
inline constexpr std::size_t kPoolMinBytes = 1u << 20;

class BlockPool {
 public:
  // Keeps at most `cap` bytes; `release` frees a block the pool no longer keeps.
  BlockPool(std::size_t cap, std::function<void(void*)> release);
  ~BlockPool();
  BlockPool(const BlockPool&) = delete;
  BlockPool& operator=(const BlockPool&) = delete;
  // A kept block of at least `size` bytes (and at most a quarter more), or {nullptr, 0}.
  std::pair<void*, std::size_t> take(std::size_t size);
  // Keeps the block if it is large enough and not larger than the cap, releasing the blocks kept
  // longest to make room; false: the caller frees it.
  bool give(void* p, std::size_t capacity);
  // Releases every kept block (an allocation failed: the memory is needed).
  void release_all();
  std::size_t held() const;
  std::size_t cap() const { return cap_; }

 private:
  struct Block {
    void* p;
    std::uint64_t stamp;  // when it was given: the oldest go first when the pool is full
  };
  std::function<void(void*)> release_;
  mutable std::mutex mutex_;
  std::multimap<std::size_t, Block> blocks_;
  std::uint64_t stamp_ = 0;
  std::size_t held_ = 0;
  std::size_t cap_ = 0;
};

// The cap of a pool: `fallback` bytes unless the environment variable `name` gives MiB (0 turns
// the pool off).
std::size_t pool_cap_from_env(const char* name, std::size_t fallback);

}  // namespace tack::detail
