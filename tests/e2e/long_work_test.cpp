// tack::BeforeLongWork (docs/design/dispatch.md, "The warm path"): a kernel call tells its hook
// once before anything that may take long -- a compile, a launch predicted past a few
// microseconds or fanned out, a launch whose time is unknown -- and never on a warm launch of a
// small kernel on the CPU, which is what lets Python keep its GIL through one. The other
// devices' launches tell it every time (tests/e2e/fake_device/fake_device_test.cpp).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "tack/tack.hpp"

namespace tack {
namespace {

struct Counter final : BeforeLongWork {
  int told = 0;
  void before_long_work() override { ++told; }
};

// A short launch's time (cpu_target.cpp's kShortLaunchNs): a launch that ran longer may tell.
constexpr double kShortLaunchNs = 10000.0;

const char* kAddOne = R"(
def add_one(x, y):
    for i in range(x.shape[0]):
        y[i] = x[i] + 1.0
)";

// Calls `k` with the hook until a call tells nothing (the compile, the tiered compile's
// optimized build and the first launches' timing probes are done), at most `limit` calls.
int calls_until_quiet(const Kernel& k, const Array& x, const Array& y, int limit = 8) {
  for (int i = 0; i < limit; ++i) {
    Counter c;
    const KernelArg args[] = {x, y};
    k.call(args, 2, c);
    if (c.told == 0) return i;
    EXPECT_EQ(c.told, 1) << "told once per call";
  }
  return limit;
}

TEST(LongWork, TheFirstCallTellsOnceForItsCompile) {
  const Kernel k = kernel(kAddOne);
  const Array x = ones({16}, f32), y = zeros({16}, f32);
  Counter c;
  const KernelArg args[] = {x, y};
  k.call(args, 2, c);
  EXPECT_EQ(c.told, 1);
  EXPECT_EQ(y.to_vector<float>(), std::vector<float>(16, 2.0f));
}

TEST(LongWork, AWarmShortLaunchOnTheCpuTellsNothing) {
  const Kernel k = kernel(kAddOne);
  const Array x = ones({16}, f32), y = zeros({16}, f32);
  finish_compiles();
  EXPECT_LT(calls_until_quiet(k, x, y), 8) << "a warm 16-element launch still tells";
  // Every 64th launch is timed as it runs, and one that really ran past a short launch's time
  // (this process descheduled in it, on a loaded machine) rightly tells. So a call may tell only
  // when it took that long itself; most calls must not have (else the test shows nothing).
  using clock = std::chrono::steady_clock;
  int quick_calls = 0;
  for (int i = 0; i < 100; ++i) {
    Counter c;
    const KernelArg args[] = {x, y};
    const auto t0 = clock::now();
    k.call(args, 2, c);
    const double ns = std::chrono::duration<double, std::nano>(clock::now() - t0).count();
    if (ns < kShortLaunchNs) ++quick_calls;
    if (c.told != 0) {
      EXPECT_EQ(c.told, 1) << "warm call " << i;
      EXPECT_GT(ns, kShortLaunchNs) << "warm call " << i << " told, yet took " << ns << " ns";
    }
  }
  EXPECT_GT(quick_calls, 50) << "too few calls ran quickly to show anything";
  EXPECT_EQ(y.to_vector<float>(), std::vector<float>(16, 2.0f));
}

TEST(LongWork, ALongLaunchTellsOnceEvenWhenWarm) {
  const Kernel k = kernel(kAddOne);
  const std::int64_t n = 1 << 24;  // milliseconds: fanned out, or at least past the threshold
  const Array x = ones({n}, f32), y = zeros({n}, f32);
  for (int i = 0; i < 4; ++i) {
    Counter c;
    const KernelArg args[] = {x, y};
    k.call(args, 2, c);
    EXPECT_EQ(c.told, 1) << "call " << i;
  }
  EXPECT_EQ(y.to_vector<float>()[n - 1], 2.0f);
}

// The prediction is the variant's measured cost per iteration; a scalar argument can make each
// iteration far longer than measured. Such a launch still tells (mid-launch, once it runs past
// a short launch's time, or before it, when predicted long), and once only.
TEST(LongWork, ALaunchMadeLongByAScalarStillTells) {
  const Kernel k = kernel(R"(
def rounds(x, r):
    for i in range(x.shape[0]):
        v = x[i]
        for j in range(r):
            v = v * 0.999 + 0.001
        x[i] = v
)");
  const Array x = ones({2000}, f32);
  for (int i = 0; i < 4; ++i) k(x, 1);  // compiled, and its cost per iteration measured at r = 1
  Counter c;
  const KernelArg args[] = {x,
                            KernelArg(20000)};  // tens of milliseconds, predicted in microseconds
  k.call(args, 2, c);
  EXPECT_EQ(c.told, 1);
  Counter again;
  k.call(args, 2, again);
  EXPECT_EQ(again.told, 1) << "the next launch is predicted long";
}

TEST(LongWork, ANewSignatureTellsForItsCompile) {
  const Kernel k = kernel(kAddOne);
  const Array x = ones({16}, f32), y = zeros({16}, f32);
  calls_until_quiet(k, x, y);
  const Array xd = ones({16}, f64), yd = zeros({16}, f64);
  Counter c;
  const KernelArg args[] = {xd, yd};
  k.call(args, 2, c);
  EXPECT_EQ(c.told, 1) << "a second variant compiles";
}

TEST(LongWork, TheHookIsTheCallsOnly) {
  const Kernel k = kernel(kAddOne);
  const Array x = ones({16}, f32), y = zeros({16}, f32);
  Counter c;
  const KernelArg args[] = {x, y};
  k.call(args, 2, c);
  const int told = c.told;
  const Array xl = ones({1 << 22}, f32), yl = zeros({1 << 22}, f32);
  k(xl, yl);  // no hook: nothing reaches the earlier call's
  EXPECT_EQ(c.told, told);
}

TEST(LongWork, AFailedCallStillTellsBeforeItsCompile) {
  const Kernel k =
      kernel("def bad(x):\n    for i in range(x.shape[0]):\n        x[i] = undefined\n");
  const Array x = zeros({4}, f32);
  Counter c;
  const KernelArg args[] = {x};
  EXPECT_THROW(k.call(args, 1, c), CompileError);
  EXPECT_EQ(c.told, 1);
}

}  // namespace
}  // namespace tack
