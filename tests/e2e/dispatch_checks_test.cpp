// Dispatch rules through the public API, on every call (cold and cached): read-only arrays bound
// to written parameters, atomic alignment, arity and rank, what is and is not in the variant key,
// version bumps, and kernels launched on views. The rules are written once and run on every
// device present (Devices/DispatchChecksOnDevice.<test>/<device>); read-only and misaligned arrays
// are made by wrapping (part of) an allocation of the test's device. Wrapping host memory and
// misaligned non-atomic arrays stay CPU-only (DispatchChecksCpu); arrays of two devices are
// refused in tests/e2e/opencl_dispatch_test.cpp (OpenClDispatch.ArraysOfTwoDevicesAreRefused).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "common/on_device.hpp"
#include "tack/tack.hpp"

namespace tack {
namespace {

Device cpu_device() {
  return device("cpu");
}

template <class T>
Array cpu_arr(const std::vector<T>& v) {
  return array(v, {static_cast<std::int64_t>(v.size())}, cpu_device());
}

template <class T>
std::uintptr_t addr(std::vector<T>& v, std::size_t element = 0) {
  return reinterpret_cast<std::uintptr_t>(v.data() + element);
}

std::vector<float> iota_f32(int n, float start = 0.0f) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v[i] = start + static_cast<float>(i);
  return v;
}

// A read-only array over the memory of `backing` (which must outlive it), on backing's device:
// wrapped memory, as a read-only import is, on any device.
Array read_only(const Array& backing) {
  return array_from_ptr(backing.address(), backing.dtype(), backing.shape(), false,
                        backing.device());
}

class DispatchChecksOnDevice : public test::OnDevice {};

TACK_INSTANTIATE_ON_DEVICES(DispatchChecksOnDevice);

// Wrapping host memory (a std::vector's) and misaligned plain loads and stores are the CPU
// backend's alone; these tests run on the CPU whatever the default device.
class DispatchChecksCpu : public ::testing::Test {
 protected:
  void SetUp() override {
    set_debug(false);
    set_specialize_disjoint(true);
  }
  void TearDown() override {
    set_debug(false);
    set_specialize_disjoint(true);
  }
};

const char* kTwoOutputs = R"(
def dc_two_outputs(src, out1, out2):
    for i in range(len(src)):
        out1[i] = src[i] + 1.0
        out2[i] = src[i] * 2.0
)";

const char* kAtomic = R"(
def dc_atomic(bins, h):
    for i in range(len(bins)):
        tack.atomic_add(h, bins[i], 1)
)";

const char* kCopy = R"(
def dc_copy(src, dst):
    for i in range(len(src)):
        dst[i] = src[i]
)";

// ---- read-only arrays ---------------------------------------------------------------------

TEST_P(DispatchChecksOnDevice, ReadOnlyArrayBoundToAWrittenParameterIsRefusedBeforeLaunch) {
  const Kernel k = kernel(kTwoOutputs);
  Array src = arr(iota_f32(8));
  Array out1 = zeros({8}, f32, dev_);
  const std::uint64_t v1 = out1.version();
  Array backing = arr(std::vector<float>(8, -1.0f));
  Array ro = read_only(backing);
  ASSERT_FALSE(ro.writable());
  ASSERT_EQ(ro.device(), dev_);
  try {
    k(src, out1, ro);
    FAIL() << "expected ValueError";
  } catch (const ValueError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("dc_two_outputs"), std::string::npos) << msg;
    EXPECT_NE(msg.find("out2"), std::string::npos) << msg;
    EXPECT_NE(msg.find("read-only"), std::string::npos) << msg;
  }
  // Refused before launch: nothing written anywhere, no version bumped.
  EXPECT_EQ(out1.to_vector<float>(), std::vector<float>(8, 0.0f));
  EXPECT_EQ(backing.to_vector<float>(), std::vector<float>(8, -1.0f));
  EXPECT_EQ(out1.version(), v1);
}

