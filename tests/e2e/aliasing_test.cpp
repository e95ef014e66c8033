// The aliasing model through the public API (seed "Memory and Aliasing"): overlapping array
// arguments keep program order within an iteration on every device and under both CPU variants;
// the CPU promises `noalias` exactly when every written array is disjoint from every other array
// argument, and OpenCL never promises anything (no `restrict`, one variant for every call).
// The rules are written once and run on every device present (Devices/AliasingOnDevice.<test>/
// <device>); wrapping host memory and the agreement of the CPU's two variants stay CPU-only.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
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

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

bool has_noalias(const Kernel& k, const std::vector<KernelArg>& args) {
  return contains(inspect(k, args, "source"), "noalias");
}

// The device of the first array argument.
bool runs_on_cpu(const std::vector<KernelArg>& args) {
  for (const KernelArg& a : args) {
    if (a.array != nullptr) return a.array->device().kind() == "cpu";
  }
  return true;
}

// What the variant these arguments run promises. On the CPU: noalias exactly when the
// specialization is on and the written arrays are disjoint from every other array argument.
// On OpenCL arrays are plain global pointers, never `restrict`, whatever the arguments.
void expect_promise(const Kernel& k, const std::vector<KernelArg>& args, bool disjoint) {
  const std::string source = inspect(k, args, "source");
  if (runs_on_cpu(args)) {
    const bool spec = specialize_disjoint();
    EXPECT_EQ(contains(source, "noalias"), spec && disjoint)
        << k.name() << ": specialization " << (spec ? "on" : "off") << ", arrays "
        << (disjoint ? "disjoint" : "overlapping");
  } else {
    EXPECT_FALSE(contains(source, "restrict")) << k.name() << "\n" << source;
  }
}

// Runs `body` with the CPU's disjoint specialization on, then off (OpenCL ignores the setting:
// its rules must hold either way), and leaves it on.
template <class F>
void under_both_settings(F&& body) {
  for (bool on : {true, false}) {
    SCOPED_TRACE(on ? "disjoint specialization on" : "disjoint specialization off");
    set_specialize_disjoint(on);
    body();
  }
  set_specialize_disjoint(true);
}

// Each kernel is parsed once per process.
const Kernel& al_wwr() {
  static const Kernel k = kernel(R"(
@tack.kernel
def al_wwr(a, b, out):
    for i in range(len(out)):
        a[i] = 1.0
        b[i] = 2.0
        out[i] = a[i]
)");
  return k;
}

const Kernel& al_wwr_offset() {
  static const Kernel k = kernel(R"(
def al_wwr_offset(a, b, off, out):
    for i in range(len(out)):
        a[i + off] = 1.0
        b[i] = 2.0
        out[i] = a[i + off]
)");
  return k;
}

const Kernel& al_wwr_rows() {
  static const Kernel k = kernel(R"(
def al_wwr_rows(a, b, off, out):
    for i, j in tack.ndrange(out.shape[0], out.shape[1]):
        a[i + off, j] = 1.0
        b[i, j] = 2.0
        out[i, j] = a[i + off, j]
)");
  return k;
}

const Kernel& al_flat_and_2d() {
  static const Kernel k = kernel(R"(
def al_flat_and_2d(flat, m, out):
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            m[i, j] = 7.0 + j
            flat[i * m.shape[1] + j] = flat[i * m.shape[1] + j] * 2.0
            out[i, j] = m[i, j]
)");
  return k;
}

