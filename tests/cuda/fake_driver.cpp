// A stand-in for libcuda.so.1 that keeps "device memory" in host memory, for testing the CUDA
// backend's memory layer where no GPU is (TACK_CUDA_LIBRARY=<this library>): discovery,
// contexts and their destruction, stream-ordered allocation and frees, transfers, native and
// doubling fills, views, memory spaces, DLPack streams. Every command completes at once (one
// stream, executed in order, is indistinguishable from that to a host that waits). Kernels
// cannot run: cuModuleLoadData answers CUDA_ERROR_NOT_SUPPORTED. Misuse the real driver would
// fault on or reject -- a copy outside a live allocation, a double free, a call without a
// current context -- is counted (tackfake_errors) and answered CUDA_ERROR_INVALID_VALUE, so
// tests can assert that Tack made none.
#include <cuda.h>

#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

enum class Kind { device, pinned, managed };
struct Allocation {
  std::size_t size;
  Kind kind;
  int ordinal;  // the device whose memory it is (device memory of "device 1" for tests)
  bool other_context = false;  // allocated in a context other than the primary one
};

std::mutex mu;
std::map<CUdeviceptr, Allocation> allocations;
int errors = 0;
int frees = 0;
bool primary_active = false;
unsigned long long primary_id = 1;  // a new id each time the primary context is made again
bool pools = std::getenv("TACKFAKE_NO_POOLS") == nullptr;  // cuMemAllocAsync offered
int context_tag = 0;  // the primary context's handle points here
// The context stack of each thread: trivially destructible, since Tack's exit handler runs
// after the main thread's thread_local destructors.
constexpr int kMaxDepth = 64;
thread_local CUcontext current[kMaxDepth];
thread_local int depth = 0;

CUcontext primary() {
  return reinterpret_cast<CUcontext>(&context_tag);
}

CUresult misuse() {
  ++errors;
  return CUDA_ERROR_INVALID_VALUE;
}

// Whether [p, p + n) lies inside one live allocation (device memory); host otherwise.
bool inside(CUdeviceptr p, std::size_t n, Kind* kind = nullptr) {
  auto it = allocations.upper_bound(p);
  if (it == allocations.begin()) return false;
  --it;
  if (p < it->first || p + n > it->first + it->second.size) return false;
  if (kind) *kind = it->second.kind;
  return true;
}

// Calls that need a current, live context.
CUresult need_context() {
  if (depth == 0 || current[depth - 1] == nullptr) return misuse();
  if (!primary_active) return CUDA_ERROR_CONTEXT_IS_DESTROYED;
  return CUDA_SUCCESS;
}

CUdeviceptr allocate(std::size_t n, Kind kind, int ordinal = 0) {
  void* p = std::aligned_alloc(256, (n + 255) / 256 * 256);
  const auto d = reinterpret_cast<CUdeviceptr>(p);
  allocations[d] = {n, kind, ordinal};
  return d;
}

CUresult release(CUdeviceptr p) {
  auto it = allocations.find(p);
  if (it == allocations.end()) return misuse();  // a double free or a foreign pointer
  std::free(reinterpret_cast<void*>(p));
  allocations.erase(it);
  ++frees;
  return CUDA_SUCCESS;
}

// cuMemsetD16Async and cuMemsetD32Async: n elements of T, at an address aligned for T.
template <class T>
CUresult memset_elements(CUdeviceptr p, T v, std::size_t n) {
  std::lock_guard l(mu);
  if (CUresult r = need_context()) return r;
  if (p % sizeof(T) != 0 || !inside(p, n * sizeof(T))) return misuse();
  for (std::size_t i = 0; i < n; ++i)
    std::memcpy(reinterpret_cast<char*>(p) + sizeof(T) * i, &v, sizeof(T));
  return CUDA_SUCCESS;
}
}  // namespace

