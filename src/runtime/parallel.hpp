// The CPU's parallel loop: OpenMP's runtime underneath (see docs/design/threading.md).
// Work below the grain runs on the calling thread, so small jobs never pay a fan-out.
#pragma once

#include <cstdint>
#include <type_traits>

namespace tack::detail {

// Chunk body: processes [begin, end). Must not throw; report failures through the context.
using ChunkFn = void (*)(void* context, std::int64_t begin, std::int64_t end);

// Runs fn over [0, n) split into chunks of at least `grain` items, in parallel when there is
// more than one chunk's worth of work and more than one thread.
void parallel_for(std::int64_t n, std::int64_t grain, ChunkFn fn, void* context);

// Convenience for lambdas.
template <class F>
void parallel_for(std::int64_t n, std::int64_t grain, F&& f) {
  using Fn = std::remove_reference_t<F>;
  parallel_for(
      n, grain, [](void* ctx, std::int64_t b, std::int64_t e) { (*static_cast<Fn*>(ctx))(b, e); },
      const_cast<void*>(static_cast<const void*>(&f)));
}

// Number of worker threads the CPU backend uses (TACK_NUM_THREADS or the hardware count).
int num_threads();

}  // namespace tack::detail