TEST_P(DispatchChecksOnDevice, ReadOnlyCheckRunsOnTheCachedPath) {
  const Kernel k = kernel(kTwoOutputs);
  Array src = arr(iota_f32(8));
  Array out1 = zeros({8}, f32, dev_), out2 = zeros({8}, f32, dev_);
  k(src, out1, out2);  // compiles and caches the variant
  Array backing = zeros({8}, f32, dev_);
  Array ro = read_only(backing);
  Array fresh = zeros({8}, f32, dev_);
  const std::uint64_t v = fresh.version();
  for (int round = 0; round < 3; ++round) EXPECT_THROW(k(src, fresh, ro), ValueError);
  EXPECT_EQ(fresh.to_vector<float>(), std::vector<float>(8, 0.0f));
  EXPECT_EQ(fresh.version(), v);
  EXPECT_EQ(backing.to_vector<float>(), std::vector<float>(8, 0.0f));
  EXPECT_EQ(k.variant_count(), 1u);
}

TEST_P(DispatchChecksOnDevice, ReadOnlyArrayBoundToAParameterOnlyReadIsFine) {
  const Kernel k = kernel(kTwoOutputs);
  Array backing = arr(iota_f32(8));
  Array ro = read_only(backing);
  Array out1 = zeros({8}, f32, dev_), out2 = zeros({8}, f32, dev_);
  const std::uint64_t v = ro.version();
  k(ro, out1, out2);
  EXPECT_EQ(out1.to_vector<float>(), iota_f32(8, 1.0f));
  EXPECT_EQ(ro.version(), v);
}

TEST_P(DispatchChecksOnDevice, ReadOnlyViewInheritsTheRefusal) {
  const Kernel k = kernel(kTwoOutputs);
  Array backing = zeros({12}, f32, dev_);
  Array ro_root = read_only(backing);
  Array view = ro_root.slice(2, 10);
  ASSERT_FALSE(view.writable());
  Array a = zeros({8}, f32, dev_), b = zeros({8}, f32, dev_);
  EXPECT_THROW(k(a, view, b), ValueError);
  EXPECT_EQ(backing.to_vector<float>(), std::vector<float>(12, 0.0f));
  EXPECT_EQ(b.to_vector<float>(), std::vector<float>(8, 0.0f));
}

TEST_P(DispatchChecksOnDevice, StoreThroughAnInlinedDeviceFunctionCountsAsAWrite) {
  const Kernel k = kernel(R"(
@tack.func
def put(arr, i, v):
    arr[i] = v

@tack.func
def put_twice(dst, i, v):
    put(dst, i, v)

def dc_via_func(src, dst):
    for i in range(len(src)):
        put_twice(dst, i, src[i] * 3.0)
)");
  Array backing = arr(std::vector<float>(6, 5.0f));
  Array ro = read_only(backing);
  Array src = arr(iota_f32(6));
  EXPECT_THROW(k(src, ro), ValueError);
  EXPECT_EQ(backing.to_vector<float>(), std::vector<float>(6, 5.0f));
  // Read-only as the source only: fine.
  Array dst = zeros({6}, f32, dev_);
  k(ro, dst);
  EXPECT_EQ(dst.to_vector<float>(), std::vector<float>(6, 15.0f));
}

TEST_P(DispatchChecksOnDevice, ReadOnlyAtomicTargetIsRefused) {
  const Kernel k = kernel(kAtomic);
  Array backing = zeros({4}, i32, dev_);
  Array ro = read_only(backing);
  Array bins = arr(std::vector<std::int32_t>{0, 1, 2, 3, 0});
  EXPECT_THROW(k(bins, ro), ValueError);
  EXPECT_EQ(backing.to_vector<std::int32_t>(), std::vector<std::int32_t>(4, 0));
}

// ---- atomic alignment ---------------------------------------------------------------------

// Misaligned arrays are writable wraps of part of a byte array of the test's device, starting
// `offset` bytes past a 16-byte boundary inside it.

// An aligned start inside `raw` (16-byte boundary), as an offset from its address.
std::size_t aligned_start(const Array& raw) {
  return static_cast<std::size_t>((16 - raw.address() % 16) % 16);
}

Array i32_at(const Array& raw, std::size_t offset, std::int64_t n) {
  return array_from_ptr(raw.address() + offset, i32, {n}, true, raw.device());
}

std::vector<std::int32_t> read_i32(const Array& raw, std::size_t offset, std::size_t n) {
  const auto bytes = raw.to_vector<std::uint8_t>();
  std::vector<std::int32_t> v(n);
  std::memcpy(v.data(), bytes.data() + offset, n * 4);
  return v;
}