const Kernel& al_reshape_pair() {
  static const Kernel k = kernel(R"(
def al_reshape_pair(a2, b3, out):
    for i in range(a2.shape[0]):
        for j in range(a2.shape[1]):
            a2[i, j] = 5.0
        for j in range(a2.shape[1]):
            b3[i, j // 2, j % 2] = b3[i, j // 2, j % 2] + 1.0
        s = 0.0
        for j in range(a2.shape[1]):
            s += a2[i, j]
        out[i] = s
)");
  return k;
}

const Kernel& al_axpy() {
  static const Kernel k = kernel(R"(
def al_axpy(x, y, out):
    for i in range(len(out)):
        out[i] = 2.0 * x[i] + y[i]
)");
  return k;
}

// One iteration walks the whole array: a store through b must be seen by the next load through
// a whenever the two overlap. A noalias promise here would let the vectorizer break it.
const Kernel& al_prefix() {
  static const Kernel k = kernel(R"(
def al_prefix(a, b):
    for t in range(1):
        for j in range(1, len(b)):
            b[j] = a[j - 1] + b[j]
)");
  return k;
}

// Memory wrapped with array_from_ptr at element offsets, as a library handing over its pointers
// would: host memory Tack did not allocate (a std::vector; the CPU only, since other devices
// accept only their own allocations), or an allocation of a device.
template <class T>
class WrappedMemory {
 public:
  explicit WrappedMemory(std::vector<T> host) : host_(std::move(host)), device_(cpu_device()) {}
  WrappedMemory(const std::vector<T>& init, const Device& d)
      : root_(array(init, {static_cast<std::int64_t>(init.size())}, d)), device_(d) {}

  Array wrap(std::size_t element, DType dtype, std::int64_t n, bool writable = false) const {
    return array_from_ptr(base() + element * sizeof(T), dtype, {n}, writable, device_);
  }
  std::vector<T> contents() const { return root_ ? root_->to_vector<T>() : host_; }
  const Device& device() const { return device_; }

 private:
  std::uintptr_t base() const {
    return root_ ? root_->address() : reinterpret_cast<std::uintptr_t>(host_.data());
  }
  std::vector<T> host_;
  std::optional<Array> root_;
  Device device_;
};

class AliasingOnDevice : public test::OnDevice {};

TACK_INSTANTIATE_ON_DEVICES(AliasingOnDevice);

// The seed's reproduction: write 1 through a, write 2 through an aliased b, read a -> 2.
TEST_P(AliasingOnDevice, WriteOneThroughAWriteTwoThroughAliasedBReadA) {
  under_both_settings([&] {
    Array x = zeros({1000}, f32, dev_);
    Array out = zeros({1000}, f32, dev_);
    al_wwr()(x, x, out);
    EXPECT_EQ(out.to_vector<float>(), std::vector<float>(1000, 2.0f));
    EXPECT_EQ(x.to_vector<float>(), std::vector<float>(1000, 2.0f));
    expect_promise(al_wwr(), {x, x, out}, false);
  });
}

TEST_P(AliasingOnDevice, DisjointArraysReadTheirOwnStore) {
  under_both_settings([&] {
    Array x = zeros({1000}, f32, dev_), y = zeros({1000}, f32, dev_),
          out = zeros({1000}, f32, dev_);
    al_wwr()(x, y, out);
    EXPECT_EQ(out.to_vector<float>(), std::vector<float>(1000, 1.0f));
    EXPECT_EQ(x.to_vector<float>(), std::vector<float>(1000, 1.0f));
    EXPECT_EQ(y.to_vector<float>(), std::vector<float>(1000, 2.0f));
    expect_promise(al_wwr(), {x, y, out}, true);
  });
}

TEST_P(AliasingOnDevice, TwoReshapeViewsOfOneBuffer) {
  under_both_settings([&] {
    Array root = zeros({12}, f32, dev_);
    Array m = root.reshape({3, 4});
    Array out = zeros({3, 4}, f32, dev_);
    al_flat_and_2d()(root, m, out);
    std::vector<float> expected;
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 4; ++j) expected.push_back((7.0f + static_cast<float>(j)) * 2.0f);
    }
    EXPECT_EQ(out.to_vector<float>(), expected);
    EXPECT_EQ(root.to_vector<float>(), expected);
    expect_promise(al_flat_and_2d(), {root, m, out}, false);
  });
}

