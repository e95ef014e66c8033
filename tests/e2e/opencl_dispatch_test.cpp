// Kernels dispatched to an OpenCL device (PoCL in CI) through tack::kernel: the queued-launch
// rules of docs/devices.md end to end (a launch returns before the device runs it, host writes
// and reads are ordered, arrays dropped after a launch live until it ran, shared arrays complete
// their launches, sync waits), scalar typing, arrays of two devices, threads. Skipped, with the
// reason, where no OpenCL device is present.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <future>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/on_device.hpp"
#include "runtime/opencl/opencl_backend.hpp"
#include "runtime/opencl/opencl_buffer.hpp"
#include "tack/tack.hpp"

namespace tack {
namespace {

using detail::OpenClBackend;
using detail::OpenClBuffer;

using test::expect_error;

// Holds the device's in-order queue behind a user event: commands queue up but do not run
// until open() (or the destructor).
class QueueGate {
 public:
  explicit QueueGate(OpenClBackend& b) : b_(b) {
    cl_int err;
    event_ = b.api().CreateUserEvent(b.context(), &err);
    EXPECT_EQ(err, CL_SUCCESS);
    EXPECT_EQ(b.api().EnqueueMarkerWithWaitList(b.queue(), 1, &event_, nullptr), CL_SUCCESS);
  }
  void open() {
    if (event_ == nullptr) return;
    b_.api().SetUserEventStatus(event_, CL_COMPLETE);
    b_.api().ReleaseEvent(event_);
    event_ = nullptr;
  }
  ~QueueGate() { open(); }

 private:
  OpenClBackend& b_;
  cl_event event_ = nullptr;
};

class OpenClDispatch : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto& found = detail::opencl_devices();
    if (found.backends.empty()) GTEST_SKIP() << detail::opencl_unavailable_reason();
    backend_ = found.backends.front();
    dev_ = Device(backend_);
    set_debug(false);
  }
  void TearDown() override {
    if (backend_) backend_->synchronize();
  }
  static bool pending(const Array& a) {
    return dynamic_cast<OpenClBuffer&>(*a.buffer()).allocation().pending();
  }
  // Runs `fn` on another thread; true when it returned within `seconds`. The gate is opened
  // either way, so a call that waits for the device cannot hang the test.
  static bool returns_while_gated(QueueGate& gate, const std::function<void()>& fn,
                                  double seconds = 20.0) {
    auto done = std::async(std::launch::async, fn);
    const bool returned =
        done.wait_for(std::chrono::duration<double>(seconds)) == std::future_status::ready;
    gate.open();
    done.get();
    return returned;
  }

  std::shared_ptr<OpenClBackend> backend_;
  std::optional<Device> dev_;
};

const char* kIncrement = R"(
def increment(a, b):
    for i in range(a.shape[0]):
        b[i] = a[i] + 1.0
)";

TEST_F(OpenClDispatch, LaunchReturnsBeforeTheDeviceRunsIt) {
  Kernel k = kernel(kIncrement);
  Array a = full({5000}, Scalar::from(1.0), f32, *dev_);
  Array b = zeros({5000}, f32, *dev_);
  k(a, b);  // built and run once: the gated call below only launches
  sync();
  std::optional<QueueGate> gate;
  gate.emplace(*backend_);
  const std::uint64_t before = b.version();
  a.fill(41.0);  // queued behind the gate, like the launch
  EXPECT_TRUE(returns_while_gated(
      *gate, [&] { k(a, b); }, 5.0))
      << "the launch waited for the device";
  EXPECT_EQ(b.version(), before + 1);       // bumped when queued
  EXPECT_EQ(b.item<float>({4999}), 42.0f);  // the read waited for the fill and the launch
  EXPECT_FALSE(pending(b));
}

TEST_F(OpenClDispatch, ALongLaunchReturnsAtOnceAndReadsWait) {
  Kernel slow = kernel(R"(
def slow(n, out):
    for i in range(out.shape[0]):
        acc = 0.0
        for j in range(n):
            acc = acc * 0.5 + 1.0
        out[i] = acc
)");
  Array out = zeros({4096}, f32, *dev_);
  slow(1, out);  // compiled
  sync();
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  slow(100000, out);  // 4096 x 100000 iterations: about a second of device time on PoCL
  const auto t1 = clock::now();
  const float last = out.item<float>({4095});
  const auto t2 = clock::now();
  EXPECT_EQ(last, 2.0f);
  const double call = std::chrono::duration<double>(t1 - t0).count();
  const double read = std::chrono::duration<double>(t2 - t1).count();
  EXPECT_LT(call, read) << "call " << call << " s, read (waiting) " << read << " s";
}

