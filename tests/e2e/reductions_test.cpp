// Whole-array reductions through the C++ front door (tack/algorithms.hpp): NumPy's accumulator
// kinds, the empty rules, views, and the same bits on every device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "common/on_device.hpp"
#include "tack/tack.hpp"

namespace tack {
namespace {

class ReductionsOnDevice : public test::OnDevice {};
TACK_INSTANTIATE_ON_DEVICES(ReductionsOnDevice);

TEST_P(ReductionsOnDevice, IntegersAccumulateInSixtyFourBits) {
  std::vector<std::int32_t> v(10000);
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = static_cast<std::int32_t>(k) * 100000;
  const Scalar s = sum(arr(v));
  EXPECT_EQ(s.kind, Scalar::Kind::Int);
  EXPECT_EQ(s.i, 100000LL * 9999 * 10000 / 2);  // past 2^31: i64, as NumPy
  EXPECT_EQ(min(arr(v)).i, 0);
  EXPECT_EQ(max(arr(v)).i, 999900000);
  std::vector<std::uint8_t> small = {1, 2, 3, 4, 5};
  EXPECT_EQ(prod(arr(small)).kind, Scalar::Kind::UInt);
  EXPECT_EQ(prod(arr(small)).u, 120u);
}

// The result types are one rule, the one the reductions compute in (the binding's NumPy scalars
// read it): every sum and mean has the type sum_result_type / mean_result_type names.
TEST_P(ReductionsOnDevice, ResultTypesAreTheOnesTheReductionsAnswerIn) {
  const std::vector<DType> dtypes = {i8, i16, i32, i64, u8, u16, u32, u64, f32, f64};
  for (const DType d : dtypes) {
    const Array a = astype(arr(std::vector<std::int32_t>{1, 2, 3}), d);
    EXPECT_EQ(sum(a, 0).dtype(), sum_result_type(d)) << d.str();
    EXPECT_EQ(prod(a, 0).dtype(), sum_result_type(d)) << d.str();
    EXPECT_EQ(mean(a, 0).dtype(), mean_result_type(d)) << d.str();
    EXPECT_EQ(sum(a, 0, f32).dtype(), sum_result_type(d, f32)) << d.str();
    EXPECT_EQ(mean(a, 0, f32).dtype(), mean_result_type(d, f32)) << d.str();
  }
  EXPECT_EQ(sum_result_type(i8), i64);
  EXPECT_EQ(sum_result_type(u16), u64);
  EXPECT_EQ(sum_result_type(f32), f32);
  EXPECT_EQ(mean_result_type(i32), f64);
  EXPECT_EQ(mean_result_type(f32), f32);
  EXPECT_THROW(sum_result_type(i32, DType(ScalarType::f32, 3)), TypeError);
}

TEST_P(ReductionsOnDevice, FloatsEmptyArraysAndViews) {
  std::vector<float> v(5000, 0.5f);
  v[17] = 3.0f;
  const Array a = arr(v);
  EXPECT_DOUBLE_EQ(sum(a).f, 2502.5);
  EXPECT_DOUBLE_EQ(max(a).f, 3.0);
  EXPECT_DOUBLE_EQ(sum(a.slice(0, 10)).f, 5.0);
  EXPECT_DOUBLE_EQ(sum(a, f64).f, 2502.5);
  const Array empty = zeros({0}, f32, dev_);
  EXPECT_EQ(sum(empty).f, 0.0);
  EXPECT_EQ(prod(empty).f, 1.0);
  EXPECT_THROW(min(empty), ValueError);
  v[4000] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(min(arr(v)).f));
  EXPECT_THROW(sum(zeros({4}, vec(3, f32), dev_)), TypeError);
}

TEST_P(ReductionsOnDevice, TheSameBitsAsTheCpu) {
  std::vector<float> v(123457);
  std::uint32_t state = 12345;
  for (float& x : v) {
    state = state * 1664525u + 1013904223u;
    x = static_cast<float>(state >> 8) / 16777216.0f - 0.5f;
  }
  const double here = sum(arr(v)).f;
  const double on_cpu = sum(array(v, {static_cast<std::int64_t>(v.size())}, device("cpu"))).f;
  EXPECT_EQ(std::memcmp(&here, &on_cpu, sizeof here), 0);
}

TEST_P(ReductionsOnDevice, AlongAnAxis) {
  // x[i, j] = i * 10 + j over (3, 5000): each row's sum, column means, the first maximum.
  std::vector<float> v(3 * 5000);
  for (std::size_t k = 0; k < v.size(); ++k)
    v[k] = static_cast<float>((k / 5000) * 10 + (k % 5000) % 7);
  const Array a = array(v, {3, 5000}, dev_);
  const Array rows = sum(a, 1);
  ASSERT_EQ(rows.shape(), (Shape{3}));
  EXPECT_EQ(rows.dtype(), f32);
  double expect0 = 0;
  for (int j = 0; j < 5000; ++j) expect0 += j % 7;
  EXPECT_FLOAT_EQ(rows.item<float>({0}), static_cast<float>(expect0));
  EXPECT_FLOAT_EQ(rows.item<float>({2}), static_cast<float>(expect0 + 20 * 5000));
  EXPECT_EQ(sum(a, 0, std::nullopt, true).shape(), (Shape{1, 5000}));
  EXPECT_EQ(argmax(a, 1).item<std::int64_t>({1}), 6);
  EXPECT_EQ(argmax(a), 2 * 5000 + 6);
  EXPECT_FLOAT_EQ(mean(a, 0).item<float>({3}), 13.0f);
  EXPECT_FLOAT_EQ(var(a, 0).item<float>({3}), 200.0f / 3.0f);
  EXPECT_EQ(count_nonzero(a, 1).item<std::int64_t>({0}), 5000 - 715);
  EXPECT_EQ(all(a, 1).item<std::uint8_t>({0}), 0);
  EXPECT_EQ(any(a, 1).item<std::uint8_t>({0}), 1);
  EXPECT_DOUBLE_EQ(dot(a, a, f64).f, [&] {
    double s = 0;
    for (float x : v) s += static_cast<double>(x) * x;
    return s;
  }());
  EXPECT_THROW(sum(a, 2), IndexError);
  EXPECT_THROW(argmin(zeros({3, 0}, f32, dev_), 1), ValueError);
  EXPECT_THROW(dot(a, a.slice(0, 1)), ValueError);
  EXPECT_EQ(sum(array(std::vector<float>{1, 2}, {2}, dev_), 0).ndim(), 0);
}

}  // namespace
}  // namespace tack

