// The CUDA device where no GPU is: the driver and NVRTC are loaded at run time, so a machine
// without a driver lists no CUDA device and nothing crashes; and every kernel can still be
// compiled for CUDA offline (tack::inspect(..., "ptx", "cuda", "sm_90")) through NVRTC, with
// the CUDA device's own options. The suites' kernels are all compiled and assembled for sm_90
// by tools/run_tests.sh (TACK_CUDA_CHECK, tests/cuda/cuda_check.cpp); on a GPU,
// tools/check_cuda_gpu.sh runs the per-device suites with CUDA as the device.
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "common/on_device.hpp"
#include "runtime/backend.hpp"
#include "runtime/cuda/cuda_api.hpp"
#include "runtime/cuda/cuda_backend.hpp"
#include "runtime/cuda/cuda_compile.hpp"
#include "tack/tack.hpp"

namespace tack {
namespace {

using test::expect_error;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const char* kScale = R"(
def cuda_scale(x, s, out):
    for i in range(len(x)):
        out[i] = x[i] * s
)";

#define SKIP_WITHOUT_NVRTC()                                                 \
  do {                                                                       \
    std::string why;                                                         \
    if (!detail::nvrtc_available(&why)) GTEST_SKIP() << "no NVRTC: " << why; \
  } while (0)

TEST(CudaOffline, SourceIsCudaCpp) {
  const Kernel k = kernel(kScale);
  Array x = array(std::vector<float>{0, 1, 2, 3}, {4}), out = zeros({4}, f32);
  const std::string src = inspect(k, {x, 2.0, out}, "source", "cuda");
  EXPECT_TRUE(contains(src, "extern \"C\" __global__ void tack_cuda_scale(")) << src;
  EXPECT_FALSE(contains(src, "restrict")) << src;  // arrays may alias
  // The IR of the CUDA variant is the IR of the call's types, whatever device holds the arrays.
  EXPECT_TRUE(contains(inspect(k, {x, 2.0, out}, "ir", "cuda"), "kernel cuda_scale("));
}

TEST(CudaOffline, PtxForTheStatedArchitecture) {
  SKIP_WITHOUT_NVRTC();
  const Kernel k = kernel(kScale);
  Array x = array(std::vector<double>{0, 1}, {2}), out = zeros({2}, f64);
  const std::string ptx90 = inspect(k, {x, 2.0, out}, "ptx", "cuda");
  EXPECT_TRUE(contains(ptx90, ".target sm_90")) << ptx90;
  EXPECT_TRUE(contains(ptx90, ".entry tack_cuda_scale(")) << ptx90;
  EXPECT_TRUE(contains(ptx90, "mul.rn.f64")) << ptx90;  // f64 arrays: a double multiply
  const std::string ptx80 = inspect(k, {x, 2.0, out}, "ptx", "cuda", "sm_80");
  EXPECT_TRUE(contains(ptx80, ".target sm_80")) << ptx80;
  // No FMA contraction: a*b + c rounds twice, as on the CPU and OpenCL.
  const Kernel axpy = kernel(R"(
def cuda_axpy(a, x, y):
    for i in range(len(x)):
        y[i] = a * x[i] + y[i]
)");
  Array xf = array(std::vector<float>{1, 2}, {2}), yf = array(std::vector<float>{3, 4}, {2});
  const std::string p = inspect(axpy, {2.0, xf, yf}, "ptx", "cuda");
  EXPECT_FALSE(contains(p, "fma.rn.f32")) << p;
  EXPECT_TRUE(contains(p, "mul.rn.f32") && contains(p, "add.rn.f32")) << p;
}

TEST(CudaOffline, EveryModeAndDeviceIsChecked) {
  const Kernel k = kernel(kScale);
  Array x = array(std::vector<float>{0, 1}, {2}), out = zeros({2}, f32);
  expect_error<ValueError>(
      [&] {
        inspect(k, {x, 2.0, out}, "assembly", "cuda");
      },
      {"unknown mode 'assembly'", "\"ptx\""});
  expect_error<ValueError>(
      [&] {
        inspect(k, {x, 2.0, out}, "ptx", "metal");
      },
      {"device 'metal'", "device=\"cuda\""});
  expect_error<ValueError>(
      [&] {
        inspect(k, {x, 2.0, out}, "ptx");
      },
      {"mode \"ptx\" is CUDA's", "device=\"cuda\""});
  SKIP_WITHOUT_NVRTC();
  expect_error<ValueError>(
      [&] {
        inspect(k, {x, 2.0, out}, "ptx", "cuda", "sm_3");
      },
      {"'sm_3'", "sm_90"});
  expect_error<ValueError>(
      [&] {
        inspect(k, {x, 2.0, out}, "ptx", "cuda", "banana");
      },
      {"'banana'"});
}

TEST(CudaOffline, ArchitectureNames) {
  EXPECT_EQ(detail::compute_capability_of("sm_90"), 90);
  EXPECT_EQ(detail::compute_capability_of("compute_86"), 86);
  EXPECT_EQ(detail::compute_capability_of("75"), 75);
  const auto options = detail::nvrtc_options("sm_90");
  for (const char* o : {"--gpu-architecture=compute_90", "--ftz=false", "--prec-div=true",
                        "--prec-sqrt=true", "--fmad=false"}) {
    EXPECT_NE(std::find(options.begin(), options.end(), o), options.end()) << o;
  }
}

// A build error is a CompileError that quotes the generated line NVRTC's first error names.
TEST(CudaOffline, BuildErrorsQuoteTheGeneratedLine) {
  SKIP_WITHOUT_NVRTC();
  const std::string source =
      "extern \"C\" __global__ void tack_broken(float* p) {\n"
      "  p[0] = not_declared_anywhere;\n"
      "}\n";
  try {
    detail::compile_ptx(source, "broken", "sm_90", "sm_90 (test)");
    ADD_FAILURE() << "expected a CompileError";
  } catch (const CompileError& e) {
    const std::string m = e.what();
    EXPECT_EQ(e.line(), 2) << m;
    EXPECT_TRUE(contains(m, "not_declared_anywhere")) << m;
    EXPECT_TRUE(contains(m, "CUDA C++")) << m;
  }
}

// No driver (this machine: the toolkit's libcuda.so is a link stub, and no libcuda.so.1):
// no CUDA device, a clear reason, and "cuda" names no device.
TEST(CudaDriver, AbsentDriverMeansNoDevices) {
  const auto& found = detail::cuda_devices();
  if (!found.backends.empty()) GTEST_SKIP() << "a CUDA device is present";
  EXPECT_FALSE(found.notes.empty());
  EXPECT_TRUE(contains(detail::cuda_unavailable_reason(), "no CUDA device"));
  for (const Device& d : devices()) EXPECT_NE(d.kind(), "cuda");
  expect_error<ValueError>([] { device("cuda"); }, {"no device named 'cuda'", "'cpu'"});
}

TEST(CudaDriver, ALibraryThatIsNotTheDriverIsRefused) {
  std::string why;
  EXPECT_EQ(detail::CudaApi::load("libm.so.6", &why), nullptr);
  EXPECT_TRUE(contains(why, "lacks cuInit")) << why;
  EXPECT_EQ(detail::CudaApi::load("/nonexistent/libcuda.so.1", &why), nullptr);
  EXPECT_TRUE(contains(why, "no CUDA driver could be loaded")) << why;
  EXPECT_EQ(detail::NvrtcApi::load("libm.so.6", &why), nullptr);
  EXPECT_TRUE(contains(why, "lacks nvrtc")) << why;
}

// pip's NVRTC wheels (docs/devices.md): the folders nvidia-cuda-nvrtc 13, -cu12 and -cu11 put
// the library in, searched in the site-packages that holds Tack -- only when its libtack is
// the one pip installs, <site-packages>/tack/libtack.so.0.
TEST(NvrtcSearch, PipsFoldersNewestFirst) {
  const std::string site = "/env/lib/python3.12/site-packages";
  EXPECT_EQ(detail::pip_nvrtc_candidates(site),
            (std::vector<std::string>{site + "/nvidia/cu13/lib/libnvrtc.so.13",
                                      site + "/nvidia/cuda_nvrtc/lib/libnvrtc.so.12",
                                      site + "/nvidia/cuda_nvrtc/lib/libnvrtc.so.11.2"}));
  EXPECT_TRUE(detail::pip_nvrtc_candidates("").empty());
  EXPECT_EQ(detail::site_packages_of(site + "/tack/libtack.so.0"), site);
  EXPECT_EQ(detail::site_packages_of("/usr/lib/x86_64-linux-gnu/libtack.so.0"), "");
  EXPECT_EQ(detail::site_packages_of("/tack/libtack.so.0"), "");
  EXPECT_EQ(detail::site_packages_of("env/site-packages/tack/libtack.so.0"), "");
  EXPECT_EQ(detail::site_packages_of(""), "");
}

// The libtack this test runs, as the loader names it: a loaded libtack.so of the build tree,
// which is no site-packages.
TEST(NvrtcSearch, LibtackIsTheLoadedLibrary) {
  const std::filesystem::path path = detail::libtack_path();
  EXPECT_EQ(path.filename().string().rfind("libtack.so", 0), 0u) << path;
  void* self = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  EXPECT_NE(self, nullptr) << path << " is not loaded";
  if (self != nullptr) dlclose(self);
  EXPECT_EQ(detail::site_packages_of(path.string()), "") << path;
}

// NVRTC opens its builtins library by name at its first compile; pip's nvidia-cuda-nvrtc 13 has
// no RUNPATH to find it beside itself, so the loader loads it from the library's own folder
// first. A copy of the toolkit's NVRTC in a folder of its own loads with that folder's builtins
// (copies: other files than any the process has loaded, so the loader cannot reuse those).
TEST(NvrtcSearch, ItsBuiltinsLoadFromTheLibrarysOwnFolder) {
  namespace fs = std::filesystem;
  fs::path library;
  for (const char* name : {"libnvrtc.so.13", "libnvrtc.so.12"}) {
    if (fs::exists(fs::path("/usr/local/cuda/lib64") / name)) {
      library = fs::canonical(fs::path("/usr/local/cuda/lib64") / name);
      break;
    }
  }
  if (library.empty()) GTEST_SKIP() << "no CUDA toolkit NVRTC in /usr/local/cuda/lib64";
  // A folder of this run's own (the dev and sanitizer suites may run at once).
  std::string made = testing::TempDir() + "tack-pip-nvrtc-XXXXXX";
  ASSERT_NE(mkdtemp(made.data()), nullptr);
  struct Remove {
    fs::path path;
    ~Remove() { fs::remove_all(path); }  // about 110 MB; mapped still, which unlink allows
  } remove{made};
  const fs::path folder = fs::path(made) / "nvidia/cu13/lib";
  fs::create_directories(folder);
  fs::copy_file(library, folder / "libnvrtc.so");
  // Every libnvrtc-builtins.so.<major>.<minor>, links followed (CUDA 12's is a link to
  // .<major>.<minor>.<patch>).
  for (const auto& e : fs::directory_iterator(library.parent_path())) {
    const std::string name = e.path().filename().string();
    const std::string prefix = "libnvrtc-builtins.so.";
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string version = name.substr(prefix.size());
    const std::size_t dot = version.find('.');
    if (dot == std::string::npos || version.find('.', dot + 1) != std::string::npos) continue;
    fs::copy_file(fs::canonical(e.path()), folder / name);
  }
  std::string why;
  const auto api = detail::NvrtcApi::load((folder / "libnvrtc.so").string(), &why);
  ASSERT_NE(api, nullptr) << why;
  const std::string expected = (folder / ("libnvrtc-builtins.so." + std::to_string(api->major) +
                                          "." + std::to_string(api->minor)))
                                   .string();
  ASSERT_TRUE(fs::exists(expected)) << "the toolkit has no " << expected;
  bool loaded = false;
  std::pair<const std::string*, bool*> wanted{&expected, &loaded};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        auto* p = static_cast<std::pair<const std::string*, bool*>*>(data);
        if (info->dlpi_name != nullptr && *p->first == info->dlpi_name) *p->second = true;
        return 0;
      },
      &wanted);
  EXPECT_TRUE(loaded) << expected << " was not loaded";
}

}  // namespace
}  // namespace tack