TEST_P(AliasingOnDevice, ReshapeViewsOfDifferentRanks) {
  under_both_settings([&] {
    Array root = zeros({24}, f64, dev_);
    Array a2 = root.reshape({6, 4});
    Array b3 = root.reshape({6, 2, 2});
    Array out = zeros({6}, f64, dev_);
    al_reshape_pair()(a2, b3, out);
    // Each row: a2 stores 5 four times, b3 adds 1 to each: the sum reads 4 * 6.
    EXPECT_EQ(out.to_vector<double>(), std::vector<double>(6, 24.0));
    EXPECT_EQ(root.to_vector<double>(), std::vector<double>(24, 6.0));
    expect_promise(al_reshape_pair(), {a2, b3, out}, false);
  });
}

TEST_P(AliasingOnDevice, OverlappingRowViews) {
  under_both_settings([&] {
    Array root = zeros({8, 3}, f32, dev_);
    Array a = root.slice(0, 4);
    Array b = root.slice(2, 6);  // rows 2 and 3 of the root are in both
    Array out = zeros({2, 3}, f32, dev_);
    al_wwr_rows()(a, b, 2, out);  // a[i + 2] and b[i] are the same root row
    EXPECT_EQ(out.to_vector<float>(), std::vector<float>(6, 2.0f));
    std::vector<float> expected(24, 0.0f);
    for (int k = 2 * 3; k < 4 * 3; ++k) expected[k] = 2.0f;
    EXPECT_EQ(root.to_vector<float>(), expected);
    expect_promise(al_wwr_rows(), {a, b, 2, out}, false);
  });
}

TEST_P(AliasingOnDevice, DisjointAdjacentRowViews) {
  under_both_settings([&] {
    Array root = zeros({8, 3}, f32, dev_);
    Array a = root.slice(0, 4);
    Array c = root.slice(4, 8);  // adjacent: no byte in common
    Array out = zeros({4, 3}, f32, dev_);
    al_wwr_rows()(a, c, 0, out);
    EXPECT_EQ(out.to_vector<float>(), std::vector<float>(12, 1.0f));
    std::vector<float> expected(24, 1.0f);
    for (int k = 12; k < 24; ++k) expected[k] = 2.0f;
    EXPECT_EQ(root.to_vector<float>(), expected);
    expect_promise(al_wwr_rows(), {a, c, 0, out}, true);
    // Rows [2, 6) overlap both halves.
    Array b = root.slice(2, 6);
    expect_promise(al_wwr_rows(), {a, b, 0, out}, false);
    expect_promise(al_wwr_rows(), {b, c, 0, out}, false);
  });
}

// ---- wrapped pointers: the same rules for memory Tack did not hand out as arrays ----------

void wrapped_pointers_that_partially_overlap(const WrappedMemory<float>& buf) {
  Array a = buf.wrap(0, f32, 8, true);
  Array b = buf.wrap(4, f32, 8, true);  // elements 4..7 are in both
  Array out = zeros({4}, f32, buf.device());
  al_wwr_offset()(a, b, 4, out);
  EXPECT_EQ(out.to_vector<float>(), std::vector<float>(4, 2.0f));
  std::vector<float> expected(16, 0.0f);
  for (int k = 4; k < 8; ++k) expected[k] = 2.0f;
  EXPECT_EQ(buf.contents(), expected);
  expect_promise(al_wwr_offset(), {a, b, 4, out}, false);
  // The same memory wrapped without overlap is disjoint.
  Array c = buf.wrap(8, f32, 8, true);
  expect_promise(al_wwr_offset(), {a, c, 0, out}, true);
}

