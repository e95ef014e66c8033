// Sorts and selection through the C++ front door (tack/algorithms.hpp): sort, argsort,
// sort_by_key, gather, scatter, unique, nonzero, compress, searchsorted, histogram, on every
// device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "common/on_device.hpp"
#include "tack/tack.hpp"

namespace tack {
namespace {

class SortsOnDevice : public test::OnDevice {};
TACK_INSTANTIATE_ON_DEVICES(SortsOnDevice);

std::vector<float> random_floats(std::size_t n) {
  std::vector<float> v(n);
  std::uint32_t state = 7;
  for (float& x : v) {
    state = state * 1664525u + 1013904223u;
    x = static_cast<float>(state >> 8) / 16777216.0f - 0.5f;
  }
  return v;
}

TEST_P(SortsOnDevice, SortArgsortAndByKey) {
  std::vector<float> v = random_floats(9000);
  v[17] = std::numeric_limits<float>::quiet_NaN();
  const Array a = array(v, {9000}, dev_);
  const std::vector<float> s = sort(a).to_vector<float>();
  EXPECT_TRUE(std::isnan(s.back()));  // NaN last
  EXPECT_TRUE(std::is_sorted(s.begin(), s.end() - 1));
  const std::vector<std::int64_t> idx = argsort(a).to_vector<std::int64_t>();
  for (std::size_t k = 0; k + 1 < idx.size(); ++k) {
    ASSERT_FLOAT_EQ(v[static_cast<std::size_t>(idx[k])], s[k]) << k;
  }
  std::vector<std::int32_t> keys = {3, 1, 3, 0, 1};
  std::vector<std::int32_t> vals = {0, 1, 2, 3, 4};
  auto [sk, sv] = sort_by_key(array(keys, {5}, dev_), array(vals, {5}, dev_));
  EXPECT_EQ(sk.to_vector<std::int32_t>(), (std::vector<std::int32_t>{0, 1, 1, 3, 3}));
  EXPECT_EQ(sv.to_vector<std::int32_t>(), (std::vector<std::int32_t>{3, 1, 4, 0, 2}));  // stable
  EXPECT_THROW(sort(zeros({3}, vec(2, f32), dev_)), TypeError);
  EXPECT_THROW(sort_by_key(array(keys, {5}, dev_), array(vals, {5}, dev_).slice(0, 2)), ValueError);
}

// 1 Mi keys of a wide spread take the most-significant-digit-first sort (buckets sorted in
// cache); the caller's u32 keys are read in place and stay as they were.
TEST_P(SortsOnDevice, LargeSortsGoMostSignificantDigitFirst) {
  const std::size_t n = std::size_t{1} << 20;
  std::vector<std::uint32_t> keys(n);
  std::uint32_t state = 3;
  for (std::uint32_t& k : keys) {
    state = state * 1664525u + 1013904223u;
    k = (state >> 4) & 0xffff0fffu;  // duplicates: a stable order shows
  }
  const Array a = array(keys, {static_cast<std::int64_t>(n)}, dev_);
  std::vector<std::uint32_t> want = keys;
  std::stable_sort(want.begin(), want.end());
  EXPECT_EQ(sort(a).to_vector<std::uint32_t>(), want);
  EXPECT_EQ(a.to_vector<std::uint32_t>(), keys);
  std::vector<std::int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t x, std::int64_t y) {
    return keys[static_cast<std::size_t>(x)] < keys[static_cast<std::size_t>(y)];
  });
  EXPECT_EQ(argsort(a).to_vector<std::int64_t>(), order);
}

TEST_P(SortsOnDevice, GatherScatterUniqueAndSelection) {
  const Array x = arange(10, f32, dev_);
  const Array idx = array(std::vector<std::int64_t>{9, -1, 0}, {3}, dev_);
  EXPECT_EQ(gather(x, idx).to_vector<float>(), (std::vector<float>{9, 9, 0}));
  const Array out = zeros({4}, f32, dev_);
  scatter(array(std::vector<float>{5, 6}, {2}, dev_),
          array(std::vector<std::int64_t>{3, 0}, {2}, dev_), out);
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{6, 0, 0, 5}));
  EXPECT_THROW(gather(x, array(std::vector<std::int64_t>{10}, {1}, dev_)), IndexError);

  const Array d = array(std::vector<std::int32_t>{4, 1, 4, 4, 0, 1}, {6}, dev_);
  const Unique u = unique(d, true, true, true);
  EXPECT_EQ(u.values.to_vector<std::int32_t>(), (std::vector<std::int32_t>{0, 1, 4}));
  EXPECT_EQ(u.index->to_vector<std::int64_t>(), (std::vector<std::int64_t>{4, 1, 0}));
  EXPECT_EQ(u.inverse->to_vector<std::int64_t>(), (std::vector<std::int64_t>{2, 1, 2, 2, 0, 1}));
  EXPECT_EQ(u.counts->to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 2, 3}));

  const Array m = array(std::vector<std::int32_t>{0, 2, 0, 3, 0, 0}, {2, 3}, dev_);
  const std::vector<Array> nz = nonzero(m);
  ASSERT_EQ(nz.size(), 2u);
  EXPECT_EQ(nz[0].to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(nz[1].to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 0}));
  const Array rows = compress(array(std::vector<std::uint8_t>{0, 1}, {2}, dev_), m, 0);
  EXPECT_EQ(rows.shape(), (Shape{1, 3}));
  EXPECT_EQ(rows.to_vector<std::int32_t>(), (std::vector<std::int32_t>{3, 0, 0}));

  const Array sorted = array(std::vector<double>{1, 2, 2, 5}, {4}, dev_);
  const Array q = array(std::vector<double>{2, 6, 0}, {3}, dev_);
  EXPECT_EQ(searchsorted(sorted, q).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{1, 4, 0}));
  EXPECT_EQ(searchsorted(sorted, q, "right").to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{3, 4, 0}));

  auto [counts, edges] = histogram(array(std::vector<double>{0, 1, 1, 2, 3, 4}, {6}, dev_), 4);
  EXPECT_EQ(counts.to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 2, 1, 2}));
  EXPECT_EQ(edges.to_vector<double>(), (std::vector<double>{0, 1, 2, 3, 4}));
  EXPECT_THROW(histogram(sorted, 0), ValueError);
}

}  // namespace
}  // namespace tack
