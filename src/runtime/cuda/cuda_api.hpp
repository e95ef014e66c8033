// The CUDA driver API and NVRTC entry points Tack uses, resolved at run time with dlopen/dlsym
// (libcuda.so.1 and libnvrtc.so.*), so the library builds, runs and passes its tests where
// neither is installed: a missing or broken driver is "no CUDA devices", a missing NVRTC is "no
// CUDA compiler". The toolkit's headers (cuda.h, nvrtc.h) are included for the types and the
// prototypes only: nothing here links -lcuda or -lnvrtc. Built where CMake finds those headers
// (TACK_HAVE_CUDA).
#pragma once

#include <cuda.h>
#include <nvrtc.h>

#include <memory>
#include <string>
#include <vector>

namespace tack::detail {

// One function pointer per driver entry point, named as the function without its "cu" prefix.
// cuda.h maps some names to versioned symbols (cuMemcpyHtoDAsync -> cuMemcpyHtoDAsync_v2); the
// loader resolves the symbol the header names, so the pointer's type and the symbol agree.
#define TACK_CUDA_FUNCTIONS(X) \
  X(Init)                      \
  X(DriverGetVersion)          \
  X(GetErrorName)              \
  X(DeviceGetCount)            \
  X(DeviceGet)                 \
  X(DeviceGetName)             \
  X(DeviceGetAttribute)        \
  X(DeviceTotalMem)            \
  X(DevicePrimaryCtxRetain)    \
  X(DevicePrimaryCtxRelease)   \
  X(DevicePrimaryCtxGetState)  \
  X(CtxGetCurrent)             \
  X(CtxGetDevice)              \
  X(CtxPushCurrent)            \
  X(CtxPopCurrent)             \
  X(StreamCreate)              \
  X(StreamDestroy)             \
  X(StreamSynchronize)         \
  X(StreamQuery)               \
  X(StreamWaitEvent)           \
  X(EventCreate)               \
  X(EventRecord)               \
  X(EventDestroy)              \
  X(MemAlloc)                  \
  X(MemFree)                   \
  X(MemcpyHtoDAsync)           \
  X(MemcpyDtoHAsync)           \
  X(MemcpyDtoDAsync)           \
  X(MemsetD8Async)             \
  X(MemsetD16Async)            \
  X(MemsetD32Async)            \
  X(PointerGetAttribute)       \
  X(ModuleLoadData)            \
  X(ModuleUnload)              \
  X(ModuleGetFunction)         \
  X(LaunchKernel)

// Entry points Tack uses where the driver has them (CUDA 11.2+: stream-ordered allocation;
// CUDA 12.0+: context ids).
#define TACK_CUDA_OPTIONAL_FUNCTIONS(X) \
  X(CtxGetId)                           \
  X(MemAllocAsync)                      \
  X(MemFreeAsync)                       \
  X(MemPoolCreate)                      \
  X(MemPoolDestroy)                     \
  X(MemAllocFromPoolAsync)              \
  X(MemPoolSetAttribute)

struct CudaApi {
#define TACK_CUDA_MEMBER(name) decltype(&::cu##name) name = nullptr;
  TACK_CUDA_FUNCTIONS(TACK_CUDA_MEMBER)
  TACK_CUDA_OPTIONAL_FUNCTIONS(TACK_CUDA_MEMBER)
#undef TACK_CUDA_MEMBER

  // Loads `library` (default: TACK_CUDA_LIBRARY, else libcuda.so.1) and resolves every entry
  // point, then calls cuInit(0). nullptr when the library is absent, lacks an entry point or
  // cuInit fails (no GPU, a driver that does not match the kernel module); `why` then says
  // which. The library is never unloaded: the driver keeps threads that outlive any owner.
  static std::shared_ptr<const CudaApi> load(const std::string& library, std::string* why);
  // The process-wide instance (loaded once); nullptr when unavailable.
  static std::shared_ptr<const CudaApi> instance(std::string* why = nullptr);
};

// "CUDA_ERROR_OUT_OF_MEMORY (2)": the error's name for messages (through cuGetErrorName where
// the driver is loaded).
std::string cu_error_string(const CudaApi* api, CUresult code);

#define TACK_NVRTC_FUNCTIONS(X) \
  X(Version)                    \
  X(GetErrorString)             \
  X(CreateProgram)              \
  X(CompileProgram)             \
  X(DestroyProgram)             \
  X(GetProgramLogSize)          \
  X(GetProgramLog)              \
  X(GetPTXSize)                 \
  X(GetPTX)

// Where NVRTC has them (11.2+): the architectures it compiles for.
#define TACK_NVRTC_OPTIONAL_FUNCTIONS(X) \
  X(GetNumSupportedArchs)                \
  X(GetSupportedArchs)

struct NvrtcApi {
#define TACK_NVRTC_MEMBER(name) decltype(&::nvrtc##name) name = nullptr;
  TACK_NVRTC_FUNCTIONS(TACK_NVRTC_MEMBER)
  TACK_NVRTC_OPTIONAL_FUNCTIONS(TACK_NVRTC_MEMBER)
#undef TACK_NVRTC_MEMBER
  int major = 0, minor = 0;  // nvrtcVersion
  std::string path;          // the file the loader loaded ("" when it cannot say)

  // Loads `library` (default: TACK_NVRTC_LIBRARY, else pip's nvidia-cuda-nvrtc in Tack's own
  // site-packages -- pip_nvrtc_candidates(site_packages_of(libtack_path())) --, else
  // libnvrtc.so.13, .12, .11.2, libnvrtc.so, and the same names under /usr/local/cuda/lib64).
  // nullptr when none loads. NVRTC's builtins library beside the one loaded is loaded first (pip's
  // has no RUNPATH).
  static std::shared_ptr<const NvrtcApi> load(const std::string& library, std::string* why);
  static std::shared_ptr<const NvrtcApi> instance(std::string* why = nullptr);
};

// Where pip's NVRTC wheels put the library in `site_packages`, newest first:
// nvidia-cuda-nvrtc 13 (nvidia/cu13/lib), nvidia-cuda-nvrtc-cu12 and -cu11 (nvidia/cuda_nvrtc/lib).
// None for an empty folder.
std::vector<std::string> pip_nvrtc_candidates(const std::string& site_packages);
// The site-packages of a libtack that pip installed (".../site-packages/tack/libtack.so.0" ->
// ".../site-packages"); "" for a libtack anywhere else, or no path.
std::string site_packages_of(const std::string& libtack);
// The file libtack was loaded from; "" when Tack is linked into the program itself.
std::string libtack_path();

}  // namespace tack::detail
