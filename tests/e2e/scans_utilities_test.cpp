// Scans and array utilities through the C++ front door (tack/algorithms.hpp): cumsum's
// accumulator, exclusive identities, out= in place, arange/linspace values, concat along an
// axis, copies and *_like constructors, on every device.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "common/on_device.hpp"
#include "tack/tack.hpp"

namespace tack {
namespace {

class ScansOnDevice : public test::OnDevice {};
TACK_INSTANTIATE_ON_DEVICES(ScansOnDevice);

TEST_P(ScansOnDevice, InclusiveExclusiveAndInPlace) {
  std::vector<std::int32_t> v(10000);
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = static_cast<std::int32_t>(k % 13) - 6;
  const Array a = array(v, {10000}, dev_);
  const Array c = cumsum(a);
  EXPECT_EQ(c.dtype(), i64);  // NumPy's cumsum accumulator
  std::int64_t s = 0;
  for (std::size_t k = 0; k < v.size(); ++k) {
    s += v[k];
    if (k % 997 == 0 || k + 1 == v.size()) {
      ASSERT_EQ(c.item<std::int64_t>({static_cast<std::int64_t>(k)}), s) << k;
    }
  }
  const Array e = exclusive_scan(a, "min");
  EXPECT_EQ(e.dtype(), i32);
  EXPECT_EQ(e.item<std::int32_t>({0}), std::numeric_limits<std::int32_t>::max());
  EXPECT_EQ(e.item<std::int32_t>({1}), -6);
  const Array w = array(v, {10000}, dev_);
  inclusive_scan(w, w, "max");  // in place
  EXPECT_EQ(w.item<std::int32_t>({0}), -6);
  EXPECT_EQ(w.item<std::int32_t>({9999}), 6);
  EXPECT_THROW(inclusive_scan(a, "mul"), ValueError);
  EXPECT_THROW(inclusive_scan(w.slice(0, 10), w.slice(5, 15)), ValueError);
}

TEST_P(ScansOnDevice, ByKey) {
  const Array k = array(std::vector<std::int32_t>{0, 0, 1, 1, 1, 0}, {6}, dev_);
  const Array v = array(std::vector<std::int32_t>{1, 2, 3, 4, 5, 6}, {6}, dev_);
  EXPECT_EQ(inclusive_scan_by_key(k, v).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{1, 3, 3, 7, 12, 6}));
  EXPECT_EQ(exclusive_scan_by_key(k, v).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{0, 1, 0, 3, 7, 0}));
  auto [keys, sums] = reduce_by_key(k, v);
  EXPECT_EQ(keys.to_vector<std::int32_t>(), (std::vector<std::int32_t>{0, 1, 0}));
  EXPECT_EQ(sums.to_vector<std::int64_t>(), (std::vector<std::int64_t>{3, 12, 6}));
  EXPECT_THROW(reduce_by_key(k, v.slice(0, 3)), ValueError);
  // Segments by id, in any order; segment 3 has no element.
  EXPECT_EQ(segmented_sum(v, k, 4).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{9, 12, 0, 0}));
  EXPECT_EQ(segmented_sum(v, k, 2, f64).to_vector<double>(), (std::vector<double>{9, 12}));
  EXPECT_THROW(segmented_sum(v, k, 1), IndexError);
}

TEST_P(ScansOnDevice, Utilities) {
  const Array r = arange(Scalar::from(0.5), Scalar::from(3.0), Scalar::from(0.5), f32, dev_);
  ASSERT_EQ(r.shape(), (Shape{5}));
  EXPECT_FLOAT_EQ(r.item<float>({4}), 2.5f);
  EXPECT_EQ(arange(7, std::nullopt, dev_).item<std::int64_t>({6}), 6);
  const Array l = linspace(0.0, 1.0, 5, true, std::nullopt, dev_);
  EXPECT_DOUBLE_EQ(l.item<double>({1}), 0.25);
  EXPECT_DOUBLE_EQ(l.item<double>({4}), 1.0);
  const Array a = array(std::vector<float>{1, 2, 3, 4}, {2, 2}, dev_);
  const Array j = concat({a, a.slice(0, 1)}, 0);
  ASSERT_EQ(j.shape(), (Shape{3, 2}));
  EXPECT_FLOAT_EQ(j.item<float>({2, 1}), 2.0f);
  const Array k = concat({a, a}, 1);
  ASSERT_EQ(k.shape(), (Shape{2, 4}));
  EXPECT_FLOAT_EQ(k.item<float>({1, 2}), 3.0f);
  EXPECT_THROW(concat({a, astype(a, f64)}, 0), TypeError);
  const Array c = copy(a);
  a.fill(0.0);
  EXPECT_FLOAT_EQ(c.item<float>({1, 1}), 4.0f);
  EXPECT_EQ(astype(c, i32).item<std::int32_t>({1, 0}), 3);
  EXPECT_EQ(to(c, device("cpu")).device(), device("cpu"));
  EXPECT_EQ(ones_like(c, f64).dtype(), f64);
  EXPECT_EQ(full_like(c, Scalar::from(std::int64_t{5})).item<float>({0, 0}), 5.0f);
  EXPECT_EQ(zeros_like(c, std::nullopt, device("cpu")).device(), device("cpu"));
}

}  // namespace
}  // namespace tack
