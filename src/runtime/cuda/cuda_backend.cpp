// CUDA device discovery, contexts, stream-ordered allocation, wrapping and memory spaces.
#include "runtime/cuda/cuda_backend.hpp"

#include <algorithm>
#include <cstdlib>

#include "runtime/block_pool.hpp"
#include "runtime/cuda/cuda_buffer.hpp"
#include "support/error.hpp"

namespace tack::detail {
namespace {

// Every allocation is rounded up to this (and is never empty), so each array has its own
// address and the 32-bit word around any 8- or 16-bit atomic target lies inside it.
constexpr std::size_t kAllocationGranule = 256;

bool destroyed(CUresult r) {
  return r == CUDA_ERROR_INVALID_CONTEXT || r == CUDA_ERROR_CONTEXT_IS_DESTROYED ||
         r == CUDA_ERROR_DEINITIALIZED;
}

[[noreturn]] void throw_dead(const char* verb) {
  throw RuntimeError(std::string("Cannot ") + verb +
                     " this CUDA array: the CUDA context this array was allocated in has been "
                     "destroyed, and its memory with it; copy data out (numpy(), tack.array(..., "
                     "device=\"cpu\")) before the context is destroyed, and make new arrays after");
}

int attribute(const CudaApi& api, CUdevice d, CUdevice_attribute a, int fallback) {
  int v = 0;
  return api.DeviceGetAttribute(&v, a, d) == CUDA_SUCCESS ? v : fallback;
}

}  // namespace

// ---- contexts ---------------------------------------------------------------------------------

bool cuda_context_usable(const CudaContext& c) {
  if (!c.alive.load(std::memory_order_acquire)) return false;
  if (c.primary) {
    unsigned flags = 0;
    int active = 0;
    const CUresult r = c.api->DevicePrimaryCtxGetState(c.device, &flags, &active);
    unsigned long long id = c.id;
    if (r == CUDA_SUCCESS && active != 0 && c.id != 0 &&
        c.api->CtxGetId(c.handle, &id) != CUDA_SUCCESS) {
      id = 0;  // the handle no longer names a context
    }
    if (r != CUDA_SUCCESS || active == 0 || id != c.id) {
      // Reset (cuDevicePrimaryCtxReset) outside Tack, or the driver is shutting down.
      const_cast<CudaContext&>(c).alive.store(false, std::memory_order_release);
      return false;
    }
  }
  return true;
}

void require_cuda_context(const CudaContext& context, const char* verb) {
  if (!cuda_context_usable(context)) throw_dead(verb);
}

CudaScope::CudaScope(const CudaContext& context, const char* verb) : context_(context) {
  require_cuda_context(context, verb);
  CUcontext current = nullptr;
  if (context.api->CtxGetCurrent(&current) == CUDA_SUCCESS && current == context.handle) return;
  const CUresult r = context.api->CtxPushCurrent(context.handle);
  if (r == CUDA_SUCCESS) {
    pushed_ = true;
    return;
  }
  if (destroyed(r)) {
    const_cast<CudaContext&>(context).alive.store(false, std::memory_order_release);
    throw_dead(verb);
  }
  throw RuntimeError(std::string("cannot ") + verb +
                     " a CUDA array: making its context current "
                     "failed with " +
                     cu_error_string(context.api.get(), r));
}

CudaScope::~CudaScope() {
  if (!pushed_) return;
  CUcontext popped = nullptr;
  context_.api->CtxPopCurrent(&popped);
}

// ---- CudaBackend ------------------------------------------------------------------------------

CudaBackend::CudaBackend(std::shared_ptr<CudaContext> context, CudaDeviceInfo info, CUstream stream)
    : context_(std::move(context)), info_(std::move(info)), stream_(stream) {}

CudaBackend::~CudaBackend() {
  // Every buffer holds its backend, so none is left. Backends of the registry are immortal;
  // this runs for a backend a test made beside it.
  if (!cuda_context_usable(*context_)) return;
  try {
    CudaScope scope(*context_, "release");
    api().StreamSynchronize(stream_);
    free_deferred();
    api().StreamDestroy(stream_);
    if (pool_ != nullptr && api().MemPoolDestroy != nullptr) api().MemPoolDestroy(pool_);
  } catch (...) {
  }
  if (context_->primary) api().DevicePrimaryCtxRelease(context_->device);
}

void CudaBackend::check(CUresult r, const std::string& what) const {
  if (r == CUDA_SUCCESS) return;
  if (destroyed(r)) context_->alive.store(false, std::memory_order_release);
  throw RuntimeError(what + " on device '" + name() + "' (" + info_.name +
                     ") failed: " + cu_error_string(context_->api.get(), r));
}

std::shared_ptr<DeviceBuffer> CudaBackend::allocate(std::size_t nbytes) {
  std::size_t size = (nbytes + kAllocationGranule - 1) / kAllocationGranule * kAllocationGranule;
  if (size == 0) size = kAllocationGranule;
  CudaScope scope(*context_, "allocate");
  CUdeviceptr p = 0;
  CUresult r = CUDA_ERROR_OUT_OF_MEMORY;
  auto attempt = [&] {
    if (pool_ != nullptr) return api().MemAllocFromPoolAsync(&p, size, pool_, stream_);
    return info_.memory_pools ? api().MemAllocAsync(&p, size, stream_) : api().MemAlloc(&p, size);
  };
  if (size >= nbytes) {
    r = attempt();
    if (r == CUDA_ERROR_OUT_OF_MEMORY) {
      // Memory freed in stream order may not be back yet: let the stream pass, then retry.
      check(api().StreamSynchronize(stream_), "waiting for queued work");
      free_deferred();
      r = attempt();
    }
  }
  if (r == CUDA_ERROR_OUT_OF_MEMORY) {
    // Nothing was allocated, so every other array is as it was.
    throw RuntimeError(
        "cannot allocate " + std::to_string(nbytes) + " bytes (" + human_bytes(nbytes) +
        ") on device '" + name() + "' (" + info_.name + "): out of device memory; the device has " +
        human_bytes(info_.total_memory) + " in all; free arrays or use a smaller shape");
  }
  check(r, "allocating " + std::to_string(nbytes) + " bytes");
  auto alloc = std::make_shared<CudaAllocation>(
      std::static_pointer_cast<CudaBackend>(shared_from_this()), p, size, true);
  return std::make_shared<CudaBuffer>(std::move(alloc), p, nbytes,
                                      std::make_shared<AllocationState>());
}

std::shared_ptr<DeviceBuffer> CudaBackend::wrap(std::uintptr_t address, std::size_t nbytes,
                                                std::shared_ptr<void> hold) {
  const std::string space = memory_space(address);
  if (space == "cpu") {
    throw ValueError("address " + std::to_string(address) + " is host memory, but device '" +
                     name() +
                     "' accepts only cuda, cuda_pinned or cuda_managed memory; copy the data "
                     "with tack.array(...) instead of wrapping it");
  }
  if (space == "cuda") {
    // Device memory of another GPU faults in a kernel here (CUDA_ERROR_ILLEGAL_ADDRESS, which
    // kills the whole context): refuse it now.
    CudaScope scope(*context_, "wrap");
    int ordinal = -1;
    if (api().PointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                  static_cast<CUdeviceptr>(address)) == CUDA_SUCCESS &&
        ordinal != info_.ordinal) {
      throw ValueError("address " + std::to_string(address) + " is memory of CUDA device " +
                       std::to_string(ordinal) + ", not of '" + name() +
                       "'; wrap it on device 'cuda:" + std::to_string(ordinal) +
                       "', or copy it with tack.array(...)");
    }
    // Memory of another context on this GPU (an adopted context beside CuPy's primary one) is
    // not reachable from Tack's. Pool and virtual-memory allocations name no context.
    CUcontext owner = nullptr;
    if (api().PointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT,
                                  static_cast<CUdeviceptr>(address)) == CUDA_SUCCESS &&
        owner != nullptr && owner != context_->handle) {
      throw ValueError("address " + std::to_string(address) +
                       " is memory of another CUDA context than device '" + name() +
                       "' uses; allocate it in that device's context (its primary context "
                       "unless the program made its own current first), or copy it with "
                       "tack.array(...)");
    }
  }
  // The memory's producer wrote it on its own stream, unknown to Tack; most libraries use the
  // legacy default stream unless told otherwise (CuPy, PyTorch), so that work comes first.
  wait_for(CU_STREAM_LEGACY);
  auto alloc = std::make_shared<CudaAllocation>(
      std::static_pointer_cast<CudaBackend>(shared_from_this()), address, nbytes, false);
  auto state = std::make_shared<AllocationState>();
  state->owned = false;
  state->hold = std::move(hold);
  state->shared.store(true);  // memory of someone else: every launch that binds it completes
  return std::make_shared<CudaBuffer>(std::move(alloc), address, nbytes, std::move(state));
}