std::vector<std::uint8_t> bytes_of(const Array& raw) {
  return raw.to_vector<std::uint8_t>();
}

TEST_P(DispatchChecksOnDevice, MisalignedAtomicTargetIsRefused) {
  const Kernel k = kernel(kAtomic);
  Array bins = arr(std::vector<std::int32_t>{0, 1, 1, 3});
  for (std::size_t offset : {1u, 2u, 3u, 5u}) {
    Array raw = zeros({64}, u8, dev_);
    const std::size_t start = aligned_start(raw);
    Array h = i32_at(raw, start + offset, 4);
    ASSERT_EQ(h.device(), dev_);
    try {
      k(bins, h);
      FAIL() << "expected ValueError at offset " << offset;
    } catch (const ValueError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("align"), std::string::npos) << msg;
      EXPECT_NE(msg.find("'h'"), std::string::npos) << msg;
      EXPECT_NE(msg.find("dc_atomic"), std::string::npos) << msg;
    }
    EXPECT_EQ(bytes_of(raw), std::vector<std::uint8_t>(64, 0)) << "offset " << offset;
    Array ok = i32_at(raw, start + 4, 4);  // 4-byte aligned: accepted
    k(bins, ok);
    EXPECT_EQ(read_i32(raw, start + 4, 4), (std::vector<std::int32_t>{1, 2, 0, 1}));
  }
}

TEST_P(DispatchChecksOnDevice, MisalignedAtomicTargetIsRefusedOnTheCachedPath) {
  const Kernel k = kernel(kAtomic);
  Array bins = arr(std::vector<std::int32_t>{0, 1});
  Array raw = zeros({64}, u8, dev_);
  const std::size_t start = aligned_start(raw);
  Array aligned = i32_at(raw, start, 2);
  k(bins, aligned);  // compiles and caches the variant
  EXPECT_EQ(read_i32(raw, start, 2), (std::vector<std::int32_t>{1, 1}));
  // A different buffer, misaligned, through the cached variant.
  Array other = zeros({64}, u8, dev_);
  Array misaligned = i32_at(other, aligned_start(other) + 17, 2);
  EXPECT_THROW(k(bins, misaligned), ValueError);
  EXPECT_THROW(k(bins, misaligned), ValueError);
  EXPECT_EQ(bytes_of(other), std::vector<std::uint8_t>(64, 0));
  EXPECT_EQ(k.variant_count(), 1u);
  k(bins, aligned);  // still fine
  EXPECT_EQ(read_i32(raw, start, 2), (std::vector<std::int32_t>{2, 2}));
}

TEST_P(DispatchChecksOnDevice, I64AtomicTargetNeedsEightByteAlignment) {
  const Kernel k = kernel(kAtomic);
  Array raw = zeros({80}, u8, dev_);
  const std::size_t start = aligned_start(raw);
  Array h = array_from_ptr(raw.address() + start + 4, i64, {4}, true, dev_);
  Array bins = arr(std::vector<std::int32_t>{0, 1});
  EXPECT_THROW(k(bins, h), ValueError);
  EXPECT_EQ(bytes_of(raw), std::vector<std::uint8_t>(80, 0));
}

// Arrays at an address that is no multiple of their element size: the CPU's loads and stores
// are `align 1` (docs/design/llvm_codegen.md, "Memory"), so they run there; OpenCL C may assume
// natural alignment (a GPU may fault or read the wrong bytes), so devices refuse them before
// the launch, with nothing written.
TEST_P(DispatchChecksOnDevice, MisalignedArraysRunOnTheCpuAndAreRefusedOnDevices) {
  const Kernel k = kernel(kCopy);
  Array raw = zeros({64}, u8, dev_);
  const std::size_t start = aligned_start(raw);
  Array dst = i32_at(raw, start + 1, 4);
  const std::vector<std::int32_t> values{1, -2, 3, std::numeric_limits<std::int32_t>::max()};
  if (on_cpu()) {
    k(arr(values), dst);
    EXPECT_EQ(read_i32(raw, start + 1, 4), values);
    return;
  }
  const std::uint64_t before = raw.version();
  test::expect_error<ValueError>(
      [&] { k(arr(values), dst); },
      {"kernel 'dc_copy'", "array parameter 1 ('dst')",
       "not a multiple of its element size (4 bytes)", dev_.name(), "naturally aligned"});
  EXPECT_EQ(bytes_of(raw), std::vector<std::uint8_t>(64, 0));
  EXPECT_EQ(raw.version(), before);
  // An aligned wrap of the same memory runs.
  k(arr(values), i32_at(raw, start + 4, 4));
  EXPECT_EQ(read_i32(raw, start + 4, 4), values);
}

