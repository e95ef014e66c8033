// Views (reshape and row slices) with every rule of the "Array views" seed.
#include <gtest/gtest.h>

#include <numeric>

#include "memory/device_buffer.hpp"
#include "tack/tack.hpp"

namespace tack {
namespace {

Array iota_rows(std::int64_t rows, std::int64_t cols) {
  std::vector<float> v(static_cast<std::size_t>(rows * cols));
  std::iota(v.begin(), v.end(), 0.0f);
  return array(v, {rows, cols});
}

TEST(Views, SeedExample) {
  Array rows = zeros({6, 3});
  Array middle = rows.slice(2, 4);
  middle.fill(1.0);
  EXPECT_EQ(rows.item<float>({3, 0}), 1.0f);
  EXPECT_EQ(rows.item<float>({4, 0}), 0.0f);
  EXPECT_EQ(rows.item<float>({1, 2}), 0.0f);
}

TEST(Views, PythonBounds) {
  Array a = iota_rows(6, 3);
  EXPECT_EQ(a.slice(-2, std::nullopt).shape(), (Shape{2, 3}));
  EXPECT_EQ(a.slice(-2, std::nullopt).item<float>({0, 0}), 12.0f);
  EXPECT_EQ(a.slice(std::nullopt, 100).shape(), (Shape{6, 3}));  // clamped
  EXPECT_EQ(a.slice(-100, 2).shape(), (Shape{2, 3}));
  EXPECT_EQ(a.slice(1, 1, 1).shape(), (Shape{0, 3}));
  EXPECT_EQ(a.slice(5, 2).shape(), (Shape{0, 3}));
}

TEST(Views, EmptyRangeIsANewEmptyArray) {
  Array a = iota_rows(6, 3);
  Array e = a.slice(3, 3);
  EXPECT_FALSE(e.is_view());
  EXPECT_EQ(e.size(), 0);
  EXPECT_TRUE(e.writable());
}

TEST(Views, StepOtherThanOneIsRefused) {
  Array a = iota_rows(6, 3);
  EXPECT_THROW(a.slice(0, 6, 2), ValueError);
  EXPECT_NO_THROW(a.slice(0, 6, 1));
  EXPECT_THROW(zeros({}).slice(0, 1), IndexError);
}

TEST(Views, IndexBesideTheSliceIsRefused) {
  Array a = iota_rows(6, 3);
  EXPECT_THROW(a.index({Slice{1, 3, {}}, std::int64_t{0}}), TypeError);
  EXPECT_THROW(a.index({OtherIndex{"str"}}), TypeError);
  auto v = a.index({Slice{1, 3, {}}});
  EXPECT_EQ(std::get<Array>(v).shape(), (Shape{2, 3}));
}

TEST(Views, ViewOfViewIsViewOfRoot) {
  Array a = iota_rows(6, 3);
  Array v1 = a.slice(1, 5);
  Array v2 = v1.slice(1, 3);  // rows 2 and 3 of a
  EXPECT_EQ(v2.item<float>({0, 0}), 6.0f);
  EXPECT_EQ(v2.buffer()->root().get(), a.buffer().get());
  EXPECT_EQ(v2.buffer()->offset_in_root(), 2u * 3 * 4);
  EXPECT_EQ(v2.address(), a.address() + 24);
}

TEST(Views, ViewKeepsRootAlive) {
  std::optional<Array> v;
  {
    Array a = iota_rows(6, 3);
    v = a.slice(4, 6);
  }
  EXPECT_EQ(v->item<float>({1, 2}), 17.0f);  // ASan reports a use after free otherwise
}

TEST(Views, ShareVersionAndSharedFlag) {
  Array a = zeros({6, 3});
  Array v = a.slice(0, 2);
  Array w = a.slice(4, 6);
  auto v0 = a.version();
  w.fill(3.0);
  EXPECT_EQ(a.version(), v0 + 1);
  EXPECT_EQ(v.version(), v0 + 1);
  EXPECT_FALSE(v.shared());
  a.export_memory();
  EXPECT_TRUE(v.shared());
  EXPECT_TRUE(w.shared());
}

TEST(Views, InheritReadOnly) {
  std::vector<float> host(12, 1.0f);
  Array a = array_from_ptr(reinterpret_cast<std::uintptr_t>(host.data()), f32, {4, 3});
  Array v = a.slice(1, 2);
  EXPECT_FALSE(v.writable());
  EXPECT_THROW(v.fill(0.0), RuntimeError);
  EXPECT_FALSE(a.reshape({12}).writable());
}

TEST(Views, ExportMemoryIsRefusedOnAView) {
  Array a = zeros({6, 3});
  try {
    a.slice(1, 2).export_memory();
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("export the root array"), std::string::npos);
  }
  // A reshape of a root covers the whole allocation: it may be exported like the root.
  EXPECT_NO_THROW(a.reshape({18}).export_memory());
}

TEST(Views, ReshapeChecksCountAndSharesMemory) {
  Array a = iota_rows(6, 3);
  Array r = a.reshape({3, -1});
  EXPECT_EQ(r.shape(), (Shape{3, 6}));
  r.fill(2.0);
  EXPECT_EQ(a.item<float>({5, 2}), 2.0f);
  EXPECT_THROW(a.reshape({4, 4}), ValueError);
  EXPECT_THROW(a.reshape({-1, -1}), ValueError);
}

TEST(Views, WritesLandInTheRootOnly) {
  Array a = zeros({5, 2}, i32);
  const std::int32_t x[2] = {7, 8};
  copyto(a.slice(1, 3), HostView{x, ScalarType::i32, {2}, {}});
  EXPECT_EQ(a.to_vector<std::int32_t>(), (std::vector<std::int32_t>{0, 0, 7, 8, 7, 8, 0, 0, 0, 0}));
}

TEST(Views, VectorArraysSliceByRow) {
  Array a = zeros({4}, vec(3, f32));
  Array v = a.slice(1, 3);
  EXPECT_EQ(v.numpy_shape(), (Shape{2, 3}));
  v.fill(1.0);
  auto all = a.to_vector<float>();
  EXPECT_EQ(all[2], 0.0f);
  EXPECT_EQ(all[3], 1.0f);
  EXPECT_EQ(all[8], 1.0f);
  EXPECT_EQ(all[9], 0.0f);
}

TEST(Views, SoaSlicesComponentByComponent) {
  SoaArray s = empty_soa({6}, {f32, i32});
  s.components()[0].fill(1.0);
  s.components()[1].fill(Scalar::from(std::int64_t{2}));
  SoaArray mid = s.slice(2, 4);
  ASSERT_EQ(mid.components().size(), 2u);
  EXPECT_EQ(mid.shape(), (Shape{2}));
  EXPECT_TRUE(mid.components()[1].is_view());
  mid.components()[1].fill(Scalar::from(std::int64_t{9}));
  EXPECT_EQ(s.components()[1].to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{2, 2, 9, 9, 2, 2}));
  EXPECT_THROW(SoaArray({zeros({2}), zeros({3})}), ValueError);
}

TEST(Views, DisjointRowViewsHaveDisjointSpans) {
  Array a = zeros({6, 3});
  auto s1 = *a.slice(0, 2).buffer()->span();
  auto s2 = *a.slice(2, 4).buffer()->span();
  auto s3 = *a.slice(1, 3).buffer()->span();
  EXPECT_LE(s1.end, s2.begin);
  EXPECT_LT(s3.begin, s1.end);  // overlapping views overlap
}

}  // namespace
}  // namespace tack