std::string CudaBackend::memory_space(std::uintptr_t address) const {
  if (address == 0) return "cpu";
  CudaScope scope(*context_, "query");
  unsigned int type = 0;
  if (api().PointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                static_cast<CUdeviceptr>(address)) != CUDA_SUCCESS) {
    return "cpu";  // the documented reply for ordinary host memory
  }
  unsigned int managed = 0;
  if (api().PointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                static_cast<CUdeviceptr>(address)) == CUDA_SUCCESS &&
      managed != 0) {
    return "cuda_managed";
  }
  if (type == CU_MEMORYTYPE_HOST) return "cuda_pinned";
  if (type == CU_MEMORYTYPE_DEVICE || type == CU_MEMORYTYPE_UNIFIED) return "cuda";
  return "cpu";
}

void CudaBackend::synchronize() {
  CudaScope scope(*context_, "synchronize");
  check(api().StreamSynchronize(stream_), "waiting for queued work");
  free_deferred();
}

void CudaBackend::defer_free(CUdeviceptr p) {
  std::lock_guard lock(deferred_mutex_);
  deferred_.push_back(p);
}

void CudaBackend::free_deferred() {
  std::vector<CUdeviceptr> ready;
  {
    std::lock_guard lock(deferred_mutex_);
    ready.swap(deferred_);
  }
  for (CUdeviceptr p : ready) api().MemFree(p);
}

