// The CUDA backend: one Backend per CUDA device ("cuda:0", ...), each with its context (the
// device's primary context, or the one the embedding program made current before Tack looked)
// and one non-blocking stream that every transfer, fill, launch and free of the device is
// queued on, in order. Buffers are device pointers from stream-ordered allocation, so a view at
// any byte offset is a pointer plus an offset. docs/devices.md says what is queued, what waits
// and who frees; docs/design/cuda.md why.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/backend.hpp"
#include "runtime/cuda/cuda_api.hpp"

namespace tack::detail {

// What Tack needs to know about a device, read once at discovery.
struct CudaDeviceInfo {
  std::string name;
  int ordinal = 0;
  int cc_major = 0, cc_minor = 0;  // compute capability
  int multiprocessors = 1;         // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
  std::uint64_t total_memory = 0;  // cuDeviceTotalMem
  int driver_version = 0;          // cuDriverGetVersion: 12080 is CUDA 12.8
  bool memory_pools = false;       // cuMemAllocAsync / cuMemFreeAsync usable
  std::string arch() const { return "sm_" + std::to_string(cc_major * 10 + cc_minor); }
};

// One CUDA context Tack uses, shared by its backend and (through it) every buffer in it: the
// seed's context token. `alive` turns false when Tack finds the context destroyed (a driver
// call answered that it is, or the primary context was reset outside Tack); from then on every
// buffer in it refuses to touch its memory (RuntimeError) and skips its free, because the
// context took the allocation with it.
struct CudaContext {
  std::shared_ptr<const CudaApi> api;
  CUdevice device = 0;
  CUcontext handle = nullptr;
  bool primary = true;  // retained primary context (released at the end); else adopted
  // cuCtxGetId at discovery (0 where the driver has no ids): a primary context reset outside
  // Tack and then made again by someone else is active, but has another id.
  unsigned long long id = 0;
  std::atomic<bool> alive{true};
};

// Makes `context` current on this thread for the scope (pushes it when another is current).
// Throws RuntimeError "Cannot <verb> this CUDA array: the CUDA context ... has been destroyed"
// when the context is gone, before any driver call touches its memory.
class CudaScope {
 public:
  CudaScope(const CudaContext& context, const char* verb);
  ~CudaScope();
  CudaScope(const CudaScope&) = delete;
  CudaScope& operator=(const CudaScope&) = delete;

 private:
  const CudaContext& context_;
  bool pushed_ = false;
};
// Whether the context can still be used, without throwing (destructors: skip the free if not).
bool cuda_context_usable(const CudaContext& context);
// The same as a check: the "Cannot <verb> this CUDA array: ... destroyed" RuntimeError if not.
void require_cuda_context(const CudaContext& context, const char* verb);

class CudaBackend final : public Backend {
 public:
  CudaBackend(std::shared_ptr<CudaContext> context, CudaDeviceInfo info, CUstream stream);
  ~CudaBackend() override;

  std::string name() const override { return "cuda:" + std::to_string(info_.ordinal); }
  std::string kind() const override { return "cuda"; }
  Capabilities capabilities() const override { return {true, true}; }
  // cuMemAllocAsync on the stream (cuMemAlloc without memory pools); contents unspecified. Out
  // of memory: RuntimeError naming the size and the device; nothing else is affected.
  std::shared_ptr<DeviceBuffer> allocate(std::size_t nbytes) override;
  // Device memory of this device, pinned or managed memory (memory_space; device memory of
  // another device or context is a ValueError); the buffer is not Tack's to free. Work queued
  // on the legacy default stream (where CuPy and PyTorch write unless told otherwise) is
  // ordered before Tack's stream.
  std::shared_ptr<DeviceBuffer> wrap(std::uintptr_t address, std::size_t nbytes,
                                     std::shared_ptr<void> hold) override;
  // cuPointerGetAttribute(CU_POINTER_ATTRIBUTE_MEMORY_TYPE): "cuda", "cuda_pinned",
  // "cuda_managed"; a failed query is host memory ("cpu"), as the driver documents it.
  std::string memory_space(std::uintptr_t address) const override;
  std::vector<std::string> device_memory_spaces() const override {
    return {"cuda", "cuda_pinned", "cuda_managed"};
  }
  // cuStreamSynchronize, then the frees queued for an idle stream (devices without pools).
  void synchronize() override;
  dlpack::Device dlpack_device() const override { return {dlpack::kCUDA, info_.ordinal}; }
  bool holds_dlpack(const dlpack::Device& d) const override {
    return (d.device_type == dlpack::kCUDA || d.device_type == dlpack::kCUDAManaged) &&
           d.device_id == info_.ordinal;
  }
  // The array API's CUDA streams: -1 (no ordering), 1 (legacy default), 2 (per-thread default)
  // or a CUstream handle; 0 is ambiguous and refused (ValueError).
  void check_dlpack_stream(std::int64_t stream) const override;
  // Orders the work queued so far on this device before `stream` (an event recorded here,
  // waited for there): the consumer may use the tensor on its stream at once.
  void order_dlpack_export(std::int64_t stream) override;
  std::optional<std::int64_t> dlpack_consumer_stream() const override {
    return static_cast<std::int64_t>(reinterpret_cast<std::intptr_t>(stream_));
  }

  // ---- for buffers, the target and tests ----
  const CudaApi& api() const { return *context_->api; }
  const std::shared_ptr<CudaContext>& context() const { return context_; }
  CUstream stream() const { return stream_; }
  // Tack's own memory pool (cuMemPoolCreate), or nullptr: the device's default pool, untouched.
  CUmemoryPool pool() const { return pool_; }
  void set_pool(CUmemoryPool pool) { pool_ = pool; }
  // Makes Tack's stream wait for the work queued so far on `other` (an event).
  void wait_for(CUstream other);
  const CudaDeviceInfo& info() const { return info_; }
  // A free for a device without memory pools: the pointer is freed (cuMemFree) once the stream
  // has passed every command queued before now, at the next synchronize().
  void defer_free(CUdeviceptr p);
  // Throws RuntimeError "<what> on device 'cuda:N': <error>" unless `r` is CUDA_SUCCESS.
  void check(CUresult r, const std::string& what) const;

 private:
  void free_deferred();
  // Makes stream `then` wait for the work queued so far on stream `first` (an event).
  void order(CUstream first, CUstream then, const char* what);

  std::shared_ptr<CudaContext> context_;
  CudaDeviceInfo info_;
  CUstream stream_;
  CUmemoryPool pool_ = nullptr;
  std::mutex deferred_mutex_;
  std::vector<CUdeviceptr> deferred_;
};

// The CUDA devices of this process, found once; `notes` says why there are none (no driver,
// cuInit failed, TACK_CUDA=0), for messages and skipped tests. Never throws.
struct CudaDiscovery {
  std::vector<std::shared_ptr<CudaBackend>> backends;
  std::vector<std::string> notes;
};
const CudaDiscovery& cuda_devices();
// One line for a skipped test: "no CUDA device: <notes>".
std::string cuda_unavailable_reason();

}  // namespace tack::detail
