// CudaBuffer: a DeviceBuffer over CUDA device memory. Everything goes through the device's one
// stream: host-to-device copies and fills are queued behind the launches before them, and
// device-to-host copies wait for them; the allocation is freed by cuMemFreeAsync on the stream,
// after every command queued before the free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "memory/device_buffer.hpp"
#include "runtime/cuda/cuda_backend.hpp"

namespace tack::detail {

// One allocation (owned, or wrapped memory), shared by the root buffer and its views.
struct CudaAllocation {
  CudaAllocation(std::shared_ptr<CudaBackend> b, CUdeviceptr p, std::size_t n, bool own)
      : backend(std::move(b)), base(p), nbytes(n), owned(own) {}
  ~CudaAllocation();
  CudaAllocation(const CudaAllocation&) = delete;
  CudaAllocation& operator=(const CudaAllocation&) = delete;

  std::shared_ptr<CudaBackend> backend;
  CUdeviceptr base;
  std::size_t nbytes;
  bool owned;
};

class CudaBuffer final : public DeviceBuffer {
 public:
  CudaBuffer(std::shared_ptr<CudaAllocation> alloc, CUdeviceptr data, std::size_t nbytes,
             std::shared_ptr<AllocationState> state);

  // The device pointer kernels bind; RuntimeError once the context is destroyed (the seed's
  // device_ptr check, which every launch passes through).
  std::uintptr_t address() const override;
  // The device pointer without the context check: for a launch that checked it once, under
  // its CudaScope, for all of its arrays.
  CUdeviceptr pointer() const { return data_; }
  // Queued (cuMemcpyHtoDAsync): from pageable memory the driver has taken the bytes when it
  // returns; from pinned or managed memory, which the copy would read later, it waits.
  void from_host(const void* src, std::size_t offset, std::size_t count) override;
  // cuMemcpyDtoHAsync after the queued launches, then a wait for it.
  void to_host(void* dst, std::size_t offset, std::size_t count) const override;
  // Queued: cuMemsetD8/D16/D32Async for patterns of period 1, 2 or 4 bytes at an aligned
  // address, else one run of patterns written from the host and doubled by device copies.
  // Memory shared outside Tack waits for the fill (and a host write) before returning.
  void fill(const void* pattern, std::size_t pattern_size) override;
  void synchronize() const override;
  std::string_view backend_name() const override { return "cuda"; }
  std::shared_ptr<Backend> backend() const override { return alloc_->backend; }
  const Backend* backend_ptr() const noexcept override { return alloc_->backend.get(); }

 protected:
  std::shared_ptr<DeviceBuffer> make_view_impl(std::size_t offset, std::size_t count) override;

 private:
  void queue_fill(const void* pattern, std::size_t pattern_size);

  std::shared_ptr<CudaAllocation> alloc_;
  CUdeviceptr data_;
};

}  // namespace tack::detail
