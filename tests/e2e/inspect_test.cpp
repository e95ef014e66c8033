// tack::inspect through the public API: the Tack IR ("ir") and the code of exactly the variant
// the given arguments would run (types, disjoint or not, debug or not), on every device present
// (Devices/InspectOnDevice.<test>/<device>): on the CPU the LLVM IR before ("source") and after
// ("optimized") optimization; on OpenCL the OpenCL C ("source"), and the same source behind a
// note ("optimized"), since the driver optimizes it out of Tack's sight. It launches nothing;
// an unknown mode is a ValueError.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/on_device.hpp"
#include "tack/tack.hpp"

namespace tack {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

const char* kScale = R"(
def in_scale(x, s, out):
    for i in range(len(x)):
        out[i] = x[i] * s
)";

class InspectOnDevice : public test::OnDevice {};

TACK_INSTANTIATE_ON_DEVICES(InspectOnDevice);

TEST_P(InspectOnDevice, ModesReturnText) {
  const Kernel k = kernel(kScale);
  Array x = arr(std::vector<float>{0, 1, 2, 3}), out = zeros({4}, f32, dev_);
  const std::string ir = inspect(k, {x, 2.0, out}, "ir");
  EXPECT_TRUE(contains(ir, "kernel in_scale(")) << ir;
  EXPECT_TRUE(contains(ir, "parallel for")) << ir;
  const std::string source = inspect(k, {x, 2.0, out}, "source");
  const std::string optimized = inspect(k, {x, 2.0, out}, "optimized");
  if (on_cpu()) {
    for (const std::string& text : {source, optimized}) {
      EXPECT_TRUE(contains(text, "define")) << text;  // LLVM IR on the CPU
      EXPECT_TRUE(contains(text, "tack_chunk_in_scale")) << text;
    }
  } else {
    // OpenCL C, handed to the driver as it is; "optimized" says so in front of the same text.
    EXPECT_TRUE(contains(source, "__kernel void tack_in_scale(")) << source;
    EXPECT_FALSE(contains(source, "define")) << source;
    EXPECT_TRUE(ends_with(optimized, source)) << optimized;
    const std::string note = optimized.substr(0, optimized.size() - source.size());
    EXPECT_TRUE(contains(note, "tack.inspect(mode=\"optimized\")")) << note;
    EXPECT_TRUE(contains(note, dev_.name())) << note;
  }
  EXPECT_NE(source, optimized);
}

TEST_P(InspectOnDevice, LaunchesNothing) {
  const Kernel k = kernel(kScale);
  Array x = arr(std::vector<float>{1, 2, 3, 4}), out = zeros({4}, f32, dev_);
  const std::uint64_t v = out.version();
  for (const char* mode : {"ir", "source", "optimized"}) inspect(k, {x, 2.0, out}, mode);
  EXPECT_EQ(out.to_vector<float>(), std::vector<float>(4, 0.0f));
  EXPECT_EQ(out.version(), v);
  k(x, 2.0, out);  // and the kernel still runs afterwards
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{2, 4, 6, 8}));
}

TEST_P(InspectOnDevice, UnknownModeIsAValueError) {
  const Kernel k = kernel(kScale);
  Array x = zeros({4}, f32, dev_), out = zeros({4}, f32, dev_);
  for (const char* mode : {"assembly", "", "IR", "Source"}) {
    try {
      inspect(k, {x, 2.0, out}, mode);
      FAIL() << "expected ValueError for mode '" << mode << "'";
    } catch (const ValueError& e) {
      const std::string msg = e.what();
      EXPECT_TRUE(contains(msg, "'" + std::string(mode) + "'")) << msg;
      EXPECT_TRUE(contains(msg, "\"ir\"") && contains(msg, "\"source\"") &&
                  contains(msg, "\"optimized\""))
          << msg;
    }
  }
}

TEST_P(InspectOnDevice, ShowsTheVariantOfTheseArgumentTypes) {
  const Kernel k = kernel(kScale);
  Array x32 = zeros({4}, f32, dev_), o32 = zeros({4}, f32, dev_);
  Array x64 = zeros({4}, f64, dev_), o64 = zeros({4}, f64, dev_);
  const std::string ir32 = inspect(k, {x32, 2.0, o32}, "ir");
  const std::string ir64 = inspect(k, {x64, 2.0, o64}, "ir");
  EXPECT_TRUE(contains(ir32, "x: array<f32, 1>") && contains(ir32, "s: f32")) << ir32;
  EXPECT_TRUE(contains(ir64, "x: array<f64, 1>") && contains(ir64, "s: f64")) << ir64;
  const std::string src32 = inspect(k, {x32, 2.0, o32}, "source");
  const std::string src64 = inspect(k, {x64, 2.0, o64}, "source");
  if (on_cpu()) {
    EXPECT_TRUE(contains(src32, "fmul float")) << src32;
    EXPECT_TRUE(contains(src64, "fmul double")) << src64;
  } else {
    EXPECT_TRUE(contains(src32, "__global float* p_x") && contains(src32, "float p_s")) << src32;
    EXPECT_FALSE(contains(src32, "double")) << src32;
    EXPECT_TRUE(contains(src64, "__global double* p_x") && contains(src64, "double p_s")) << src64;
    EXPECT_TRUE(contains(src64, "cl_khr_fp64")) << src64;
  }
  // Rank and scalar kind are part of the variant too.
  Array m = zeros({2, 2}, f32, dev_), mo = zeros({2, 2}, f32, dev_);
  const Kernel k2 = kernel(R"(
def in_rank(x, n, out):
    for i in range(len(x)):
        out[i] = x[i] + n
)");
  Array xi = zeros({4}, i32, dev_), oi = zeros({4}, i32, dev_);
  EXPECT_TRUE(contains(inspect(k2, {xi, 1, oi}, "ir"), "n: i32"));
  EXPECT_TRUE(contains(inspect(k2, {xi, std::int64_t{1} << 40, oi}, "ir"), "n: i64"));
  EXPECT_THROW(inspect(k2, {m, 1, mo}, "ir"), CompileError);  // out[i] = a row: not a number
}

