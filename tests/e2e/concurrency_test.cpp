// Kernels launched from many host threads at once: the same kernel and signature, different
// signatures, aliased and disjoint calls, shared atomics, row views of one array and debug-mode
// errors; every result is checked (read through the API, which waits for queued launches) and the
// variant cache ends with exactly the variants expected. Written once and run on every device
// present (tests/common/on_device.hpp). Run under ASan/UBSan.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/on_device.hpp"
#include "tack/tack.hpp"

namespace tack {
namespace {

constexpr int kThreads = 8;
constexpr int kLaunches = 200;

// Starts `kThreads` threads together (a spinning start line, so the first calls contend for the
// first compile) and joins them. body(thread) returns the number of failures it saw.
void run_threads(const std::function<int(int)>& body) {
  std::atomic<int> ready{0};
  std::atomic<int> failures{0};
  // The threads' exceptions, reported from this thread: GoogleTest's failure records are not
  // safe to append to from several threads at once (eight failing threads corrupted its heap).
  std::mutex errors_mutex;
  std::vector<std::string> errors;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < kThreads) std::this_thread::yield();
      try {
        failures.fetch_add(body(t));
      } catch (const std::exception& e) {
        std::lock_guard lock(errors_mutex);
        errors.push_back("thread " + std::to_string(t) + ": " + e.what());
        failures.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  for (const auto& e : errors) ADD_FAILURE() << e;
  EXPECT_EQ(failures.load(), 0);
}

// Launch lengths: mostly small, every 50th large enough to fan out over the workers.
std::int64_t length_of(int thread, int launch) {
  if (launch % 50 == 49) return 200000 + thread;
  return 1 + (launch * 37 + thread * 11) % 3000;
}

class ConcurrencyOnDevice : public test::OnDevice {};

TACK_INSTANTIATE_ON_DEVICES(ConcurrencyOnDevice);

TEST_P(ConcurrencyOnDevice, SameKernelSameSignature) {
  const Kernel k = kernel(R"(
def cc_affine(x, s, t, out):
    for i in range(len(x)):
        out[i] = x[i] * s + t
)");
  run_threads([&](int thread) {
    int bad = 0;
    for (int launch = 0; launch < kLaunches; ++launch) {
      const std::int64_t n = length_of(thread, launch);
      std::vector<float> x0(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) x0[i] = static_cast<float>((i + thread) % 97);
      Array x = arr(x0), out = zeros({n}, f32, dev_);
      const float s = static_cast<float>(launch % 7) + 0.5f;
      const float t = static_cast<float>(thread);
      k(x, static_cast<double>(s), static_cast<double>(t), out);
      const auto got = out.to_vector<float>();
      for (std::int64_t i = 0; i < n; ++i) {
        if (got[i] != x0[i] * s + t) {
          ++bad;
          break;
        }
      }
    }
    return bad;
  });
  EXPECT_EQ(k.variant_count(), 1u);
}

TEST_P(ConcurrencyOnDevice, DifferentSignatures) {
  const Kernel k = kernel(R"(
def cc_generic(x, s, out):
    for i in range(len(x)):
        out[i] = x[i] * s + 1
)");
  const DType types[] = {f32, f64, i32, i64};
  run_threads([&](int thread) {
    int bad = 0;
    const DType dt = types[thread % 4];
    for (int launch = 0; launch < kLaunches; ++launch) {
      const std::int64_t n = length_of(thread, launch);
      Array x = empty({n}, dt, dev_);
      std::vector<std::int64_t> x0(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) x0[i] = (i * 3 + launch) % 1000 - 500;
      HostView hv;
      hv.data = x0.data();
      hv.dtype = ScalarType::i64;
      hv.shape = {n};
      copyto(x, hv);
      Array out = zeros({n}, dt, dev_);
      const int s = thread + 1;
      k(x, s, out);
      std::vector<double> got(static_cast<std::size_t>(n));
      copy_to_host(out, got.data(), ScalarType::f64, got.size() * sizeof(double));
      for (std::int64_t i = 0; i < n; ++i) {
        if (got[i] != static_cast<double>(x0[i] * s + 1)) {
          ++bad;
          break;
        }
      }
    }
    return bad;
  });
  EXPECT_EQ(k.variant_count(), 4u);
}

TEST_P(ConcurrencyOnDevice, AliasedAndDisjointCallsAtOnce) {
  const Kernel k = kernel(R"(
def cc_axpy(x, y, out):
    for i in range(len(out)):
        out[i] = 2.0 * x[i] + y[i]
)");
  run_threads([&](int thread) {
    int bad = 0;
    for (int launch = 0; launch < kLaunches; ++launch) {
      const std::int64_t n = length_of(thread, launch);
      std::vector<float> a0(static_cast<std::size_t>(n)), b0(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) {
        a0[i] = static_cast<float>(i % 13);
        b0[i] = static_cast<float>(thread);
      }
      Array a = arr(a0), b = arr(b0);
      std::vector<float> expected(static_cast<std::size_t>(n));
      if ((thread + launch) % 2 == 0) {
        k(a, b, a);  // in place: out is x
        for (std::int64_t i = 0; i < n; ++i) expected[i] = 2.0f * a0[i] + b0[i];
        if (a.to_vector<float>() != expected) ++bad;
      } else {
        Array out = zeros({n}, f32, dev_);
        k(a, b, out);
        for (std::int64_t i = 0; i < n; ++i) expected[i] = 2.0f * a0[i] + b0[i];
        if (out.to_vector<float>() != expected) ++bad;
      }
    }
    return bad;
  });
  // One signature: on the CPU both the default and the noalias code; OpenCL compiles no disjoint
  // specialization (docs/devices.md), so one program serves both kinds of call.
  EXPECT_EQ(k.variant_count(), on_cpu() ? 2u : 1u);
}

TEST_P(ConcurrencyOnDevice, AtomicsIntoOneSharedArray) {
  const Kernel k = kernel(R"(
def cc_hist(bins, h):
    for i in range(len(bins)):
        tack.atomic_add(h, bins[i], 1)
)");
  Array h = zeros({16}, i64, dev_);
  std::vector<std::int64_t> expected(16, 0);
  std::vector<std::vector<std::int32_t>> per_thread(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < 1000; ++i) {
      per_thread[t].push_back((i * 7 + t) % 16);
      expected[static_cast<std::size_t>((i * 7 + t) % 16)] += kLaunches;
    }
  }
  run_threads([&](int thread) {
    Array bins = arr(per_thread[thread]);
    for (int launch = 0; launch < kLaunches; ++launch) k(bins, h);
    return 0;
  });
  EXPECT_EQ(h.to_vector<std::int64_t>(), expected);
  EXPECT_EQ(k.variant_count(), 1u);
}

TEST_P(ConcurrencyOnDevice, LaunchesOnRowsOfOneArray) {
  const Kernel k = kernel(R"(
def cc_bump(row, step):
    for i in range(row.shape[1]):
        row[0, i] = row[0, i] + step
)");
  const std::int64_t cols = 1000;
  Array m = zeros({kThreads, cols}, i32, dev_);
  run_threads([&](int thread) {
    // Every thread bumps its own row view of the one allocation, in its own order.
    Array row = m.slice(thread, thread + 1);
    for (int launch = 0; launch < kLaunches; ++launch) k(row, launch % 3 == 0 ? 2 : 1);
    return 0;
  });
  std::int32_t per_row = 0;
  for (int launch = 0; launch < kLaunches; ++launch) per_row += launch % 3 == 0 ? 2 : 1;
  EXPECT_EQ(m.to_vector<std::int32_t>(),
            std::vector<std::int32_t>(static_cast<std::size_t>(kThreads * cols), per_row));
  EXPECT_EQ(k.variant_count(), 1u);
}

TEST_P(ConcurrencyOnDevice, SeveralKernelsAtOnce) {
  const Kernel add = kernel(R"(
def cc_add(x, y, out):
    for i in range(len(x)):
        out[i] = x[i] + y[i]
)");
  const Kernel rows = kernel(R"(
def cc_rows(m, out):
    for i in range(m.shape[0]):
        s = 0
        for j in range(m.shape[1]):
            s += m[i, j]
        out[i] = s
)");
  run_threads([&](int thread) {
    int bad = 0;
    for (int launch = 0; launch < kLaunches; ++launch) {
      if ((launch + thread) % 2 == 0) {
        const std::int64_t n = length_of(thread, launch);
        Array x = full({n}, Scalar::from(static_cast<std::int64_t>(thread)), i32, dev_);
        Array y = full({n}, Scalar::from(static_cast<std::int64_t>(launch)), i32, dev_);
        Array out = zeros({n}, i32, dev_);
        add(x, y, out);
        if (out.to_vector<std::int32_t>() !=
            std::vector<std::int32_t>(static_cast<std::size_t>(n), thread + launch)) {
          ++bad;
        }
      } else {
        const std::int64_t r = 1 + launch % 40, c = 1 + thread;
        Array m = full({r, c}, Scalar::from(static_cast<std::int64_t>(launch)), i32, dev_);
        Array out = zeros({r}, i32, dev_);
        rows(m, out);
        if (out.to_vector<std::int32_t>() !=
            std::vector<std::int32_t>(static_cast<std::size_t>(r),
                                      static_cast<std::int32_t>(c * launch))) {
          ++bad;
        }
      }
    }
    return bad;
  });
  EXPECT_EQ(add.variant_count(), 1u);
  EXPECT_EQ(rows.variant_count(), 1u);
}

TEST_P(ConcurrencyOnDevice, DebugModeErrorsStayWithTheirCall) {
  set_debug(true);
  const Kernel k = kernel(R"(
def cc_shift(a, out):
    for i in range(len(out)):
        out[i] = a[i + 1]
)");
  run_threads([&](int thread) {
    int bad = 0;
    for (int launch = 0; launch < kLaunches / 4; ++launch) {
      const std::int64_t n = 8 + (launch + thread) % 50;
      std::vector<float> a0(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) a0[i] = static_cast<float>(i + 1);
      Array a = arr(a0);
      const bool oob = (launch + thread) % 3 == 0;
      Array out = zeros({oob ? n : n - 1}, f32, dev_);
      try {
        k(a, out);
        if (oob) ++bad;
      } catch (const IndexError& e) {
        const std::string msg = e.what();
        if (!oob || msg.find("index " + std::to_string(n) + " ") == std::string::npos ||
            msg.find("(" + std::to_string(n) + ",)") == std::string::npos) {
          ++bad;
        }
      }
      const auto got = out.to_vector<float>();
      for (std::int64_t i = 0; i < n - 1; ++i) {
        if (got[i] != a0[i + 1]) ++bad;
      }
    }
    return bad;
  });
  EXPECT_EQ(k.variant_count(), 1u);
}

}  // namespace
}  // namespace tack