void wrapped_f64_pointers_overlapping_by_three_elements(const WrappedMemory<double>& buf) {
  Array a = buf.wrap(0, f64, 8, true);
  Array b = buf.wrap(3, f64, 8, true);
  Array out = zeros({5}, f64, buf.device());
  al_wwr_offset()(a, b, 3, out);
  EXPECT_EQ(out.to_vector<double>(), std::vector<double>(5, 2.0));
  std::vector<double> expected(16, 0.0);
  for (int k = 3; k < 8; ++k) expected[k] = 2.0;
  EXPECT_EQ(buf.contents(), expected);
  expect_promise(al_wwr_offset(), {a, b, 3, out}, false);
}

// buf holds 0, 1, ..., 19.
void wrapped_read_only_arrays_may_overlap(const WrappedMemory<float>& buf) {
  const std::vector<float> values = buf.contents();
  Array r1 = buf.wrap(0, f32, 10);  // read-only, overlapping r2
  Array r2 = buf.wrap(5, f32, 10);
  Array out10 = zeros({10}, f32, buf.device());
  al_axpy()(r1, r2, out10);
  std::vector<float> expected10(10);
  for (int i = 0; i < 10; ++i) expected10[i] = 2.0f * values[i] + values[i + 5];
  EXPECT_EQ(out10.to_vector<float>(), expected10);
  expect_promise(al_axpy(), {r1, r2, out10}, true);
  // A written array overlapping a read one is not disjoint, whichever is which.
  Array w = buf.wrap(5, f32, 10, true);
  expect_promise(al_axpy(), {r1, r1, w}, false);
}

// buf holds n + 2 elements.
void sequential_dependence_through_wrapped_pointers(const WrappedMemory<std::int64_t>& buf) {
  const std::int64_t n = 3000;
  std::vector<std::int64_t> ref = buf.contents();
  Array a = buf.wrap(0, i64, n, true);
  Array b = buf.wrap(1, i64, n, true);
  al_prefix()(a, b);
  for (std::int64_t j = 1; j < n; ++j) ref[1 + j] = ref[j - 1] + ref[1 + j];
  EXPECT_EQ(buf.contents(), ref);
  expect_promise(al_prefix(), {a, b}, false);
}

std::vector<float> iota_floats(std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i);
  return v;
}

std::vector<std::int64_t> prefix_input() {
  std::vector<std::int64_t> buf(3002);
  for (std::int64_t k = 0; k < 3002; ++k) buf[k] = (k * 31) % 11 - 5;
  return buf;
}

// On each device: pointers into one of its allocations (on OpenCL, into one SVM allocation).
TEST_P(AliasingOnDevice, WrappedPointersThatPartiallyOverlap) {
  under_both_settings([&] {
    wrapped_pointers_that_partially_overlap(WrappedMemory<float>(std::vector<float>(16), dev_));
  });
}

TEST_P(AliasingOnDevice, WrappedF64PointersOverlappingByThreeElements) {
  under_both_settings([&] {
    wrapped_f64_pointers_overlapping_by_three_elements(
        WrappedMemory<double>(std::vector<double>(16), dev_));
  });
}

TEST_P(AliasingOnDevice, SequentialDependenceThroughWrappedPointers) {
  under_both_settings([&] {
    sequential_dependence_through_wrapped_pointers(
        WrappedMemory<std::int64_t>(prefix_input(), dev_));
  });
}

// CPU only: host memory Tack did not allocate can be wrapped only by the CPU backend.
TEST(AliasingHostMemory, WrappedPointersThatPartiallyOverlap) {
  under_both_settings([] {
    wrapped_pointers_that_partially_overlap(WrappedMemory<float>(std::vector<float>(16)));
  });
}

// CPU only: host memory Tack did not allocate can be wrapped only by the CPU backend.
TEST(AliasingHostMemory, WrappedF64PointersOverlappingByThreeElements) {
  under_both_settings([] {
    wrapped_f64_pointers_overlapping_by_three_elements(
        WrappedMemory<double>(std::vector<double>(16)));
  });
}

