// NVRTC compiles, their disk cache and their errors.
#include "runtime/cuda/cuda_compile.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "runtime/cuda/cuda_api.hpp"
#include "runtime/opencl/opencl_program.hpp"  // throw_build_error: the shared build-log reader
#include "support/disk_cache.hpp"
#include "support/error.hpp"

#ifndef TACK_VERSION
#define TACK_VERSION "unknown"
#endif

namespace tack::detail {
namespace {

// NVRTC writes "kernel.cu(12): error: msg"; the shared reader expects "FILE:LINE:COL: error:".
std::string with_clang_locations(const std::string& log) {
  std::istringstream in(log);
  std::string line, out;
  while (std::getline(in, line)) {
    const std::size_t open = line.find(".cu(");
    if (open != std::string::npos) {
      std::size_t k = open + 4;
      while (k < line.size() && std::isdigit(static_cast<unsigned char>(line[k]))) ++k;
      if (k > open + 4 && k + 1 < line.size() && line[k] == ')' && line[k + 1] == ':') {
        line = line.substr(0, open + 3) + ":" + line.substr(open + 4, k - open - 4) +
               ":1:" + line.substr(k + 2);
      }
    }
    out += line + "\n";
  }
  return out;
}

std::string program_log(const NvrtcApi& api, nvrtcProgram prog) {
  std::size_t n = 0;
  if (api.GetProgramLogSize(prog, &n) != NVRTC_SUCCESS || n <= 1) return "";
  std::string log(n, '\0');
  if (api.GetProgramLog(prog, log.data()) != NVRTC_SUCCESS) return "";
  while (!log.empty() &&
         (log.back() == '\0' || std::isspace(static_cast<unsigned char>(log.back()))))
    log.pop_back();
  return log;
}

}  // namespace

int compute_capability_of(const std::string& arch) {
  std::string digits = arch;
  for (const char* prefix : {"sm_", "compute_"}) {
    if (digits.rfind(prefix, 0) == 0) digits = digits.substr(std::string(prefix).size());
  }
  bool ok = !digits.empty() && digits.size() <= 3;
  for (char c : digits) ok = ok && std::isdigit(static_cast<unsigned char>(c));
  const int cc = ok ? std::stoi(digits) : 0;
  if (cc < 50) {
    throw ValueError("CUDA architecture '" + arch +
                     "' is not one Tack compiles for; name a compute capability of 5.0 or later "
                     "as \"sm_90\", \"compute_90\" or \"90\"");
  }
  return cc;
}

int nvrtc_compute_capability(const std::string& arch, bool nearest_older) {
  const int cc = compute_capability_of(arch);
  auto api = NvrtcApi::instance();
  if (!api || api->GetNumSupportedArchs == nullptr || api->GetSupportedArchs == nullptr) return cc;
  int n = 0;
  if (api->GetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0) return cc;
  std::vector<int> archs(static_cast<std::size_t>(n));
  if (api->GetSupportedArchs(archs.data()) != NVRTC_SUCCESS) return cc;
  int best = 0;
  for (int a : archs) {
    if (a == cc) return cc;
    if (a < cc) best = std::max(best, a);
  }
  const std::string range = "sm_" + std::to_string(*std::min_element(archs.begin(), archs.end())) +
                            " to sm_" +
                            std::to_string(*std::max_element(archs.begin(), archs.end()));
  const std::string version = std::to_string(api->major) + "." + std::to_string(api->minor);
  if (!nearest_older) {
    throw ValueError("NVRTC " + version + " compiles for " + range + ", not for '" + arch +
                     "'; name one of those, or point TACK_NVRTC_LIBRARY at an NVRTC that knows it");
  }
  if (best == 0) {
    throw RuntimeError("the CUDA device has compute capability " + std::to_string(cc / 10) + "." +
                       std::to_string(cc % 10) + ", older than NVRTC " + version +
                       " compiles for (" + range + "); point TACK_NVRTC_LIBRARY at an older NVRTC");
  }
  return best;  // a device newer than this NVRTC: PTX for the newest it knows runs there too
}

std::vector<std::string> nvrtc_options(const std::string& arch) {
  return {"--gpu-architecture=compute_" + std::to_string(compute_capability_of(arch)),
          "--std=c++17",
          "--ftz=false",
          "--prec-div=true",
          "--prec-sqrt=true",
          "--fmad=false"};
}

bool nvrtc_available(std::string* why) {
  return NvrtcApi::instance(why) != nullptr;
}

std::string nvrtc_library_path() {
  auto api = NvrtcApi::instance();
  return api ? api->path : "";
}

std::string compile_ptx(const std::string& source, const std::string& kernel_name,
                        const std::string& arch, const std::string& device, bool* from_disk,
                        bool nearest_older) {
  std::string why;
  auto api = NvrtcApi::instance(&why);
  if (!api) {
    throw RuntimeError("cannot compile kernel '" + kernel_name + "' for CUDA (" + device +
                       "): " + why +
                       " (Debian/Ubuntu: the cuda-nvrtc package of NVIDIA's CUDA "
                       "repository; pip: nvidia-cuda-nvrtc), or set TACK_NVRTC_LIBRARY");
  }
  const std::vector<std::string> options =
      nvrtc_options(std::to_string(nvrtc_compute_capability(arch, nearest_older)));
  std::string key = std::string(TACK_VERSION) + '\0' + "nvrtc " + std::to_string(api->major) + "." +
                    std::to_string(api->minor) + '\0';
  for (const auto& o : options) key += o + '\0';
  key += source;
  if (auto cached = cache_load(kCudaFolder, key)) {
    if (from_disk) *from_disk = true;
    return std::string(cached->begin(), cached->end());
  }
  if (from_disk) *from_disk = false;
  nvrtcProgram prog = nullptr;
  nvrtcResult r = api->CreateProgram(&prog, source.c_str(), "tack_kernel.cu", 0, nullptr, nullptr);
  if (r != NVRTC_SUCCESS) {
    throw RuntimeError("NVRTC cannot create a program for kernel '" + kernel_name +
                       "': " + api->GetErrorString(r));
  }
  struct Destroy {
    const NvrtcApi& api;
    nvrtcProgram& prog;
    ~Destroy() { api.DestroyProgram(&prog); }
  } destroy{*api, prog};
  std::vector<const char*> argv;
  for (const auto& o : options) argv.push_back(o.c_str());
  r = api->CompileProgram(prog, static_cast<int>(argv.size()), argv.data());
  if (r == NVRTC_ERROR_COMPILATION) {
    throw_build_error(kernel_name, device, source, with_clang_locations(program_log(*api, prog)),
                      "CUDA C++");
  }
  if (r != NVRTC_SUCCESS) {
    throw RuntimeError("NVRTC failed on kernel '" + kernel_name + "' (" + device +
                       "): " + api->GetErrorString(r) + " " + program_log(*api, prog));
  }
  std::size_t size = 0;
  if (api->GetPTXSize(prog, &size) != NVRTC_SUCCESS || size == 0) {
    throw RuntimeError("NVRTC produced no PTX for kernel '" + kernel_name + "'");
  }
  std::string ptx(size, '\0');
  api->GetPTX(prog, ptx.data());
  while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
  cache_store(kCudaFolder, key, std::vector<char>(ptx.begin(), ptx.end()));
  return ptx;
}

}  // namespace tack::detail
