// CPU buffers: 64-byte aligned host memory from the C allocator, never filled at allocation.
#include "runtime/cpu/cpu_backend.hpp"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "runtime/parallel.hpp"
#include "support/error.hpp"
#include "tack/array.hpp"

#ifdef TACK_HAVE_NUMA
#include <numa.h>
#endif
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tack::detail {
namespace {

// Interleave where libnuma reports more than one node; TACK_NUMA_INTERLEAVE=1 asks for it on any
// machine (one node included: the policy is then set, and placement cannot differ), =0 never.
bool numa_interleave_wanted() {
#ifdef TACK_HAVE_NUMA
  static const bool wanted = [] {
    if (numa_available() < 0) return false;
    const char* s = std::getenv("TACK_NUMA_INTERLEAVE");
    if (s != nullptr && std::string(s) == "0") return false;
    if (s != nullptr && std::string(s) == "1") return true;
    return numa_num_configured_nodes() > 1;
  }();
  return wanted;
#else
  return false;
#endif
}

// TACK_CPU_MALLOC=1: keep freed pages in the heap (see docs/environment.md): the mmap threshold
// at its 32 MiB cap, no trim under 4 GiB, the heap grown 256 MiB at a time. Process-wide, so off
// by default. mallopt takes an int, so the trim threshold cannot be 4 GiB itself (INT_MAX is
// 2 GiB - 1); glibc stores it as a size_t converted from that int, so -1 is SIZE_MAX: the heap
// is never trimmed on free, which keeps every page under 4 GiB as asked (and those above too;
// malloc_trim(0) still returns them on request). GLIBC_TUNABLES=glibc.malloc.trim_threshold=
// 4294967296, set before the process starts, gives exactly 4 GiB instead.
void tune_malloc_from_environment() {
  const char* s = std::getenv("TACK_CPU_MALLOC");
  if (s == nullptr || std::string(s) != "1") return;
  mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
  mallopt(M_TRIM_THRESHOLD, -1);
  mallopt(M_TOP_PAD, 256 * 1024 * 1024);
}

class CpuBuffer final : public DeviceBuffer {
 public:
  // `capacity`: the allocation's size (at least nbytes), for the pool; 0 for views and wrapped
  // memory.
  // `base`: where the allocation starts (data may start later in it, kHugeColor); nullptr: at
  // data.
  CpuBuffer(std::byte* data, std::size_t nbytes, std::shared_ptr<AllocationState> state,
            std::shared_ptr<Backend> backend, std::size_t capacity = 0, std::byte* base = nullptr)
      : DeviceBuffer(nbytes, std::move(state)),
        data_(data),
        base_(base != nullptr ? base : data),
        backend_(std::move(backend)),
        capacity_(capacity) {}
  ~CpuBuffer() override {
    if (is_view() || !owned()) return;
    auto* cpu = static_cast<CpuBackend*>(backend_.get());
    if (!cpu->pool().give(base_, capacity_)) std::free(base_);
  }

  std::uintptr_t address() const override { return reinterpret_cast<std::uintptr_t>(data_); }
  std::optional<ByteSpan> span() const override {
    auto b = address();
    return ByteSpan{b, b + nbytes_};
  }
  void from_host(const void* src, std::size_t offset, std::size_t count) override {
    check_range(offset, count, "write");
    settle(offset, count);
    host_copy(data_ + offset, src, count);
  }
  void to_host(void* dst, std::size_t offset, std::size_t count) const override {
    check_range(offset, count, "read");
    settle(offset, count);
    host_copy(dst, data_ + offset, count);
  }
  void fill(const void* pattern, std::size_t pattern_size) override {
    settle();
    host_fill(data_, nbytes_, pattern, pattern_size);
  }
  std::string_view backend_name() const override { return "cpu"; }
  std::shared_ptr<Backend> backend() const override { return backend_; }
  const Backend* backend_ptr() const noexcept override { return backend_.get(); }

 protected:
  std::shared_ptr<DeviceBuffer> make_view_impl(std::size_t offset, std::size_t count) override {
    return std::make_shared<CpuBuffer>(data_ + offset, count, state_, backend_);
  }

 private:
  std::byte* data_;
  std::byte* base_;
  std::shared_ptr<Backend> backend_;
  std::size_t capacity_;
};

// Fills of this many bytes or more bypass the caches (non-temporal stores), as memset does:
// the data would not fit in them anyway, and a cached store first reads each line.
constexpr std::size_t kStreamingFillBytes = 8u << 20;

// Fills [dst, dst + nbytes) with a 16-byte pattern (the element pattern repeated), where
// `phase` is dst's byte offset from the start of the whole fill, so pieces line up.
void fill_span(std::byte* dst, std::size_t nbytes, const std::byte* pattern16, std::size_t phase,
               bool streaming) {
  std::size_t i = 0;
#if defined(__SSE2__)
  if (streaming) {
    // Head up to 16-byte alignment, then aligned streaming stores, then the tail.
    const std::size_t head = (16 - reinterpret_cast<std::uintptr_t>(dst) % 16) % 16;
    for (; i < head && i < nbytes; ++i) dst[i] = pattern16[(phase + i) % 16];
    if (nbytes >= i + 16) {
      alignas(16) std::byte rotated[16];
      for (int k = 0; k < 16; ++k) rotated[k] = pattern16[(phase + i + k) % 16];
      const __m128i v = _mm_load_si128(reinterpret_cast<const __m128i*>(rotated));
      for (; i + 16 <= nbytes; i += 16) _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), v);
      _mm_sfence();
    }
  }
#else
  (void)streaming;
#endif
  for (; i < nbytes && (phase + i) % 16 != 0; ++i) dst[i] = pattern16[(phase + i) % 16];
  for (; i + 16 <= nbytes; i += 16) std::memcpy(dst + i, pattern16, 16);
  for (; i < nbytes; ++i) dst[i] = pattern16[(phase + i) % 16];
}