// CPU only: the disjoint (noalias) variant is the CPU backend's; OpenCL has one variant for
// every alias relationship, checked in InspectOnDevice.DebugModeShowsTheCheckedVariant.
TEST(InspectCpu, DisjointVariantOnlyForDisjointArrays) {
  const Device cpu = device("cpu");
  set_debug(false);
  set_specialize_disjoint(true);
  const Kernel k = kernel(kScale);
  Array x = zeros({4}, f32, cpu), out = zeros({4}, f32, cpu);
  for (const char* mode : {"source", "optimized"}) {
    SCOPED_TRACE(mode);
    EXPECT_TRUE(contains(inspect(k, {x, 2.0, out}, mode), "noalias"));
    EXPECT_FALSE(contains(inspect(k, {x, 2.0, x}, mode), "noalias"));  // in place
    Array root = zeros({8}, f32, cpu);
    Array lo = root.slice(0, 4), hi = root.slice(4, 8), mid = root.slice(2, 6);
    EXPECT_TRUE(contains(inspect(k, {lo, 2.0, hi}, mode), "noalias"));
    EXPECT_FALSE(contains(inspect(k, {lo, 2.0, mid}, mode), "noalias"));
    Array flat = zeros({4}, f32, cpu), same = flat.reshape({2, 2}).reshape({4});
    EXPECT_FALSE(contains(inspect(k, {flat, 2.0, same}, mode), "noalias"));
  }
  set_specialize_disjoint(false);
  EXPECT_FALSE(specialize_disjoint());
  for (const char* mode : {"source", "optimized"}) {
    EXPECT_FALSE(contains(inspect(k, {x, 2.0, out}, mode), "noalias")) << mode;
  }
  set_specialize_disjoint(true);
  EXPECT_TRUE(specialize_disjoint());
  // The Tack IR is the same for both: the promise is the code generator's.
  EXPECT_EQ(inspect(k, {x, 2.0, out}, "ir"), inspect(k, {x, 2.0, x}, "ir"));
}

TEST_P(InspectOnDevice, DebugModeShowsTheCheckedVariant) {
  const Kernel k = kernel(kScale);
  Array x = zeros({4}, f32, dev_), out = zeros({4}, f32, dev_);
  // What marks the checked variant: the CPU's out-of-bounds reporter, OpenCL's status argument.
  const std::string marker = on_cpu() ? "tack_oob" : "TackDebugStatus* tack_status";
  const std::string plain = inspect(k, {x, 2.0, out}, "source");
  EXPECT_FALSE(contains(plain, marker)) << plain;
  set_debug(true);
  const std::string checked = inspect(k, {x, 2.0, out}, "source");
  EXPECT_NE(checked, plain);
  EXPECT_TRUE(contains(checked, marker)) << checked;
  if (on_cpu()) {
    // The checked variant is still disjoint-specialized when the arrays are disjoint.
    EXPECT_TRUE(contains(checked, "noalias"));
    EXPECT_FALSE(contains(inspect(k, {x, 2.0, x}, "source"), "noalias"));
  } else {
    // One variant, never restrict-qualified, serves disjoint and aliased arrays alike.
    EXPECT_FALSE(contains(checked, "restrict")) << checked;
    EXPECT_EQ(inspect(k, {x, 2.0, x}, "source"), checked);
  }
  set_debug(false);
  EXPECT_EQ(inspect(k, {x, 2.0, out}, "source"), plain);
  if (!on_cpu()) {
    EXPECT_FALSE(contains(plain, "restrict")) << plain;
    EXPECT_EQ(inspect(k, {x, 2.0, x}, "source"), plain);
    set_specialize_disjoint(false);
    EXPECT_EQ(inspect(k, {x, 2.0, out}, "source"), plain);
    set_specialize_disjoint(true);
  }
}

TEST_P(InspectOnDevice, SourceMatchesWhatRuns) {
  // The variant inspect shows is the one a call compiles: inspecting, then calling, then
  // inspecting again gives the same text.
  const Kernel k = kernel(kScale);
  Array x = arr(std::vector<float>{1, 2}), out = zeros({2}, f32, dev_);
  const std::string before = inspect(k, {x, 3.0, out}, "optimized");
  k(x, 3.0, out);
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{3, 6}));
  EXPECT_EQ(inspect(k, {x, 3.0, out}, "optimized"), before);
}

TEST_P(InspectOnDevice, ChecksArity) {
  const Kernel k = kernel(kScale);
  Array x = zeros({4}, f32, dev_);
  EXPECT_THROW(inspect(k, {x}, "ir"), TypeError);
  Array r4 = zeros({1, 1, 1, 1}, f32, dev_);
  EXPECT_THROW(inspect(k, {r4, 2.0, x}, "ir"), TypeError);
}

TEST_P(InspectOnDevice, ReportsCompileErrors) {
  const Kernel k = kernel(R"(
def in_bad(x, out):
    for i in range(len(x)):
        out[i] = x[i, 0]
)");
  Array x = zeros({4}, f32, dev_), out = zeros({4}, f32, dev_);
  for (const char* mode : {"ir", "source", "optimized"}) {
    try {
      inspect(k, {x, out}, mode);
      FAIL() << "expected CompileError";
    } catch (const CompileError& e) {
      EXPECT_EQ(e.kernel(), "in_bad");
      EXPECT_EQ(e.line(), 4);
    }
  }
}

}  // namespace
}  // namespace tack