TEST_F(OpenClDispatch, HostWritesAfterALaunchAreOrderedAfterIt) {
  Kernel k = kernel(kIncrement);
  Array a = full({100000}, Scalar::from(1.0), f32, *dev_);
  Array b = zeros({100000}, f32, *dev_);
  {
    QueueGate gate(*backend_);
    k(a, b);
    a.fill(-5.0);  // queued after the launch
  }
  EXPECT_EQ(b.item<float>({99999}), 2.0f);  // the launch read the old a
  EXPECT_EQ(a.item<float>({99999}), -5.0f);
  // A blocking copy from the host right after a launch also lands after it.
  std::vector<float> host(100000, 10.0f);
  k(a, b);
  copyto(a, HostView{host.data(), ScalarType::f32, {100000}, {}});
  EXPECT_EQ(b.item<float>({0}), -4.0f);
  k(a, b);
  EXPECT_EQ(b.item<float>({0}), 11.0f);
}

TEST_F(OpenClDispatch, DroppingAnArrayRightAfterALaunchIsSafe) {
  Kernel k = kernel(kIncrement);
  Array b = zeros({1 << 16}, f32, *dev_);
  std::optional<Array> a = full({1 << 16}, Scalar::from(41.0), f32, *dev_);
  k(*a, b);  // compiled
  sync();
  const std::uintptr_t address = a->address();
  {
    QueueGate gate(*backend_);
    EXPECT_TRUE(returns_while_gated(gate, [&] {
      k(a->slice(0, 1 << 16), b);  // through a view, which dies with the call
      a.reset();                   // and the array, before the launch ran
      EXPECT_EQ(backend_->memory_space(address), "opencl") << "freed before its launch ran";
    }));
  }
  sync();
  EXPECT_EQ(backend_->memory_space(address), "cpu") << "never freed";
  for (float x : b.to_vector<float>()) ASSERT_EQ(x, 42.0f);
}

TEST_F(OpenClDispatch, SharedArraysCompleteTheirLaunchesBeforeReturning) {
  Kernel k = kernel(kIncrement);
  Array a = full({1000}, Scalar::from(1.0), f32, *dev_);
  Array b = zeros({1000}, f32, *dev_);
  k(a, b);
  Array view = b.slice(10, 20);  // views share the allocation, and so its shared flag
  auto* m = to_dlpack_versioned(b);
  EXPECT_TRUE(b.shared());
  k(a, b);
  EXPECT_FALSE(pending(b)) << "a launch binding a shared array returned before it completed";
  k(a.slice(10, 20), view);
  EXPECT_FALSE(pending(view));
  m->deleter(m);
  EXPECT_EQ(b.item<float>({999}), 2.0f);
}

TEST_F(OpenClDispatch, ADlpackExportWaitsForTheLaunchesQueuedBeforeIt) {
  // share(): handing the memory out first waits for the launches queued on it, so the consumer
  // reads their results with no Tack call in between.
  Kernel k = kernel(kIncrement);
  Array a = full({1000}, Scalar::from(1.0), f32, *dev_);
  Array b = zeros({1000}, f32, *dev_);
  k(a, b);  // compiled and run once
  sync();
  a.fill(41.0);
  std::optional<QueueGate> gate;
  gate.emplace(*backend_);
  k(a, b);  // queued behind the gate
  EXPECT_TRUE(pending(b));
  dlpack::ManagedTensorVersioned* m = nullptr;
  EXPECT_FALSE(returns_while_gated(
      *gate, [&] { m = to_dlpack_versioned(b); }, 0.5))
      << "the export returned while a launch on its memory was still queued";
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(pending(b));
  // PoCL's SVM is host memory: read what the consumer would read, with no Tack call.
  float last = 0;
  std::memcpy(&last, static_cast<const char*>(m->dl_tensor.data) + 999 * sizeof(float),
              sizeof last);
  EXPECT_EQ(last, 42.0f);
  m->deleter(m);
}

TEST_F(OpenClDispatch, SyncWaitsForEverything) {
  Kernel k = kernel(kIncrement);
  std::vector<Array> arrays;
  for (int i = 0; i < 6; ++i)
    arrays.push_back(full({20000}, Scalar::from(static_cast<double>(i)), f32, *dev_));
  for (int r = 0; r < 3; ++r) {
    for (int i = 0; i + 1 < 6; ++i) k(arrays[i], arrays[i + 1]);
  }
  sync();
  for (const Array& a : arrays) EXPECT_FALSE(pending(a));
  EXPECT_EQ(arrays[5].item<float>({0}), 5.0f);
  EXPECT_EQ(backend_->completed(), backend_->issued());
}

TEST_F(OpenClDispatch, ArraysOfTwoDevicesAreRefused) {
  Kernel k = kernel(kIncrement);
  Array host = zeros({10}, f32, device("cpu"));
  Array dev = zeros({10}, f32, *dev_);
  expect_error<RuntimeError>([&] { k(host, dev); }, {"increment", "'a' is on device 'cpu'",
                                                     "'b' is on device 'opencl:0'"});
  expect_error<RuntimeError>([&] { k(dev, host); },
                             {"'a' is on device 'opencl:0'", "'b' is on device 'cpu'"});
}

