// DLPack in C++: export/import round trips, holds, read-only flag, contiguity, bad tensors.
// Written once and run on every device present (tests/common/on_device.hpp): the producer's
// memory is an array of the test's device, and everything is read back through the API.
#include <gtest/gtest.h>

#include "common/on_device.hpp"
#include "tack/tack.hpp"

namespace tack {
namespace {

// A producer the tests control: its memory is a Tack array of the device; counts its deleter
// calls.
struct Producer {
  Array storage;
  std::vector<std::int64_t> shape, strides;
  int* deleted;
};

class DLPackOnDevice : public test::ArraysOnDevice {
 protected:
  dlpack::ManagedTensorVersioned* make_tensor(int* deleted, std::vector<std::int64_t> shape,
                                              std::vector<std::int64_t> strides = {},
                                              std::uint64_t flags = 0) const {
    auto* p = new Producer{full({64}, Scalar::from(1.5), f32, dev_), std::move(shape),
                           std::move(strides), deleted};
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
    m->dl_tensor.data = reinterpret_cast<void*>(p->storage.address());
    m->dl_tensor.device = dlpack_device(p->storage);
    m->dl_tensor.ndim = static_cast<std::int32_t>(p->shape.size());
    m->dl_tensor.dtype = {dlpack::kFloat, 32, 1};
    m->dl_tensor.shape = p->shape.data();
    m->dl_tensor.strides = p->strides.empty() ? nullptr : p->strides.data();
    m->dl_tensor.byte_offset = 0;
    return m;
  }
};

TACK_INSTANTIATE_ON_DEVICES(DLPackOnDevice);

TEST_P(DLPackOnDevice, ImportHoldsProducerUntilLastView) {
  int deleted = 0;
  std::optional<Array> view;
  {
    Array a = from_dlpack(make_tensor(&deleted, {4, 4}), std::nullopt, dev_);
    EXPECT_EQ(a.device(), dev_);
    EXPECT_TRUE(a.writable());
    EXPECT_EQ(a.item<float>({3, 3}), 1.5f);
    view = a.slice(1, 2);
  }
  EXPECT_EQ(deleted, 0);
  EXPECT_EQ(view->to_vector<float>(), std::vector<float>(4, 1.5f));
  view.reset();
  EXPECT_EQ(deleted, 1);
}

TEST_P(DLPackOnDevice, ReadOnlyTensorImportsReadOnly) {
  int deleted = 0;
  {
    Array a =
        from_dlpack(make_tensor(&deleted, {8}, {}, dlpack::kFlagReadOnly), std::nullopt, dev_);
    EXPECT_FALSE(a.writable());
    EXPECT_THROW(a.fill(0.0), RuntimeError);
    EXPECT_EQ(a.to_vector<float>(), std::vector<float>(8, 1.5f));
  }
  EXPECT_EQ(deleted, 1);
}

TEST_P(DLPackOnDevice, NonContiguousRefusedUnlessCopy) {
  int deleted = 0;
  auto* m = make_tensor(&deleted, {4, 2}, {4, 2});  // every other column
  EXPECT_THROW(from_dlpack(m, std::nullopt, dev_), ValueError);
  EXPECT_EQ(deleted, 0);  // on failure the caller still owns it
  Array c = from_dlpack(m, true, dev_);
  EXPECT_EQ(deleted, 1);  // copied: released at once
  EXPECT_EQ(c.device(), dev_);
  EXPECT_EQ(c.shape(), (Shape{4, 2}));
  EXPECT_TRUE(c.writable());
  EXPECT_EQ(c.to_vector<float>(), std::vector<float>(8, 1.5f));
}

TEST_P(DLPackOnDevice, UnsupportedTypesAndDevicesAreRefused) {
  int deleted = 0;
  auto* m = make_tensor(&deleted, {4});
  const dlpack::Device own = m->dl_tensor.device;
  m->dl_tensor.dtype = {dlpack::kFloat, 16, 1};
  EXPECT_THROW(from_dlpack(m, std::nullopt, dev_), TypeError);
  m->dl_tensor.dtype = {dlpack::kFloat, 32, 1};
  // A device no backend here holds (CUDA, unless the test runs on a CUDA device).
  m->dl_tensor.device = {own.device_type == dlpack::kCUDA ? dlpack::kROCM : dlpack::kCUDA, 0};
  EXPECT_THROW(from_dlpack(m, std::nullopt, dev_), ValueError);
  m->dl_tensor.device = own;
  m->version = {2, 0};
  EXPECT_THROW(from_dlpack(m, std::nullopt, dev_), ValueError);
  m->deleter(m);
  EXPECT_EQ(deleted, 1);
}

// Issue 8: a tensor whose byte count passes 2**64 ((2**62,) of f32 wrapped to 0 bytes) was
// imported.
TEST_P(DLPackOnDevice, ATensorPastTwoToTheSixtyFourBytesIsRefused) {
  int deleted = 0;
  for (const auto& shape : {std::vector<std::int64_t>{std::int64_t{1} << 62},
                            std::vector<std::int64_t>{std::int64_t{1} << 31, std::int64_t{1} << 31},
                            std::vector<std::int64_t>{std::int64_t{1} << 61, 2}}) {
    auto* m = make_tensor(&deleted, shape);
    try {
      from_dlpack(m, std::nullopt, dev_);
      ADD_FAILURE() << "imported";
    } catch (const ValueError& e) {
      EXPECT_NE(std::string(e.what()).find("more bytes than fit in 64 bits"), std::string::npos)
          << e.what();
    }
    m->deleter(m);
  }
  EXPECT_EQ(deleted, 3);
}

// Issue 8: the exporter's deleter runs once, however often a consumer calls it, while a holder
// (the Python capsule) keeps its second reference; ASan reports a double free otherwise.
TEST_P(DLPackOnDevice, TheExportDeleterReleasesOnce) {
  Array a = full({5}, Scalar::from(2.0), f32, dev_);
  std::shared_ptr<void> keep;
  auto* m = detail::to_dlpack_versioned(a, false, &keep);
  ASSERT_NE(keep, nullptr);
  m->deleter(m);
  m->deleter(m);  // a consumer's mistake: nothing left to release
  keep.reset();   // the capsule goes: the tensor's memory with it
  auto* legacy = detail::to_dlpack(a, false, &keep);
  legacy->deleter(legacy);
  legacy->deleter(legacy);
  keep.reset();
  // Without a holder the deleter frees at once, as before.
  auto* plain = to_dlpack_versioned(a);
  plain->deleter(plain);
  EXPECT_EQ(a.to_vector<float>()[4], 2.0f);
}

TEST_P(DLPackOnDevice, ExportMarksSharedAndKeepsAlive) {
  dlpack::ManagedTensorVersioned* m;
  {
    Array a = full({3, 2}, Scalar::from(4.0), f64, dev_);
    m = to_dlpack_versioned(a);
    EXPECT_TRUE(a.shared());
    EXPECT_EQ(m->flags, 0u);
    const dlpack::Device d = dlpack_device(a);
    EXPECT_EQ(m->dl_tensor.device.device_type, d.device_type);
    EXPECT_EQ(m->dl_tensor.device.device_id, d.device_id);
  }
  EXPECT_EQ(m->dl_tensor.ndim, 2);
  EXPECT_EQ(m->dl_tensor.shape[1], 2);
  // The array is gone and the tensor keeps its memory alive: imported again (a device accepts
  // only memory inside one of its live allocations), it reads back through the API.
  Array back = from_dlpack(m, std::nullopt, dev_);
  EXPECT_EQ(back.item<double>({2, 1}), 4.0);
}

TEST_P(DLPackOnDevice, ExportOfViewAndRoundTrip) {
  Array a = zeros({6, 3}, f32, dev_);
  Array mid = a.slice(2, 4);
  Array back = from_dlpack(to_dlpack_versioned(mid), std::nullopt, dev_);
  EXPECT_EQ(back.device(), dev_);
  back.fill(7.0);
  EXPECT_EQ(a.item<float>({2, 0}), 7.0f);
  EXPECT_EQ(a.item<float>({4, 0}), 0.0f);
}

TEST_P(DLPackOnDevice, ReadOnlyExport) {
  Array owner = full({4}, Scalar::from(1.0), f32, dev_);
  Array ro = array_from_ptr(owner.address(), f32, {4}, false, dev_);
  auto* m = to_dlpack_versioned(ro);
  EXPECT_EQ(m->flags & dlpack::kFlagReadOnly, dlpack::kFlagReadOnly);
  m->deleter(m);
  EXPECT_THROW(to_dlpack(ro), ValueError);
  auto* legacy = to_dlpack(ro, true);
  legacy->deleter(legacy);
}

// CPU only: a producer of plain host memory (a std::vector, as NumPy's), wrapped without a copy.
TEST(DLPack, HostProducerIsWrappedWithoutACopy) {
  struct HostProducer {
    std::vector<float> data = std::vector<float>(8, 1.5f);
    std::int64_t shape[1] = {8};
    int* deleted;
  };
  int deleted = 0;
  auto* p = new HostProducer{};
  p->deleted = &deleted;
  auto* m = new dlpack::ManagedTensorVersioned{};
  m->version = {1, 0};
  m->manager_ctx = p;
  m->deleter = [](dlpack::ManagedTensorVersioned* self) {
    auto* prod = static_cast<HostProducer*>(self->manager_ctx);
    ++*prod->deleted;
    delete prod;
    delete self;
  };
  m->dl_tensor = {p->data.data(), {dlpack::kCPU, 0}, 1, {dlpack::kFloat, 32, 1},
                  p->shape,       nullptr,           0};
  {
    Array a = from_dlpack(m, std::nullopt, device("cpu"));
    EXPECT_EQ(a.address(), reinterpret_cast<std::uintptr_t>(p->data.data()));
    a.fill(2.0);
    EXPECT_EQ(p->data, std::vector<float>(8, 2.0f));  // the producer's own memory was written
    EXPECT_EQ(deleted, 0);
  }
  EXPECT_EQ(deleted, 1);
}

// CPU only: reads an exported tensor through its raw data pointer, host memory on the CPU only.
TEST(DLPack, ExportedHostTensorIsReadThroughItsPointer) {
  dlpack::ManagedTensorVersioned* m;
  {
    Array a = full({3, 2}, Scalar::from(4.0), f64, device("cpu"));
    m = to_dlpack_versioned(a);
  }
  EXPECT_EQ(static_cast<double*>(m->dl_tensor.data)[5], 4.0);
  m->deleter(m);
}

}  // namespace
}  // namespace tack
