// tack::arrays::Strided through the public C++ API, on every device present: rows and bounds,
// to_vector and copy, kernels reading and writing every step-th row (1-3 dimensions, vectors,
// atomics, a view as base), writes counted against the base's allocation, refusals with what to
// do, debug-mode bounds against its own rows, and the CPU's disjointness over the spanned bytes.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/on_device.hpp"
#include "tack/tack.hpp"

namespace tack {
namespace {

using arrays::Strided;
using test::expect_error;

class StridedOnDevice : public test::ArraysOnDevice {};

std::vector<float> iota(int n) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = static_cast<float>(i);
  return v;
}

const Kernel& copy_rows() {
  static const Kernel k = kernel(R"(
def st_copy(src, out):
    for i in range(src.shape[0]):
        out[i] = src[i]
)");
  return k;
}

const Kernel& scale_2d() {
  static const Kernel k = kernel(R"(
def st_scale(a, s):
    for i, j in tack.ndrange(a.shape[0], a.shape[1]):
        a[i, j] = a[i, j] * s
)");
  return k;
}

TEST_P(StridedOnDevice, RowsAreEveryStepThRow) {
  Array a = arr(iota(10));
  Strided s(a, 1, 3);
  EXPECT_EQ(s.count(), 3);
  EXPECT_EQ(s.shape(), (Shape{3}));
  EXPECT_EQ(s.to_vector<float>(), (std::vector<float>{1, 4, 7}));
  EXPECT_EQ(s.copy().to_vector<float>(), (std::vector<float>{1, 4, 7}));
  EXPECT_EQ(Strided(a, -1, 2).to_vector<float>(), (std::vector<float>{9}));
  EXPECT_EQ(Strided(a, 0, 4, 2).to_vector<float>(), (std::vector<float>{0, 4}));
  EXPECT_EQ(s.span_nbytes(), 7 * sizeof(float));  // rows 1 to 7, gaps included
}

TEST_P(StridedOnDevice, BadArgumentsSayWhatToDo) {
  Array a = arr(iota(10));
  expect_error<ValueError>([&] { Strided(a, 0, 0); }, {"step is 0", "at least 1"});
  expect_error<IndexError>([&] { Strided(a, 10, 1); }, {"start 10", "[-10, 10)"});
  expect_error<ValueError>([&] { Strided(a, 1, 3, 4); }, {"need row 10", "at most 3 fit"});
  expect_error<IndexError>([&] { Strided(zeros({}), 0, 2); }, {"zero-dimensional"});
  expect_error<ValueError>([&] { a.slice(0, 10, 2); }, {"tack.arrays.Strided(a, start, 2)"});
  Strided s(a, 0, 2);
  expect_error<ValueError>([&] { s.refuse_export("export_memory()"); },
                           {"export_memory() of a tack.arrays.Strided is refused", "s.copy()"});
}

TEST_P(StridedOnDevice, KernelsReadAndWriteEveryStepThRow) {
  Array a = arr(iota(12), {6, 2});
  const std::uint64_t before = a.version();
  Strided s(a, 1, 2);  // rows 1, 3, 5
  scale_2d()(s, 10.0f);
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{0, 1, 20, 30, 4, 5, 60, 70, 8, 9, 100, 110}));
  EXPECT_GT(a.version(), before);
  static const Kernel copy2 = kernel(R"(
def st_copy2(src, out):
    for i, j in tack.ndrange(src.shape[0], src.shape[1]):
        out[i, j] = src[i, j]
)");
  Array out = zeros({3, 2});
  copy2(Strided(a, 0, 2), out);  // a 2-D strided argument read
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{0, 1, 4, 5, 8, 9}));  // rows 0, 2, 4
}

