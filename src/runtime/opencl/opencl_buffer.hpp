// OpenClBuffer: a DeviceBuffer over coarse-grained SVM. Transfers and fills go through the
// device's one in-order queue, so host reads wait for the launches before them and host writes
// land after them; the allocation is freed by a queued clEnqueueSVMFree, after every command
// queued before the free.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "memory/device_buffer.hpp"
#include "runtime/opencl/opencl_backend.hpp"

namespace tack::detail {

// One SVM allocation (owned, or wrapped memory of this device), shared by the root buffer and
// its views. Its destructor frees an owned allocation, queued behind everything before it.
struct OpenClAllocation {
  OpenClAllocation(std::shared_ptr<OpenClBackend> b, void* p, std::size_t n, bool own)
      : backend(std::move(b)), base(p), nbytes(n), owned(own) {}
  ~OpenClAllocation();
  OpenClAllocation(const OpenClAllocation&) = delete;
  OpenClAllocation& operator=(const OpenClAllocation&) = delete;

  std::shared_ptr<OpenClBackend> backend;
  void* base;
  std::size_t nbytes;
  bool owned;
  // The backend ticket of the last queued command that used this memory (0: none).
  std::atomic<std::uint64_t> last_ticket{0};

  void note_use(std::uint64_t ticket) {
    std::uint64_t prev = last_ticket.load(std::memory_order_relaxed);
    while (prev < ticket &&
           !last_ticket.compare_exchange_weak(prev, ticket, std::memory_order_acq_rel)) {
    }
  }
  bool pending() const {
    return last_ticket.load(std::memory_order_acquire) > backend->completed();
  }
};

class OpenClBuffer final : public DeviceBuffer {
 public:
  OpenClBuffer(std::shared_ptr<OpenClAllocation> alloc, std::byte* data, std::size_t nbytes,
               std::shared_ptr<AllocationState> state);

  std::uintptr_t address() const override { return reinterpret_cast<std::uintptr_t>(data_); }
  // Blocking writes: the in-order queue puts them after every launch queued before.
  void from_host(const void* src, std::size_t offset, std::size_t count) override;
  // Blocking reads: they wait for every launch queued before.
  void to_host(void* dst, std::size_t offset, std::size_t count) const override;
  // Queued: clEnqueueSVMMemFill for power-of-two patterns of up to 128 bytes at an aligned
  // address, else one pattern run written from the host and doubled by device copies.
  void fill(const void* pattern, std::size_t pattern_size) override;
  // clFinish when a command that uses this allocation may still be queued.
  void synchronize() const override;
  std::string_view backend_name() const override { return "opencl"; }
  std::shared_ptr<Backend> backend() const override { return alloc_->backend; }
  const Backend* backend_ptr() const noexcept override { return alloc_->backend.get(); }

  OpenClAllocation& allocation() const { return *alloc_; }
  void* data() const { return data_; }

 protected:
  std::shared_ptr<DeviceBuffer> make_view_impl(std::size_t offset, std::size_t count) override;

 private:
  std::shared_ptr<OpenClAllocation> alloc_;
  std::byte* data_;
};

}  // namespace tack::detail
