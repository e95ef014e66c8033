// parallel_for over OpenMP: static contiguous chunks, one per thread, so that the thread that
// first touches a page in a fill is the one that later works on it.
#include "runtime/parallel.hpp"

#include <omp.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>

namespace tack::detail {
namespace {

// libgomp's pool of worker threads does not survive fork(): the child has one thread, and a
// parallel region there can wait forever for the parent's workers (docs/design/threading.md).
// A forked child therefore runs every launch on its one thread.
std::atomic<bool> forked_child{false};

void mark_forked_child() {
  forked_child.store(true, std::memory_order_relaxed);
}

const bool fork_handler_installed = [] {
  pthread_atfork(nullptr, nullptr, &mark_forked_child);
  return true;
}();

}  // namespace

int num_threads() {
  if (forked_child.load(std::memory_order_relaxed)) return 1;
  static const int n = [] {
    if (const char* s = std::getenv("TACK_NUM_THREADS")) {
      int v = std::atoi(s);
      if (v > 0) return v;
    }
    return std::max(1, omp_get_max_threads());
  }();
  return n;
}

void parallel_for(std::int64_t n, std::int64_t grain, ChunkFn fn, void* context) {
  if (n <= 0) return;
  grain = std::max<std::int64_t>(grain, 1);
  const std::int64_t threads = std::min<std::int64_t>(num_threads(), (n + grain - 1) / grain);
  if (threads <= 1 || omp_in_parallel()) {
    fn(context, 0, n);
    return;
  }
#pragma omp parallel num_threads(static_cast <int>(threads))
  {
    const std::int64_t t = omp_get_thread_num();
    const std::int64_t nt = omp_get_num_threads();
    const std::int64_t begin = n * t / nt;
    const std::int64_t end = n * (t + 1) / nt;
    if (begin < end) fn(context, begin, end);
  }
}

}  // namespace tack::detail