extern "C" {

// ---- the test's controls ----
int tackfake_errors() {
  std::lock_guard l(mu);
  return errors;
}
int tackfake_frees() {
  std::lock_guard l(mu);
  return frees;
}
std::size_t tackfake_live_allocations() {
  std::lock_guard l(mu);
  return allocations.size();
}
// Memory made outside Tack: 0 device, 1 pinned host, 2 managed, 3 device memory of device 1,
// 4 device memory of device 0 in another context.
CUdeviceptr tackfake_alloc(std::size_t n, int kind) {
  std::lock_guard l(mu);
  const CUdeviceptr p = allocate(n,
                                 kind == 1   ? Kind::pinned
                                 : kind == 2 ? Kind::managed
                                             : Kind::device,
                                 kind == 3 ? 1 : 0);
  allocations[p].other_context = kind == 4;
  return p;
}
static int pool_allocations = 0;
static int syncs = 0;            // cuStreamSynchronize calls
static int waits = 0;            // cuStreamWaitEvent calls
static int waits_on_legacy = 0;  // ... for an event recorded on the legacy default stream
static int legacy_waits = 0;     // ... made by the legacy default stream
static int launches = 0;         // cuLaunchKernel calls taken (no-op kernels)
static bool noop_kernels_switch = false;
// Counters of the calls above, for tests: 0 syncs, 1 waits, 2 waits on the legacy stream's
// work, 3 waits by the legacy stream, 4 launches.
int tackfake_count(int which) {
  std::lock_guard l(mu);
  const int counts[] = {syncs, waits, waits_on_legacy, legacy_waits, launches};
  return which >= 0 && which < 5 ? counts[which] : -1;
}
// Modules load and launches succeed without running anything (also TACKFAKE_NOOP_KERNELS=1).
void tackfake_set_noop_kernels(int on) {
  noop_kernels_switch = on != 0;
}
// How many allocations came from a pool Tack created (cuMemAllocFromPoolAsync).
int tackfake_pool_allocations() {
  std::lock_guard l(mu);
  return pool_allocations;
}
void tackfake_free(CUdeviceptr p) {
  std::lock_guard l(mu);
  release(p);
}
// cuDevicePrimaryCtxReset by someone else: the context and all its memory are gone.
void tackfake_reset_primary() {
  std::lock_guard l(mu);
  for (auto& [p, a] : allocations) std::free(reinterpret_cast<void*>(p));
  allocations.clear();
  primary_active = false;
}
// Another library retains the primary context after the reset: active again, a new context.
void tackfake_retain_primary() {
  CUcontext c;
  cuDevicePrimaryCtxRetain(&c, 0);
}

// ---- the driver API ----
CUresult cuInit(unsigned int) {
  return CUDA_SUCCESS;
}
CUresult cuDriverGetVersion(int* v) {
  *v = 12080;
  return CUDA_SUCCESS;
}
CUresult cuGetErrorName(CUresult e, const char** s) {
  switch (e) {
    case CUDA_SUCCESS:
      *s = "CUDA_SUCCESS";
      return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_VALUE:
      *s = "CUDA_ERROR_INVALID_VALUE";
      return CUDA_SUCCESS;
    case CUDA_ERROR_OUT_OF_MEMORY:
      *s = "CUDA_ERROR_OUT_OF_MEMORY";
      return CUDA_SUCCESS;
    case CUDA_ERROR_NOT_SUPPORTED:
      *s = "CUDA_ERROR_NOT_SUPPORTED";
      return CUDA_SUCCESS;
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
      *s = "CUDA_ERROR_CONTEXT_IS_DESTROYED";
      return CUDA_SUCCESS;
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
}
CUresult cuDeviceGetCount(int* n) {
  *n = 1;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGet(CUdevice* d, int ordinal) {
  if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
  *d = 0;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetName(char* name, int len, CUdevice) {
  std::strncpy(name, "Tack fake CUDA device", static_cast<std::size_t>(len));
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetAttribute(int* v, CUdevice_attribute a, CUdevice) {
  switch (a) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
      *v = 9;
      break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
      *v = 0;
      break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
      *v = 4;
      break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED:
      *v = pools ? 1 : 0;
      break;
    default:
      *v = 0;
  }
  return CUDA_SUCCESS;
}
CUresult cuDeviceTotalMem(std::size_t* bytes, CUdevice) {
  *bytes = std::size_t{1} << 30;
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice) {
  std::lock_guard l(mu);
  if (!primary_active) ++primary_id;  // made (again)
  primary_active = true;
  *c = primary();
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease(CUdevice) {
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxGetState(CUdevice, unsigned int* flags, int* active) {
  std::lock_guard l(mu);
  *flags = 0;
  *active = primary_active ? 1 : 0;
  return CUDA_SUCCESS;
}
CUresult cuCtxGetId(CUcontext c, unsigned long long* id) {
  std::lock_guard l(mu);
  if (c != primary() || !primary_active) return CUDA_ERROR_CONTEXT_IS_DESTROYED;
  *id = primary_id;
  return CUDA_SUCCESS;
}
CUresult cuCtxGetCurrent(CUcontext* c) {
  *c = depth == 0 ? nullptr : current[depth - 1];
  return CUDA_SUCCESS;
}
CUresult cuCtxGetDevice(CUdevice* d) {
  if (depth == 0) return CUDA_ERROR_INVALID_CONTEXT;
  *d = 0;
  return CUDA_SUCCESS;
}
CUresult cuCtxPushCurrent(CUcontext c) {
  std::lock_guard l(mu);
  if (c != primary()) return misuse();
  if (!primary_active) return CUDA_ERROR_CONTEXT_IS_DESTROYED;
  if (depth == kMaxDepth) return misuse();
  current[depth++] = c;
  return CUDA_SUCCESS;
}
CUresult cuCtxPopCurrent(CUcontext* c) {
  if (depth == 0) return misuse();
  if (c) *c = current[depth - 1];
  --depth;
  return CUDA_SUCCESS;
}
CUresult cuStreamCreate(CUstream* s, unsigned int) {
  std::lock_guard l(mu);
  if (CUresult r = need_context()) return r;
  *s = reinterpret_cast<CUstream>(new int(0));
  return CUDA_SUCCESS;
}
CUresult cuStreamDestroy(CUstream s) {
  delete reinterpret_cast<int*>(s);
  return CUDA_SUCCESS;
}
CUresult cuStreamSynchronize(CUstream) {
  std::lock_guard l(mu);
  ++syncs;
  return CUDA_SUCCESS;
}
CUresult cuStreamQuery(CUstream) {
  return CUDA_SUCCESS;
}
// An event remembers the stream it was recorded on, so tests can see which waits Tack made.
struct Event {
  CUstream recorded_on = nullptr;
  bool recorded = false;
};
CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned int) {
  auto* ev = reinterpret_cast<Event*>(e);
  if (ev == nullptr || !ev->recorded) return misuse();
  std::lock_guard l(mu);
  ++waits;
  if (ev->recorded_on == CU_STREAM_LEGACY) ++waits_on_legacy;
  if (s == CU_STREAM_LEGACY) ++legacy_waits;
  return CUDA_SUCCESS;
}
CUresult cuEventCreate(CUevent* e, unsigned int) {
  *e = reinterpret_cast<CUevent>(new Event);
  return CUDA_SUCCESS;
}
CUresult cuEventRecord(CUevent e, CUstream s) {
  auto* ev = reinterpret_cast<Event*>(e);
  ev->recorded_on = s;
  ev->recorded = true;
  return CUDA_SUCCESS;
}
CUresult cuEventDestroy(CUevent e) {
  delete reinterpret_cast<Event*>(e);
  return CUDA_SUCCESS;
}
CUresult cuMemAlloc(CUdeviceptr* p, std::size_t n) {
  std::lock_guard l(mu);
  if (CUresult r = need_context()) return r;
  if (n > (std::size_t{1} << 30)) return CUDA_ERROR_OUT_OF_MEMORY;
  *p = allocate(n, Kind::device);
  return CUDA_SUCCESS;
}
CUresult cuMemAllocAsync(CUdeviceptr* p, std::size_t n, CUstream) {
  if (!pools) return misuse();
  return cuMemAlloc(p, n);
}
CUresult cuMemFree(CUdeviceptr p) {
  std::lock_guard l(mu);
  if (CUresult r = need_context()) return r;
  return release(p);
}
CUresult cuMemFreeAsync(CUdeviceptr p, CUstream) {
  if (!pools) return misuse();
  return cuMemFree(p);
}
CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void* src, std::size_t n, CUstream) {
  std::lock_guard l(mu);
  if (CUresult r = need_context()) return r;
  if (!inside(dst, n)) return misuse();
  std::memcpy(reinterpret_cast<void*>(dst), src, n);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoHAsync(void* dst, CUdeviceptr src, std::size_t n, CUstream) {
  std::lock_guard l(mu);
  if (CUresult r = need_context()) return r;
  if (!inside(src, n)) return misuse();
  std::memcpy(dst, reinterpret_cast<void*>(src), n);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, std::size_t n, CUstream) {
  std::lock_guard l(mu);
  if (CUresult r = need_context()) return r;
  if (!inside(dst, n) || !inside(src, n)) return misuse();
  // The driver's copies must not overlap (Tack's doubling fill never asks for that).
  if (dst < src + n && src < dst + n) return misuse();
  std::memcpy(reinterpret_cast<void*>(dst), reinterpret_cast<void*>(src), n);
  return CUDA_SUCCESS;
}
CUresult cuMemsetD8Async(CUdeviceptr p, unsigned char v, std::size_t n, CUstream) {
  std::lock_guard l(mu);
  if (CUresult r = need_context()) return r;
  if (!inside(p, n)) return misuse();
  std::memset(reinterpret_cast<void*>(p), v, n);
  return CUDA_SUCCESS;
}
CUresult cuMemsetD16Async(CUdeviceptr p, unsigned short v, std::size_t n, CUstream) {
  return memset_elements(p, v, n);
}
CUresult cuMemsetD32Async(CUdeviceptr p, unsigned int v, std::size_t n, CUstream) {
  return memset_elements(p, v, n);
}
CUresult cuPointerGetAttribute(void* data, CUpointer_attribute a, CUdeviceptr p) {
  std::lock_guard l(mu);
  Kind kind;
  if (!inside(p, 1, &kind)) return CUDA_ERROR_INVALID_VALUE;  // host memory: not counted
  if (a == CU_POINTER_ATTRIBUTE_MEMORY_TYPE) {
    *static_cast<unsigned int*>(data) =
        kind == Kind::pinned ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
    return CUDA_SUCCESS;
  }
  if (a == CU_POINTER_ATTRIBUTE_CONTEXT) {
    const auto& alloc = std::prev(allocations.upper_bound(p))->second;
    static int other_tag = 0;
    *static_cast<CUcontext*>(data) = alloc.other_context ? reinterpret_cast<CUcontext>(&other_tag)
                                     : kind == Kind::device ? primary()
                                                            : nullptr;
    return CUDA_SUCCESS;
  }
  if (a == CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL) {
    *static_cast<int*>(data) = allocations.upper_bound(p) == allocations.begin()
                                   ? 0
                                   : std::prev(allocations.upper_bound(p))->second.ordinal;
    return CUDA_SUCCESS;
  }
  if (a == CU_POINTER_ATTRIBUTE_IS_MANAGED) {
    *static_cast<unsigned int*>(data) = kind == Kind::managed ? 1 : 0;
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_NOT_SUPPORTED;
}
// TACKFAKE_NOOP_KERNELS=1 (bench/bench_cuda.py --fake): modules load and launches succeed
// without running anything, so that Tack's own host time per launch can be measured.
bool noop_kernels() {
  static const bool on = std::getenv("TACKFAKE_NOOP_KERNELS") != nullptr;
  return on || noop_kernels_switch;
}
CUresult cuModuleLoadData(CUmodule* m, const void* image) {
  if (!noop_kernels()) return CUDA_ERROR_NOT_SUPPORTED;
  const char* ptx = static_cast<const char*>(image);
  if (ptx == nullptr || std::strstr(ptx, ".entry") == nullptr) return misuse();
  *m = reinterpret_cast<CUmodule>(new std::string(ptx));
  return CUDA_SUCCESS;
}
CUresult cuModuleUnload(CUmodule m) {
  delete reinterpret_cast<std::string*>(m);
  return CUDA_SUCCESS;
}
CUresult cuModuleGetFunction(CUfunction* f, CUmodule m, const char* name) {
  if (!noop_kernels()) return CUDA_ERROR_NOT_SUPPORTED;
  const auto& ptx = *reinterpret_cast<std::string*>(m);
  if (ptx.find(".entry " + std::string(name) + "(") == std::string::npos)
    return CUDA_ERROR_NOT_FOUND;
  *f = reinterpret_cast<CUfunction>(m);
  return CUDA_SUCCESS;
}
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned, CUstream s, void** params, void**) {
  if (!noop_kernels()) return CUDA_ERROR_NOT_SUPPORTED;
  if (f == nullptr || s == nullptr || params == nullptr || gx == 0 || gy != 1 || gz != 1 ||
      bx != 256 || by != 1 || bz != 1)
    return misuse();
  std::lock_guard l(mu);
  ++launches;
  return CUDA_SUCCESS;
}
CUresult cuMemPoolCreate(CUmemoryPool* pool, const CUmemPoolProps* props) {
  if (!pools || props == nullptr || props->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
    return misuse();
  *pool = reinterpret_cast<CUmemoryPool>(new int(0));
  return CUDA_SUCCESS;
}
CUresult cuMemPoolDestroy(CUmemoryPool pool) {
  delete reinterpret_cast<int*>(pool);
  return CUDA_SUCCESS;
}
CUresult cuMemAllocFromPoolAsync(CUdeviceptr* p, std::size_t n, CUmemoryPool pool, CUstream s) {
  if (pool == nullptr) return misuse();
  const CUresult r = cuMemAllocAsync(p, n, s);
  std::lock_guard l(mu);
  if (r == CUDA_SUCCESS) ++pool_allocations;
  return r;
}
CUresult cuMemPoolSetAttribute(CUmemoryPool, CUmemPool_attribute, void*) {
  return CUDA_SUCCESS;
}

}  // extern "C"
