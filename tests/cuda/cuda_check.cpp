// tack_cuda_check FOLDER [ARCH]: the CI's CUDA check without a GPU. The test runs with
// TACK_CUDA_CHECK=FOLDER write every variant they compile, on any device, as CUDA C++ into
// FOLDER (targets/cuda/cuda_target.hpp); this compiles each file through NVRTC with exactly the
// CUDA device's options (compile_ptx) and assembles the PTX with `ptxas -arch=ARCH` (default
// sm_90). Exit status 0 when every kernel compiles and assembles, 1 when one fails (its source
// and log are printed), 2 on bad usage, 77 when NVRTC or ptxas is missing (the check cannot
// run here; the caller decides whether that is a failure).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "runtime/cuda/cuda_compile.hpp"
#include "tack/error.hpp"
#include "tack/kernel.hpp"

namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The ptxas to run: $PTXAS; else the one of the toolkit NVRTC was loaded from (its lib64 folder's
// sibling bin), so that both speak the same PTX version; else ptxas on PATH, else
// /usr/local/cuda's.
std::string find_ptxas() {
  if (const char* p = std::getenv("PTXAS"); p != nullptr && *p != '\0') return p;
  if (const std::string lib = tack::detail::nvrtc_library_path(); !lib.empty()) {
    const fs::path c = fs::path(lib).parent_path().parent_path() / "bin" / "ptxas";
    if (access(c.c_str(), X_OK) == 0) return c.string();
  }
  if (const char* path = std::getenv("PATH")) {
    std::istringstream dirs(path);
    std::string d;
    while (std::getline(dirs, d, ':')) {
      const fs::path c = fs::path(d) / "ptxas";
      if (!d.empty() && access(c.c_str(), X_OK) == 0) return c.string();
    }
  }
  for (const char* c : {"/usr/local/cuda/bin/ptxas"}) {
    if (access(c, X_OK) == 0) return c;
  }
  return "";
}

// Runs ptxas on `ptx`; "" on success, else its output.
std::string assemble(const std::string& ptxas, const std::string& arch, const fs::path& ptx) {
  const fs::path cubin = fs::path(ptx).replace_extension(".cubin");
  const fs::path log = fs::path(ptx).replace_extension(".ptxas.log");
  const std::string cmd = "'" + ptxas + "' -arch=" + arch + " '" + ptx.string() + "' -o '" +
                          cubin.string() + "' > '" + log.string() + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  std::error_code ec;
  if (rc == 0) {
    fs::remove(log, ec);
    fs::remove(cubin, ec);  // only whether it assembles matters here
    return "";
  }
  return "ptxas exited with status " + std::to_string(WEXITSTATUS(rc)) + ":\n" + read_file(log);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::cerr << "usage: tack_cuda_check FOLDER [ARCH]\n";
    return 2;
  }
  const fs::path folder = argv[1];
  const std::string arch = argc > 2 ? argv[2] : std::string(tack::kDefaultCudaArch);
  std::string why;
  if (!tack::detail::nvrtc_available(&why)) {
    std::cout << "tack_cuda_check: skipped, " << why << "\n";
    return 77;
  }
  const std::string ptxas = find_ptxas();
  if (ptxas.empty()) {
    std::cout << "tack_cuda_check: skipped, no ptxas (put the CUDA toolkit's bin folder on PATH "
                 "or set PTXAS)\n";
    return 77;
  }
  try {
    tack::detail::nvrtc_compute_capability(arch, /*nearest_older=*/false);
  } catch (const std::exception& e) {
    std::cout << "tack_cuda_check: skipped, " << e.what() << "\n";
    return 77;
  }
  std::vector<fs::path> sources;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(folder, ec)) {
    if (e.path().extension() == ".cu") sources.push_back(e.path());
  }
  std::sort(sources.begin(), sources.end());
  if (sources.empty()) {
    std::cerr << "tack_cuda_check: no kernels in " << folder
              << " (were the suites run with TACK_CUDA_CHECK set?)\n";
    return 1;
  }
  std::atomic<std::size_t> next{0}, failed{0}, assembled{0};
  std::mutex print;
  auto work = [&] {
    for (std::size_t i = next++; i < sources.size(); i = next++) {
      const fs::path& cu = sources[i];
      const fs::path ptx = fs::path(cu).replace_extension(".ptx");
      std::string error;
      const std::string source = read_file(cu);
      try {
        const std::string code =
            tack::detail::compile_ptx(source, cu.stem().string(), arch, arch + " (CI check)");
        std::ofstream(ptx, std::ios::binary) << code;
        error = assemble(ptxas, arch, ptx);
      } catch (const std::exception& e) {
        error = std::string("NVRTC: ") + e.what();
      }
      if (error.empty()) {
        ++assembled;
        continue;
      }
      ++failed;
      std::lock_guard lock(print);
      std::cout << "FAILED " << cu.string() << "\n"
                << error << "\n---- source ----\n"
                << source << "\n";
    }
  };
  const unsigned n = std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < n; ++t) threads.emplace_back(work);
  for (auto& t : threads) t.join();
  std::cout << "tack_cuda_check: " << assembled.load() << " of " << sources.size()
            << " kernels compiled by NVRTC and assembled by ptxas -arch=" << arch << "; "
            << failed.load() << " failed\n";
  return failed.load() == 0 ? 0 : 1;
}
