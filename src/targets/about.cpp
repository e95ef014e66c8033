// tack::about (include/tack/about.hpp): the build's facts and what it finds here.
#include "tack/about.hpp"

#include "codegen/llvm/llvm_codegen.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/parallel.hpp"
#include "support/disk_cache.hpp"
#include "targets/target.hpp"

#ifdef TACK_HAVE_CUDA
#include "runtime/cuda/cuda_api.hpp"
#include "runtime/cuda/cuda_compile.hpp"
#endif

namespace tack {

About about() {
  About a;
  a.version = TACK_VERSION;
  a.llvm_version = TACK_LLVM_VERSION;
  a.llvm_static = codegen::llvm_linked_in();
#ifdef TACK_HAVE_CUDA
  a.cuda = true;
#endif
  const int nodes = detail::numa_node_count();
  a.numa = nodes >= 0;
  a.numa_nodes = nodes > 0 ? nodes : 0;
  a.host_cpu = codegen::host_cpu_name();
  a.host_triple = codegen::host_triple();
  a.vector_math = codegen::vector_math_enabled();
  a.threads = detail::num_threads();
  if (auto dir = detail::cache_directory(); dir && !dir->empty()) a.cache_directory = *dir;
  a.cache_limit = detail::cache_limit_bytes();
  for (const auto& [kind, target] : detail::registered_targets()) a.device_kinds.push_back(kind);
  return a;
}

NvrtcFound find_nvrtc() {
  NvrtcFound found;
#ifdef TACK_HAVE_CUDA
  if (auto api = detail::NvrtcApi::instance(&found.why)) {
    found.version = std::to_string(api->major) + "." + std::to_string(api->minor);
    found.path = detail::nvrtc_library_path();
  }
#else
  found.why = "built without CUDA's headers";
#endif
  return found;
}

}  // namespace tack