// CPU only: wraps a std::vector (host memory, which only the CPU backend wraps).
TEST_F(DispatchChecksCpu, MisalignedArraysWithoutAtomicsAreFine) {
  const Kernel k = kernel(kCopy);
  std::vector<std::uint8_t> raw(64, 0);
  const auto base = reinterpret_cast<std::uintptr_t>(raw.data());
  const auto start = static_cast<std::size_t>((16 - base % 16) % 16);
  Array dst = array_from_ptr(addr(raw, start + 1), i32, {4}, true, cpu_device());
  const std::vector<std::int32_t> values{1, -2, 3, std::numeric_limits<std::int32_t>::max()};
  k(cpu_arr(values), dst);
  std::vector<std::int32_t> got(4);
  std::memcpy(got.data(), raw.data() + start + 1, 16);
  EXPECT_EQ(got, values);
}

// CPU only: wrapping host memory (a std::vector's) is the CPU backend's alone (OpenCL wraps only
// its own SVM allocations); the read-only and alignment rules hold for such memory too.
TEST_F(DispatchChecksCpu, WrappedHostMemoryIsCheckedLikeAnyArray) {
  const Kernel two = kernel(kTwoOutputs);
  Array src = cpu_arr(iota_f32(8));
  Array out1 = zeros({8}, f32, cpu_device());
  const std::uint64_t v1 = out1.version();
  std::vector<float> backing(8, -1.0f);
  Array ro = array_from_ptr(addr(backing), f32, {8}, false, cpu_device());
  ASSERT_FALSE(ro.writable());
  EXPECT_THROW(two(src, out1, ro), ValueError);
  EXPECT_EQ(out1.to_vector<float>(), std::vector<float>(8, 0.0f));
  EXPECT_EQ(backing, std::vector<float>(8, -1.0f));
  EXPECT_EQ(out1.version(), v1);
  Array out2 = zeros({8}, f32, cpu_device());
  two(ro, out1, out2);  // read only: fine
  EXPECT_EQ(out1.to_vector<float>(), std::vector<float>(8, 0.0f));
  EXPECT_EQ(out2.to_vector<float>(), std::vector<float>(8, -2.0f));

  const Kernel atomic = kernel(kAtomic);
  Array bins = cpu_arr(std::vector<std::int32_t>{0, 1, 1, 3});
  std::vector<std::uint8_t> raw(64, 0);
  const auto base = reinterpret_cast<std::uintptr_t>(raw.data());
  const auto start = static_cast<std::size_t>((16 - base % 16) % 16);
  Array misaligned = array_from_ptr(addr(raw, start + 2), i32, {4}, true, cpu_device());
  EXPECT_THROW(atomic(bins, misaligned), ValueError);
  EXPECT_EQ(raw, std::vector<std::uint8_t>(64, 0));
  Array aligned = array_from_ptr(addr(raw, start + 4), i32, {4}, true, cpu_device());
  atomic(bins, aligned);
  std::vector<std::int32_t> got(4);
  std::memcpy(got.data(), raw.data() + start + 4, 16);
  EXPECT_EQ(got, (std::vector<std::int32_t>{1, 2, 0, 1}));
}

