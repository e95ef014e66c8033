// What the algorithms share (src/algorithms/kernel_text.hpp): kernel texts take their constants
// from C++ (the placeholders cached_kernel fills), the fixed block, the scans' operators and
// identities, NumPy's promotion.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "algorithms/kernel_text.hpp"
#include "ir/ir.hpp"
#include "tack/tack.hpp"

namespace tack::algorithms {
namespace {

TEST(KernelText, SubstReplacesEveryPlaceholder) {
  EXPECT_EQ(subst("a {N} b {N} {M}", "N", "7"), "a 7 b 7 {M}");
  EXPECT_EQ(subst("{N}", "NN", "1"), "{N}");
}

TEST(KernelText, BlocksCoverTheInput) {
  EXPECT_EQ(block_count(1), 1);
  EXPECT_EQ(block_count(kBlock), 1);
  EXPECT_EQ(block_count(kBlock + 1), 2);
}

// A kernel text that spells its constants as placeholders sees C++'s values.
TEST(KernelText, CachedKernelsFillTheConstantsFromCpp) {
  const Kernel& k = cached_kernel(R"(
def constants(out):
    for i in range(1):
        out[0] = {BLOCK}
        out[1] = {WG}
        out[2] = {WG_LOG2}
)");
  Array out = zeros({3}, i64);
  k(out);
  const std::vector<std::int64_t> got = out.to_vector<std::int64_t>();
  EXPECT_EQ(got[0], kBlock);
  EXPECT_EQ(got[1], ir::kWorkgroupSize);
  EXPECT_EQ(std::int64_t{1} << got[2], ir::kWorkgroupSize);
  EXPECT_EQ(&cached_kernel(R"(
def constants(out):
    for i in range(1):
        out[0] = {BLOCK}
        out[1] = {WG}
        out[2] = {WG_LOG2}
)"),
            &k)
      << "made once per process";
}

TEST(KernelText, ScanOperatorsAndIdentities) {
  EXPECT_EQ(block_op("add", "cumsum"), BlockOp::Sum);
  EXPECT_EQ(block_op("max", "scan"), BlockOp::Max);
  EXPECT_THROW(block_op("mul", "scan"), ValueError);
  const Scalar zero = scan_identity(BlockOp::Sum, f64, false);
  EXPECT_TRUE(zero.as_double() == 0.0 && std::signbit(zero.as_double())) << "-0.0 for a float sum";
  EXPECT_EQ(scan_identity(BlockOp::Min, f32, true).as_double(), INFINITY);
  EXPECT_EQ(scan_identity(BlockOp::Max, f64, true).as_double(), -INFINITY);
}

TEST(KernelText, PromotionIsNumPys) {
  EXPECT_EQ(promote(ScalarType::i32, ScalarType::f32), ScalarType::f64);
  EXPECT_EQ(promote(ScalarType::u8, ScalarType::i8), ScalarType::i16);
  EXPECT_EQ(promote(ScalarType::u64, ScalarType::i64), ScalarType::f64);
  EXPECT_EQ(sum_accumulator(ScalarType::u16).scalar, ScalarType::u64);
  EXPECT_EQ(sum_accumulator(ScalarType::f32).scalar, ScalarType::f32);
  EXPECT_EQ(cast_name(ScalarType::u8), "tack.u8");
}

}  // namespace
}  // namespace tack::algorithms
