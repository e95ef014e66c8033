// The pipeline (compiler::build_ir, compiler::compile_kernel): finds the kernel, verifies after
// each pass, prints the IR after each pass to stderr when TACK_PRINT_IR=1, and returns the
// analyses and the privatized IR a target needs.
#include <gtest/gtest.h>

#include <cstdlib>

#include "ir/verifier.hpp"
#include "unit/lowering/lower_test_util.hpp"

namespace tack::lowering::test {
namespace {

const char* kSource = R"(
@tack.kernel
def scale(x, s):
    for i in range(len(x)):
        x[i] = x[i] * s
)";

TEST(Pipeline, BuildsVerifiedIr) {
  ir::Function f = lower(kSource, {f32s, num(ScalarType::f32)}, "scale");
  EXPECT_TRUE(ir::verify(f).empty());
  EXPECT_EQ(f.name, "scale");
  EXPECT_EQ(f.default_float, ScalarType::f32);
  ASSERT_NE(f.parallel_for(), nullptr);
}

TEST(Pipeline, F64ArgumentsMakeTheDefaultFloatF64) {
  EXPECT_EQ(lower(kSource, {f64s, num(ScalarType::f32)}, "scale").default_float, ScalarType::f64);
  EXPECT_EQ(lower(kSource, {f32s, num(ScalarType::f64)}, "scale").default_float, ScalarType::f64);
}

TEST(Pipeline, UnknownKernelNameIsAValueError) {
  EXPECT_THROW(lower(kSource, {f32s, num(ScalarType::f32)}, "nope"), ValueError);
}

TEST(Pipeline, PrintsTheIrAfterEachPassWhenAsked) {
  ::setenv("TACK_PRINT_IR", "1", 1);
  ::testing::internal::CaptureStderr();
  lower(kSource, {f32s, num(ScalarType::f32)}, "scale");
  std::string err = ::testing::internal::GetCapturedStderr();
  ::unsetenv("TACK_PRINT_IR");
  EXPECT_NE(err.find("; Tack IR after lowering\nkernel scale(x: array<f32, 1>, s: f32)"),
            std::string::npos)
      << err;

  ::testing::internal::CaptureStderr();
  lower(kSource, {f32s, num(ScalarType::f32)}, "scale");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

TEST(Pipeline, TheSameModuleLowersForManySignatures) {
  frontend::Module m = frontend::parse_module(kSource);
  for (ScalarType t : {ScalarType::i8, ScalarType::u16, ScalarType::i32, ScalarType::u64,
                       ScalarType::f32, ScalarType::f64}) {
    ir::Function f = compiler::build_ir(m, "scale", {arr(t), num(t)});
    EXPECT_EQ(f.params[0].type, t);
  }
}

const char* kHistogram = R"(
def hist(values, bins, out):
    for i in range(len(values)):
        tack.atomic_add(bins, int(values[i]) % len(bins), 1)
        out[i] = values[i]
)";

TEST(Pipeline, CompileKernelReturnsTheAnalysesTargetsNeed) {
  frontend::Module m = frontend::parse_module(kHistogram);
  const std::vector<compiler::ArgType> sig = {f32s, arr(ScalarType::i32), f32s};
  const compiler::KernelIr k = compiler::compile_kernel(m, "hist", sig, {false, true});
  EXPECT_EQ(k.written, (std::vector<bool>{false, true, true}));
  ASSERT_EQ(k.atomics.size(), 1u);
  EXPECT_EQ(k.atomics[0].param, 1);
  EXPECT_EQ(k.atomics[0].alignment, 4);
  ASSERT_EQ(k.private_targets.size(), 1u);
  ASSERT_TRUE(k.privatized.has_value());
  EXPECT_TRUE(ir::verify(*k.privatized).empty());
  EXPECT_EQ(k.private_bytes, 0);
  // A target that cannot run privatized atomics, and debug mode, get none.
  EXPECT_FALSE(compiler::compile_kernel(m, "hist", sig, {false, false}).privatized);
  const compiler::KernelIr debug = compiler::compile_kernel(m, "hist", sig, {true, true});
  EXPECT_FALSE(debug.privatized);
  EXPECT_TRUE(debug.private_targets.empty());
}

TEST(Pipeline, PrintsEveryPassInOrderThePrivatizedIrIncluded) {
  frontend::Module m = frontend::parse_module(kHistogram);
  ::setenv("TACK_PRINT_IR", "1", 1);
  ::testing::internal::CaptureStderr();
  compiler::compile_kernel(m, "hist", {f32s, arr(ScalarType::i32), f32s}, {false, true});
  const std::string err = ::testing::internal::GetCapturedStderr();
  ::unsetenv("TACK_PRINT_IR");
  const auto lowering = err.find("; Tack IR after lowering\n");
  const auto privatize = err.find("; Tack IR after privatize atomics\n");
  ASSERT_NE(lowering, std::string::npos) << err;
  ASSERT_NE(privatize, std::string::npos) << err;
  EXPECT_LT(lowering, privatize);
}

}  // namespace
}  // namespace tack::lowering::test
