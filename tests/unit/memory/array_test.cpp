// Arrays: constructors, fills, element reads, host transfers, read-only rules, ownership. Every
// device-independent rule is written once and run on every device present
// (tests/common/on_device.hpp), reading back through the API; the rules of host memory stay
// CPU-only tests at the end.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "common/on_device.hpp"
#include "memory/device_buffer.hpp"
#include "tack/tack.hpp"

namespace tack {
namespace {

template <class E, class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected exception not thrown";
  return {};
}

class ArrayOnDevice : public test::ArraysOnDevice {};

TACK_INSTANTIATE_ON_DEVICES(ArrayOnDevice);

TEST_P(ArrayOnDevice, ZerosOnesFullFill) {
  Array z = zeros({6, 3}, f32, dev_);
  EXPECT_EQ(z.device(), dev_);
  EXPECT_EQ(z.shape(), (Shape{6, 3}));
  EXPECT_EQ(z.dtype(), f32);
  for (float v : z.to_vector<float>()) EXPECT_EQ(v, 0.0f);
  Array o = ones({4}, i64, dev_);
  EXPECT_EQ(o.device(), dev_);
  for (auto v : o.to_vector<std::int64_t>()) EXPECT_EQ(v, 1);
  Array f = full({3, 2}, Scalar::from(2.5), f64, dev_);
  EXPECT_EQ(f.device(), dev_);
  for (auto v : f.to_vector<double>()) EXPECT_EQ(v, 2.5);
  // Without a device argument: the default device (the test's).
  EXPECT_EQ(zeros({2}).device(), dev_);
}

TEST_P(ArrayOnDevice, EveryScalarTypeRoundTrips) {
  const DType types[] = {i8, i16, i32, i64, u8, u16, u32, u64, f32, f64};
  for (DType t : types) {
    Array a = full({5}, Scalar::from(std::int64_t{7}), t, dev_);
    std::vector<std::byte> raw(a.nbytes());
    a.to_host(raw.data(), raw.size());
    Scalar s = load_scalar(t.scalar, raw.data() + 2 * t.itemsize());
    EXPECT_EQ(s.as_double(), 7.0) << t.str();
    EXPECT_EQ(a.nbytes(), 5 * itemsize(t.scalar));
  }
}

TEST_P(ArrayOnDevice, LargeFillIsCorrect) {
  // 1 MiB: over the CPU's parallel threshold.
  Array a = empty({262144}, u32, dev_);
  a.fill(Scalar::from(std::int64_t{0xdeadbeef}));
  auto v = a.to_vector<std::uint32_t>();
  for (std::size_t i = 0; i < v.size(); i += 997) ASSERT_EQ(v[i], 0xdeadbeefu);
  EXPECT_EQ(v.back(), 0xdeadbeefu);
}

TEST_P(ArrayOnDevice, FillValueMustFitTheDtype) {
  auto msg = error_of<ValueError>([&] { full({2}, Scalar::from(std::int64_t{300}), u8, dev_); });
  EXPECT_NE(msg.find("300 does not fit in u8"), std::string::npos) << msg;
  error_of<ValueError>([&] { full({2}, Scalar::from(1e300), i32, dev_); });
  Array a = zeros({2}, i8, dev_);
  error_of<ValueError>([&] { a.fill(Scalar::from(std::int64_t{-129})); });
  EXPECT_EQ(a.to_vector<std::int8_t>(), (std::vector<std::int8_t>{0, 0}));  // nothing written
}

// ScalarType is shared with the kernel IR, whose comparisons have type boolean; no array holds it.
TEST_P(ArrayOnDevice, NoArrayHoldsBool) {
  const DType b{ScalarType::boolean};
  auto msg = error_of<TypeError>([&] { zeros({2}, b, dev_); });
  EXPECT_NE(msg.find("tack.empty: no array holds bool elements"), std::string::npos) << msg;
  EXPECT_NE(msg.find("use u8"), std::string::npos) << msg;
  error_of<TypeError>([&] { full({2}, Scalar::from_bool(true), b, dev_); });
  error_of<TypeError>([&] { vec(3, b); });
  std::byte one[1];
  error_of<TypeError>([&] { convert_scalar(Scalar::from_bool(true), ScalarType::boolean, one); });
  Array a = zeros({4}, u8, dev_);
  error_of<TypeError>([&] { array_from_ptr(a.address(), b, {4}, false, dev_); });
}

TEST_P(ArrayOnDevice, ItemReadsWithPythonBounds) {
  std::vector<float> data(18);
  std::iota(data.begin(), data.end(), 0.0f);
  Array a = arr(data, {6, 3});
  EXPECT_EQ(a.item<float>({1, 2}), 5.0f);
  EXPECT_EQ(a.item<float>({-1, -1}), 17.0f);
  auto msg = error_of<IndexError>([&] { a.item<float>({6, 0}); });
  EXPECT_NE(msg.find("index 6 is out of bounds for axis 0 with size 6"), std::string::npos) << msg;
  error_of<IndexError>([&] { a.item<float>({0, -4}); });
  error_of<IndexError>([&] { a.item<float>({0}); });
  error_of<TypeError>([&] { a.item<double>({0, 0}); });
}

TEST_P(ArrayOnDevice, AssignmentAndIterationAreRefusedWithTheAlternative) {
  Array a = zeros({4}, f32, dev_);
  EXPECT_NE(error_of<TypeError>([&] { a.refuse_item_assignment(); }).find("tack.copyto"),
            std::string::npos);
  EXPECT_NE(error_of<TypeError>([&] { a.refuse_iteration(); }).find("a.numpy()"),
            std::string::npos);
}

TEST_P(ArrayOnDevice, CopytoConvertsAndBroadcasts) {
  Array a = zeros({2, 3}, i32, dev_);
  const double row[3] = {1.9, -2.9, 3.0};
  copyto(a, HostView{row, ScalarType::f64, {3}, {}});
  EXPECT_EQ(a.to_vector<std::int32_t>(), (std::vector<std::int32_t>{1, -2, 3, 1, -2, 3}));
  const float col[2] = {5, 6};
  copyto(a, HostView{col, ScalarType::f32, {2, 1}, {}});
  EXPECT_EQ(a.to_vector<std::int32_t>(), (std::vector<std::int32_t>{5, 5, 5, 6, 6, 6}));
  // Strided source: every other element of 6.
  const std::int64_t src[6] = {10, 0, 20, 0, 30, 0};
  copyto(a, HostView{src, ScalarType::i64, {3}, {16}});
  EXPECT_EQ(a.to_vector<std::int32_t>(), (std::vector<std::int32_t>{10, 20, 30, 10, 20, 30}));
}

// Array to array, from this device to every device present (this one included).
TEST_P(ArrayOnDevice, CopiesBetweenArraysOfAnyDevices) {
  const std::vector<float> values{1.9f, -2.9f, 3.0f, 4.5f, -5.5f, 6.0f};
  Array src = arr(values, {2, 3});
  for (const Device& other : devices()) {
    SCOPED_TRACE(dev_.name() + " -> " + other.name());
    Array same = array(src, std::nullopt, other);
    EXPECT_EQ(same.device(), other);
    EXPECT_EQ(same.dtype(), f32);
    EXPECT_EQ(same.shape(), (Shape{2, 3}));
    EXPECT_EQ(same.to_vector<float>(), values);
    EXPECT_NE(same.address(), src.address()) << "a copy";
    Array ints = array(src, i32, other);  // converted as host data is: truncated toward zero
    EXPECT_EQ(ints.to_vector<std::int32_t>(), (std::vector<std::int32_t>{1, -2, 3, 4, -5, 6}));
    // copyto: converted and broadcast (a row into every row); the version counts the write.
    Array dst = zeros({3, 3}, f64, other);
    const std::uint64_t before = dst.version();
    copyto(dst, src.slice(1, 2).reshape({3}));
    EXPECT_EQ(dst.to_vector<double>(),
              (std::vector<double>{4.5, -5.5, 6.0, 4.5, -5.5, 6.0, 4.5, -5.5, 6.0}));
    EXPECT_GT(dst.version(), before);
    // A shape that does not broadcast, or a read-only target: refused, nothing written.
    Array ro = array_from_ptr(dst.address(), f64, {3, 3}, false, other);
    EXPECT_THROW(copyto(ro, src.slice(0, 1).reshape({3})), RuntimeError);
    EXPECT_THROW(copyto(dst, src), ValueError);
    EXPECT_EQ(dst.to_vector<double>()[0], 4.5);
  }
}

// Overlapping views of one array: the source is read in full before the target is written.
TEST_P(ArrayOnDevice, CopyBetweenOverlappingViewsReadsTheSourceFirst) {
  Array rows = arr(std::vector<std::int32_t>{0, 1, 2, 3, 4, 5, 6, 7}, {8, 1});
  copyto(rows.slice(1, 8), rows.slice(0, 7));  // shift down by one row
  EXPECT_EQ(rows.to_vector<std::int32_t>(), (std::vector<std::int32_t>{0, 0, 1, 2, 3, 4, 5, 6}));
  copyto(rows.slice(0, 6), rows.slice(2, 8));  // shift up by two rows
  EXPECT_EQ(rows.to_vector<std::int32_t>(), (std::vector<std::int32_t>{1, 2, 3, 4, 5, 6, 5, 6}));
}

TEST_P(ArrayOnDevice, CopyOfAVectorArrayKeepsItsWidth) {
  Array v = arr(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  Array p = empty({2}, vec(3, f32), dev_);
  copyto(p, v);  // a (2, 3) array fills a vec(3) array of 2: the numpy shapes agree
  for (const Device& other : devices()) {
    Array q = array(p, std::nullopt, other);
    EXPECT_EQ(q.dtype(), vec(3, f32));
    EXPECT_EQ(q.to_vector<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
    EXPECT_THROW(array(p, f32, other), ValueError);
  }
}

TEST_P(ArrayOnDevice, CopytoRefusesShapesThatDoNotBroadcast) {
  Array a = zeros({2, 3}, f32, dev_);
  const float bad[4] = {1, 2, 3, 4};
  auto before = a.version();
  auto msg = error_of<ValueError>([&] { copyto(a, HostView{bad, ScalarType::f32, {4}, {}}); });
  EXPECT_NE(msg.find("(4,) does not match or broadcast to the array's shape (2, 3)"),
            std::string::npos)
      << msg;
  EXPECT_EQ(a.version(), before);
  for (float v : a.to_vector<float>()) EXPECT_EQ(v, 0.0f);
}

TEST_P(ArrayOnDevice, ReadOnlyRefusesHostWrites) {
  // Wrapped memory is read-only by default; a device wraps only its own memory, so the memory
  // is a Tack array of the device, and is read back through it.
  Array owner = full({4}, Scalar::from(1.0), f32, dev_);
  Array a = array_from_ptr(owner.address(), f32, {4}, false, dev_);
  EXPECT_EQ(a.device(), dev_);
  EXPECT_FALSE(a.writable());
  auto msg = error_of<RuntimeError>([&] { a.fill(0.0); });
  EXPECT_NE(msg.find("read-only"), std::string::npos);
  const float x[4] = {9, 9, 9, 9};
  error_of<RuntimeError>([&] { copyto(a, HostView{x, ScalarType::f32, {4}, {}}); });
  EXPECT_EQ(owner.to_vector<float>(), (std::vector<float>(4, 1.0f)));
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>(4, 1.0f)));
}

TEST_P(ArrayOnDevice, VersionCountsWrites) {
  Array a = zeros({8}, f32, dev_);
  auto v0 = a.version();
  a.fill(1.0);
  EXPECT_EQ(a.version(), v0 + 1);
  const float x[8] = {};
  copyto(a, HostView{x, ScalarType::f32, {8}, {}});
  EXPECT_EQ(a.version(), v0 + 2);
}

TEST_P(ArrayOnDevice, VectorDtypeIsFlatStorageWithVectorMetadata) {
  Array a = zeros({4}, vec(3, f32), dev_);
  EXPECT_EQ(a.shape(), (Shape{4}));
  EXPECT_EQ(a.numpy_shape(), (Shape{4, 3}));
  EXPECT_EQ(a.nbytes(), 4u * 3 * 4);
  a.fill(2.0);
  auto got = a.index({std::int64_t{1}});
  auto& vec3 = std::get<std::vector<Scalar>>(got);
  ASSERT_EQ(vec3.size(), 3u);
  EXPECT_EQ(vec3[2].as_double(), 2.0);
  auto comp = a.index({std::int64_t{1}, std::int64_t{-1}});
  EXPECT_EQ(std::get<Scalar>(comp).as_double(), 2.0);
  for (std::int64_t bad : {3, -4}) {
    const auto msg = error_of<IndexError>([&] { a.index({std::int64_t{1}, bad}); });
    EXPECT_NE(msg.find("component index " + std::to_string(bad) +
                       " is out of bounds for vec(3, f32) elements (valid: -3 to 2)"),
              std::string::npos)
        << msg;
  }
  error_of<ValueError>([] { vec(0, f32); });
  error_of<TypeError>([] { vec(2, vec(2, f32)); });
}

TEST_P(ArrayOnDevice, ArrayFromPtrChecksTheAddress) {
  auto msg = error_of<TypeError>(
      [&] { array_from_ptr(std::nullopt, f32, {4}, false, dev_, {}, "a str"); });
  EXPECT_NE(msg.find("got a str"), std::string::npos);
  error_of<ValueError>([&] { array_from_ptr(0, f32, {4}, false, dev_); });
  // Not inside any allocation of the device: host memory on every device.
  EXPECT_EQ(memory_space(0x1000, dev_), "cpu");
}

// Issue 8: (2**62,) of f32 gave nbytes == 0, and a range past 2**64 was accepted.
TEST_P(ArrayOnDevice, ArrayFromPtrRefusesSizesAndRangesPastTwoToTheSixtyFour) {
  Array owner = zeros({4}, f32, dev_);
  auto msg = error_of<ValueError>(
      [&] { array_from_ptr(owner.address(), f32, {std::int64_t{1} << 62}, false, dev_); });
  EXPECT_NE(msg.find("more bytes than fit in 64 bits"), std::string::npos) << msg;
  msg = error_of<ValueError>([&] {
    array_from_ptr(owner.address(), f64, {std::int64_t{1} << 31, std::int64_t{1} << 31}, false,
                   dev_);
  });
  EXPECT_NE(msg.find("more bytes than fit in 64 bits"), std::string::npos) << msg;
  if (dev_.kind() == "cpu") {  // a device refuses such an address anyway (not its memory)
    msg = error_of<ValueError>(
        [&] { array_from_ptr(~std::uintptr_t{0} - 7, f32, {4}, false, dev_); });
    EXPECT_NE(msg.find("past the end of the address space"), std::string::npos) << msg;
  }
  EXPECT_EQ(array_from_ptr(owner.address(), f32, {4}, false, dev_).nbytes(), 16u);
}

// Issue 8: an empty view of a read-only array came back writable; copyto checked writable
// before the shape (the seed: validate, then the writable check).
TEST_P(ArrayOnDevice, ReadOnlyViewsAndTheOrderOfCopytosChecks) {
  Array owner = zeros({6}, f32, dev_);
  Array ro = array_from_ptr(owner.address(), f32, {6}, false, dev_);
  for (auto [b, e] : {std::pair{2, 2}, std::pair{5, 1}, std::pair{6, 6}, std::pair{1, 3}}) {
    EXPECT_FALSE(ro.slice(b, e).writable()) << b << ":" << e;
  }
  EXPECT_TRUE(owner.slice(2, 2).writable());
  const std::vector<float> four(4, 1.0f), six(6, 1.0f);
  error_of<ValueError>([&] { copyto(ro, HostView{four.data(), ScalarType::f32, {4}, {}}); });
  error_of<ValueError>([&] { copyto(ro, zeros({4}, f32, dev_)); });
  error_of<RuntimeError>([&] { copyto(ro, HostView{six.data(), ScalarType::f32, {6}, {}}); });
  error_of<RuntimeError>([&] { copyto(ro, zeros({6}, f32, dev_)); });
}

TEST_P(ArrayOnDevice, WrappedMemoryIsNeverFreedAndIsShared) {
  Array owner = zeros({4}, f32, dev_);
  {
    Array a = array_from_ptr(owner.address(), f32, {4}, true, dev_);
    EXPECT_TRUE(a.shared());
    a.fill(5.0);
  }
  // Still valid: Tack did not free it (ASan would report a use after free on the CPU; a device
  // would no longer count the address as one of its allocations).
  EXPECT_EQ(owner.to_vector<float>(), (std::vector<float>(4, 5.0f)));
  EXPECT_EQ(memory_space(owner.address(), dev_), dev_.kind());
  owner.fill(6.0);
  EXPECT_EQ(owner.to_vector<float>(), (std::vector<float>(4, 6.0f)));
}

TEST_P(ArrayOnDevice, HoldIsReleasedWithTheLastView) {
  auto released = std::make_shared<int>(0);
  Array owner = zeros({6}, f32, dev_);
  std::optional<Array> view;
  {
    std::shared_ptr<void> hold(nullptr, [released](void*) { ++*released; });
    Array a = array_from_ptr(owner.address(), f32, {6}, true, dev_, hold);
    view = a.slice(1, 3);
  }
  EXPECT_EQ(*released, 0);
  view->fill(2.0);
  EXPECT_EQ(view->to_vector<float>(), (std::vector<float>{2.0f, 2.0f}));
  view.reset();
  EXPECT_EQ(*released, 1);
  EXPECT_EQ(owner.to_vector<float>(), (std::vector<float>{0, 2, 2, 0, 0, 0}));
}

TEST_P(ArrayOnDevice, ExportMemoryMarksSharedAndKeepsAlive) {
  ExportedMemory m;
  {
    Array a = ones({16}, f32, dev_);
    m = a.export_memory();
    EXPECT_TRUE(a.shared());
  }
  EXPECT_EQ(m.nbytes, 64u);
  EXPECT_EQ(m.device, dev_.name());
  // The allocation outlives its array while `m` holds it: wrapping it again (which a device
  // accepts only within one of its live allocations) and reading through the API finds it.
  EXPECT_EQ(memory_space(m.address, dev_), dev_.kind());
  Array again = array_from_ptr(m.address, f32, {16}, false, dev_);
  EXPECT_EQ(again.to_vector<float>(), (std::vector<float>(16, 1.0f)));
}

// CPU only: the 64-byte alignment is the CPU's host allocator's promise (docs/devices.md).
TEST(Array, AllocationIsAligned) {
  for (int n : {0, 1, 3, 1000}) {
    Array a = empty({n}, u8, device("cpu"));
    EXPECT_EQ(a.address() % 64, 0u) << n;
  }
}

// CPU only: wraps raw host memory (new[]), which only the CPU accepts.
TEST(Array, WrappedHostMemoryIsNeverFreedAndIsShared) {
  auto* host = new float[4]{1, 2, 3, 4};
  {
    Array a = array_from_ptr(reinterpret_cast<std::uintptr_t>(host), f32, {4}, true, device("cpu"));
    EXPECT_TRUE(a.shared());
    a.fill(5.0);
  }
  EXPECT_EQ(host[3], 5.0f);  // still valid: Tack did not free it (ASan would report otherwise)
  delete[] host;
}

// CPU only: wraps a std::vector's host memory, which only the CPU accepts, and checks it there.
TEST(Array, ReadOnlyHostMemoryIsNeverWritten) {
  std::vector<float> host(4, 1.0f);
  Array a =
      array_from_ptr(reinterpret_cast<std::uintptr_t>(host.data()), f32, {4}, false, device("cpu"));
  EXPECT_FALSE(a.writable());
  auto msg = error_of<RuntimeError>([&] { a.fill(0.0); });
  EXPECT_NE(msg.find("read-only"), std::string::npos);
  const float x[4] = {9, 9, 9, 9};
  error_of<RuntimeError>([&] { copyto(a, HostView{x, ScalarType::f32, {4}, {}}); });
  EXPECT_EQ(host, (std::vector<float>(4, 1.0f)));
}

// CPU only: reads exported memory through its raw pointer, which is host memory on the CPU only.
TEST(Array, ExportedHostMemoryIsReadThroughItsAddress) {
  ExportedMemory m;
  {
    Array a = ones({16}, f32, device("cpu"));
    m = a.export_memory();
    EXPECT_TRUE(a.shared());
  }
  float first;
  std::memcpy(&first, reinterpret_cast<const void*>(m.address), 4);
  EXPECT_EQ(first, 1.0f);
  EXPECT_EQ(m.nbytes, 64u);
}

// Not per device: the list of devices itself, in which the CPU is always first.
TEST(Device, CpuIsAlwaysPresent) {
  auto ds = devices();
  ASSERT_FALSE(ds.empty());
  EXPECT_EQ(ds.front().name(), "cpu");
  EXPECT_EQ(device("cpu"), default_device());
  auto msg = error_of<ValueError>([] { device("tpu"); });
  EXPECT_NE(msg.find("'cpu'"), std::string::npos);
}

}  // namespace
}  // namespace tack