// CPU only: host memory Tack did not allocate can be wrapped only by the CPU backend.
TEST(AliasingHostMemory, ReadOnlyWrappedPointersMayOverlapEachOther) {
  under_both_settings(
      [] { wrapped_read_only_arrays_may_overlap(WrappedMemory<float>(iota_floats(20))); });
}

// CPU only: host memory Tack did not allocate can be wrapped only by the CPU backend.
TEST(AliasingHostMemory, SequentialDependenceThroughWrappedPointers) {
  under_both_settings([] {
    sequential_dependence_through_wrapped_pointers(WrappedMemory<std::int64_t>(prefix_input()));
  });
}

// ---- the same array more than once ----------------------------------------------------------

TEST_P(AliasingOnDevice, InPlaceUpdate) {
  under_both_settings([&] {
    std::vector<float> a0(5000), b0(5000);
    for (int i = 0; i < 5000; ++i) {
      a0[i] = static_cast<float>((i * 37) % 101) - 50.0f;
      b0[i] = static_cast<float>((i * 53) % 89) * 0.25f;
    }
    Array a = arr(a0), b = arr(b0);
    al_axpy()(a, b, a);  // f(a, ..., a): out is x
    std::vector<float> expected(5000);
    for (int i = 0; i < 5000; ++i) expected[i] = 2.0f * a0[i] + b0[i];
    EXPECT_EQ(a.to_vector<float>(), expected);
    expect_promise(al_axpy(), {a, b, a}, false);
    al_axpy()(b, a, a);  // out is y
    for (int i = 0; i < 5000; ++i) expected[i] = 2.0f * b0[i] + expected[i];
    EXPECT_EQ(a.to_vector<float>(), expected);
  });
}

TEST_P(AliasingOnDevice, TheSameArrayPassedThreeTimes) {
  under_both_settings([&] {
    std::vector<float> a0(5000);
    for (int i = 0; i < 5000; ++i) a0[i] = static_cast<float>(i % 17) - 8.5f;
    Array a = arr(a0);
    al_axpy()(a, a, a);
    std::vector<float> expected(5000);
    for (int i = 0; i < 5000; ++i) expected[i] = 2.0f * a0[i] + a0[i];
    EXPECT_EQ(a.to_vector<float>(), expected);
    expect_promise(al_axpy(), {a, a, a}, false);
  });
}

// dot(x, x): arrays that are only read may overlap each other (and on the CPU still get
// noalias).
TEST_P(AliasingOnDevice, ReadOnlyArraysMayOverlapEachOther) {
  under_both_settings([&] {
    std::vector<float> x0(100);
    for (int i = 0; i < 100; ++i) x0[i] = static_cast<float>(i) * 0.5f - 20.0f;
    Array x = arr(x0);
    Array out = zeros({100}, f32, dev_);
    al_axpy()(x, x, out);
    std::vector<float> expected(100);
    for (int i = 0; i < 100; ++i) expected[i] = 2.0f * x0[i] + x0[i];
    EXPECT_EQ(out.to_vector<float>(), expected);
    expect_promise(al_axpy(), {x, x, out}, true);
    // Overlapping read-only pointers into one allocation of the device.
    wrapped_read_only_arrays_may_overlap(WrappedMemory<float>(iota_floats(20), dev_));
  });
}

// ---- program order inside one iteration that walks the whole array ------------------------

