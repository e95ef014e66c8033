// Views (reshape and row slices) with every rule of the "Array views" seed, written once and run
// on every device present (tests/common/on_device.hpp); results are read back through the API.
#include <gtest/gtest.h>

#include <numeric>

#include "common/on_device.hpp"
#include "memory/device_buffer.hpp"
#include "tack/tack.hpp"

namespace tack {
namespace {

class ViewsOnDevice : public test::ArraysOnDevice {
 protected:
  Array iota_rows(std::int64_t rows, std::int64_t cols) const {
    std::vector<float> v(static_cast<std::size_t>(rows * cols));
    std::iota(v.begin(), v.end(), 0.0f);
    return arr(v, {rows, cols});
  }
  // A read-only array over the memory of `owner` (wrapped, so read-only by default): the way to
  // get one on any device, since a device accepts only its own memory.
  Array read_only_over(const Array& owner, const Shape& shape) const {
    return array_from_ptr(owner.address(), owner.dtype(), shape, false, dev_);
  }
};

TACK_INSTANTIATE_ON_DEVICES(ViewsOnDevice);

TEST_P(ViewsOnDevice, SeedExample) {
  Array rows = zeros({6, 3}, f32, dev_);
  Array middle = rows.slice(2, 4);
  EXPECT_EQ(middle.device(), dev_);
  middle.fill(1.0);
  EXPECT_EQ(rows.item<float>({3, 0}), 1.0f);
  EXPECT_EQ(rows.item<float>({4, 0}), 0.0f);
  EXPECT_EQ(rows.item<float>({1, 2}), 0.0f);
}

TEST_P(ViewsOnDevice, PythonBounds) {
  Array a = iota_rows(6, 3);
  EXPECT_EQ(a.slice(-2, std::nullopt).shape(), (Shape{2, 3}));
  EXPECT_EQ(a.slice(-2, std::nullopt).item<float>({0, 0}), 12.0f);
  EXPECT_EQ(a.slice(std::nullopt, 100).shape(), (Shape{6, 3}));  // clamped
  EXPECT_EQ(a.slice(-100, 2).shape(), (Shape{2, 3}));
  EXPECT_EQ(a.slice(1, 1, 1).shape(), (Shape{0, 3}));
  EXPECT_EQ(a.slice(5, 2).shape(), (Shape{0, 3}));
}

TEST_P(ViewsOnDevice, EmptyRangeIsANewEmptyArray) {
  Array a = iota_rows(6, 3);
  Array e = a.slice(3, 3);
  EXPECT_FALSE(e.is_view());
  EXPECT_EQ(e.size(), 0);
  EXPECT_TRUE(e.writable());
  EXPECT_EQ(e.device(), dev_);
}

TEST_P(ViewsOnDevice, StepOtherThanOneIsRefused) {
  Array a = iota_rows(6, 3);
  EXPECT_THROW(a.slice(0, 6, 2), ValueError);
  EXPECT_NO_THROW(a.slice(0, 6, 1));
  EXPECT_THROW(zeros({}, f32, dev_).slice(0, 1), IndexError);
}

TEST_P(ViewsOnDevice, IndexBesideTheSliceIsRefused) {
  Array a = iota_rows(6, 3);
  EXPECT_THROW(a.index({Slice{1, 3, {}}, std::int64_t{0}}), TypeError);
  EXPECT_THROW(a.index({OtherIndex{"str"}}), TypeError);
  auto v = a.index({Slice{1, 3, {}}});
  EXPECT_EQ(std::get<Array>(v).shape(), (Shape{2, 3}));
}

TEST_P(ViewsOnDevice, ViewOfViewIsViewOfRoot) {
  Array a = iota_rows(6, 3);
  Array v1 = a.slice(1, 5);
  Array v2 = v1.slice(1, 3);  // rows 2 and 3 of a
  EXPECT_EQ(v2.item<float>({0, 0}), 6.0f);
  EXPECT_EQ(v2.buffer()->root().get(), a.buffer().get());
  EXPECT_EQ(v2.buffer()->offset_in_root(), 2u * 3 * 4);
  EXPECT_EQ(v2.address(), a.address() + 24);
}

TEST_P(ViewsOnDevice, ViewKeepsRootAlive) {
  std::optional<Array> v;
  {
    Array a = iota_rows(6, 3);
    v = a.slice(4, 6);
  }
  EXPECT_EQ(v->item<float>({1, 2}), 17.0f);  // ASan reports a use after free otherwise
}

TEST_P(ViewsOnDevice, ShareVersionAndSharedFlag) {
  Array a = zeros({6, 3}, f32, dev_);
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

TEST_P(ViewsOnDevice, InheritReadOnly) {
  Array owner = full({4, 3}, Scalar::from(1.0), f32, dev_);
  Array a = read_only_over(owner, {4, 3});
  EXPECT_FALSE(a.writable());
  Array v = a.slice(1, 2);
  EXPECT_FALSE(v.writable());
  EXPECT_THROW(v.fill(0.0), RuntimeError);
  EXPECT_FALSE(a.reshape({12}).writable());
  EXPECT_EQ(owner.to_vector<float>(), std::vector<float>(12, 1.0f));  // nothing written
}

TEST_P(ViewsOnDevice, ExportMemoryIsRefusedOnAView) {
  Array a = zeros({6, 3}, f32, dev_);
  try {
    a.slice(1, 2).export_memory();
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("export the root array"), std::string::npos);
  }
  // A reshape of a root covers the whole allocation: it may be exported like the root.
  EXPECT_NO_THROW(a.reshape({18}).export_memory());
}

TEST_P(ViewsOnDevice, ReshapeChecksCountAndSharesMemory) {
  Array a = iota_rows(6, 3);
  Array r = a.reshape({3, -1});
  EXPECT_EQ(r.shape(), (Shape{3, 6}));
  EXPECT_EQ(r.device(), dev_);
  r.fill(2.0);
  EXPECT_EQ(a.item<float>({5, 2}), 2.0f);
  EXPECT_THROW(a.reshape({4, 4}), ValueError);
  EXPECT_THROW(a.reshape({-1, -1}), ValueError);
}

TEST_P(ViewsOnDevice, WritesLandInTheRootOnly) {
  Array a = zeros({5, 2}, i32, dev_);
  const std::int32_t x[2] = {7, 8};
  copyto(a.slice(1, 3), HostView{x, ScalarType::i32, {2}, {}});
  EXPECT_EQ(a.to_vector<std::int32_t>(), (std::vector<std::int32_t>{0, 0, 7, 8, 7, 8, 0, 0, 0, 0}));
}

TEST_P(ViewsOnDevice, VectorArraysSliceByRow) {
  Array a = zeros({4}, vec(3, f32), dev_);
  Array v = a.slice(1, 3);
  EXPECT_EQ(v.numpy_shape(), (Shape{2, 3}));
  v.fill(1.0);
  auto all = a.to_vector<float>();
  EXPECT_EQ(all[2], 0.0f);
  EXPECT_EQ(all[3], 1.0f);
  EXPECT_EQ(all[8], 1.0f);
  EXPECT_EQ(all[9], 0.0f);
}

TEST_P(ViewsOnDevice, SoaSlicesComponentByComponent) {
  SoaArray s = empty_soa({6}, {f32, i32}, dev_);
  EXPECT_EQ(s.components()[0].device(), dev_);
  s.components()[0].fill(1.0);
  s.components()[1].fill(Scalar::from(std::int64_t{2}));
  SoaArray mid = s.slice(2, 4);
  ASSERT_EQ(mid.components().size(), 2u);
  EXPECT_EQ(mid.shape(), (Shape{2}));
  EXPECT_TRUE(mid.components()[1].is_view());
  mid.components()[1].fill(Scalar::from(std::int64_t{9}));
  EXPECT_EQ(s.components()[1].to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{2, 2, 9, 9, 2, 2}));
  EXPECT_THROW(SoaArray({zeros({2}, f32, dev_), zeros({3}, f32, dev_)}), ValueError);
}

TEST_P(ViewsOnDevice, RowViewsCoverTheirRowsBytes) {
  Array a = zeros({6, 3}, f32, dev_);
  Array v1 = a.slice(0, 2), v2 = a.slice(2, 4), v3 = a.slice(1, 3);
  EXPECT_EQ(v1.nbytes(), 24u);
  EXPECT_EQ(v2.address(), a.address() + 24);
  EXPECT_LE(v1.address() + v1.nbytes(), v2.address());  // disjoint views are disjoint
  EXPECT_LT(v3.address(), v1.address() + v1.nbytes());  // overlapping views overlap
}

// CPU only: span() is the host byte range of the CPU's disjointness check (the noalias variant);
// device buffers have none, and OpenCL compiles no disjoint specialization.
TEST(Views, DisjointRowViewsHaveDisjointSpans) {
  Array a = zeros({6, 3}, f32, device("cpu"));
  auto s1 = *a.slice(0, 2).buffer()->span();
  auto s2 = *a.slice(2, 4).buffer()->span();
  auto s3 = *a.slice(1, 3).buffer()->span();
  EXPECT_LE(s1.end, s2.begin);
  EXPECT_LT(s3.begin, s1.end);  // overlapping views overlap
}

// A buffer whose new allocations read as zeros (no backend of Tack's has one): its views must
// not say so, since their bytes are whatever the root holds.
class ZeroedBuffer final : public detail::DeviceBuffer {
 public:
  explicit ZeroedBuffer(std::size_t n)
      : DeviceBuffer(n, std::make_shared<detail::AllocationState>()), bytes_(n) {}
  std::uintptr_t address() const override {
    return reinterpret_cast<std::uintptr_t>(bytes_.data());
  }
  void from_host(const void*, std::size_t, std::size_t) override {}
  void to_host(void*, std::size_t, std::size_t) const override {}
  void fill(const void*, std::size_t) override {}
  std::string_view backend_name() const override { return "zeroed"; }
  std::shared_ptr<detail::Backend> backend() const override { return nullptr; }
  const detail::Backend* backend_ptr() const noexcept override { return nullptr; }

 protected:
  std::shared_ptr<DeviceBuffer> make_view_impl(std::size_t, std::size_t count) override {
    return std::make_shared<ZeroedBuffer>(count);
  }
  bool allocation_starts_zeroed() const override { return true; }

 private:
  std::vector<std::byte> bytes_;
};

TEST(Views, AViewNeverStartsZeroed) {
  auto root = std::make_shared<ZeroedBuffer>(64);
  EXPECT_TRUE(root->starts_zeroed());
  auto view = root->make_view(8, 16);
  EXPECT_TRUE(view->is_view());
  EXPECT_FALSE(view->starts_zeroed());
  EXPECT_FALSE(view->make_view(0, 8)->starts_zeroed());  // a view of a view: of the root
}

}  // namespace
}  // namespace tack
