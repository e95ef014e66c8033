// Run-time loading of the OpenCL ICD loader: dlopen, then one dlsym per entry point.
#include "runtime/opencl/opencl_api.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

namespace tack::detail {

std::shared_ptr<const OpenClApi> OpenClApi::load(const std::string& library, std::string* why) {
  std::string candidates[3];
  int count = 0;
  if (!library.empty()) {
    candidates[count++] = library;
  } else {
    const char* env = std::getenv("TACK_OPENCL_LIBRARY");
    if (env != nullptr && *env != '\0') {
      candidates[count++] = env;
    } else {
      candidates[count++] = "libOpenCL.so.1";
      candidates[count++] = "libOpenCL.so";
    }
  }
  void* handle = nullptr;
  std::string tried;
  for (int i = 0; i < count && handle == nullptr; ++i) {
    // RTLD_LOCAL: the ICD's symbols must not satisfy anyone else's lookups.
    handle = dlopen(candidates[i].c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* e = dlerror();
      tried += (tried.empty() ? "" : "; ") + (e ? std::string(e) : candidates[i]);
    }
  }
  if (handle == nullptr) {
    if (why) *why = "no OpenCL library could be loaded (" + tried + ")";
    return nullptr;
  }
  auto api = std::make_shared<OpenClApi>();
  std::string missing;
#define TACK_OPENCL_RESOLVE(name)                                                 \
  api->name = reinterpret_cast<decltype(&::cl##name)>(dlsym(handle, "cl" #name)); \
  if (api->name == nullptr) missing += (missing.empty() ? "cl" : ", cl") + std::string(#name);
  TACK_OPENCL_FUNCTIONS(TACK_OPENCL_RESOLVE)
#undef TACK_OPENCL_RESOLVE
  if (!missing.empty()) {
    // Not an OpenCL 2.0+ loader (or not OpenCL at all): nothing of it is usable, so unload it.
    dlclose(handle);
    if (why) *why = "the OpenCL library lacks " + missing + " (an OpenCL 2.0 loader is needed)";
    return nullptr;
  }
  return api;
}

std::shared_ptr<const OpenClApi> OpenClApi::instance(std::string* why) {
  static std::once_flag once;
  static std::shared_ptr<const OpenClApi>* api = nullptr;  // immortal, as the library is
  static std::string* reason = nullptr;
  std::call_once(once, [] {
    reason = new std::string;
    api = new std::shared_ptr<const OpenClApi>(load("", reason));
  });
  if (why) *why = *reason;
  return *api;
}

std::string cl_error_string(cl_int code) {
  const char* name = nullptr;
  switch (code) {
#define TACK_CL_ERROR(e) \
  case e:                \
    name = #e;           \
    break;
    TACK_CL_ERROR(CL_DEVICE_NOT_FOUND)
    TACK_CL_ERROR(CL_DEVICE_NOT_AVAILABLE)
    TACK_CL_ERROR(CL_COMPILER_NOT_AVAILABLE)
    TACK_CL_ERROR(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    TACK_CL_ERROR(CL_OUT_OF_RESOURCES)
    TACK_CL_ERROR(CL_OUT_OF_HOST_MEMORY)
    TACK_CL_ERROR(CL_BUILD_PROGRAM_FAILURE)
    TACK_CL_ERROR(CL_INVALID_VALUE)
    TACK_CL_ERROR(CL_INVALID_DEVICE)
    TACK_CL_ERROR(CL_INVALID_CONTEXT)
    TACK_CL_ERROR(CL_INVALID_COMMAND_QUEUE)
    TACK_CL_ERROR(CL_INVALID_MEM_OBJECT)
    TACK_CL_ERROR(CL_INVALID_BINARY)
    TACK_CL_ERROR(CL_INVALID_BUILD_OPTIONS)
    TACK_CL_ERROR(CL_INVALID_PROGRAM)
    TACK_CL_ERROR(CL_INVALID_PROGRAM_EXECUTABLE)
    TACK_CL_ERROR(CL_INVALID_KERNEL_NAME)
    TACK_CL_ERROR(CL_INVALID_KERNEL)
    TACK_CL_ERROR(CL_INVALID_ARG_INDEX)
    TACK_CL_ERROR(CL_INVALID_ARG_VALUE)
    TACK_CL_ERROR(CL_INVALID_ARG_SIZE)
    TACK_CL_ERROR(CL_INVALID_KERNEL_ARGS)
    TACK_CL_ERROR(CL_INVALID_WORK_DIMENSION)
    TACK_CL_ERROR(CL_INVALID_WORK_GROUP_SIZE)
    TACK_CL_ERROR(CL_INVALID_GLOBAL_WORK_SIZE)
    TACK_CL_ERROR(CL_INVALID_EVENT)
    TACK_CL_ERROR(CL_INVALID_OPERATION)
    TACK_CL_ERROR(CL_INVALID_BUFFER_SIZE)
    TACK_CL_ERROR(CL_INVALID_EVENT_WAIT_LIST)
    TACK_CL_ERROR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
#undef TACK_CL_ERROR
    case -1001:
      name = "CL_PLATFORM_NOT_FOUND_KHR";
      break;
    default:
      break;
  }
  return std::string(name ? name : "OpenCL error") + " (" + std::to_string(code) + ")";
}

}  // namespace tack::detail