TEST_P(DispatchChecksOnDevice, AtomicThroughADeviceFunctionIsChecked) {
  const Kernel k = kernel(R"(
@tack.func
def bump(h, b):
    tack.atomic_add(h, b, 1)

def dc_atomic_via_func(bins, h):
    for i in range(len(bins)):
        bump(h, bins[i])
)");
  Array bins = arr(std::vector<std::int32_t>{0, 1, 1});
  Array raw = zeros({64}, u8, dev_);
  const std::size_t start = aligned_start(raw);
  Array misaligned = i32_at(raw, start + 2, 4);
  EXPECT_THROW(k(bins, misaligned), ValueError);
  EXPECT_EQ(bytes_of(raw), std::vector<std::uint8_t>(64, 0));
  Array backing = zeros({4}, i32, dev_);
  Array ro = read_only(backing);
  EXPECT_THROW(k(bins, ro), ValueError);
  EXPECT_EQ(backing.to_vector<std::int32_t>(), std::vector<std::int32_t>(4, 0));
  Array h = zeros({4}, i32, dev_);
  k(bins, h);
  EXPECT_EQ(h.to_vector<std::int32_t>(), (std::vector<std::int32_t>{1, 2, 0, 0}));
}

// ---- arity and rank ------------------------------------------------------------------------

TEST_P(DispatchChecksOnDevice, WrongArityIsATypeErrorListingTheParameters) {
  const Kernel k = kernel(kCopy);
  Array a = zeros({4}, f32, dev_), b = zeros({4}, f32, dev_), c = zeros({4}, f32, dev_);
  const std::vector<std::vector<KernelArg>> calls = {{}, {a}, {a, b, c}, {a, b, c, 1}};
  for (const auto& args : calls) {
    try {
      k.call(args);
      FAIL() << "expected TypeError for " << args.size() << " arguments";
    } catch (const TypeError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("dc_copy"), std::string::npos) << msg;
      EXPECT_NE(msg.find("src, dst"), std::string::npos) << msg;
      EXPECT_NE(msg.find("got " + std::to_string(args.size())), std::string::npos) << msg;
    }
  }
  EXPECT_EQ(k.variant_count(), 0u);
}

TEST_P(DispatchChecksOnDevice, ArraysOfRankZeroOrFourAreTypeErrors) {
  const Kernel k = kernel(kCopy);
  Array ok = zeros({4}, f32, dev_);
  Array rank0 = zeros({}, f32, dev_);
  Array rank4 = zeros({2, 2, 2, 2}, f32, dev_);
  ASSERT_EQ(rank0.ndim(), 0);
  for (const Array* bad : {&rank0, &rank4}) {
    try {
      k(*bad, ok);
      FAIL() << "expected TypeError for rank " << bad->ndim();
    } catch (const TypeError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("'src'"), std::string::npos) << msg;
      EXPECT_NE(msg.find(std::to_string(bad->ndim()) + " dimensions"), std::string::npos) << msg;
    }
    EXPECT_THROW(k(ok, *bad), TypeError);
  }
  EXPECT_EQ(ok.to_vector<float>(), std::vector<float>(4, 0.0f));
  EXPECT_EQ(k.variant_count(), 0u);
}

// ---- the variant key ---------------------------------------------------------------------

TEST_P(DispatchChecksOnDevice, ScalarValuesNeverRecompile) {
  const Kernel k = kernel(R"(
def dc_scaled(s, n, x, out):
    for i in range(len(x)):
        out[i] = x[i] * s + n
)");
  Array x = arr(iota_f32(5));
  struct Values {
    double s;
    std::int64_t n;
  };
  const Values values[] = {{2.0, 1},
                           {3.5, -7},
                           {-1e30, 0},
                           {0.0, std::numeric_limits<std::int32_t>::max()},
                           {std::nan(""), std::numeric_limits<std::int32_t>::min()},
                           {INFINITY, 12}};
  for (const auto& v : values) {
    Array out = zeros({5}, f32, dev_);
    k(v.s, v.n, x, out);
    const auto got = out.to_vector<float>();
    for (int i = 0; i < 5; ++i) {
      const float expected =
          static_cast<float>(i) * static_cast<float>(v.s) + static_cast<float>(v.n);
      if (std::isnan(expected)) {
        EXPECT_TRUE(std::isnan(got[i]));
      } else {
        EXPECT_EQ(got[i], expected) << "s=" << v.s << " n=" << v.n << " i=" << i;
      }
    }
  }
  EXPECT_EQ(k.variant_count(), 1u);
  for (int m : {1, 9, 100, 5000}) {  // the launch length is not keyed either
    Array xm = arr(std::vector<float>(static_cast<std::size_t>(m), 1.0f));
    Array om = zeros({m}, f32, dev_);
    k(1.0, 0, xm, om);
    EXPECT_EQ(om.to_vector<float>(), std::vector<float>(static_cast<std::size_t>(m), 1.0f));
  }
  for (int r = 0; r < 1000; ++r) {
    Array out = zeros({5}, f32, dev_);
    k(static_cast<double>(r), r, x, out);
  }
  EXPECT_EQ(k.variant_count(), 1u);
  // An int that needs i64 is a new type: one more variant, and its value arrives whole.
  const std::int64_t big = std::int64_t{1} << 40;
  Array out32 = zeros({5}, f32, dev_);
  k(1.0, big, x, out32);
  EXPECT_EQ(k.variant_count(), 2u);
  EXPECT_EQ(out32.to_vector<float>()[0], static_cast<float>(big));
  k(1.0, big + 1, x, out32);  // and other i64 values reuse it
  EXPECT_EQ(k.variant_count(), 2u);
}