namespace tack {
namespace {

class KernelValuesOnDevice : public test::OnDevice {};
TACK_INSTANTIATE_ON_DEVICES(KernelValuesOnDevice);

// A kernel's value through the C++ front door: Kernel::call gives the number and its type
// (docs/design/kernel_values.md); a kernel without one gives nothing.
TEST_P(KernelValuesOnDevice, AKernelReturnsItsReductionsResult) {
  const Kernel k = kernel(R"(
def count_and_max(x, limit) -> tack.i64:
    n = 0
    top = -1
    for i in range(len(x)):
        if x[i] < limit:
            n += 1
        top = max(top, x[i])
    return n * 1000 + top
)",
                          "count_and_max");
  std::vector<std::int32_t> v(5000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int32_t>((i * 37) % 901);
  const std::optional<KernelValue> got = k(arr(v), 450);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->type, ScalarType::i64);
  std::int64_t n = 0, top = -1;
  for (std::int32_t x : v) {
    n += x < 450;
    top = std::max<std::int64_t>(top, x);
  }
  EXPECT_EQ(got->value.i, n * 1000 + top);
  const Kernel fill =
      kernel("def fill(x):\n    for i in range(len(x)):\n        x[i] = 1\n", "fill");
  EXPECT_FALSE(fill(arr(v)).has_value());
}

}  // namespace
}  // namespace tack
