// End-to-end kernels through tack::kernel, written once and instantiated on every device present
// (tack::devices(): the CPU always, OpenCL devices where they answer); results compared with
// values computed here. Test names end in the device ("/cpu", "/opencl_0").
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/on_device.hpp"
#include "tack/tack.hpp"

namespace tack {
namespace {

using test::expect_error;
using test::OnDevice;

TACK_INSTANTIATE_ON_DEVICES(OnDevice);

const char* kVadd = R"(
def vadd(a, b, out):
    for i in range(out.shape[0]):
        out[i] = a[i] + b[i]
)";

TEST_P(OnDevice, VectorAdd) {
  Kernel k = kernel(kVadd);
  for (std::int64_t n : {0, 1, 17, 1000, 100003}) {
    std::vector<float> a(static_cast<std::size_t>(n)), b(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      a[i] = 0.5f * static_cast<float>(i);
      b[i] = 3.0f - static_cast<float>(i % 7);
    }
    Array out = zeros({n}, f32, dev_);
    k(arr(a), arr(b), out);
    EXPECT_EQ(out.device(), dev_);
    auto got = out.to_vector<float>();
    for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(got[i], a[i] + b[i]) << "n " << n;
  }
}

TEST_P(OnDevice, SaxpyWithAScalar) {
  Kernel k = kernel(R"(
def saxpy(alpha, x, y):
    for i in range(x.shape[0]):
        y[i] = alpha * x[i] + y[i]
)");
  std::vector<float> x(5000), y(5000);
  std::vector<double> xd(5000), yd(5000);
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>(i) * 0.25f - 100.0f;
    y[i] = 1.0f / static_cast<float>(i + 1);
    xd[i] = x[i];
    yd[i] = y[i];
  }
  Array ty = arr(y), tyd = arr(yd);
  k(2.5, arr(x), ty);    // f32 arrays: the float scalar is f32
  k(2.5, arr(xd), tyd);  // f64 arrays: f64
  auto gy = ty.to_vector<float>();
  auto gyd = tyd.to_vector<double>();
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float p = 2.5f * x[i];
    ASSERT_EQ(gy[i], p + y[i]) << i;
    const double pd = 2.5 * xd[i];
    ASSERT_EQ(gyd[i], pd + yd[i]) << i;
  }
  EXPECT_EQ(k.variant_count(), 2u);
}

TEST_P(OnDevice, Stencil2dOverAnNdrange) {
  Kernel k = kernel(R"(
def stencil(a, out):
    for i, j in tack.ndrange(a.shape[0] - 2, a.shape[1] - 2):
        out[i + 1, j + 1] = a[i, j + 1] + a[i + 2, j + 1] + a[i + 1, j] + a[i + 1, j + 2] - 4.0 * a[i + 1, j + 1]
)");
  const std::int64_t rows = 67, cols = 129;
  std::vector<double> a(static_cast<std::size_t>(rows * cols));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = std::sin(0.01 * static_cast<double>(i));
  Array out = zeros({rows, cols}, f64, dev_);
  k(arr(a, {rows, cols}), out);
  auto got = out.to_vector<double>();
  auto at = [&](std::int64_t i, std::int64_t j) {
    return a[static_cast<std::size_t>(i * cols + j)];
  };
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < cols; ++j) {
      double want = 0.0;
      if (i > 0 && j > 0 && i < rows - 1 && j < cols - 1) {
        want = at(i - 1, j) + at(i + 1, j) + at(i, j - 1) + at(i, j + 1) - 4.0 * at(i, j);
      }
      ASSERT_EQ(got[static_cast<std::size_t>(i * cols + j)], want) << i << ", " << j;
    }
  }
}

