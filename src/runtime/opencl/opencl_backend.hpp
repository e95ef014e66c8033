// The OpenCL backend: one Backend per OpenCL device with coarse-grained SVM ("opencl:0", ...),
// each with its own context and one in-order command queue. Buffers are SVM allocations, so a
// view at any byte offset is a plain pointer. Launches are queued (see opencl_program.hpp and
// docs/devices.md for what waits and who frees what).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "runtime/backend.hpp"
#include "runtime/block_pool.hpp"
#include "runtime/opencl/opencl_api.hpp"

namespace tack::detail {

class OpenClKernel;
struct OpenClArg;

// What Tack needs to know about a device, read once at discovery.
struct OpenClDeviceInfo {
  std::string name, vendor, version, driver_version, platform_name;
  cl_device_svm_capabilities svm = 0;
  std::uint64_t max_alloc = 0;   // CL_DEVICE_MAX_MEM_ALLOC_SIZE
  std::uint64_t global_mem = 0;  // CL_DEVICE_GLOBAL_MEM_SIZE
  std::uint32_t compute_units = 1;
  bool cpu = false;                         // CL_DEVICE_TYPE_CPU (PoCL's device): no coalescing
  bool fp64 = false;                        // cl_khr_fp64 (or OpenCL 1.2+ double config)
  bool int64_atomics = false;               // cl_khr_int64_base_atomics
  bool correctly_rounded_div_sqrt = false;  // -cl-fp32-correctly-rounded-divide-sqrt allowed
};

// The live SVM allocations of one backend: what memory_space() answers from. Shared with the
// callbacks of queued frees, which may run after the backend is gone.
class SvmRegistry {
 public:
  void add(std::uintptr_t begin, std::size_t nbytes);
  // The allocation [begin, end) that contains `address`, if any.
  bool find(std::uintptr_t address, std::uintptr_t* begin, std::uintptr_t* end) const;

  // Queued frees: a free's callback may run after clFinish has returned (NVIDIA's does), so
  // synchronize() also waits for the callbacks of the frees queued before it.
  void free_queued();
  // A queued free has come due: forgets the range that starts at `begin`, then releases the
  // memory (`release()`, the SVMFree), then counts one fewer queued free. In that order: once
  // the memory is released, a new allocation may take its address on any thread and add its
  // range, which a late forget would remove (a live array then reads as "cpu" memory).
  template <class Release>
  void free_done(std::uintptr_t begin, Release&& release) {
    forget(begin);
    release();
    count_down();
  }
  // True when no queued free is outstanding, waiting up to `timeout` for the last ones.
  bool wait_for_frees(std::chrono::milliseconds timeout);

 private:
  void forget(std::uintptr_t begin);
  void count_down();

  mutable std::mutex mutex_;
  std::condition_variable frees_done_;
  std::map<std::uintptr_t, std::uintptr_t> ranges_;  // begin -> end
  std::size_t queued_frees_ = 0;
};

class OpenClBackend final : public Backend {
 public:
  OpenClBackend(std::shared_ptr<const OpenClApi> api, cl_platform_id platform, cl_device_id device,
                int index, OpenClDeviceInfo info, cl_context context, cl_command_queue queue);
  ~OpenClBackend() override;

  std::string name() const override { return "opencl:" + std::to_string(index_); }
  std::string kind() const override { return "opencl"; }
  Capabilities capabilities() const override { return {true, !info_.cpu}; }
  // Contents unspecified. Out of device memory: RuntimeError naming the size and the device;
  // nothing else is affected.
  std::shared_ptr<DeviceBuffer> allocate(std::size_t nbytes) override;
  // Only memory inside one live SVM allocation of this device (ValueError otherwise).
  std::shared_ptr<DeviceBuffer> wrap(std::uintptr_t address, std::size_t nbytes,
                                     std::shared_ptr<void> hold) override;
  // "opencl" inside an SVM allocation this backend made and has not freed, else "cpu".
  std::string memory_space(std::uintptr_t address) const override;
  std::vector<std::string> device_memory_spaces() const override { return {"opencl"}; }
  // clFinish: waits for everything queued (launches, fills, ordered frees).
  void synchronize() override;
  // DLPack device id N is "opencl:N", the index in Tack's device list of this kind. That an
  // imported pointer belongs to this device's context is checked by wrap (memory_space).
  dlpack::Device dlpack_device() const override { return {dlpack::kOpenCL, index_}; }
  bool holds_dlpack(const dlpack::Device& d) const override {
    return d.device_type == dlpack::kOpenCL && d.device_id == index_;
  }