// Sequential dependence through overlapping row views of one buffer, at many offsets.
TEST_P(AliasingOnDevice, SequentialDependenceThroughOverlappingViews) {
  under_both_settings([&] {
    const std::int64_t n = 4000;
    const std::pair<std::int64_t, std::int64_t> offsets[] = {
        {0, 0}, {0, 1}, {1, 0}, {0, 3}, {5, 2}, {0, 5000}, {4000, 0}, {2, 2}, {7, 0}};
    for (auto [oa, ob] : offsets) {
      std::vector<double> root0(10000);
      for (int k = 0; k < 10000; ++k)
        root0[k] = static_cast<double>((k * 7919 + oa * 13 + ob) % 11) - 5.0;
      Array root = arr(root0);
      Array a = root.slice(oa, oa + n), b = root.slice(ob, ob + n);
      al_prefix()(a, b);
      std::vector<double> ref = root0;
      for (std::int64_t j = 1; j < n; ++j) ref[ob + j] = ref[oa + j - 1] + ref[ob + j];
      EXPECT_EQ(root.to_vector<double>(), ref) << "offsets " << oa << ", " << ob;
      const bool disjoint = oa + n <= ob || ob + n <= oa;
      expect_promise(al_prefix(), {a, b}, disjoint);
    }
  });
}

// The same walk backwards (a negative step): b[j] reads a[j + 1], stored by the previous step
// when b is a shifted by one.
TEST_P(AliasingOnDevice, BackwardSequentialDependenceThroughOverlappingViews) {
  under_both_settings([&] {
    const Kernel k = kernel(R"(
def al_suffix(a, b):
    for t in range(1):
        for j in range(len(b) - 2, -1, -1):
            b[j] = a[j + 1] + b[j]
)");
    const std::int64_t n = 3000;
    for (std::int64_t shift : {0, 1, 2, 5, 3000}) {
      std::vector<std::int32_t> root0(6001);
      for (std::size_t e = 0; e < root0.size(); ++e) {
        root0[e] = static_cast<std::int32_t>(e % 7) - 3;
      }
      Array root = arr(root0);
      Array a = root.slice(shift, shift + n), b = root.slice(0, n);
      k(a, b);
      std::vector<std::int32_t> ref = root0;
      for (std::int64_t j = n - 2; j >= 0; --j) ref[j] = ref[shift + j + 1] + ref[j];
      EXPECT_EQ(root.to_vector<std::int32_t>(), ref) << "shift " << shift;
      expect_promise(k, {a, b}, shift >= n);
    }
  });
}

// ---- variants -----------------------------------------------------------------------------

// The CPU compiles a disjoint variant next to the plain one (when the specialization is on) and
// reuses both; OpenCL compiles one variant that serves every alias relationship.
TEST_P(AliasingOnDevice, AlternatingAliasedAndDisjointCallsReuseTheirCode) {
  under_both_settings([&] {
    const Kernel k = kernel(R"(
def al_alternate(x, y, out):
    for i in range(len(out)):
        out[i] = x[i] + y[i]
)");
    std::vector<float> iota(8), plus1(8);
    for (int i = 0; i < 8; ++i) {
      iota[i] = static_cast<float>(i);
      plus1[i] = static_cast<float>(i) + 1.0f;
    }
    Array x = arr(iota), y = arr(std::vector<float>(8, 1.0f));
    for (int round = 0; round < 3; ++round) {
      Array out = zeros({8}, f32, dev_);
      k(x, y, out);
      EXPECT_EQ(out.to_vector<float>(), plus1);
      Array z = arr(iota);
      k(z, y, z);
      EXPECT_EQ(z.to_vector<float>(), plus1);
    }
    EXPECT_EQ(k.variant_count(), on_cpu() && specialize_disjoint() ? 2u : 1u);
  });
}

TEST_P(AliasingOnDevice, HistogramWithAtomicsUnderBothSettings) {
  const Kernel k = kernel(R"(
def hist(bins, h):
    for i in range(len(bins)):
        tack.atomic_add(h, bins[i], 1)
)");
  std::vector<std::int32_t> bins(50000);
  for (int i = 0; i < 50000; ++i) bins[i] = (i * 7) % 13;
  std::vector<std::int32_t> expected(13, 0);
  for (int b : bins) ++expected[b];
  under_both_settings([&] {
    Array bins_a = arr(bins), h = zeros({13}, i32, dev_);
    k(bins_a, h);
    EXPECT_EQ(h.to_vector<std::int32_t>(), expected);
    expect_promise(k, {bins_a, h}, true);
  });
}

