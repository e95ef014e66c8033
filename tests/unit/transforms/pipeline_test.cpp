// The pipeline (compiler::build_ir): finds the kernel, verifies after each pass, and prints the
// IR after each pass to stderr when TACK_PRINT_IR=1.
#include <gtest/gtest.h>

#include <cstdlib>

#include "ir/verifier.hpp"
#include "lower_test_util.hpp"

namespace tack::transforms::test {
namespace {

const char* kSource = R"(
@tack.kernel
def scale(x, s):
    for i in range(len(x)):
        x[i] = x[i] * s
)";

TEST(Pipeline, BuildsVerifiedIr) {
  ir::Function f = lower(kSource, {f32s, num(ScalarType::F32)}, "scale");
  EXPECT_TRUE(ir::verify(f).empty());
  EXPECT_EQ(f.name, "scale");
  EXPECT_EQ(f.default_float, ScalarType::F32);
  ASSERT_NE(f.parallel_for(), nullptr);
}

TEST(Pipeline, F64ArgumentsMakeTheDefaultFloatF64) {
  EXPECT_EQ(lower(kSource, {f64s, num(ScalarType::F32)}, "scale").default_float, ScalarType::F64);
  EXPECT_EQ(lower(kSource, {f32s, num(ScalarType::F64)}, "scale").default_float, ScalarType::F64);
}

TEST(Pipeline, UnknownKernelNameIsAValueError) {
  EXPECT_THROW(lower(kSource, {f32s, num(ScalarType::F32)}, "nope"), ValueError);
}

TEST(Pipeline, PrintsTheIrAfterEachPassWhenAsked) {
  ::setenv("TACK_PRINT_IR", "1", 1);
  ::testing::internal::CaptureStderr();
  lower(kSource, {f32s, num(ScalarType::F32)}, "scale");
  std::string err = ::testing::internal::GetCapturedStderr();
  ::unsetenv("TACK_PRINT_IR");
  EXPECT_NE(err.find("; Tack IR after lowering\nkernel scale(x: array<f32, 1>, s: f32)"),
            std::string::npos)
      << err;

  ::testing::internal::CaptureStderr();
  lower(kSource, {f32s, num(ScalarType::F32)}, "scale");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

TEST(Pipeline, TheSameModuleLowersForManySignatures) {
  frontend::Module m = frontend::parse_module(kSource);
  for (ScalarType t : {ScalarType::I8, ScalarType::U16, ScalarType::I32, ScalarType::U64,
                       ScalarType::F32, ScalarType::F64}) {
    ir::Function f = compiler::build_ir(m, "scale", {arr(t), num(t)});
    EXPECT_EQ(f.params[0].type, t);
  }
}

}  // namespace
}  // namespace tack::transforms::test