TEST_P(StridedOnDevice, ThreeDimensionsVectorsAndViews) {
  static const Kernel copy3 = kernel(R"(
def st_copy3(src, out):
    for i, j, k in tack.ndrange(src.shape[0], src.shape[1], src.shape[2]):
        out[i, j, k] = src[i, j, k]
)");
  Array a = arr(iota(5 * 2 * 2), {5, 2, 2});
  Array out = zeros({2, 2, 2});
  copy3(Strided(a, 1, 3), out);  // rows 1 and 4
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{4, 5, 6, 7, 16, 17, 18, 19}));

  Array v = array(iota(12), {12}, dev_).reshape({4, 3});
  Array vec3 = empty({4}, vec(3, f32));
  copyto(vec3, v);
  Array vout = empty({2}, vec(3, f32));
  copy_rows()(Strided(vec3, 1, 2), vout);
  EXPECT_EQ(vout.to_vector<float>(), (std::vector<float>{3, 4, 5, 9, 10, 11}));

  Array base = arr(iota(20));
  Array part = zeros({3});
  copy_rows()(Strided(base.slice(5, 15), 1, 3), part);
  EXPECT_EQ(part.to_vector<float>(), (std::vector<float>{6, 9, 12}));
}

TEST_P(StridedOnDevice, AtomicsIntoAStridedTarget) {
  static const Kernel count = kernel(R"(
def st_count(idx, counts):
    for i in range(len(idx)):
        tack.atomic_add(counts, idx[i], 1)
)");
  Array counts = zeros({8}, i32);
  Array idx = array(std::vector<std::int32_t>{0, 1, 1, 3, 3, 3}, {6}, dev_);
  count(idx, Strided(counts, 0, 2));
  EXPECT_EQ(counts.to_vector<std::int32_t>(), (std::vector<std::int32_t>{1, 0, 2, 0, 0, 0, 3, 0}));
}

TEST_P(StridedOnDevice, DebugModeChecksItsOwnRows) {
  static const Kernel past = kernel(R"(
def st_past(src, out):
    for i in range(len(out)):
        out[i] = src[i]
)");
  Array a = arr(iota(10));
  Array out = zeros({6});
  set_debug(true);
  expect_error<IndexError>([&] { past(Strided(a, 0, 2), out); },
                           {"index 5 is out of bounds for axis 0 of array 'src' with shape (5,)"});
  set_debug(false);
}

TACK_INSTANTIATE_ON_DEVICES(StridedOnDevice);

TEST(StridedCpu, ReadOnlyBaseIsRefusedBeforeLaunch) {
  std::vector<float> host = iota(8);
  Array ro =
      array_from_ptr(reinterpret_cast<std::uintptr_t>(host.data()), f32, {8}, false, device("cpu"));
  static const Kernel add_one = kernel(R"(
def st_add_one(a):
    for i in range(len(a)):
        a[i] = a[i] + 1
)");
  Strided s(ro, 0, 2);
  EXPECT_FALSE(s.writable());
  expect_error<ValueError>([&] { add_one(s); }, {"read-only"});
  EXPECT_EQ(host, iota(8));
}

TEST(StridedCpu, DisjointnessReadsTheSpannedBytes) {
  static const Kernel shift = kernel(R"(
def st_shift(a, b):
    for i in range(len(a)):
        b[i] = a[i] + 10.0
)");
  Array a = array(iota(16), {16}, device("cpu"));
  const auto noalias = [&](const Strided& x, const Strided& y) {
    return inspect(shift, {x, y}, "source").find("noalias") != std::string::npos;
  };
  EXPECT_FALSE(noalias(Strided(a, 0, 2), Strided(a, 1, 2)));  // interleaved byte ranges
  EXPECT_TRUE(noalias(Strided(a.slice(0, 8), 0, 2), Strided(a.slice(8, 16), 0, 2)));
  shift(Strided(a, 0, 2), Strided(a, 1, 2));
  std::vector<float> want = iota(16);
  for (int i = 1; i < 16; i += 2) want[static_cast<std::size_t>(i)] = want[i - 1] + 10;
  EXPECT_EQ(a.to_vector<float>(), want);
}

}  // namespace
}  // namespace tack
