// The CPU backend: aligned, uninitialized host allocations; parallel first-touch fills.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "runtime/backend.hpp"
#include "runtime/block_pool.hpp"

namespace tack::detail {

// Fills of at least this many bytes run in parallel, so the workers first-touch the pages.
inline constexpr std::size_t kParallelFillBytes = 256 * 1024;
// Every CPU allocation starts at this alignment (a cache line; also satisfies every atomic).
inline constexpr std::size_t kCpuAlignment = 64;
// Allocations that get a NUMA interleave policy start at a page (the policy covers whole pages).
inline constexpr std::size_t kPageBytes = 4096;
// Allocations of kHugeAllocBytes or more start at a huge-page boundary, are rounded up to whole
// huge pages and advised for transparent huge pages (madvise MADV_HUGEPAGE) before their first
// touch, as NumPy's large arrays are: a streaming or random-access kernel then misses the TLB
// once per 2 MiB instead of once per 4 KiB. TACK_CPU_HUGE_PAGES=0 turns it off.
inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;
inline constexpr std::size_t kHugeAllocBytes = std::size_t{4} << 20;

// Freed allocations of at least kPoolMinBytes are kept for reuse, up to a cap (TACK_CPU_POOL_MB,
// default an eighth of the memory, at most 1 GiB; 0 turns it off; off under AddressSanitizer,
// so it keeps finding use after free): a loop of algorithms or kernels that allocate their
// results and temporaries reuses the same pages instead of faulting in fresh ones
// (docs/design/algorithms.md, "Temporaries"). CPU launches complete before they return, so a
// freed buffer has no work left on it.
class HostPool : public BlockPool {
 public:
  HostPool();
};

class CpuBackend final : public Backend {
 public:
  CpuBackend();
  HostPool& pool() { return pool_; }
  std::string name() const override { return "cpu"; }
  std::string kind() const override { return "cpu"; }
  std::shared_ptr<DeviceBuffer> allocate(std::size_t nbytes) override;
  std::shared_ptr<DeviceBuffer> wrap(std::uintptr_t address, std::size_t nbytes,
                                     std::shared_ptr<void> hold) override;
  std::string memory_space(std::uintptr_t) const override { return "cpu"; }
  dlpack::Device dlpack_device() const override { return {dlpack::kCPU, 0}; }
  // Host memory, pinned or not: CPU, CUDA host and ROCm host tensors.
  bool holds_dlpack(const dlpack::Device& d) const override {
    return d.device_type == dlpack::kCPU || d.device_type == dlpack::kCUDAHost ||
           d.device_type == dlpack::kROCMHost;
  }
  void check_dlpack_stream(std::int64_t stream) const override;
  bool host_memory() const override { return true; }
  // Fills of kParallelFillBytes or more run the fill kernel through the dispatch, once one is
  // registered (set_cpu_fill_kernel): the threading policy of every kernel fans it out, and the
  // workers that will run the kernels first-touch the pages (docs/design/cpu_fill.md).
  bool fill_array(const Array& a, const void* pattern, std::size_t pattern_size) override;

 private:
  HostPool pool_;
};

// The fill kernel the CPU backend runs for large fills: fills the whole of a's buffer with the
// repeated pattern through the kernel dispatch. The algorithms layer registers it (it is a Tack
// kernel, and the runtime does not depend on the dispatch); until then fills are host loops.
// It returns false when it could not run (a kernel that failed to compile, say): the caller then
// fills with the host loop, so a fill never fails for want of a kernel.
using CpuFillKernel = bool (*)(const Array& a, const void* pattern, std::size_t pattern_size);
void set_cpu_fill_kernel(CpuFillKernel fn);
// How many fills ran as a kernel through the dispatch in this process (for tests).
std::uint64_t cpu_kernel_fill_count();

// Host memory helpers shared by the CPU buffer and host transfers: parallel above the
// threshold, plain below it.
void host_copy(void* dst, const void* src, std::size_t nbytes);
void host_fill(void* dst, std::size_t nbytes, const void* pattern, std::size_t pattern_size);

// The NUMA nodes libnuma reports: -1 when Tack is built without libnuma, 0 when libnuma finds
// no NUMA support on this machine.
int numa_node_count();

}  // namespace tack::detail