void CudaBackend::check_dlpack_stream(std::int64_t stream) const {
  if (stream == 0) {
    throw ValueError(
        "__dlpack__: stream 0 is ambiguous on CUDA (the array API forbids it); "
        "pass 1 for the legacy default stream, 2 for the per-thread default "
        "stream, a CUstream handle, or -1 for no ordering");
  }
  if (stream < -1) {
    throw ValueError("__dlpack__: stream " + std::to_string(stream) +
                     " is not a CUDA stream; pass 1, 2, a CUstream handle, or -1");
  }
}

void CudaBackend::order(CUstream first, CUstream then, const char* what) {
  CudaScope scope(*context_, "order work for");
  CUevent event = nullptr;
  check(api().EventCreate(&event, CU_EVENT_DISABLE_TIMING), "creating an event");
  const CUresult recorded = api().EventRecord(event, first);
  const CUresult waited =
      recorded == CUDA_SUCCESS ? api().StreamWaitEvent(then, event, 0) : recorded;
  api().EventDestroy(event);  // released once the wait has passed it
  check(waited, what);
}

void CudaBackend::wait_for(CUstream other) {
  order(other, stream_, "ordering another stream's work before Tack's");
}

void CudaBackend::order_dlpack_export(std::int64_t stream) {
  if (stream == -1) return;
  CUstream consumer = stream == 1 ? CU_STREAM_LEGACY
                      : stream == 2
                          ? CU_STREAM_PER_THREAD
                          : reinterpret_cast<CUstream>(static_cast<std::uintptr_t>(stream));
  if (consumer == stream_) return;
  order(stream_, consumer, "ordering a DLPack export before the consumer's stream");
}

// ---- discovery --------------------------------------------------------------------------------

