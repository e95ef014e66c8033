// The CPU backend: aligned, uninitialized host allocations; parallel first-touch fills.
#pragma once

#include "runtime/backend.hpp"

namespace tack::detail {

// Fills of at least this many bytes run in parallel, so the workers first-touch the pages.
inline constexpr std::size_t kParallelFillBytes = 256 * 1024;
// Every CPU allocation starts at this alignment (a cache line; also satisfies every atomic).
inline constexpr std::size_t kCpuAlignment = 64;

class CpuBackend final : public Backend {
 public:
  CpuBackend();
  std::string name() const override { return "cpu"; }
  std::string kind() const override { return "cpu"; }
  std::shared_ptr<DeviceBuffer> allocate(std::size_t nbytes) override;
  std::shared_ptr<DeviceBuffer> wrap(std::uintptr_t address, std::size_t nbytes,
                                     std::shared_ptr<void> hold) override;
  std::string memory_space(std::uintptr_t) const override { return "cpu"; }
};

// Host memory helpers shared by the CPU buffer and host transfers: parallel above the
// threshold, plain below it.
void host_copy(void* dst, const void* src, std::size_t nbytes);
void host_fill(void* dst, std::size_t nbytes, const void* pattern, std::size_t pattern_size);

}  // namespace tack::detail