TEST_P(DispatchChecksOnDevice, ArgumentTypesAreKeyedButLengthsAreNot) {
  const Kernel k = kernel(R"(
def dc_keyed(x, out):
    for i in range(len(x)):
        out[i] = x[i]
)");
  Array a = zeros({3}, f32, dev_), b = zeros({3}, f32, dev_);
  k(a, b);
  k(a, b);
  EXPECT_EQ(k.variant_count(), 1u);
  Array ia = zeros({3}, i32, dev_), ib = zeros({3}, i32, dev_);
  k(ia, ib);
  EXPECT_EQ(k.variant_count(), 2u);
  Array d = zeros({3}, f64, dev_);
  k(a, d);  // one parameter's type differs
  EXPECT_EQ(k.variant_count(), 3u);
  Array a5 = zeros({5}, f32, dev_), b7 = zeros({7}, f32, dev_);
  k(a5, b7);
  EXPECT_EQ(k.variant_count(), 3u);
}

TEST_P(DispatchChecksOnDevice, F64ArrayMakesFloatScalarsF64) {
  const Kernel k = kernel(R"(
def dc_scale(s, x, out):
    for i in range(len(x)):
        out[i] = x[i] * s
)");
  Array x32 = arr(iota_f32(4)), o32 = zeros({4}, f32, dev_);
  const std::string ir32 = inspect(k, {0.1, x32, o32}, "ir");
  EXPECT_NE(ir32.find("s: f32"), std::string::npos) << ir32;
  Array x64 = arr(std::vector<double>{0, 1, 2, 3}), o64 = zeros({4}, f64, dev_);
  const std::string ir64 = inspect(k, {0.1, x64, o64}, "ir");
  EXPECT_NE(ir64.find("s: f64"), std::string::npos) << ir64;
  EXPECT_NE(ir64.find("default_float=f64"), std::string::npos) << ir64;
  // Even with only the output f64, the scalar is f64.
  Array of64 = zeros({4}, f64, dev_);
  EXPECT_NE(inspect(k, {0.1, x32, of64}, "ir").find("s: f64"), std::string::npos);
  // The value arrives as a double: 3 * 0.1 in f64, not f32(0.1) * 3.
  k(0.1, x64, o64);
  const auto got = o64.to_vector<double>();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(got[i], static_cast<double>(i) * 0.1) << i;
  k(0.1, x32, o32);
  const auto got32 = o32.to_vector<float>();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(got32[i], static_cast<float>(i) * 0.1f) << i;
}

TEST_P(DispatchChecksOnDevice, UnsignedAboveInt64MaxIsU64) {
  const Kernel k = kernel(R"(
def dc_u(v, out):
    for i in range(len(out)):
        out[i] = v
)");
  Array out = zeros({2}, u64, dev_);
  const std::uint64_t big = (std::uint64_t{1} << 63) + 5;
  EXPECT_NE(inspect(k, {big, out}, "ir").find("v: u64"), std::string::npos);
  k(big, out);
  EXPECT_EQ(out.to_vector<std::uint64_t>(), std::vector<std::uint64_t>(2, big));
}

