// DLPack in C++: export/import round trips, holds, read-only flag, contiguity, bad tensors.
#include <gtest/gtest.h>

#include "tack/tack.hpp"

namespace tack {
namespace {

// A producer the tests control: counts its deleter calls.
struct Producer {
  std::vector<float> data;
  std::vector<std::int64_t> shape, strides;
  int* deleted;
};

dlpack::ManagedTensorVersioned* make_tensor(int* deleted, std::vector<std::int64_t> shape,
                                            std::vector<std::int64_t> strides = {},
                                            std::uint64_t flags = 0) {
  auto* p =
      new Producer{std::vector<float>(64, 1.5f), std::move(shape), std::move(strides), deleted};
  auto* m = new dlpack::ManagedTensorVersioned{};
  m->version = {1, 0};
  m->manager_ctx = p;
  m->flags = flags;
  m->deleter = [](dlpack::ManagedTensorVersioned* self) {
    auto* prod = static_cast<Producer*>(self->manager_ctx);
    ++*prod->deleted;
    delete prod;
    delete self;
  };
  m->dl_tensor.data = p->data.data();
  m->dl_tensor.device = {dlpack::kCPU, 0};
  m->dl_tensor.ndim = static_cast<std::int32_t>(p->shape.size());
  m->dl_tensor.dtype = {dlpack::kFloat, 32, 1};
  m->dl_tensor.shape = p->shape.data();
  m->dl_tensor.strides = p->strides.empty() ? nullptr : p->strides.data();
  m->dl_tensor.byte_offset = 0;
  return m;
}

TEST(DLPack, ImportHoldsProducerUntilLastView) {
  int deleted = 0;
  std::optional<Array> view;
  {
    Array a = from_dlpack(make_tensor(&deleted, {4, 4}));
    EXPECT_TRUE(a.writable());
    EXPECT_EQ(a.item<float>({3, 3}), 1.5f);
    view = a.slice(1, 2);
  }
  EXPECT_EQ(deleted, 0);
  view.reset();
  EXPECT_EQ(deleted, 1);
}

TEST(DLPack, ReadOnlyTensorImportsReadOnly) {
  int deleted = 0;
  {
    Array a = from_dlpack(make_tensor(&deleted, {8}, {}, dlpack::kFlagReadOnly));
    EXPECT_FALSE(a.writable());
    EXPECT_THROW(a.fill(0.0), RuntimeError);
  }
  EXPECT_EQ(deleted, 1);
}

TEST(DLPack, NonContiguousRefusedUnlessCopy) {
  int deleted = 0;
  auto* m = make_tensor(&deleted, {4, 2}, {4, 2});  // every other column
  EXPECT_THROW(from_dlpack(m), ValueError);
  EXPECT_EQ(deleted, 0);  // on failure the caller still owns it
  Array c = from_dlpack(m, true);
  EXPECT_EQ(deleted, 1);  // copied: released at once
  EXPECT_EQ(c.shape(), (Shape{4, 2}));
  EXPECT_TRUE(c.writable());
}

TEST(DLPack, UnsupportedTypesAndDevicesAreRefused) {
  int deleted = 0;
  auto* m = make_tensor(&deleted, {4});
  m->dl_tensor.dtype = {dlpack::kFloat, 16, 1};
  EXPECT_THROW(from_dlpack(m), TypeError);
  m->dl_tensor.dtype = {dlpack::kFloat, 32, 1};
  m->dl_tensor.device = {dlpack::kCUDA, 0};
  EXPECT_THROW(from_dlpack(m), ValueError);
  m->dl_tensor.device = {dlpack::kCPU, 0};
  m->version = {2, 0};
  EXPECT_THROW(from_dlpack(m), ValueError);
  m->deleter(m);
  EXPECT_EQ(deleted, 1);
}

TEST(DLPack, ExportMarksSharedAndKeepsAlive) {
  dlpack::ManagedTensorVersioned* m;
  {
    Array a = full({3, 2}, Scalar::from(4.0), f64);
    m = to_dlpack_versioned(a);
    EXPECT_TRUE(a.shared());
    EXPECT_EQ(m->flags, 0u);
  }
  EXPECT_EQ(m->dl_tensor.ndim, 2);
  EXPECT_EQ(m->dl_tensor.shape[1], 2);
  EXPECT_EQ(static_cast<double*>(m->dl_tensor.data)[5], 4.0);
  m->deleter(m);
}

TEST(DLPack, ExportOfViewAndRoundTrip) {
  Array a = zeros({6, 3});
  Array mid = a.slice(2, 4);
  Array back = from_dlpack(to_dlpack_versioned(mid));
  back.fill(7.0);
  EXPECT_EQ(a.item<float>({2, 0}), 7.0f);
  EXPECT_EQ(a.item<float>({4, 0}), 0.0f);
}

TEST(DLPack, ReadOnlyExport) {
  std::vector<float> host(4, 1.0f);
  Array ro = array_from_ptr(reinterpret_cast<std::uintptr_t>(host.data()), f32, {4});
  auto* m = to_dlpack_versioned(ro);
  EXPECT_EQ(m->flags & dlpack::kFlagReadOnly, dlpack::kFlagReadOnly);
  m->deleter(m);
  EXPECT_THROW(to_dlpack(ro), ValueError);
  auto* legacy = to_dlpack(ro, true);
  legacy->deleter(legacy);
}

}  // namespace
}  // namespace tack