bool all_zero(const void* p, std::size_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < n; ++i)
    if (b[i] != 0) return false;
  return true;
}

}  // namespace

void host_copy(void* dst, const void* src, std::size_t nbytes) {
  if (nbytes == 0 || dst == src) return;
  if (nbytes < kParallelFillBytes) {
    std::memmove(dst, src, nbytes);
    return;
  }
  auto* d = static_cast<std::byte*>(dst);
  const auto* s = static_cast<const std::byte*>(src);
  // Overlapping host ranges (a copy between views of one buffer) must not race: copy serially.
  if (d < s + nbytes && s < d + nbytes) {
    std::memmove(dst, src, nbytes);
    return;
  }
  parallel_for(static_cast<std::int64_t>(nbytes), 64 * 1024, [&](std::int64_t b, std::int64_t e) {
    std::memcpy(d + b, s + b, static_cast<std::size_t>(e - b));
  });
}

void host_fill(void* dst, std::size_t nbytes, const void* pattern, std::size_t pattern_size) {
  auto* d = static_cast<std::byte*>(dst);
  if (nbytes == 0) return;
  TACK_INTERNAL_ASSERT(pattern_size > 0 && nbytes % pattern_size == 0,
                       "fill pattern does not divide the buffer");
  if (pattern_size == 1 || all_zero(pattern, pattern_size)) {
    const int byte = *static_cast<const unsigned char*>(pattern);
    if (nbytes < kParallelFillBytes) {
      std::memset(d, byte, nbytes);
      return;
    }
    parallel_for(static_cast<std::int64_t>(nbytes), 64 * 1024, [&](std::int64_t b, std::int64_t e) {
      std::memset(d + b, byte, static_cast<std::size_t>(e - b));
    });
    return;
  }
  if (16 % pattern_size == 0) {
    std::byte pattern16[16];
    for (std::size_t k = 0; k < 16; k += pattern_size)
      std::memcpy(pattern16 + k, pattern, pattern_size);
    const bool streaming = nbytes >= kStreamingFillBytes;
    if (nbytes < kParallelFillBytes) {
      fill_span(d, nbytes, pattern16, 0, false);
      return;
    }
    parallel_for(static_cast<std::int64_t>(nbytes), 64 * 1024, [&](std::int64_t b, std::int64_t e) {
      fill_span(d + b, static_cast<std::size_t>(e - b), pattern16, static_cast<std::size_t>(b),
                streaming);
    });
    return;
  }
  // Vector patterns (vec(n, t) elements): one copy per element.
  const std::size_t n = nbytes / pattern_size;
  auto body = [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i) std::memcpy(d + i * pattern_size, pattern, pattern_size);
  };
  if (nbytes >= kParallelFillBytes) {
    parallel_for(static_cast<std::int64_t>(n), 1024, body);
  } else {
    body(0, static_cast<std::int64_t>(n));
  }
}

#if defined(__SANITIZE_ADDRESS__)
#define TACK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TACK_ASAN 1
#endif
#endif

namespace {

std::size_t host_pool_cap() {
#if defined(TACK_ASAN)
  return 0;  // AddressSanitizer must see every free
#else
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  const std::size_t eighth =
      pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) / 8
                            : 0;
  return pool_cap_from_env("TACK_CPU_POOL_MB", std::min<std::size_t>(eighth, std::size_t{1} << 30));
#endif
}

}  // namespace

HostPool::HostPool() : BlockPool(host_pool_cap(), [](void* p) { std::free(p); }) {}

CpuBackend::CpuBackend() {
  tune_malloc_from_environment();
}

