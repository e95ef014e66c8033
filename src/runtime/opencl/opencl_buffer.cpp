// OpenCL buffers: SVM transfers, native and doubling fills, ordered frees.
#include "runtime/opencl/opencl_buffer.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "support/error.hpp"

namespace tack::detail {
namespace {

// What a queued free needs after its buffer and, possibly, its backend are gone.
struct QueuedFree {
  std::shared_ptr<const OpenClApi> api;
  cl_context context;
  std::shared_ptr<SvmRegistry> registry;
};

void CL_CALLBACK free_svm(cl_command_queue, cl_uint count, void* pointers[], void* user_data) {
  auto* f = static_cast<QueuedFree*>(user_data);
  for (cl_uint i = 0; i < count; ++i) {
    f->registry->free_done(reinterpret_cast<std::uintptr_t>(pointers[i]),
                           [&] { f->api->SVMFree(f->context, pointers[i]); });
  }
  delete f;
}

}  // namespace

void queue_svm_free(OpenClBackend& backend, void* base) {
  // Queued behind every command before it (launches that may still read or write the memory);
  // the callback frees and forgets the range. Errors are ignored: a destructor cannot report
  // them, and at worst the memory stays allocated.
  const OpenClApi& api = backend.api();
  auto* f = new QueuedFree{backend.api_ptr(), backend.context(), backend.svm_registry()};
  void* pointers[1] = {base};
  backend.svm_registry()->free_queued();
  cl_int err = api.EnqueueSVMFree(backend.queue(), 1, pointers, free_svm, f, 0, nullptr, nullptr);
  if (err != CL_SUCCESS) {
    // The queue refused it: wait for everything queued, then free at once.
    delete f;
    api.Finish(backend.queue());
    backend.svm_registry()->free_done(reinterpret_cast<std::uintptr_t>(base),
                                      [&] { api.SVMFree(backend.context(), base); });
    return;
  }
  api.Flush(backend.queue());  // so the free happens without a later clFinish
}

OpenClAllocation::~OpenClAllocation() {
  if (!owned || base == nullptr) return;
  // Kept for reuse: work queued on the memory's next owner runs after this owner's (one
  // in-order queue), so the block is handed out at once.
  if (backend->pool().give(base, nbytes)) return;
  queue_svm_free(*backend, base);
}

OpenClBuffer::OpenClBuffer(std::shared_ptr<OpenClAllocation> alloc, std::byte* data,
                           std::size_t nbytes, std::shared_ptr<AllocationState> state)
    : DeviceBuffer(nbytes, std::move(state)), alloc_(std::move(alloc)), data_(data) {}

void OpenClBuffer::from_host(const void* src, std::size_t offset, std::size_t count) {
  check_range(offset, count, "write");
  settle(offset, count);
  if (count == 0) return;
  OpenClBackend& b = *alloc_->backend;
  const std::uint64_t before = b.issued();
  cl_int err =
      b.api().EnqueueSVMMemcpy(b.queue(), CL_TRUE, data_ + offset, src, count, 0, nullptr, nullptr);
  if (err != CL_SUCCESS) {
    throw RuntimeError("cannot copy " + std::to_string(count) + " bytes to device '" + b.name() +
                       "': " + cl_error_string(err));
  }
  b.mark_completed(before);  // a blocking command completes everything queued before it
}

void OpenClBuffer::to_host(void* dst, std::size_t offset, std::size_t count) const {
  check_range(offset, count, "read");
  settle(offset, count);
  if (count == 0) return;
  OpenClBackend& b = *alloc_->backend;
  const std::uint64_t before = b.issued();
  cl_int err =
      b.api().EnqueueSVMMemcpy(b.queue(), CL_TRUE, dst, data_ + offset, count, 0, nullptr, nullptr);
  if (err != CL_SUCCESS) {
    throw RuntimeError("cannot copy " + std::to_string(count) + " bytes from device '" + b.name() +
                       "': " + cl_error_string(err));
  }
  b.mark_completed(before);
}

void OpenClBuffer::fill(const void* pattern, std::size_t pattern_size) {
  settle();
  if (nbytes_ == 0) return;
  TACK_INTERNAL_ASSERT(pattern_size > 0 && nbytes_ % pattern_size == 0,
                       "fill pattern does not divide the buffer");
  OpenClBackend& b = *alloc_->backend;
  const OpenClApi& api = b.api();
  const auto* bytes = static_cast<const unsigned char*>(pattern);
  const std::size_t period = fill_pattern_period(bytes, pattern_size);
  const bool power_of_two = (period & (period - 1)) == 0;
  auto fail = [&](cl_int err) {
    throw RuntimeError("cannot fill " + std::to_string(nbytes_) + " bytes on device '" + b.name() +
                       "': " + cl_error_string(err));
  };
  if (power_of_two && period <= 128 && address() % period == 0) {
    // The native pattern fill; it copies the pattern before returning, and is queued.
    const std::uint64_t ticket = b.next_ticket();
    cl_int err =
        api.EnqueueSVMMemFill(b.queue(), data_, pattern, period, nbytes_, 0, nullptr, nullptr);
    if (err != CL_SUCCESS) fail(err);
    alloc_->note_use(ticket);
    return;
  }
  // Any other pattern (vec(3, f32) is 12 bytes) or a misaligned wrapped address: one run of
  // whole patterns written from the host, then doubled by device-to-device copies, each from
  // the filled front to the next stretch (never overlapping), all queued in order.
  doubling_fill(
      bytes, pattern_size, nbytes_,
      [&](const unsigned char* run, std::size_t n) {
        const cl_int err =
            api.EnqueueSVMMemcpy(b.queue(), CL_TRUE, data_, run, n, 0, nullptr, nullptr);
        if (err != CL_SUCCESS) fail(err);
      },
      [&](std::size_t offset, std::size_t n) {
        const std::uint64_t ticket = b.next_ticket();
        const cl_int err = api.EnqueueSVMMemcpy(b.queue(), CL_FALSE, data_ + offset, data_, n, 0,
                                                nullptr, nullptr);
        if (err != CL_SUCCESS) fail(err);
        alloc_->note_use(ticket);
      });
}

void OpenClBuffer::synchronize() const {
  if (alloc_->pending()) alloc_->backend->finish();
}

std::shared_ptr<DeviceBuffer> OpenClBuffer::make_view_impl(std::size_t offset, std::size_t count) {
  return std::make_shared<OpenClBuffer>(alloc_, data_ + offset, count, state_);
}

}  // namespace tack::detail