TEST_F(OpenClDispatch, ScalarsAreTypedByTheVariant) {
  Kernel k = kernel(R"(
def put(i, big, u, f, flag, oi, ou, of, ob):
    for t in range(1):
        oi[0] = i
        oi[1] = big
        ou[0] = u
        of[0] = f
        ob[0] = 1 if flag else 2
)");
  Array oi = zeros({2}, i64, *dev_), ou = zeros({1}, u64, *dev_), of = zeros({1}, f64, *dev_);
  Array ob = zeros({1}, i32, *dev_);
  const std::uint64_t huge = 18446744073709551000ull;
  k(-7, std::int64_t{-5000000000}, huge, 0.1, true, oi, ou, of, ob);
  EXPECT_EQ(oi.to_vector<std::int64_t>(), (std::vector<std::int64_t>{-7, -5000000000}));
  EXPECT_EQ(ou.item<std::uint64_t>({0}), huge);
  EXPECT_EQ(of.item<double>({0}), 0.1);  // f64 arrays among the arguments: an f64 scalar
  EXPECT_EQ(ob.item<std::int32_t>({0}), 1);
  k(-7, std::int64_t{-5000000000}, huge, 0.1, false, oi, ou, of, ob);
  EXPECT_EQ(ob.item<std::int32_t>({0}), 2);
}

TEST_F(OpenClDispatch, OneProgramPerVariant) {
  Kernel k = kernel(kIncrement);
  Array a = zeros({100}, f32, *dev_), b = zeros({100}, f32, *dev_);
  for (int i = 0; i < 10; ++i) k(a, b);
  k(a, a);  // aliasing arrays: the same program (no disjoint specialization on OpenCL)
  EXPECT_EQ(k.variant_count(), 1u);
  set_debug(true);
  k(a, b);
  set_debug(false);
  EXPECT_EQ(k.variant_count(), 2u);
}

TEST_F(OpenClDispatch, LaunchesFromManyHostThreads) {
  Kernel k = kernel(kIncrement);
  constexpr int kThreads = 4;
  std::vector<Array> in, out;
  for (int t = 0; t < kThreads; ++t) {
    in.push_back(full({777}, Scalar::from(100.0 * t), f32, *dev_));
    out.push_back(zeros({777}, f32, *dev_));
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < 25; ++r) k(in[t], out[t]);
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    for (float x : out[t].to_vector<float>()) ASSERT_EQ(x, 100.0f * t + 1.0f) << "thread " << t;
  }
}

// Issue 8: the programs of dropped kernels were kept for the life of the process (0.1-1 MiB
// each). A kernel's programs go with it, once its queued launches have run.
TEST_F(OpenClDispatch, ADroppedKernelsProgramsAreReleased) {
  const std::size_t before = backend_->live_programs();
  Array a = zeros({64}, f32, *dev_);
  for (int n = 0; n < 12; ++n) {
    Kernel k = kernel("def k(x):\n    for i in range(x.shape[0]):\n        x[i] = x[i] + " +
                      std::to_string(n) + ".0\n");
    k(a);  // queued: the kernel object goes while the launch may still be waiting to run
    EXPECT_EQ(backend_->live_programs(), before + 1);
  }
  EXPECT_EQ(backend_->live_programs(), before);
  EXPECT_EQ(a.to_vector<float>()[0], 66.0f) << "a launch of a dropped kernel did not run";
  // A kernel that stays keeps its program, and a second Kernel of the same source shares it.
  Kernel kept = kernel(kIncrement), twin = kernel(kIncrement);
  Array b = zeros({64}, f32, *dev_);
  kept(a, b);
  twin(a, b);
  EXPECT_EQ(backend_->live_programs(), before + 1);
}

// Issue 8: a free's callback released the SVM memory before forgetting its range, so a new
// allocation at the same address could lose its range, and a live array then read as "cpu"
// memory (about one run in three). Allocations and frees from several threads, each checking
// that its live array is still known to the device.
TEST_F(OpenClDispatch, LiveArraysStayKnownWhileOthersAreFreed) {
  constexpr int kThreads = 4, kRounds = 10000;
  std::atomic<int> unknown{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int r = 0; r < kRounds; ++r) {
        Array a = zeros({1024}, f32, *dev_);
        Array v = a.slice(2, 9);
        if (memory_space(v.address(), *dev_) != "opencl") ++unknown;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(unknown.load(), 0);
}

// Issue 8: a program that ends without sync() while a launch of a newly built kernel is queued
// must exit 0 (PoCL compiles that launch's work-group function on its own thread, which used
// to run while exit() destroyed its LLVM's statics: signal 11).
TEST_F(OpenClDispatch, ExitWithAQueuedLaunchOfANewKernelCompletesIt) {
  // The child runs this test afresh (a forked child would lack the driver's threads).
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  for (int run = 0; run < 3; ++run) {
    EXPECT_EXIT(
        {
          Array a = zeros({16}, f32, *dev_);
          const std::string add = std::to_string(::getpid() * 7 + run * 1000003 + 11);
          Kernel k = kernel("def k(x):\n    for i in range(x.shape[0]):\n        x[i] = x[i] + " +
                            add + "\n");
          k(a);
          std::exit(0);
        },
        ::testing::ExitedWithCode(0), "");
  }
}

}  // namespace
}  // namespace tack