namespace {

CudaDiscovery discover_cuda(const std::shared_ptr<const CudaApi>& api) {
  CudaDiscovery out;
  int count = 0;
  CUresult r = api->DeviceGetCount(&count);
  if (r != CUDA_SUCCESS || count == 0) {
    out.notes.push_back("the CUDA driver reports no device (" +
                        (r != CUDA_SUCCESS ? cu_error_string(api.get(), r) : std::string("0")) +
                        ")");
    return out;
  }
  // A context the embedding program made current before Tack looked is adopted for its device
  // (never destroyed by Tack); the others use their primary context.
  CUcontext current = nullptr;
  CUdevice current_device = -1;
  if (api->CtxGetCurrent(&current) != CUDA_SUCCESS || current == nullptr ||
      api->CtxGetDevice(&current_device) != CUDA_SUCCESS) {
    current = nullptr;
  }
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    CUdevice dev = 0;
    if ((r = api->DeviceGet(&dev, ordinal)) != CUDA_SUCCESS) {
      out.notes.push_back("cuDeviceGet(" + std::to_string(ordinal) +
                          ") failed: " + cu_error_string(api.get(), r));
      continue;
    }
    CudaDeviceInfo info;
    info.ordinal = ordinal;
    char name[256] = {};
    if (api->DeviceGetName(name, sizeof name - 1, dev) == CUDA_SUCCESS) info.name = name;
    info.cc_major = attribute(*api, dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0);
    info.cc_minor = attribute(*api, dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0);
    info.multiprocessors =
        std::max(1, attribute(*api, dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 1));
    std::size_t total = 0;
    if (api->DeviceTotalMem(&total, dev) == CUDA_SUCCESS) info.total_memory = total;
    api->DriverGetVersion(&info.driver_version);
    info.memory_pools = api->MemAllocAsync != nullptr && api->MemFreeAsync != nullptr &&
                        attribute(*api, dev, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, 0) != 0;
    const std::string label = "CUDA device " + std::to_string(ordinal) + " (" + info.name + ")";
    if (info.cc_major * 10 + info.cc_minor < 50) {
      out.notes.push_back(label + " has compute capability " + std::to_string(info.cc_major) + "." +
                          std::to_string(info.cc_minor) + "; Tack needs 5.0 or later");
      continue;
    }
    auto context = std::make_shared<CudaContext>();
    context->api = api;
    context->device = dev;
    if ((r = api->DevicePrimaryCtxRetain(&context->handle, dev)) != CUDA_SUCCESS) {
      out.notes.push_back(label + ": no context (" + cu_error_string(api.get(), r) + ")");
      continue;
    }
    if (api->CtxGetId == nullptr || api->CtxGetId(context->handle, &context->id) != CUDA_SUCCESS) {
      context->id = 0;
    }
    if (current != nullptr && current_device == dev && current != context->handle) {
      // A context of the program's own (cuCtxCreate), not the primary one that cudart, CuPy and
      // PyTorch share: adopted, never destroyed, checked by the driver's answers alone.
      api->DevicePrimaryCtxRelease(dev);
      context->handle = current;
      context->primary = false;
      context->id = 0;  // only primary contexts are checked by id
    }
    CUstream stream = nullptr;
    CUmemoryPool pool = nullptr;
    try {
      CudaScope scope(*context, "use");
      if ((r = api->StreamCreate(&stream, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS) {
        out.notes.push_back(label + ": no stream (" + cu_error_string(api.get(), r) + ")");
        if (context->primary) api->DevicePrimaryCtxRelease(dev);
        continue;
      }
      // Tack's own pool, so that freed memory stays for Tack's next allocation (up to
      // TACK_CUDA_POOL_MB) without changing the device's default pool, which cudart's
      // cudaMallocAsync users share. Without one, the default pool as it is.
      if (info.memory_pools && api->MemPoolCreate != nullptr &&
          api->MemAllocFromPoolAsync != nullptr && api->MemPoolSetAttribute != nullptr) {
        CUmemPoolProps props{};
        props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
        props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        props.location.id = ordinal;
        if (api->MemPoolCreate(&pool, &props) == CUDA_SUCCESS) {
          cuuint64_t threshold = pool_cap_from_env(
              "TACK_CUDA_POOL_MB",
              std::min<std::uint64_t>(info.total_memory / 8, std::uint64_t{1} << 30));
          api->MemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold);
        } else {
          pool = nullptr;
        }
      }
    } catch (const std::exception& e) {
      out.notes.push_back(label + ": " + e.what());
      if (context->primary) api->DevicePrimaryCtxRelease(dev);
      continue;
    }
    auto backend = std::make_shared<CudaBackend>(std::move(context), std::move(info), stream);
    backend->set_pool(pool);
    out.backends.push_back(std::move(backend));
  }
  return out;
}

}  // namespace

const CudaDiscovery& cuda_devices() {
  static const CudaDiscovery* found = [] {
    auto* d = new CudaDiscovery;  // immortal, as the registry that lists it
    const char* env = std::getenv("TACK_CUDA");
    if (env != nullptr && std::string(env) == "0") {
      d->notes.push_back("CUDA is turned off (TACK_CUDA=0)");
      return d;
    }
    std::string why;
    auto api = CudaApi::instance(&why);
    if (!api) {
      d->notes.push_back(why);
      return d;
    }
    try {
      *d = discover_cuda(api);
    } catch (const std::exception& e) {
      d->notes.push_back(std::string("CUDA discovery failed: ") + e.what());
    }
    if (!d->backends.empty()) {
      // At exit, let every stream drain, so the frees queued by the last dropped arrays run
      // before the driver tears the contexts down.
      std::atexit([] {
        for (const auto& b : cuda_devices().backends) {
          try {
            CudaScope scope(*b->context(), "drain");
            b->api().StreamSynchronize(b->stream());
          } catch (...) {  // a destroyed context has nothing left to drain
          }
        }
      });
    }
    return d;
  }();
  return *found;
}

std::string cuda_unavailable_reason() {
  std::string s = "no CUDA device";
  for (const auto& n : cuda_devices().notes) s += "; " + n;
  return s;
}

}  // namespace tack::detail
