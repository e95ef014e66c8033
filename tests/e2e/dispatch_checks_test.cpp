// Dispatch rules through the public API, on every call (cold and cached): read-only arrays bound
// to written parameters, atomic alignment, arity and rank, what is and is not in the variant key,
// version bumps, and kernels launched on views.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "tack/tack.hpp"

namespace tack {
namespace {

template <class T>
Array arr(const std::vector<T>& v) {
  return array(v, {static_cast<std::int64_t>(v.size())});
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

class DispatchChecks : public ::testing::Test {
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

TEST_F(DispatchChecks, ReadOnlyArrayBoundToAWrittenParameterIsRefusedBeforeLaunch) {
  const Kernel k = kernel(kTwoOutputs);
  Array src = arr(iota_f32(8));
  Array out1 = zeros({8});
  const std::uint64_t v1 = out1.version();
  std::vector<float> backing(8, -1.0f);
  Array ro = array_from_ptr(addr(backing), f32, {8});
  ASSERT_FALSE(ro.writable());
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
  EXPECT_EQ(backing, std::vector<float>(8, -1.0f));
  EXPECT_EQ(out1.version(), v1);
}

TEST_F(DispatchChecks, ReadOnlyCheckRunsOnTheCachedPath) {
  const Kernel k = kernel(kTwoOutputs);
  Array src = arr(iota_f32(8));
  Array out1 = zeros({8}), out2 = zeros({8});
  k(src, out1, out2);  // compiles and caches the variant
  std::vector<float> backing(8, 0.0f);
  Array ro = array_from_ptr(addr(backing), f32, {8});
  Array fresh = zeros({8});
  const std::uint64_t v = fresh.version();
  for (int round = 0; round < 3; ++round) EXPECT_THROW(k(src, fresh, ro), ValueError);
  EXPECT_EQ(fresh.to_vector<float>(), std::vector<float>(8, 0.0f));
  EXPECT_EQ(fresh.version(), v);
  EXPECT_EQ(backing, std::vector<float>(8, 0.0f));
  EXPECT_EQ(k.variant_count(), 1u);
}

TEST_F(DispatchChecks, ReadOnlyArrayBoundToAParameterOnlyReadIsFine) {
  const Kernel k = kernel(kTwoOutputs);
  std::vector<float> backing = iota_f32(8);
  Array ro = array_from_ptr(addr(backing), f32, {8});
  Array out1 = zeros({8}), out2 = zeros({8});
  const std::uint64_t v = ro.version();
  k(ro, out1, out2);
  EXPECT_EQ(out1.to_vector<float>(), iota_f32(8, 1.0f));
  EXPECT_EQ(ro.version(), v);
}

TEST_F(DispatchChecks, ReadOnlyViewInheritsTheRefusal) {
  const Kernel k = kernel(kTwoOutputs);
  std::vector<float> backing(12, 0.0f);
  Array ro_root = array_from_ptr(addr(backing), f32, {12});
  Array view = ro_root.slice(2, 10);
  ASSERT_FALSE(view.writable());
  Array a = zeros({8}), b = zeros({8});
  EXPECT_THROW(k(a, view, b), ValueError);
  EXPECT_EQ(backing, std::vector<float>(12, 0.0f));
  EXPECT_EQ(b.to_vector<float>(), std::vector<float>(8, 0.0f));
}

TEST_F(DispatchChecks, StoreThroughAnInlinedDeviceFunctionCountsAsAWrite) {
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
  std::vector<float> backing(6, 5.0f);
  Array ro = array_from_ptr(addr(backing), f32, {6});
  Array src = arr(iota_f32(6));
  EXPECT_THROW(k(src, ro), ValueError);
  EXPECT_EQ(backing, std::vector<float>(6, 5.0f));
  // Read-only as the source only: fine.
  Array dst = zeros({6});
  k(ro, dst);
  EXPECT_EQ(dst.to_vector<float>(), std::vector<float>(6, 15.0f));
}

TEST_F(DispatchChecks, ReadOnlyAtomicTargetIsRefused) {
  const Kernel k = kernel(kAtomic);
  std::vector<std::int32_t> backing(4, 0);
  Array ro = array_from_ptr(addr(backing), i32, {4});
  Array bins = arr(std::vector<std::int32_t>{0, 1, 2, 3, 0});
  EXPECT_THROW(k(bins, ro), ValueError);
  EXPECT_EQ(backing, std::vector<std::int32_t>(4, 0));
}

// ---- atomic alignment ---------------------------------------------------------------------

// An aligned start inside `raw` (16-byte boundary), as an offset from raw.data().
std::size_t aligned_start(const std::vector<std::uint8_t>& raw) {
  const auto base = reinterpret_cast<std::uintptr_t>(raw.data());
  return static_cast<std::size_t>((16 - base % 16) % 16);
}

Array i32_at(std::vector<std::uint8_t>& raw, std::size_t offset, std::int64_t n) {
  return array_from_ptr(reinterpret_cast<std::uintptr_t>(raw.data() + offset), i32, {n}, true);
}

std::vector<std::int32_t> read_i32(const std::vector<std::uint8_t>& raw, std::size_t offset,
                                   std::size_t n) {
  std::vector<std::int32_t> v(n);
  std::memcpy(v.data(), raw.data() + offset, n * 4);
  return v;
}

TEST_F(DispatchChecks, MisalignedAtomicTargetIsRefused) {
  const Kernel k = kernel(kAtomic);
  Array bins = arr(std::vector<std::int32_t>{0, 1, 1, 3});
  for (std::size_t offset : {1u, 2u, 3u, 5u}) {
    std::vector<std::uint8_t> raw(64, 0);
    const std::size_t start = aligned_start(raw);
    Array h = i32_at(raw, start + offset, 4);
    try {
      k(bins, h);
      FAIL() << "expected ValueError at offset " << offset;
    } catch (const ValueError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("align"), std::string::npos) << msg;
      EXPECT_NE(msg.find("'h'"), std::string::npos) << msg;
      EXPECT_NE(msg.find("dc_atomic"), std::string::npos) << msg;
    }
    EXPECT_EQ(raw, std::vector<std::uint8_t>(64, 0)) << "offset " << offset;
    Array ok = i32_at(raw, start + 4, 4);  // 4-byte aligned: accepted
    k(bins, ok);
    EXPECT_EQ(read_i32(raw, start + 4, 4), (std::vector<std::int32_t>{1, 2, 0, 1}));
  }
}

TEST_F(DispatchChecks, MisalignedAtomicTargetIsRefusedOnTheCachedPath) {
  const Kernel k = kernel(kAtomic);
  Array bins = arr(std::vector<std::int32_t>{0, 1});
  std::vector<std::uint8_t> raw(64, 0);
  const std::size_t start = aligned_start(raw);
  Array aligned = i32_at(raw, start, 2);
  k(bins, aligned);  // compiles and caches the variant
  EXPECT_EQ(read_i32(raw, start, 2), (std::vector<std::int32_t>{1, 1}));
  // A different buffer, misaligned, through the cached variant.
  std::vector<std::uint8_t> other(64, 0);
  Array misaligned = i32_at(other, aligned_start(other) + 17, 2);
  EXPECT_THROW(k(bins, misaligned), ValueError);
  EXPECT_THROW(k(bins, misaligned), ValueError);
  EXPECT_EQ(other, std::vector<std::uint8_t>(64, 0));
  EXPECT_EQ(k.variant_count(), 1u);
  k(bins, aligned);  // still fine
  EXPECT_EQ(read_i32(raw, start, 2), (std::vector<std::int32_t>{2, 2}));
}

TEST_F(DispatchChecks, I64AtomicTargetNeedsEightByteAlignment) {
  const Kernel k = kernel(kAtomic);
  std::vector<std::uint8_t> raw(80, 0);
  const std::size_t start = aligned_start(raw);
  Array h =
      array_from_ptr(reinterpret_cast<std::uintptr_t>(raw.data() + start + 4), i64, {4}, true);
  Array bins = arr(std::vector<std::int32_t>{0, 1});
  EXPECT_THROW(k(bins, h), ValueError);
  EXPECT_EQ(raw, std::vector<std::uint8_t>(80, 0));
}

TEST_F(DispatchChecks, MisalignedArraysWithoutAtomicsAreFine) {
  const Kernel k = kernel(kCopy);
  std::vector<std::uint8_t> raw(64, 0);
  const std::size_t start = aligned_start(raw);
  Array dst = i32_at(raw, start + 1, 4);
  const std::vector<std::int32_t> values{1, -2, 3, std::numeric_limits<std::int32_t>::max()};
  k(arr(values), dst);
  EXPECT_EQ(read_i32(raw, start + 1, 4), values);
}

TEST_F(DispatchChecks, AtomicThroughADeviceFunctionIsChecked) {
  const Kernel k = kernel(R"(
@tack.func
def bump(h, b):
    tack.atomic_add(h, b, 1)

def dc_atomic_via_func(bins, h):
    for i in range(len(bins)):
        bump(h, bins[i])
)");
  Array bins = arr(std::vector<std::int32_t>{0, 1, 1});
  std::vector<std::uint8_t> raw(64, 0);
  const std::size_t start = aligned_start(raw);
  Array misaligned = i32_at(raw, start + 2, 4);
  EXPECT_THROW(k(bins, misaligned), ValueError);
  EXPECT_EQ(raw, std::vector<std::uint8_t>(64, 0));
  std::vector<std::int32_t> backing(4, 0);
  Array ro = array_from_ptr(addr(backing), i32, {4});
  EXPECT_THROW(k(bins, ro), ValueError);
  EXPECT_EQ(backing, std::vector<std::int32_t>(4, 0));
  Array h = zeros({4}, i32);
  k(bins, h);
  EXPECT_EQ(h.to_vector<std::int32_t>(), (std::vector<std::int32_t>{1, 2, 0, 0}));
}

// ---- arity and rank ------------------------------------------------------------------------

TEST_F(DispatchChecks, WrongArityIsATypeErrorListingTheParameters) {
  const Kernel k = kernel(kCopy);
  Array a = zeros({4}), b = zeros({4}), c = zeros({4});
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

TEST_F(DispatchChecks, ArraysOfRankZeroOrFourAreTypeErrors) {
  const Kernel k = kernel(kCopy);
  Array ok = zeros({4});
  Array rank0 = zeros({});
  Array rank4 = zeros({2, 2, 2, 2});
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

TEST_F(DispatchChecks, ScalarValuesNeverRecompile) {
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
    Array out = zeros({5});
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
    Array om = zeros({m});
    k(1.0, 0, xm, om);
    EXPECT_EQ(om.to_vector<float>(), std::vector<float>(static_cast<std::size_t>(m), 1.0f));
  }
  for (int r = 0; r < 1000; ++r) {
    Array out = zeros({5});
    k(static_cast<double>(r), r, x, out);
  }
  EXPECT_EQ(k.variant_count(), 1u);
  // An int that needs i64 is a new type: one more variant, and its value arrives whole.
  const std::int64_t big = std::int64_t{1} << 40;
  Array out32 = zeros({5});
  k(1.0, big, x, out32);
  EXPECT_EQ(k.variant_count(), 2u);
  EXPECT_EQ(out32.to_vector<float>()[0], static_cast<float>(big));
  k(1.0, big + 1, x, out32);  // and other i64 values reuse it
  EXPECT_EQ(k.variant_count(), 2u);
}

TEST_F(DispatchChecks, ArgumentTypesAreKeyedButLengthsAreNot) {
  const Kernel k = kernel(R"(
def dc_keyed(x, out):
    for i in range(len(x)):
        out[i] = x[i]
)");
  Array a = zeros({3}), b = zeros({3});
  k(a, b);
  k(a, b);
  EXPECT_EQ(k.variant_count(), 1u);
  Array ia = zeros({3}, i32), ib = zeros({3}, i32);
  k(ia, ib);
  EXPECT_EQ(k.variant_count(), 2u);
  Array d = zeros({3}, f64);
  k(a, d);  // one parameter's type differs
  EXPECT_EQ(k.variant_count(), 3u);
  Array a5 = zeros({5}), b7 = zeros({7});
  k(a5, b7);
  EXPECT_EQ(k.variant_count(), 3u);
}

TEST_F(DispatchChecks, F64ArrayMakesFloatScalarsF64) {
  const Kernel k = kernel(R"(
def dc_scale(s, x, out):
    for i in range(len(x)):
        out[i] = x[i] * s
)");
  Array x32 = arr(iota_f32(4)), o32 = zeros({4});
  const std::string ir32 = inspect(k, {0.1, x32, o32}, "ir");
  EXPECT_NE(ir32.find("s: f32"), std::string::npos) << ir32;
  Array x64 = arr(std::vector<double>{0, 1, 2, 3}), o64 = zeros({4}, f64);
  const std::string ir64 = inspect(k, {0.1, x64, o64}, "ir");
  EXPECT_NE(ir64.find("s: f64"), std::string::npos) << ir64;
  EXPECT_NE(ir64.find("default_float=f64"), std::string::npos) << ir64;
  // Even with only the output f64, the scalar is f64.
  Array of64 = zeros({4}, f64);
  EXPECT_NE(inspect(k, {0.1, x32, of64}, "ir").find("s: f64"), std::string::npos);
  // The value arrives as a double: 3 * 0.1 in f64, not f32(0.1) * 3.
  k(0.1, x64, o64);
  const auto got = o64.to_vector<double>();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(got[i], static_cast<double>(i) * 0.1) << i;
  k(0.1, x32, o32);
  const auto got32 = o32.to_vector<float>();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(got32[i], static_cast<float>(i) * 0.1f) << i;
}

TEST_F(DispatchChecks, UnsignedAboveInt64MaxIsU64) {
  const Kernel k = kernel(R"(
def dc_u(v, out):
    for i in range(len(out)):
        out[i] = v
)");
  Array out = zeros({2}, u64);
  const std::uint64_t big = (std::uint64_t{1} << 63) + 5;
  EXPECT_NE(inspect(k, {big, out}, "ir").find("v: u64"), std::string::npos);
  k(big, out);
  EXPECT_EQ(out.to_vector<std::uint64_t>(), std::vector<std::uint64_t>(2, big));
}

TEST_F(DispatchChecks, IntegerScalarsAreI32UnlessTheyNeedI64) {
  const Kernel k = kernel(R"(
def dc_int(v, out):
    for i in range(len(out)):
        out[i] = v
)");
  Array out = zeros({1}, i64);
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
  Array flags = zeros({2}, i32);
  k(true, flags);
  EXPECT_EQ(flags.to_vector<std::int32_t>(), (std::vector<std::int32_t>{1, 1}));
  EXPECT_NE(inspect(k, {false, flags}, "ir").find("v: bool"), std::string::npos);
}

// An 8-byte unsigned C++ value (a size_t) passes as Python's int would: i32 or i64 by its
// value, u64 only above INT64_MAX, so k(x, v.size()) is the same signature as k(x, 10).
TEST_F(DispatchChecks, SizeTPassesAsPythonsIntWould) {
  const Kernel k = kernel(R"(
def dc_size(x, n):
    for i in range(len(x)):
        if i < n:
            x[i] = 1.0
)");
  Array x = zeros({4});
  const std::size_t n = 2;
  EXPECT_NE(inspect(k, {x, n}, "ir").find("n: i32"), std::string::npos);
  k(x, n);
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{1, 1, 0, 0}));
  k(x, 2);
  EXPECT_EQ(k.variant_count(), 1u);
}

TEST_F(DispatchChecks, KernelWithoutArrays) {
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

// Seventeen 3-D arrays take 68 argument slots: more than the launch's 64 on the stack.
TEST_F(DispatchChecks, ManyArrayParameters) {
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
  arrays.push_back(array(first, {2, 3, 4}));
  for (int p = 1; p < count; ++p) arrays.push_back(zeros({2, 3, 4}));
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

TEST_F(DispatchChecks, VersionsAreBumpedForWrittenArraysOnly) {
  const Kernel k = kernel(kTwoOutputs);
  Array src = arr(iota_f32(8));
  Array out1 = zeros({8}), out2 = zeros({8});
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

TEST_F(DispatchChecks, WriteThroughAViewBumpsTheRootVersion) {
  const Kernel k = kernel(kCopy);
  Array root = zeros({6, 2});
  Array view = root.reshape({12}).slice(2, 10);
  const std::uint64_t v = root.version();
  Array src = zeros({8});
  k(src, view);
  EXPECT_GT(root.version(), v);
  EXPECT_EQ(view.version(), root.version());
}

TEST_F(DispatchChecks, AtomicTargetVersionIsBumped) {
  const Kernel k = kernel(kAtomic);
  Array h = zeros({4}, i32);
  Array bins = arr(std::vector<std::int32_t>{1, 2});
  const std::uint64_t v = h.version(), vb = bins.version();
  k(bins, h);
  EXPECT_GT(h.version(), v);
  EXPECT_EQ(bins.version(), vb);
}

// ---- launches -----------------------------------------------------------------------------

TEST_F(DispatchChecks, SixteenElementKernel) {
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
    Array out = zeros({16});
    k(x, out);
    ASSERT_EQ(out.to_vector<float>(), expected) << "call " << r;
  }
  EXPECT_EQ(k.variant_count(), 1u);
}

TEST_F(DispatchChecks, EmptyLaunchRunsNothing) {
  const Kernel k = kernel(kCopy);
  Array src = zeros({0}), dst = zeros({0});
  k(src, dst);
  EXPECT_EQ(k.variant_count(), 1u);
}

TEST_F(DispatchChecks, KernelsOnViewsWriteOnlyTheViewsRows) {
  const Kernel k = kernel(R"(
def dc_fill_rows(m, v):
    for i, j in tack.ndrange(m.shape[0], m.shape[1]):
        m[i, j] = v + i
)");
  Array root = zeros({10, 3}, i32);
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
