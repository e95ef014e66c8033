// OpenCL device discovery, SVM allocation, wrapping and memory spaces.
#include "runtime/opencl/opencl_backend.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "runtime/opencl/opencl_buffer.hpp"
#include "runtime/opencl/opencl_program.hpp"
#include "support/error.hpp"

namespace tack::detail {
namespace {

// Every SVM allocation is rounded up to this (and is never empty), so each array has its own
// address and the 32-bit word around any 8- or 16-bit atomic target lies inside it.
constexpr std::size_t kAllocationGranule = 64;

std::string device_string(const OpenClApi& api, cl_device_id d, cl_device_info what) {
  std::size_t n = 0;
  if (api.GetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  if (api.GetDeviceInfo(d, what, n, s.data(), nullptr) != CL_SUCCESS) return "";
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string platform_string(const OpenClApi& api, cl_platform_id p, cl_platform_info what) {
  std::size_t n = 0;
  if (api.GetPlatformInfo(p, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  if (api.GetPlatformInfo(p, what, n, s.data(), nullptr) != CL_SUCCESS) return "";
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

template <class T>
T device_value(const OpenClApi& api, cl_device_id d, cl_device_info what, T fallback) {
  T v{};
  if (api.GetDeviceInfo(d, what, sizeof(T), &v, nullptr) != CL_SUCCESS) return fallback;
  return v;
}

bool has_extension(const std::string& extensions, const char* name) {
  const std::size_t n = std::strlen(name);
  for (std::size_t at = extensions.find(name); at != std::string::npos;
       at = extensions.find(name, at + 1)) {
    const bool start_ok = at == 0 || extensions[at - 1] == ' ';
    const bool end_ok = at + n == extensions.size() || extensions[at + n] == ' ';
    if (start_ok && end_ok) return true;
  }
  return false;
}

// "OpenCL 3.0 PoCL ..." -> 3.
int opencl_major(const std::string& version) {
  const char* prefix = "OpenCL ";
  if (version.rfind(prefix, 0) != 0) return 0;
  return std::atoi(version.c_str() + std::strlen(prefix));
}

}  // namespace

// ---- SvmRegistry ------------------------------------------------------------------------------

void SvmRegistry::add(std::uintptr_t begin, std::size_t nbytes) {
  std::lock_guard lock(mutex_);
  ranges_[begin] = begin + nbytes;
}

void SvmRegistry::free_queued() {
  std::lock_guard lock(mutex_);
  ++queued_frees_;
}

void SvmRegistry::forget(std::uintptr_t begin) {
  std::lock_guard lock(mutex_);
  ranges_.erase(begin);
}

void SvmRegistry::count_down() {
  {
    std::lock_guard lock(mutex_);
    if (queued_frees_ > 0) --queued_frees_;
  }
  frees_done_.notify_all();
}

bool SvmRegistry::wait_for_frees(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  return frees_done_.wait_for(lock, timeout, [&] { return queued_frees_ == 0; });
}

bool SvmRegistry::find(std::uintptr_t address, std::uintptr_t* begin, std::uintptr_t* end) const {
  std::lock_guard lock(mutex_);
  auto it = ranges_.upper_bound(address);
  if (it == ranges_.begin()) return false;
  --it;
  if (address >= it->second) return false;
  if (begin) *begin = it->first;
  if (end) *end = it->second;
  return true;
}

// ---- OpenClBackend ----------------------------------------------------------------------------

OpenClBackend::OpenClBackend(std::shared_ptr<const OpenClApi> api, cl_platform_id platform,
                             cl_device_id device, int index, OpenClDeviceInfo info,
                             cl_context context, cl_command_queue queue)
    : api_(std::move(api)),
      platform_(platform),
      device_(device),
      index_(index),
      info_(std::move(info)),
      context_(context),
      queue_(queue),
      programs_(std::make_unique<ProgramCache>()),
      pool_(std::make_unique<BlockPool>(
          pool_cap_from_env("TACK_OPENCL_POOL_MB",
                            std::min<std::uint64_t>(info_.global_mem / 8, std::uint64_t{1} << 30)),
          [this](void* p) { queue_svm_free(*this, p); })) {}

OpenClBackend::~OpenClBackend() {
  // Every buffer holds its backend, so none is left; run what is queued (their frees), then
  // drop programs before the context. Kernels held elsewhere keep their context alive (OpenCL
  // reference counts), so this order is for tidiness, not safety.
  pool_->release_all();
  api_->Finish(queue_);
  programs_.reset();
  api_->ReleaseCommandQueue(queue_);
  api_->ReleaseContext(context_);
}

std::shared_ptr<DeviceBuffer> OpenClBackend::allocate(std::size_t nbytes) {
  std::size_t size = (nbytes + kAllocationGranule - 1) / kAllocationGranule * kAllocationGranule;
  if (size == 0) size = kAllocationGranule;
  void* p = nullptr;
  std::size_t kept = 0;
  std::tie(p, kept) = pool_->take(size);
  if (p != nullptr) {
    auto alloc = std::make_shared<OpenClAllocation>(
        std::static_pointer_cast<OpenClBackend>(shared_from_this()), p, kept, true);
    // Its last owner's work may still be queued: a host access through this buffer waits.
    alloc->note_use(issued());
    return std::make_shared<OpenClBuffer>(std::move(alloc), static_cast<std::byte*>(p), nbytes,
                                          std::make_shared<AllocationState>());
  }
  if (size >= nbytes && size <= info_.max_alloc) {
    p = api_->SVMAlloc(context_, CL_MEM_READ_WRITE, size, 0);
    if (p == nullptr && pool_->held() > 0) {
      // The kept blocks are needed: free them (behind the queued work), then try again.
      pool_->release_all();
      synchronize();
      p = api_->SVMAlloc(context_, CL_MEM_READ_WRITE, size, 0);
    }
  }
  if (p == nullptr) {
    // Nothing was allocated, so every other array is as it was.
    throw RuntimeError("cannot allocate " + std::to_string(nbytes) + " bytes (" +
                       human_bytes(nbytes) + ") on device '" + name() + "' (" + info_.name +
                       "): out of device memory; the device allows at most " +
                       human_bytes(info_.max_alloc) + " per allocation and has " +
                       human_bytes(info_.global_mem) +
                       " in all; free arrays or use a smaller shape");
  }
  svm_->add(reinterpret_cast<std::uintptr_t>(p), size);
  auto alloc = std::make_shared<OpenClAllocation>(
      std::static_pointer_cast<OpenClBackend>(shared_from_this()), p, size, true);
  auto state = std::make_shared<AllocationState>();
  return std::make_shared<OpenClBuffer>(std::move(alloc), static_cast<std::byte*>(p), nbytes,
                                        std::move(state));
}

std::shared_ptr<DeviceBuffer> OpenClBackend::wrap(std::uintptr_t address, std::size_t nbytes,
                                                  std::shared_ptr<void> hold) {
  std::uintptr_t begin = 0, end = 0;
  if (!svm_->find(address, &begin, &end)) {
    throw ValueError("address " + std::to_string(address) +
                     " is not inside an OpenCL allocation of device '" + name() +
                     "'; only memory allocated on this device (its SVM pointers) can be wrapped");
  }
  if (nbytes > end - address) {
    throw ValueError("wrapping " + std::to_string(nbytes) + " bytes at address " +
                     std::to_string(address) + " would run " +
                     std::to_string(nbytes - (end - address)) +
                     " bytes past the end of its OpenCL allocation on device '" + name() +
                     "'; use a smaller shape");
  }
  auto alloc = std::make_shared<OpenClAllocation>(
      std::static_pointer_cast<OpenClBackend>(shared_from_this()), reinterpret_cast<void*>(address),
      nbytes, false);
  auto state = std::make_shared<AllocationState>();
  state->owned = false;
  state->hold = std::move(hold);
  state->shared.store(true);  // memory of someone else: every launch that binds it completes
  return std::make_shared<OpenClBuffer>(std::move(alloc), reinterpret_cast<std::byte*>(address),
                                        nbytes, std::move(state));
}

std::string OpenClBackend::memory_space(std::uintptr_t address) const {
  return svm_->find(address, nullptr, nullptr) ? "opencl" : "cpu";
}

void OpenClBackend::synchronize() {
  finish();
  // Every queued free has completed on the device; its callback (which forgets the range) may
  // still be on its way. Bounded, so that a driver that never calls it cannot hang the caller.
  svm_->wait_for_frees(std::chrono::seconds(10));
}

void OpenClBackend::mark_completed(std::uint64_t ticket) {
  std::uint64_t done = completed_.load(std::memory_order_acquire);
  while (done < ticket &&
         !completed_.compare_exchange_weak(done, ticket, std::memory_order_acq_rel)) {
  }
}

void OpenClBackend::finish() {
  const std::uint64_t target = issued();
  const cl_int err = api_->Finish(queue_);
  if (err != CL_SUCCESS) {
    throw RuntimeError("device '" + name() +
                       "' failed while running queued work: " + cl_error_string(err));
  }
  mark_completed(target);
}

std::size_t OpenClBackend::default_global_size() const {
  // Enough work items per compute unit to hide latency on a GPU; on PoCL's CPU device each
  // work group is a loop, so the count costs little.
  return static_cast<std::size_t>(info_.compute_units) * 1024;
}

std::size_t OpenClBackend::work_group_size(std::int64_t private_bytes,
                                           std::size_t global_size) const {
  if (!info_.cpu || private_bytes <= 0 || global_size == 0) return 0;
  const auto fit =
      static_cast<std::size_t>(std::max<std::int64_t>(1, kWorkGroupPrivateBytes / private_bytes));
  std::size_t local = 1;
  while (local * 2 <= fit && global_size % (local * 2) == 0) local *= 2;
  return local;
}

// ---- discovery --------------------------------------------------------------------------------

OpenClDiscovery discover_opencl(const std::shared_ptr<const OpenClApi>& api) {
  OpenClDiscovery out;
  if (!api) return out;
  try {
    cl_uint platform_count = 0;
    cl_int err = api->GetPlatformIDs(0, nullptr, &platform_count);
    if (err != CL_SUCCESS || platform_count == 0) {
      out.notes.push_back("no OpenCL platform answered (" +
                          (err != CL_SUCCESS ? cl_error_string(err) : std::string("none")) +
                          "); install an OpenCL driver, e.g. Debian's pocl-opencl-icd");
      return out;
    }
    std::vector<cl_platform_id> platforms(platform_count);
    api->GetPlatformIDs(platform_count, platforms.data(), nullptr);
    int index = 0;
    for (cl_platform_id p : platforms) {
      const std::string pname = platform_string(*api, p, CL_PLATFORM_NAME);
      cl_uint device_count = 0;
      err = api->GetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &device_count);
      if (err != CL_SUCCESS || device_count == 0) {
        out.notes.push_back("OpenCL platform '" + pname + "' has no devices");
        continue;
      }
      std::vector<cl_device_id> devices(device_count);
      api->GetDeviceIDs(p, CL_DEVICE_TYPE_ALL, device_count, devices.data(), nullptr);
      for (cl_device_id d : devices) {
        OpenClDeviceInfo info;
        info.platform_name = pname;
        info.name = device_string(*api, d, CL_DEVICE_NAME);
        info.vendor = device_string(*api, d, CL_DEVICE_VENDOR);
        info.version = device_string(*api, d, CL_DEVICE_VERSION);
        info.driver_version = device_string(*api, d, CL_DRIVER_VERSION);
        const std::string extensions = device_string(*api, d, CL_DEVICE_EXTENSIONS);
        const std::string label = "OpenCL device '" + info.name + "' (" + pname + ")";
        if (opencl_major(info.version) < 2) {
          out.notes.push_back(label + " is " + info.version +
                              "; Tack needs OpenCL 2.0 or later for shared virtual memory");
          continue;
        }
        info.svm = device_value<cl_device_svm_capabilities>(*api, d, CL_DEVICE_SVM_CAPABILITIES, 0);
        if ((info.svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) == 0) {
          out.notes.push_back(label +
                              " has no coarse-grained SVM, which Tack's OpenCL buffers use");
          continue;
        }
        info.max_alloc = device_value<cl_ulong>(*api, d, CL_DEVICE_MAX_MEM_ALLOC_SIZE, 0);
        info.global_mem = device_value<cl_ulong>(*api, d, CL_DEVICE_GLOBAL_MEM_SIZE, 0);
        info.compute_units = device_value<cl_uint>(*api, d, CL_DEVICE_MAX_COMPUTE_UNITS, 1);
        info.cpu =
            (device_value<cl_device_type>(*api, d, CL_DEVICE_TYPE, 0) & CL_DEVICE_TYPE_CPU) != 0;
        if (info.compute_units == 0) info.compute_units = 1;
        info.fp64 = has_extension(extensions, "cl_khr_fp64") ||
                    device_value<cl_device_fp_config>(*api, d, CL_DEVICE_DOUBLE_FP_CONFIG, 0) != 0;
        info.int64_atomics = has_extension(extensions, "cl_khr_int64_base_atomics");
        info.correctly_rounded_div_sqrt =
            (device_value<cl_device_fp_config>(*api, d, CL_DEVICE_SINGLE_FP_CONFIG, 0) &
             CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
        cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                         reinterpret_cast<cl_context_properties>(p), 0};
        cl_context ctx = api->CreateContext(props, 1, &d, nullptr, nullptr, &err);
        if (ctx == nullptr || err != CL_SUCCESS) {
          out.notes.push_back(label + ": no context (" + cl_error_string(err) + ")");
          continue;
        }
        // In order, no profiling: every command runs after the ones queued before it.
        cl_command_queue q = api->CreateCommandQueueWithProperties(ctx, d, nullptr, &err);
        if (q == nullptr || err != CL_SUCCESS) {
          api->ReleaseContext(ctx);
          out.notes.push_back(label + ": no command queue (" + cl_error_string(err) + ")");
          continue;
        }
        out.backends.push_back(
            std::make_shared<OpenClBackend>(api, p, d, index++, std::move(info), ctx, q));
      }
    }
  } catch (const std::exception& e) {
    // A broken runtime is an absent one: whatever was found before the failure stays listed.
    out.notes.push_back(std::string("OpenCL discovery failed: ") + e.what());
  }
  return out;
}

const OpenClDiscovery& opencl_devices() {
  static const OpenClDiscovery* found = [] {
    auto* d = new OpenClDiscovery;  // immortal, as the registry that lists it
    const char* env = std::getenv("TACK_OPENCL");
    if (env != nullptr && std::string(env) == "0") {
      d->notes.push_back("OpenCL is turned off (TACK_OPENCL=0)");
      return d;
    }
    std::string why;
    auto api = OpenClApi::instance(&why);
    if (!api) {
      d->notes.push_back("no OpenCL runtime: " + why);
      return d;
    }
    *d = discover_opencl(api);
    return d;
  }();
  // At exit, free the pool's blocks and let every queue drain, so the frees queued by the last
  // dropped arrays run (and their bookkeeping is released) before the runtime is unloaded.
  // Registered after the discovery above, so it runs before the destructors the driver registered
  // while loading.
  static const bool drain_registered = [] {
    if (!found->backends.empty()) register_exit_drain();
    return true;
  }();
  (void)drain_registered;
  return *found;
}

void register_exit_drain() {
  std::atexit([] {
    for (const auto& b : opencl_devices().backends) {
      b->pool().release_all();  // the kept blocks go back to the driver with the rest
      b->api().Finish(b->queue());
      b->svm_registry()->wait_for_frees(std::chrono::seconds(1));
    }
  });
}

std::string opencl_unavailable_reason() {
  const auto& d = opencl_devices();
  std::string s = "no OpenCL device with shared virtual memory";
  for (const auto& n : d.notes) s += "; " + n;
  return s;
}

}  // namespace tack::detail
