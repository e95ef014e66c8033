// Privatized atomics: per-worker copies of small atomic targets, merged once.
#include "targets/cpu/private_atomics.hpp"

#include <algorithm>
#include <atomic>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "memory/device_buffer.hpp"
#include "memory/scalar_dispatch.hpp"
#include "runtime/parallel.hpp"
#include "support/crash_report.hpp"
#include "support/error.hpp"

namespace tack::detail {
namespace {

template <class T>
T identity(ir::AtomicOp op) {
  switch (op) {
    case ir::AtomicOp::Min:
      return std::numeric_limits<T>::max();
    case ir::AtomicOp::Max:
      return std::numeric_limits<T>::lowest();
    case ir::AtomicOp::Add:
      break;
  }
  return T{0};
}

template <class T>
void fill_identity(std::byte* copy, std::size_t count, ir::AtomicOp op) {
  std::fill_n(reinterpret_cast<T*>(copy), count, identity<T>(op));
}

// dst[i] = op(dst[i], src[i]) for every element a worker touched, atomically: other workers
// merge into the same array at the same time.
template <class T>
void merge(std::uintptr_t dst_address, const std::byte* src_bytes, std::size_t count,
           ir::AtomicOp op) {
  auto* dst = reinterpret_cast<T*>(dst_address);
  const auto* src = reinterpret_cast<const T*>(src_bytes);
  const T id = identity<T>(op);
  for (std::size_t i = 0; i < count; ++i) {
    const T v = src[i];
    if (v == id) continue;  // untouched, or a no-op either way
    std::atomic_ref<T> r(dst[i]);
    if (op == ir::AtomicOp::Add) {
      r.fetch_add(v, std::memory_order_relaxed);
      continue;
    }
    T cur = r.load(std::memory_order_relaxed);
    while ((op == ir::AtomicOp::Min ? v < cur : cur < v) &&
           !r.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
    }
  }
}

// Calls f(tag) for the integer type `t` (privatizable targets are integers only).
template <class F>
void with_int_type(ScalarType t, F&& f) {
  with_scalar_type(t, [&](auto tag) {
    if constexpr (std::is_integral_v<decltype(tag)>) {
      f(tag);
    } else {
      TACK_INTERNAL_ASSERT(false, "a privatized atomic target of a non-integer type");
    }
  });
}

std::atomic<std::uint64_t> privatized_launches{0};

struct PrivateCopy {
  std::uintptr_t address = 0;  // the real array
  std::size_t count = 0;       // its elements
  std::size_t nbytes = 0;
  ScalarType type = ScalarType::i32;
  ir::AtomicOp op = ir::AtomicOp::Add;
  int slot = 0;  // its address slot in the argument slots
};

struct Run {
  codegen::ChunkFn chunk;
  std::int64_t offset;
  codegen::TackDebugStatus* status;
  const std::vector<PrivateCopy>* targets;
  std::vector<std::uint64_t>* slots;  // one slot array per worker, back to back
  std::size_t slot_count;
  std::vector<std::unique_ptr<std::byte[]>>* copies;  // worker-major: [worker][target]
  std::atomic<int> next{0};
};

}  // namespace

std::uint64_t privatized_launch_count() {
  return privatized_launches.load(std::memory_order_relaxed);
}

bool privatize_worthwhile(const std::vector<analysis::PrivatizableTarget>& private_targets,
                          const KernelArg* args, std::size_t n, std::int64_t work) {
  if (private_targets.empty()) return false;
  const std::int64_t workers = num_threads();
  for (const auto& t : private_targets) {
    const Array& a = *args[t.param].array;
    // A strided target's rows are a pitch apart; a private copy is contiguous.
    if (args[t.param].pitch != 0) return false;
    if (a.nbytes() > kPrivateMaxBytes || work < kPrivateMinWork * a.size() * workers) return false;
    const auto s = a.buffer()->span();
    if (!s) return false;
    for (std::size_t j = 0; j < n; ++j) {
      if (j == static_cast<std::size_t>(t.param) || args[j].array == nullptr) continue;
      const auto o = args[j].array->buffer()->span();
      if (!o || (o->begin < s->end && s->begin < o->end && o->begin != o->end)) return false;
    }
  }
  return true;
}

void run_privatized(const std::vector<analysis::PrivatizableTarget>& private_targets,
                    codegen::ChunkFn chunk, const SlotLayout& layout, std::int64_t offset,
                    std::int64_t count, std::int64_t grain, codegen::TackDebugStatus* status,
                    const KernelArg* args) {
  std::vector<PrivateCopy> targets;
  for (const auto& t : private_targets) {
    const Array& a = *args[t.param].array;
    targets.push_back({a.address(), static_cast<std::size_t>(a.size()), a.nbytes(),
                       a.dtype().scalar, t.op,
                       (*layout.slot_of)[static_cast<std::size_t>(t.param)]});
  }
  // Everything is allocated here, before the fan-out: a worker must not throw.
  const std::uint64_t* slots = layout.slots;
  const auto workers = static_cast<std::size_t>(num_threads());
  const auto slot_count = static_cast<std::size_t>(layout.slot_count);
  std::vector<std::uint64_t> worker_slots(workers * slot_count);
  std::vector<std::unique_ptr<std::byte[]>> copies;
  copies.reserve(workers * targets.size());
  for (std::size_t w = 0; w < workers; ++w) {
    std::uint64_t* mine = worker_slots.data() + w * slot_count;
    std::copy_n(slots, slot_count, mine);
    for (const PrivateCopy& t : targets) {
      copies.push_back(std::make_unique<std::byte[]>(std::max<std::size_t>(t.nbytes, 1)));
      with_int_type(t.type, [&](auto tag) {
        fill_identity<decltype(tag)>(copies.back().get(), t.count, t.op);
      });
      mine[t.slot] = reinterpret_cast<std::uintptr_t>(copies.back().get());
    }
  }
  privatized_launches.fetch_add(1, std::memory_order_relaxed);
  Run run{chunk, offset, status, &targets, &worker_slots, slot_count, &copies};
  parallel_for(
      count, grain,
      [](void* c, std::int64_t b, std::int64_t e) {
        auto* r = static_cast<Run*>(c);
        // parallel_for calls this at most once per worker: each call takes the next copies.
        const auto w = static_cast<std::size_t>(r->next.fetch_add(1));
        const KernelCodeScope in_kernel;  // a fault on this worker is the kernel's
        r->chunk(r->slots->data() + w * r->slot_count, r->offset + b, r->offset + e, r->status);
        const std::size_t k = r->targets->size();
        for (std::size_t i = 0; i < k; ++i) {
          const PrivateCopy& t = (*r->targets)[i];
          const std::byte* copy = (*r->copies)[w * k + i].get();
          with_int_type(t.type,
                        [&](auto tag) { merge<decltype(tag)>(t.address, copy, t.count, t.op); });
        }
      },
      &run);
}

}  // namespace tack::detail
