// CUDA buffers: queued transfers, native and doubling fills, stream-ordered frees.
#include "runtime/cuda/cuda_buffer.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "support/error.hpp"

namespace tack::detail {

CudaAllocation::~CudaAllocation() {
  if (!owned || base == 0) return;
  try {
    // Throws when the context is gone: it took the memory with it, so there is nothing to free.
    CudaScope scope(*backend->context(), "free");
    if (backend->info().memory_pools) {
      // Behind every command queued before it: launches that may still use the memory.
      if (backend->api().MemFreeAsync(base, backend->stream()) == CUDA_SUCCESS) return;
    }
    backend->defer_free(base);
  } catch (...) {
    // A destructor cannot report; at worst the memory stays allocated.
  }
}

CudaBuffer::CudaBuffer(std::shared_ptr<CudaAllocation> alloc, CUdeviceptr data, std::size_t nbytes,
                       std::shared_ptr<AllocationState> state)
    : DeviceBuffer(nbytes, std::move(state)), alloc_(std::move(alloc)), data_(data) {}

std::uintptr_t CudaBuffer::address() const {
  require_cuda_context(*alloc_->backend->context(), "use");
  return static_cast<std::uintptr_t>(data_);
}

void CudaBuffer::from_host(const void* src, std::size_t offset, std::size_t count) {
  check_range(offset, count, "write");
  settle(offset, count);
  CudaBackend& b = *alloc_->backend;
  CudaScope scope(*b.context(), "write to");
  if (count == 0) return;
  b.check(b.api().MemcpyHtoDAsync(data_ + offset, src, count, b.stream()),
          "copying " + std::to_string(count) + " bytes to the device");
  // From pinned or managed memory the copy reads the source when the stream reaches it; the
  // caller may free it on return, so wait. Pageable memory was staged before the call returned
  // (what drivers do; the API documents that such a copy "might be synchronous"). Memory shared
  // outside Tack is complete on return too: the other library reads it with no Tack call
  // between.
  if (shared() || b.memory_space(reinterpret_cast<std::uintptr_t>(src)) != "cpu") {
    b.check(b.api().StreamSynchronize(b.stream()), "waiting for a copy to the device");
  }
}

void CudaBuffer::to_host(void* dst, std::size_t offset, std::size_t count) const {
  check_range(offset, count, "read");
  settle(offset, count);
  CudaBackend& b = *alloc_->backend;
  CudaScope scope(*b.context(), "read");
  if (count == 0) return;
  b.check(b.api().MemcpyDtoHAsync(dst, data_ + offset, count, b.stream()),
          "copying " + std::to_string(count) + " bytes from the device");
  b.check(b.api().StreamSynchronize(b.stream()), "waiting for a copy from the device");
}

void CudaBuffer::fill(const void* pattern, std::size_t pattern_size) {
  queue_fill(pattern, pattern_size);
  // Memory shared outside Tack: complete before returning, as a launch that binds it does.
  if (shared()) synchronize();
}

void CudaBuffer::queue_fill(const void* pattern, std::size_t pattern_size) {
  settle();
  CudaBackend& b = *alloc_->backend;
  CudaScope scope(*b.context(), "fill");
  if (nbytes_ == 0) return;
  TACK_INTERNAL_ASSERT(pattern_size > 0 && nbytes_ % pattern_size == 0,
                       "fill pattern does not divide the buffer");
  const auto* bytes = static_cast<const unsigned char*>(pattern);
  const std::size_t period = fill_pattern_period(bytes, pattern_size);
  const std::string what = "filling " + std::to_string(nbytes_) + " bytes";
  const CudaApi& api = b.api();
  if (period == 1) {
    b.check(api.MemsetD8Async(data_, bytes[0], nbytes_, b.stream()), what);
    return;
  }
  if (period == 2 && data_ % 2 == 0) {
    std::uint16_t v;
    std::memcpy(&v, bytes, 2);
    b.check(api.MemsetD16Async(data_, v, nbytes_ / 2, b.stream()), what);
    return;
  }
  if (period == 4 && data_ % 4 == 0) {
    std::uint32_t v;
    std::memcpy(&v, bytes, 4);
    b.check(api.MemsetD32Async(data_, v, nbytes_ / 4, b.stream()), what);
    return;
  }
  // Any other pattern (f64, vec(3, f32)) or a misaligned wrapped address: one run of whole
  // patterns written from the host, then doubled by device-to-device copies, each from the
  // filled front to the next stretch (never overlapping), all queued in order.
  doubling_fill(
      bytes, pattern_size, nbytes_,
      [&](const unsigned char* run, std::size_t n) {
        b.check(api.MemcpyHtoDAsync(data_, run, n, b.stream()), what);
      },
      [&](std::size_t offset, std::size_t n) {
        b.check(api.MemcpyDtoDAsync(data_ + offset, data_, n, b.stream()), what);
      });
}

void CudaBuffer::synchronize() const {
  alloc_->backend->synchronize();
}

std::shared_ptr<DeviceBuffer> CudaBuffer::make_view_impl(std::size_t offset, std::size_t count) {
  return std::make_shared<CudaBuffer>(alloc_, data_ + offset, count, state_);
}

}  // namespace tack::detail