// ---- both CPU variants agree on race-free programs ----------------------------------------

struct RaceFreeCase {
  const char* name;
  const char* source;
};

// Each kernel's arguments: inputs filled with deterministic values, outputs zeroed; all disjoint.
const RaceFreeCase kRaceFree[] = {
    {"saxpy", R"(
def k(a, x, y, out):
    for i in range(len(out)):
        out[i] = a * x[i] + y[i]
)"},
    {"stencil", R"(
def k(x, out):
    for i in range(1, len(x) - 1):
        out[i] = 0.25 * x[i - 1] + 0.5 * x[i] + 0.25 * x[i + 1]
)"},
    {"store_accumulator", R"(
def k(m, w, acc):
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            acc[i] += m[i, j] * w[j]
)"},
    {"row_sums", R"(
def k(m, w, out):
    for i in range(m.shape[0]):
        s = 0.0
        for j in range(m.shape[1]):
            s += m[i, j] + w[j]
        out[i] = s
)"},
    {"transpose", R"(
def k(m, w, out):
    for i, j in tack.ndrange(m.shape[0], m.shape[1]):
        out[j, i] = m[i, j] * w[j]
)"},
};

std::vector<float> pattern(std::size_t n, int seed) {
  std::vector<float> v(n);
  for (std::size_t k = 0; k < n; ++k) {
    v[k] = static_cast<float>((static_cast<int>(k) * 2654435761u + seed) % 1000) / 37.0f - 13.0f;
  }
  return v;
}

// Runs case `c` on fresh disjoint CPU arrays and returns the output; checks that the
// specialization (when on) promised noalias for these disjoint arguments.
std::vector<float> run_race_free(const RaceFreeCase& c, bool disjoint_on) {
  set_specialize_disjoint(disjoint_on);
  const Kernel k = kernel(c.source);
  const std::string name = c.name;
  const std::int64_t rows = 300, cols = 70;
  if (name == "saxpy") {
    Array x = cpu_arr(pattern(10007, 1)), y = cpu_arr(pattern(10007, 2)),
          out = zeros({10007}, f32, cpu_device());
    k(1.75, x, y, out);
    EXPECT_EQ(has_noalias(k, {1.75, x, y, out}), disjoint_on) << name;
    return out.to_vector<float>();
  }
  if (name == "stencil") {
    Array x = cpu_arr(pattern(20011, 3)), out = zeros({20011}, f32, cpu_device());
    k(x, out);
    EXPECT_EQ(has_noalias(k, {x, out}), disjoint_on) << name;
    return out.to_vector<float>();
  }
  Array m = array(pattern(static_cast<std::size_t>(rows * cols), 4), {rows, cols}, cpu_device());
  Array w = cpu_arr(pattern(static_cast<std::size_t>(cols), 5));
  Array out =
      name == "transpose" ? zeros({cols, rows}, f32, cpu_device()) : cpu_arr(pattern(rows, 6));
  k(m, w, out);
  EXPECT_EQ(has_noalias(k, {m, w, out}), disjoint_on) << name;
  return out.to_vector<float>();
}

// CPU only: the two variants (noalias or not) are the CPU backend's; OpenCL compiles one.
TEST(AliasingVariantsAgree, RaceFreeProgramsGiveIdenticalResults) {
  for (const auto& c : kRaceFree) {
    const std::vector<float> on = run_race_free(c, true);
    const std::vector<float> off = run_race_free(c, false);
    ASSERT_EQ(on.size(), off.size()) << c.name;
    EXPECT_EQ(std::memcmp(on.data(), off.data(), on.size() * sizeof(float)), 0) << c.name;
  }
  set_specialize_disjoint(true);
}

}  // namespace
}  // namespace tack