TEST_P(DispatchChecksOnDevice, IntegerScalarsAreI32UnlessTheyNeedI64) {
  const Kernel k = kernel(R"(
def dc_int(v, out):
    for i in range(len(out)):
        out[i] = v
)");
  Array out = zeros({1}, i64, dev_);
  const std::int64_t i32_max = std::numeric_limits<std::int32_t>::max();
  const std::int64_t i32_min = std::numeric_limits<std::int32_t>::min();
  EXPECT_NE(inspect(k, {i32_max, out}, "ir").find("v: i32"), std::string::npos);
  EXPECT_NE(inspect(k, {i32_min, out}, "ir").find("v: i32"), std::string::npos);
  EXPECT_NE(inspect(k, {i32_max + 1, out}, "ir").find("v: i64"), std::string::npos);
  EXPECT_NE(inspect(k, {i32_min - 1, out}, "ir").find("v: i64"), std::string::npos);
  for (std::int64_t v :
       {i32_max, i32_min, i32_max + 1, i32_min - 1, std::numeric_limits<std::int64_t>::min()}) {
    k(v, out);
    EXPECT_EQ(out.to_vector<std::int64_t>()[0], v);
  }
  EXPECT_EQ(k.variant_count(), 2u);
  Array flags = zeros({2}, i32, dev_);
  k(true, flags);
  EXPECT_EQ(flags.to_vector<std::int32_t>(), (std::vector<std::int32_t>{1, 1}));
  EXPECT_NE(inspect(k, {false, flags}, "ir").find("v: bool"), std::string::npos);
}

// An 8-byte unsigned C++ value (a size_t) passes as Python's int would: i32 or i64 by its
// value, u64 only above INT64_MAX, so k(x, v.size()) is the same signature as k(x, 10).
TEST_P(DispatchChecksOnDevice, SizeTPassesAsPythonsIntWould) {
  const Kernel k = kernel(R"(
def dc_size(x, n):
    for i in range(len(x)):
        if i < n:
            x[i] = 1.0
)");
  Array x = zeros({4}, f32, dev_);
  const std::size_t n = 2;
  EXPECT_NE(inspect(k, {x, n}, "ir").find("n: i32"), std::string::npos);
  k(x, n);
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{1, 1, 0, 0}));
  k(x, 2);
  EXPECT_EQ(k.variant_count(), 1u);
}

// A call without arrays runs on the default device, which the fixture made the test's device.
TEST_P(DispatchChecksOnDevice, KernelWithoutArrays) {
  const Kernel k = kernel(R"(
def dc_nothing(n, x):
    for i in range(n):
        y = x * i
)");
  k(100, 2.5);
  k(0, 1.0);
  k(-5, 1.0);
  EXPECT_EQ(k.variant_count(), 1u);
}

// Seventeen 3-D arrays take 68 argument slots (on the CPU, more than the launch's 64 on the
// stack; on OpenCL, 17 pointers and 51 extents as kernel arguments).
TEST_P(DispatchChecksOnDevice, ManyArrayParameters) {
  const int count = 17;
  std::string params, body;
  for (int p = 0; p < count; ++p) {
    params += (p ? ", a" : "a") + std::to_string(p);
    if (p > 0)
      body +=
          "        a" + std::to_string(p) + "[i, j, l] = a0[i, j, l] + " + std::to_string(p) + "\n";
  }
  const Kernel k = kernel("def dc_many(" + params +
                          "):\n    for i, j, l in tack.ndrange(a0.shape[0], a0.shape[1], "
                          "a0.shape[2]):\n" +
                          body);
  std::vector<Array> arrays;
  std::vector<float> first(2 * 3 * 4);
  for (std::size_t e = 0; e < first.size(); ++e) first[e] = static_cast<float>(e);
  arrays.push_back(arr(first, {2, 3, 4}));
  for (int p = 1; p < count; ++p) arrays.push_back(zeros({2, 3, 4}, f32, dev_));
  std::vector<KernelArg> args(arrays.begin(), arrays.end());
  k.call(args);
  for (int p = 1; p < count; ++p) {
    const auto got = arrays[p].to_vector<float>();
    for (std::size_t e = 0; e < got.size(); ++e) {
      ASSERT_EQ(got[e], first[e] + static_cast<float>(p)) << "a" << p << " element " << e;
    }
  }
}

// ---- versions ------------------------------------------------------------------------------