TEST_P(OnDevice, FloorDivisionAndModuloOfNegatives) {
  Kernel k = kernel(R"(
def divmod_(a, b, q, r):
    for i in range(a.shape[0]):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]
)");
  std::vector<std::int32_t> a, b;
  for (int x = -9; x <= 9; ++x) {
    for (int y : {-4, -3, -1, 1, 2, 5}) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  const auto n = static_cast<std::int64_t>(a.size());
  Array q = zeros({n}, i32, dev_), r = zeros({n}, i32, dev_);
  k(arr(a), arr(b), q, r);
  auto gq = q.to_vector<std::int32_t>(), gr = r.to_vector<std::int32_t>();
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto fq = static_cast<std::int32_t>(
        std::floor(static_cast<double>(a[i]) / static_cast<double>(b[i])));
    EXPECT_EQ(gq[i], fq) << a[i] << " // " << b[i];
    EXPECT_EQ(gr[i], a[i] - fq * b[i]) << a[i] << " % " << b[i];
  }
}

TEST_P(OnDevice, AtomicHistogram) {
  Kernel k = kernel(R"(
def hist(bins, h):
    for i in range(bins.shape[0]):
        tack.atomic_add(h, bins[i], 1)
)");
  const int nbins = 13;
  std::vector<std::int32_t> bins(200000);
  std::vector<std::int32_t> want(nbins, 0);
  for (std::size_t i = 0; i < bins.size(); ++i) {
    bins[i] = static_cast<std::int32_t>((i * 7919) % nbins);
    ++want[static_cast<std::size_t>(bins[i])];
  }
  Array h = zeros({nbins}, i32, dev_);
  k(arr(bins), h);
  EXPECT_EQ(h.to_vector<std::int32_t>(), want);
}

TEST_P(OnDevice, DeviceFunctionWithEarlyReturn) {
  Kernel k = kernel(R"(
@tack.func
def clamp01(x):
    if x < 0.0:
        return 0.0
    return min(x, 1.0)

def clamped(x, out):
    for i in range(x.shape[0]):
        out[i] = clamp01(x[i])
)");
  std::vector<float> x = {-2.0f, -0.0f, 0.25f, 0.999f, 1.0f, 7.5f};
  Array out = zeros({6}, f32, dev_);
  k(arr(x), out);
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{0.0f, -0.0f, 0.25f, 0.999f, 1.0f, 1.0f}));
}

TEST_P(OnDevice, LocalArrays) {
  Kernel k = kernel(R"(
def reverse_rows(x, out):
    for i in range(x.shape[0]):
        buf = tack.zeros((8,), tack.f32)
        for j in range(8):
            buf[j] = x[i, j]
        for j in range(8):
            out[i, j] = buf[7 - j]
)");
  const std::int64_t rows = 3000;
  std::vector<float> x(static_cast<std::size_t>(rows * 8));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  Array out = zeros({rows, 8}, f32, dev_);
  k(arr(x, {rows, 8}), out);
  auto got = out.to_vector<float>();
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < 8; ++j) {
      ASSERT_EQ(got[static_cast<std::size_t>(i * 8 + j)],
                x[static_cast<std::size_t>(i * 8 + 7 - j)]);
    }
  }
}

// The largest local arrays the language allows (64 KiB each), two of them, over many
// iterations: PoCL runs a work group on one thread's stack, and a group of the size it would
// choose holds more private memory than that stack (docs/design/opencl.md, "Work groups").
TEST_P(OnDevice, LargestLocalArraysOverManyIterations) {
  Kernel k = kernel(R"(
def big_locals(x, out):
    for i in range(len(x)):
        a = tack.zeros((16384,), tack.f32)
        b = tack.zeros((8192,), tack.f64)
        a[i % 16384] = x[i]
        b[(i + 5) % 8192] = 2.0 * x[i]
        out[i] = a[i % 16384] + a[(i + 1) % 16384] + b[(i + 5) % 8192] + b[(i + 6) % 8192]
)");
  const std::int64_t n = 100000;
  std::vector<float> x(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 1000) - 500.0f;
  Array out = zeros({n}, f32, dev_);
  k(arr(x), out);
  auto got = out.to_vector<float>();
  for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(got[i], 3.0f * x[i]) << i;
}