  // ---- programs and launches (the API dispatch uses; see opencl_program.hpp) ----
  // Compiles `source` (OpenCL C) and returns kernel `kernel_name` of it. Cached in memory by
  // source text, and on disk as a program binary where the driver keeps no cache of its own
  // (opencl_program.cpp). A build failure is a CompileError that quotes the generated source
  // line the compiler's first error points to.
  std::shared_ptr<OpenClKernel> build_program(const std::string& source,
                                              const std::string& kernel_name);
  // Binds `args` in order and enqueues `global_size` work items in work groups of
  // `local_size` (0: the driver chooses; else it must divide global_size); returns without
  // waiting. Buffers bound are marked as used by the launch (ordered frees, synchronize). If
  // one of them is shared outside Tack, waits for the launch before returning (memory seed,
  // "Queued launches and memory").
  void launch(OpenClKernel& kernel, const std::vector<OpenClArg>& args, std::size_t global_size,
              std::size_t local_size = 0);
  // A work-item count that fills the device; kernels from OpenClPrinter are grid-stride, so
  // any global size is correct and this one is merely a good default.
  std::size_t default_global_size() const;
  // The work-group size for `global_size` work items that each hold `private_bytes` of local
  // arrays, or 0 to let the driver choose. A CPU device (PoCL) runs a work group on one
  // thread's stack with every work item's private arrays side by side, and its own choice
  // (up to 4096 items) overflows that stack once they pass a few KiB each: there the group is
  // the largest power of two that divides global_size and keeps the group's private arrays
  // within kWorkGroupPrivateBytes. GPUs keep private arrays per work item: 0.
  std::size_t work_group_size(std::int64_t private_bytes, std::size_t global_size) const;
  static constexpr std::int64_t kWorkGroupPrivateBytes = 1 << 20;

  // ---- for buffers and tests ----
  const OpenClApi& api() const { return *api_; }
  const std::shared_ptr<const OpenClApi>& api_ptr() const { return api_; }
  cl_context context() const { return context_; }
  cl_command_queue queue() const { return queue_; }
  cl_device_id device_id() const { return device_; }
  int index() const { return index_; }
  const OpenClDeviceInfo& info() const { return info_; }
  const std::shared_ptr<SvmRegistry>& svm_registry() const { return svm_; }
  // Freed SVM allocations kept for reuse in queue order (TACK_OPENCL_POOL_MB;
  // docs/memory-model.md).
  BlockPool& pool() { return *pool_; }
  // Built programs something still holds (the in-memory cache's live entries).
  std::size_t live_programs() const;

  // Queue bookkeeping: every enqueued command that uses a buffer takes a ticket; a buffer
  // remembers its last ticket, and waiting is needed only while it is above completed().
  std::uint64_t next_ticket() { return ++issued_; }
  std::uint64_t issued() const { return issued_.load(std::memory_order_acquire); }
  std::uint64_t completed() const { return completed_.load(std::memory_order_acquire); }
  // Records that every command up to `ticket` has completed (after a blocking command).
  void mark_completed(std::uint64_t ticket);
  // Waits for every command issued so far (clFinish) and records it.
  void finish();

 private:
  std::shared_ptr<const OpenClApi> api_;
  cl_platform_id platform_;
  cl_device_id device_;
  int index_;
  OpenClDeviceInfo info_;
  cl_context context_;
  cl_command_queue queue_;
  std::shared_ptr<SvmRegistry> svm_ = std::make_shared<SvmRegistry>();
  std::atomic<std::uint64_t> issued_{0};
  std::atomic<std::uint64_t> completed_{0};
  std::mutex launch_mutex_;  // clSetKernelArg + enqueue must not interleave on one kernel
  // Built kernels by (source, kernel name), held weakly: a variant is compiled once per process
  // while anything (a kernel's variant) holds the result, and the program is released with the
  // last holder (a queued launch keeps its cl_kernel alive by OpenCL's own reference count).
  // Expired entries are pruned on every build.
  struct ProgramCache {
    std::mutex mutex;
    std::map<std::pair<std::string, std::string>, std::weak_ptr<OpenClKernel>> kernels;
  };
  std::unique_ptr<ProgramCache> programs_;
  std::unique_ptr<BlockPool> pool_;
};

// Frees SVM memory behind every command queued before it (clEnqueueSVMFree; at once after
// clFinish where the queue refuses), forgetting its range when the free is done.
void queue_svm_free(OpenClBackend& backend, void* base);

// The OpenCL devices of this process, found once: every device of every platform that answers
// and has coarse-grained SVM. `notes` says why anything was left out (no runtime, no platform,
// a device without SVM), for messages and skipped tests.
struct OpenClDiscovery {
  std::vector<std::shared_ptr<OpenClBackend>> backends;
  std::vector<std::string> notes;
};
// Discovers with `api` (nullptr: none); never throws.
OpenClDiscovery discover_opencl(const std::shared_ptr<const OpenClApi>& api);
// The process-wide discovery the device registry lists. TACK_OPENCL=0 turns it off.
const OpenClDiscovery& opencl_devices();
// Registers (again) the exit handler that drains every OpenCL queue and waits for the queued
// frees' callbacks. exit() runs handlers in the reverse order of registration, and a driver
// registers the destructors of its lazily made statics (PoCL's LLVM) when it first uses them,
// so the drain is registered anew after every program build: it then runs before those
// destructors, while the driver's compiler thread may still need them for queued launches.
void register_exit_drain();
// One line for a skipped test: "no OpenCL device: <notes>".
std::string opencl_unavailable_reason();

}  // namespace tack::detail