namespace {

// Huge-page allocations start at a rotating offset into their first huge page: 0, 4160, 8320,
// ... bytes (a page and a cache line apart, 16 colors). Without it every large array starts at
// the same place in a 2 MiB page, so element i of each array falls in the same cache sets
// (physical and virtual low bits agree within a huge page) and a triad over three of them ran
// at 0.7-0.9x the speed of the same loop on NumPy's arrays, which malloc staggers by a page.
constexpr std::size_t kHugeColor = 4096 + 64;
constexpr std::size_t kHugeColors = 16;

std::size_t next_huge_color() {
  static std::atomic<std::size_t> next{0};
  return next.fetch_add(1, std::memory_order_relaxed) % kHugeColors * kHugeColor;
}

bool huge_pages_wanted() {
  static const bool wanted = [] {
    const char* s = std::getenv("TACK_CPU_HUGE_PAGES");
    return s == nullptr || std::string(s) != "0";
  }();
  return wanted;
}

}  // namespace

std::shared_ptr<DeviceBuffer> CpuBackend::allocate(std::size_t nbytes) {
  // Round up to the alignment (aligned_alloc's contract) and never allocate zero bytes, so
  // every array has a distinct, valid address. Large ones take whole huge pages.
  const bool huge = nbytes >= kHugeAllocBytes && huge_pages_wanted();
  // An interleave policy is set on whole pages (mbind refuses a start inside a page).
  const bool interleave = numa_interleave_wanted() && nbytes >= kParallelFillBytes;
  const std::size_t align = huge ? kHugePageBytes : interleave ? kPageBytes : kCpuAlignment;
  if (nbytes > SIZE_MAX - align - kHugeColors * kHugeColor) {
    throw RuntimeError("cannot allocate " + std::to_string(nbytes) +
                       " bytes on the CPU: out of memory; free arrays or use a smaller shape");
  }
  // A multiple of the alignment, as aligned_alloc requires; a huge one with room for its color.
  const std::size_t wanted = nbytes + (huge ? kHugeColors * kHugeColor : 0);
  std::size_t size = (wanted + align - 1) / align * align;
  if (size == 0) size = kCpuAlignment;
  const std::size_t color = huge ? next_huge_color() : 0;
  if (auto [kept, capacity] = pool_.take(size); kept != nullptr) {
    auto state = std::make_shared<AllocationState>();
    auto* base = static_cast<std::byte*>(kept);
    return std::make_shared<CpuBuffer>(base + color, nbytes, std::move(state), shared_from_this(),
                                       capacity, base);
  }
  void* p = std::aligned_alloc(align, size);
  if (p == nullptr && pool_.held() > 0) {  // the kept blocks are needed: free them, try again
    pool_.release_all();
    p = std::aligned_alloc(align, size);
  }
  if (p == nullptr) {
    throw RuntimeError("cannot allocate " + std::to_string(nbytes) +
                       " bytes on the CPU: out of memory; free arrays or use a smaller shape");
  }
  // Untouched yet: the first touch (the parallel fill's workers) faults in huge pages. The
  // advice is a hint; a kernel without transparent huge pages ignores it.
  if (huge) madvise(p, size, MADV_HUGEPAGE);
#ifdef TACK_HAVE_NUMA
  // Pages are untouched; the interleave policy decides where first touch places them.
  if (interleave) numa_interleave_memory(p, size, numa_all_nodes_ptr);
#endif
  auto state = std::make_shared<AllocationState>();
  auto* base = static_cast<std::byte*>(p);
  return std::make_shared<CpuBuffer>(base + color, nbytes, std::move(state), shared_from_this(),
                                     size, base);
}

std::shared_ptr<DeviceBuffer> CpuBackend::wrap(std::uintptr_t address, std::size_t nbytes,
                                               std::shared_ptr<void> hold) {
  auto state = std::make_shared<AllocationState>();
  state->owned = false;
  state->hold = std::move(hold);
  state->shared.store(true);
  return std::make_shared<CpuBuffer>(reinterpret_cast<std::byte*>(address), nbytes,
                                     std::move(state), shared_from_this());
}

namespace {
std::atomic<CpuFillKernel> fill_kernel{nullptr};
std::atomic<std::uint64_t> kernel_fills{0};
}  // namespace

void set_cpu_fill_kernel(CpuFillKernel fn) {
  fill_kernel.store(fn, std::memory_order_release);
}

std::uint64_t cpu_kernel_fill_count() {
  return kernel_fills.load(std::memory_order_relaxed);
}

bool CpuBackend::fill_array(const Array& a, const void* pattern, std::size_t pattern_size) {
  const CpuFillKernel fn = fill_kernel.load(std::memory_order_acquire);
  if (fn == nullptr || a.buffer()->nbytes() < kParallelFillBytes) return false;
  if (!fn(a, pattern, pattern_size)) return false;
  kernel_fills.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void CpuBackend::check_dlpack_stream(std::int64_t stream) const {
  if (stream == -1) return;
  throw ValueError("__dlpack__: the CPU has no streams, so stream must be None (or -1), got " +
                   std::to_string(stream));
}

int numa_node_count() {
#ifdef TACK_HAVE_NUMA
  return numa_available() < 0 ? 0 : numa_num_configured_nodes();
#else
  return -1;
#endif
}

}  // namespace tack::detail