TEST_P(OnDevice, DebugModeRaisesIndexError) {
  Kernel shift = kernel(R"(
def shift_load(a, out):
    for i in range(out.shape[0]):
        out[i] = a[i + 1]
)");
  Kernel local = kernel(R"(
def local_oob(n, out):
    for i in range(out.shape[0]):
        buf = tack.zeros((4,), tack.i32)
        buf[i + n] = 1
        out[i] = buf[0]
)");
  set_debug(true);
  Array a = arr(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8});
  Array out = full({8}, Scalar::from(-1.0), f32, dev_);
  expect_error<IndexError>([&] { shift(a, out); },
                           {"shift_load", "index 8", "array 'a'", "shape (8,)"});
  // The other iterations ran; the skipped load gave 0.
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{2, 3, 4, 5, 6, 7, 8, 0}));
  Array o2 = zeros({2}, i32, dev_);
  expect_error<IndexError>([&] { local(4, o2); },
                           {"local_oob", "index", "local array of extent 4"});
  // In bounds: no error in debug mode either.
  local(0, o2);
  EXPECT_EQ(o2.to_vector<std::int32_t>(), (std::vector<std::int32_t>{1, 0}));
}

TEST_P(OnDevice, ReadOnlyArrayBoundToAWrittenParameter) {
  Kernel k = kernel(kVadd);
  Array a = arr(std::vector<float>{1, 2, 3});
  Array out = zeros({3}, f32, dev_);
  Array ro = array_from_ptr(out.address(), f32, {3}, /*writable=*/false, dev_);
  expect_error<ValueError>([&] { k(a, a, ro); }, {"vadd", "'out'", "read-only"});
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{0, 0, 0}));  // nothing launched
  k(ro, ro, out);                                                    // read-only arrays may be read
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{0, 0, 0}));
}

TEST_P(OnDevice, ViewAtAnOffset) {
  Kernel k = kernel(R"(
def scale(x, s):
    for i in range(x.shape[0]):
        x[i] = x[i] * s + i
)");
  std::vector<std::int64_t> v(20);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int64_t>(i);
  Array root = arr(v);
  const std::uint64_t before = root.version();
  k(root.slice(5, 12), 10);
  EXPECT_GT(root.version(), before);  // a write through a view bumps the allocation's version
  auto got = root.to_vector<std::int64_t>();
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::int64_t want =
        (i >= 5 && i < 12) ? v[i] * 10 + static_cast<std::int64_t>(i - 5) : v[i];
    EXPECT_EQ(got[i], want) << i;
  }
  // 2-D row views at an odd row.
  Array m = zeros({9, 4}, i64, dev_);
  k(m.slice(3, 4).reshape({4}), 1);
  auto gm = m.to_vector<std::int64_t>();
  for (std::size_t i = 0; i < gm.size(); ++i) {
    EXPECT_EQ(gm[i], i >= 12 && i < 16 ? static_cast<std::int64_t>(i) - 12 : 0) << i;
  }
}

TEST_P(OnDevice, InspectShowsTheDevicesCode) {
  Kernel k = kernel(kVadd);
  Array a = zeros({4}, f32, dev_);
  const std::string source = inspect(k, {a, a, a}, "source");
  if (dev_.kind() == "opencl") {
    EXPECT_NE(source.find("__kernel void"), std::string::npos) << source;
    const std::string optimized = inspect(k, {a, a, a}, "optimized");
    EXPECT_NE(optimized.find("out of Tack's"), std::string::npos);
    EXPECT_NE(optimized.find(source), std::string::npos);
  } else if (dev_.kind() == "cuda") {
    EXPECT_NE(source.find("extern \"C\" __global__ void"), std::string::npos) << source;
    const std::string ptx = inspect(k, {a, a, a}, "optimized");  // PTX, from NVRTC
    EXPECT_NE(ptx.find(".entry tack_vadd("), std::string::npos) << ptx;
    EXPECT_EQ(inspect(k, {a, a, a}, "ptx"), ptx);
  } else {
    EXPECT_NE(source.find("define"), std::string::npos) << source;  // LLVM IR
  }
  EXPECT_NE(inspect(k, {a, a, a}, "ir").find("vadd"), std::string::npos);
  expect_error<ValueError>([&] { inspect(k, {a, a, a}, "asm"); }, {"unknown mode 'asm'"});
}

}  // namespace
}  // namespace tack
