// The OpenCL entry points Tack uses, resolved at run time from the ICD loader (libOpenCL.so.1)
// with dlopen/dlsym, so the library builds and runs where no OpenCL is installed. The Khronos
// headers are included for the types only: nothing here links -lOpenCL.
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>

#include <memory>
#include <string>

namespace tack::detail {

// One function pointer per entry point, named as the OpenCL function without its "cl" prefix.
// The X-macro keeps the list in one place: a new entry point is one line here.
#define TACK_OPENCL_FUNCTIONS(X)      \
  X(GetPlatformIDs)                   \
  X(GetPlatformInfo)                  \
  X(GetDeviceIDs)                     \
  X(GetDeviceInfo)                    \
  X(CreateContext)                    \
  X(ReleaseContext)                   \
  X(CreateCommandQueueWithProperties) \
  X(ReleaseCommandQueue)              \
  X(SVMAlloc)                         \
  X(SVMFree)                          \
  X(EnqueueSVMFree)                   \
  X(EnqueueSVMMemcpy)                 \
  X(EnqueueSVMMemFill)                \
  X(Flush)                            \
  X(Finish)                           \
  X(CreateProgramWithSource)          \
  X(CreateProgramWithBinary)          \
  X(BuildProgram)                     \
  X(GetProgramBuildInfo)              \
  X(GetProgramInfo)                   \
  X(ReleaseProgram)                   \
  X(CreateKernel)                     \
  X(GetKernelInfo)                    \
  X(ReleaseKernel)                    \
  X(SetKernelArg)                     \
  X(SetKernelArgSVMPointer)           \
  X(EnqueueNDRangeKernel)             \
  X(WaitForEvents)                    \
  X(ReleaseEvent)                     \
  X(CreateUserEvent)                  \
  X(SetUserEventStatus)               \
  X(EnqueueMarkerWithWaitList)

struct OpenClApi {
#define TACK_OPENCL_MEMBER(name) decltype(&::cl##name) name = nullptr;
  TACK_OPENCL_FUNCTIONS(TACK_OPENCL_MEMBER)
#undef TACK_OPENCL_MEMBER

  // Loads `library` (default: TACK_OPENCL_LIBRARY, else libOpenCL.so.1, else libOpenCL.so) and
  // resolves every entry point. nullptr when the library is absent or lacks one of them; `why`
  // then says which (for diagnostics: a missing runtime is an ordinary state, not an error).
  // The library is never unloaded: ICDs keep threads and callbacks that outlive any owner.
  static std::shared_ptr<const OpenClApi> load(const std::string& library, std::string* why);
  // The process-wide instance (loaded once); nullptr when unavailable.
  static std::shared_ptr<const OpenClApi> instance(std::string* why = nullptr);
};

// "CL_OUT_OF_RESOURCES (-5)": the error's name for messages.
std::string cl_error_string(cl_int code);

}  // namespace tack::detail
