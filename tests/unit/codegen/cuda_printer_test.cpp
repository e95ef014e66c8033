// The CUDA printer as text: the dialect's spellings over the shared C-style printer, no
// restrict, and (where NVRTC is installed) a compile of a kernel that uses every helper, so
// the text is known to be CUDA C++ before any CUDA runtime exists in Tack.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <limits>
#include <string>
#include <vector>

#include "codegen/cuda/cuda_printer.hpp"
#include "codegen/opencl/opencl_printer.hpp"
#include "common/kitchen_sink.hpp"
#include "ir/builder.hpp"
#include "ir/verifier.hpp"

namespace tack {
namespace {

using namespace ir;
using codegen::CudaPrinter;
using codegen::OpenClPrinter;
using ST = ir::ScalarType;

Expr vi(const std::string& n, ST t = ST::i64) {
  return var(t, n);
}

Function saxpy() {
  FunctionBuilder fb("saxpy");
  Expr s = fb.scalar_param("s", ST::f32);
  ArrayRef x = fb.array_param("x", ST::f32), y = fb.array_param("y", ST::f32);
  return fb.build({range_dim("i", shape(x, 0))},
                  store(y, {vi("i")}, add(mul(s, load(x, {vi("i")})), load(y, {vi("i")}))));
}

using test_kernels::kitchen_sink;

// The shared printer reports what a printed kernel needs (issue 9: targets check these facts
// against their device instead of searching the source for an extension's name).
TEST(CStylePrinter, ReportsWhatTheSourceNeeds) {
  codegen::CFeatures needs;
  const std::string f32 = OpenClPrinter().print(saxpy(), {}, &needs);
  EXPECT_FALSE(needs.f64);
  EXPECT_FALSE(needs.atomics64);
  FunctionBuilder fb("counts");
  ArrayRef c = fb.array_param("c", ST::i64);
  ArrayRef w = fb.array_param("w", ST::f64);
  Function f = fb.build({range_dim("i", shape(c, 0))},
                        block({eval(atomic(AtomicOp::Add, c, {vi("i")}, const_i64(1))),
                               store(w, {vi("i")}, const_f64(0.5))}));
  const std::string both = OpenClPrinter().print(f, {}, &needs);
  EXPECT_TRUE(needs.f64);
  EXPECT_TRUE(needs.atomics64);
  EXPECT_NE(both.find("cl_khr_fp64"), std::string::npos);
  EXPECT_NE(both.find("cl_khr_int64_base_atomics"), std::string::npos);
  CudaPrinter().print(f, {}, &needs);  // the same facts from every dialect
  EXPECT_TRUE(needs.f64 && needs.atomics64);
}

TEST(CudaPrinter, SpellsCudaOverTheSharedPrinter) {
  const std::string src = CudaPrinter().print(saxpy());
  EXPECT_NE(
      src.find("extern \"C\" __global__ void tack_saxpy(float p_s, float* p_x, long long n0_x, "
               "float* p_y, long long n0_y)"),
      std::string::npos)
      << src;
  EXPECT_NE(src.find("blockIdx.x * blockDim.x + threadIdx.x"), std::string::npos) << src;
  EXPECT_NE(src.find("gridDim.x * blockDim.x"), std::string::npos) << src;
  EXPECT_NE(src.find("--fmad=false"), std::string::npos) << src;
  // Arrays may alias: no restrict in any spelling, and no OpenCL qualifiers.
  EXPECT_EQ(src.find("restrict"), std::string::npos) << src;
  EXPECT_EQ(src.find("__global "), std::string::npos) << src;
  EXPECT_EQ(src.find("__kernel"), std::string::npos) << src;
}

TEST(CudaPrinter, HelpersUseCudaBuiltins) {
  const std::string src = CudaPrinter().print(kitchen_sink(), {true});
  for (const char* s :
       {"atomicAdd(p, v)", "atomicCAS((unsigned int*)", "atomicCAS((unsigned long long*)",
        "__uint_as_float", "__longlong_as_double", "__float_as_uint", "sqrtf(", "rintf(", "powf(",
        "fmodf(", "static __device__ __forceinline__", "TackDebugStatus* tack_status",
        "signed char", "unsigned long long", "0x7f800000u", "tack_in_bounds(tack_status, -1, "}) {
    EXPECT_NE(src.find(s), std::string::npos) << "missing " << s << "\n" << src;
  }
  for (const char* s : {"restrict", "__global ", " as_float(", "atomic_cmpxchg", "get_global_id"})
    EXPECT_EQ(src.find(s), std::string::npos) << "unexpected " << s;
}

TEST(CudaPrinter, SameSemanticsAsOpenCl) {
  // One printer underneath: the kernel bodies differ only in spelling, so the helpers present
  // are the same set.
  const Function f = kitchen_sink();
  ASSERT_TRUE(verify(f).empty()) << verify(f).front();
  const std::string cuda = CudaPrinter().print(f), ocl = OpenClPrinter().print(f);
  for (const char* helper : {"tack_floordiv_i8", "tack_mod_f64", "tack_pow_u64", "tack_shr_i16",
                             "tack_cast_u64_f32", "tack_min_f32", "tack_abs_i64",
                             "tack_atomic_max_u8", "tack_atomic_min_f64", "tack_range_count_u32"}) {
    EXPECT_NE(cuda.find(helper), std::string::npos) << helper;
    EXPECT_NE(ocl.find(helper), std::string::npos) << helper;
  }
}

// ---- an NVRTC compile, where the toolkit is installed (loaded at run time, as the CUDA
// backend will) ----

struct Nvrtc {
  using Create = int (*)(void**, const char*, const char*, int, const char* const*,
                         const char* const*);
  using Compile = int (*)(void*, int, const char* const*);
  using LogSize = int (*)(void*, std::size_t*);
  using Log = int (*)(void*, char*);
  using Destroy = int (*)(void**);
  void* lib = nullptr;
  Create create = nullptr;
  Compile compile = nullptr;
  LogSize log_size = nullptr;
  Log log = nullptr;
  Destroy destroy = nullptr;