TEST_P(DispatchChecksOnDevice, VersionsAreBumpedForWrittenArraysOnly) {
  const Kernel k = kernel(kTwoOutputs);
  Array src = arr(iota_f32(8));
  Array out1 = zeros({8}, f32, dev_), out2 = zeros({8}, f32, dev_);
  const std::uint64_t vs = src.version(), v1 = out1.version(), v2 = out2.version();
  k(src, out1, out2);
  EXPECT_GT(out1.version(), v1);
  EXPECT_GT(out2.version(), v2);
  EXPECT_EQ(src.version(), vs);  // only read
  const std::uint64_t w1 = out1.version();
  k(src, out1, out2);
  EXPECT_GT(out1.version(), w1);
  EXPECT_EQ(src.version(), vs);
}

TEST_P(DispatchChecksOnDevice, WriteThroughAViewBumpsTheRootVersion) {
  const Kernel k = kernel(kCopy);
  Array root = zeros({6, 2}, f32, dev_);
  Array view = root.reshape({12}).slice(2, 10);
  const std::uint64_t v = root.version();
  Array src = zeros({8}, f32, dev_);
  k(src, view);
  EXPECT_GT(root.version(), v);
  EXPECT_EQ(view.version(), root.version());
}

TEST_P(DispatchChecksOnDevice, AtomicTargetVersionIsBumped) {
  const Kernel k = kernel(kAtomic);
  Array h = zeros({4}, i32, dev_);
  Array bins = arr(std::vector<std::int32_t>{1, 2});
  const std::uint64_t v = h.version(), vb = bins.version();
  k(bins, h);
  EXPECT_GT(h.version(), v);
  EXPECT_EQ(bins.version(), vb);
}

// ---- launches -----------------------------------------------------------------------------

TEST_P(DispatchChecksOnDevice, SixteenElementKernel) {
  const Kernel k = kernel(R"(
def dc_small(x, out):
    for i in range(len(x)):
        out[i] = x[i] * 2 + x[len(x) - 1 - i]
)");
  const std::vector<float> x0 = iota_f32(16);
  Array x = arr(x0);
  std::vector<float> expected(16);
  for (int i = 0; i < 16; ++i) expected[i] = x0[i] * 2 + x0[15 - i];
  for (int r = 0; r < 2000; ++r) {
    Array out = zeros({16}, f32, dev_);
    k(x, out);
    ASSERT_EQ(out.to_vector<float>(), expected) << "call " << r;
  }
  EXPECT_EQ(k.variant_count(), 1u);
}

TEST_P(DispatchChecksOnDevice, EmptyLaunchRunsNothing) {
  const Kernel k = kernel(kCopy);
  Array src = zeros({0}, f32, dev_), dst = zeros({0}, f32, dev_);
  k(src, dst);
  EXPECT_EQ(k.variant_count(), 1u);
}

TEST_P(DispatchChecksOnDevice, KernelsOnViewsWriteOnlyTheViewsRows) {
  const Kernel k = kernel(R"(
def dc_fill_rows(m, v):
    for i, j in tack.ndrange(m.shape[0], m.shape[1]):
        m[i, j] = v + i
)");
  Array root = zeros({10, 3}, i32, dev_);
  Array view = root.slice(3, 7);
  k(view, 100);
  std::vector<std::int32_t> expected(30, 0);
  for (int r = 3; r < 7; ++r) {
    for (int c = 0; c < 3; ++c) expected[r * 3 + c] = 100 + (r - 3);
  }
  EXPECT_EQ(root.to_vector<std::int32_t>(), expected);
  // A 1-D view of a reshaped root: only its elements change.
  const Kernel copy = kernel(kCopy);
  Array flat = root.reshape({30});
  Array middle = flat.slice(10, 14);
  Array src = arr(std::vector<std::int32_t>{-1, -2, -3, -4});
  copy(src, middle);
  for (int e = 10; e < 14; ++e) expected[e] = -(e - 9);
  EXPECT_EQ(root.to_vector<std::int32_t>(), expected);
  // A view's rows drive the launch length: a kernel on the last row only.
  Array last = root.slice(9, 10);
  k(last, 7);
  for (int c = 0; c < 3; ++c) expected[27 + c] = 7;
  EXPECT_EQ(root.to_vector<std::int32_t>(), expected);
}

}  // namespace
}  // namespace tack
