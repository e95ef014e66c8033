// Run-time loading of the CUDA driver and of NVRTC: dlopen, then one dlsym per entry point.
#include "runtime/cuda/cuda_api.hpp"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>
#include <vector>

namespace tack::detail {
namespace {

// The symbol cuda.h maps a name to, as a string: TACK_SYMBOL(cuMemFree) is "cuMemFree_v2".
#define TACK_SYMBOL_TEXT(x) #x
#define TACK_SYMBOL(x) TACK_SYMBOL_TEXT(x)

// dlopen of the first candidate that loads; `tried` collects the loader's reasons.
void* open_first(const std::vector<std::string>& candidates, std::string* tried) {
  for (const auto& c : candidates) {
    // RTLD_LOCAL: the library's symbols (NVRTC carries its own LLVM) must not satisfy anyone
    // else's lookups.
    if (void* h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
    const char* e = dlerror();
    *tried += (tried->empty() ? "" : "; ") + (e ? std::string(e) : c);
  }
  return nullptr;
}

std::vector<std::string> candidates_for(const std::string& library, const char* env,
                                        std::vector<std::string> defaults) {
  if (!library.empty()) return {library};
  if (const char* v = std::getenv(env); v != nullptr && *v != '\0') return {v};
  return defaults;
}

}  // namespace

std::shared_ptr<const CudaApi> CudaApi::load(const std::string& library, std::string* why) {
  std::string tried;
  void* handle = open_first(candidates_for(library, "TACK_CUDA_LIBRARY", {"libcuda.so.1"}), &tried);
  if (handle == nullptr) {
    if (why) *why = "no CUDA driver could be loaded (" + tried + ")";
    return nullptr;
  }
  auto api = std::make_shared<CudaApi>();
  std::string missing;
#define TACK_CUDA_RESOLVE(name)                                                              \
  api->name = reinterpret_cast<decltype(&::cu##name)>(dlsym(handle, TACK_SYMBOL(cu##name))); \
  if (api->name == nullptr)                                                                  \
    missing += (missing.empty() ? "" : ", ") + std::string(TACK_SYMBOL(cu##name));
  TACK_CUDA_FUNCTIONS(TACK_CUDA_RESOLVE)
#undef TACK_CUDA_RESOLVE
  if (!missing.empty()) {
    dlclose(handle);
    if (why)
      *why = "the CUDA driver lacks " + missing + " (a driver for CUDA 11.2 or later is needed)";
    return nullptr;
  }
#define TACK_CUDA_RESOLVE_OPTIONAL(name) \
  api->name = reinterpret_cast<decltype(&::cu##name)>(dlsym(handle, TACK_SYMBOL(cu##name)));
  TACK_CUDA_OPTIONAL_FUNCTIONS(TACK_CUDA_RESOLVE_OPTIONAL)
#undef TACK_CUDA_RESOLVE_OPTIONAL
  const CUresult err = api->Init(0);
  if (err != CUDA_SUCCESS) {
    // No GPU, or a user-space driver that does not match the kernel module: no devices. The
    // library stays loaded (a driver may have started threads in cuInit).
    if (why) *why = "cuInit failed: " + cu_error_string(api.get(), err);
    return nullptr;
  }
  return api;
}

std::shared_ptr<const CudaApi> CudaApi::instance(std::string* why) {
  static std::once_flag once;
  static std::shared_ptr<const CudaApi>* api = nullptr;  // immortal, as the library is
  static std::string* reason = nullptr;
  std::call_once(once, [] {
    reason = new std::string;
    api = new std::shared_ptr<const CudaApi>(load("", reason));
  });
  if (why) *why = *reason;
  return *api;
}

std::string cu_error_string(const CudaApi* api, CUresult code) {
  const char* name = nullptr;
  if (api != nullptr && api->GetErrorName != nullptr &&
      api->GetErrorName(code, &name) != CUDA_SUCCESS) {
    name = nullptr;
  }
  return std::string(name ? name : "CUDA error") + " (" + std::to_string(static_cast<int>(code)) +
         ")";
}

std::vector<std::string> pip_nvrtc_candidates(const std::string& site_packages) {
  if (site_packages.empty()) return {};
  const std::string nvidia = site_packages + "/nvidia/";
  return {nvidia + "cu13/lib/libnvrtc.so.13",           // nvidia-cuda-nvrtc 13
          nvidia + "cuda_nvrtc/lib/libnvrtc.so.12",     // nvidia-cuda-nvrtc-cu12
          nvidia + "cuda_nvrtc/lib/libnvrtc.so.11.2"};  // nvidia-cuda-nvrtc-cu11
}

std::string site_packages_of(const std::string& libtack) {
  const std::size_t slash = libtack.rfind('/');
  if (libtack.empty() || libtack[0] != '/' || slash == std::string::npos) return "";
  const std::string folder = libtack.substr(0, slash);  // ".../site-packages/tack"
  const std::size_t above = folder.rfind('/');
  if (above == std::string::npos || above == 0 || folder.substr(above + 1) != "tack") return "";
  return folder.substr(0, above);
}

std::string libtack_path() {
  // The object that holds this function (libtack links with -Bsymbolic-functions, so its address
  // is libtack's own); none when it is the program itself (a static link), whose name the
  // loader does not know.
  Dl_info info{};
  link_map* map = nullptr;
  if (dladdr1(reinterpret_cast<void*>(&libtack_path), &info, reinterpret_cast<void**>(&map),
              RTLD_DL_LINKMAP) == 0 ||
      map == nullptr || map->l_name == nullptr || map->l_name[0] == '\0') {
    return "";
  }
  return map->l_name;
}

std::shared_ptr<const NvrtcApi> NvrtcApi::load(const std::string& library, std::string* why) {
  // pip's NVRTC first: the one Tack's environment installed (by hand, or for PyTorch or CuPy,
  // whose kernels then compile with the same), whose PTX the environment's driver was chosen
  // for; a system toolkit may be newer than the driver. The loader cannot find it by name:
  // site-packages is on no library path.
  const std::string site = site_packages_of(libtack_path());
  std::vector<std::string> defaults;
  for (const std::string& c : pip_nvrtc_candidates(site)) {
    if (access(c.c_str(), F_OK) == 0) defaults.push_back(c);  // an absent wheel is not a reason
  }
  const std::size_t pip_count = defaults.size();
  for (const char* dir : {"", "/usr/local/cuda/lib64/"}) {
    for (const char* name : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so"})
      defaults.push_back(std::string(dir) + name);
  }
  std::string tried;
  const std::vector<std::string> candidates =
      candidates_for(library, "TACK_NVRTC_LIBRARY", defaults);
  void* handle = open_first(candidates, &tried);
  if (handle == nullptr && candidates != defaults) {
    if (why) *why = "the NVRTC named (" + candidates.front() + ") could not be loaded: " + tried;
    return nullptr;
  }
  if (handle == nullptr) {
    if (why) {
      *why =
          "no NVRTC could be loaded (libnvrtc.so.13, .12, .11.2 or libnvrtc.so on the loader's "
          "path or in /usr/local/cuda/lib64; " +
          (site.empty() ? std::string("pip's nvidia-cuda-nvrtc not looked for: Tack is not "
                                      "installed in a site-packages")
                        : "pip's nvidia-cuda-nvrtc in " + site) +
          ")";
      if (pip_count > 0) {  // there, yet not loaded: the loader's reasons
        std::string pip_tried;
        open_first(std::vector<std::string>(defaults.begin(), defaults.begin() + pip_count),
                   &pip_tried);
        *why += ": " + pip_tried;
      }
    }
    return nullptr;
  }
  auto api = std::make_shared<NvrtcApi>();
  std::string missing;
#define TACK_NVRTC_RESOLVE(name)                                                                   \
  api->name = reinterpret_cast<decltype(&::nvrtc##name)>(dlsym(handle, TACK_SYMBOL(nvrtc##name))); \
  if (api->name == nullptr) missing += (missing.empty() ? "" : ", ") + std::string("nvrtc" #name);
  TACK_NVRTC_FUNCTIONS(TACK_NVRTC_RESOLVE)
#undef TACK_NVRTC_RESOLVE
  if (!missing.empty()) {
    dlclose(handle);
    if (why) *why = "the NVRTC library lacks " + missing;
    return nullptr;
  }
#define TACK_NVRTC_RESOLVE_OPTIONAL(name) \
  api->name = reinterpret_cast<decltype(&::nvrtc##name)>(dlsym(handle, TACK_SYMBOL(nvrtc##name)));
  TACK_NVRTC_OPTIONAL_FUNCTIONS(TACK_NVRTC_RESOLVE_OPTIONAL)
#undef TACK_NVRTC_RESOLVE_OPTIONAL
  api->Version(&api->major, &api->minor);
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(api->Version), &info) != 0 && info.dli_fname != nullptr)
    api->path = info.dli_fname;
  // NVRTC opens libnvrtc-builtins.so.<major>.<minor> by name at its first compile. Beside a
  // toolkit the loader finds it; in pip's folder only the library's own RUNPATH would, and
  // nvidia-cuda-nvrtc 13's has none. Loaded here from the library's folder first, the name
  // matches the loaded one (never unloaded: NVRTC is immortal too).
  if (!api->path.empty()) {
    std::string builtins = api->path;
    if (const std::size_t slash = builtins.rfind('/'); slash != std::string::npos) {
      builtins.resize(slash + 1);
      builtins +=
          "libnvrtc-builtins.so." + std::to_string(api->major) + "." + std::to_string(api->minor);
      if (access(builtins.c_str(), F_OK) == 0 &&
          dlopen(builtins.c_str(), RTLD_NOW | RTLD_LOCAL) == nullptr) {
        dlerror();  // NVRTC's compile will say what is wrong; no error left for another caller
      }
    }
  }
  return api;
}

std::shared_ptr<const NvrtcApi> NvrtcApi::instance(std::string* why) {
  static std::once_flag once;
  static std::shared_ptr<const NvrtcApi>* api = nullptr;  // immortal: NVRTC is never unloaded
  static std::string* reason = nullptr;
  std::call_once(once, [] {
    reason = new std::string;
    api = new std::shared_ptr<const NvrtcApi>(load("", reason));
  });
  if (why) *why = *reason;
  return *api;
}

}  // namespace tack::detail