  Nvrtc() {
    for (const char* name : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"}) {
      lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (lib) break;
    }
    if (!lib) return;
    create = reinterpret_cast<Create>(dlsym(lib, "nvrtcCreateProgram"));
    compile = reinterpret_cast<Compile>(dlsym(lib, "nvrtcCompileProgram"));
    log_size = reinterpret_cast<LogSize>(dlsym(lib, "nvrtcGetProgramLogSize"));
    log = reinterpret_cast<Log>(dlsym(lib, "nvrtcGetProgramLog"));
    destroy = reinterpret_cast<Destroy>(dlsym(lib, "nvrtcDestroyProgram"));
  }
  bool ok() const { return create && compile && log_size && log && destroy; }

  // "" when the source compiles; the log otherwise.
  std::string check(const std::string& source) const {
    void* prog = nullptr;
    if (create(&prog, source.c_str(), "kernel.cu", 0, nullptr, nullptr) != 0)
      return "create failed";
    const char* options[] = {"--fmad=false", "--std=c++17"};
    const int rc = compile(prog, 2, options);
    std::string text;
    std::size_t n = 0;
    log_size(prog, &n);
    text.resize(n);
    if (n) log(prog, text.data());
    destroy(&prog);
    return rc == 0 ? "" : "nvrtc error " + std::to_string(rc) + ":\n" + text;
  }
};

TEST(CudaPrinter, NvrtcCompilesTheKitchenSink) {
  static Nvrtc nvrtc;
  if (!nvrtc.ok())
    GTEST_SKIP() << "NVRTC (libnvrtc.so) is not installed; the CUDA text is checked only";
  for (bool debug : {false, true}) {
    const std::string src = CudaPrinter().print(kitchen_sink(), {debug});
    EXPECT_EQ(nvrtc.check(src), "") << src;
  }
}

}  // namespace
}  // namespace tack
