// What this build of Tack is and what it finds on this machine: `python -m tack` prints it, and
// a bug report should include it (README, "Install").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tack {

struct About {
  std::string version;       // Tack's (the file VERSION)
  std::string llvm_version;  // the LLVM its CPU code generator is built with
  bool llvm_static = false;  // LLVM linked into libtack (a wheel) or the system's libLLVM
  bool cuda = false;         // built with CUDA's headers (the driver is loaded at run time)
  bool numa = false;         // built with libnuma
  int numa_nodes = 0;        // the nodes libnuma reports (0: none, or built without it)
  std::string host_cpu;      // the CPU LLVM compiles for ("znver3", "sapphirerapids")
  std::string host_triple;   // "x86_64-pc-linux-gnu"
  bool vector_math = false;  // glibc's libmvec used for vectorized math (TACK_VECTOR_MATH)
  int threads = 1;           // the CPU launches' worker threads (TACK_NUM_THREADS)
  // The disk cache of compiled kernels (TACK_CACHE_DIR), or none when it is off.
  std::optional<std::string> cache_directory;
  std::uint64_t cache_limit = 0;          // its size limit in bytes (TACK_CACHE_LIMIT; 0: no limit)
  std::vector<std::string> device_kinds;  // the kinds this build can launch kernels on
};

// Asks the host for the CPU's name (LLVM's detection): about a millisecond the first time.
About about();

// The NVRTC that compiles kernels for CUDA (docs/devices.md says where it is looked for:
// TACK_NVRTC_LIBRARY, pip's nvidia-cuda-nvrtc beside Tack, the system's). This call loads it
// when nothing has yet -- a library of about 100 MB, which about() leaves alone.
struct NvrtcFound {
  std::string version;  // "13.0"; empty when none loads
  std::string path;     // the file it was loaded from
  std::string why;      // why none loads ("built without CUDA's headers" in such a build)
};
NvrtcFound find_nvrtc();

}  // namespace tack
