// Threading runtime measurement (issue 3, docs/design/threading.md "Measurement"): what one
// fan-out + join costs with
//   * OpenMP (libgomp), through tack::detail::parallel_for — what Tack uses;
//   * a minimal spin-wait pool written here, only for this measurement;
//   * oneTBB's parallel_for, when libtbb-dev is installed (TACK_BENCH_HAVE_TBB);
// each on an empty chunk body, back to back and after an idle gap (workers asleep), and, for
// all three, the speedup over a serial run of a compute body of a given serial time,
// which is what the dispatch's fan-out threshold (kFanOutNs) is chosen from.
//
// Every time is of one fan-out alone; the counters give percentiles (the machines here are shared,
// and a descheduled worker makes a mean meaningless).
#include <benchmark/benchmark.h>
#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "runtime/parallel.hpp"

#ifdef TACK_BENCH_HAVE_TBB
#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#endif

namespace {

using clock_type = std::chrono::steady_clock;
using tack::detail::ChunkFn;

const int threads = tack::detail::num_threads();

// ------------------------------------------------------------------ a minimal spin-wait pool

// threads - 1 workers spin (pause, then yield) on a generation counter; the caller runs chunk 0
// and spins until every worker has reported. No sleeping: the lowest latency a pool can have,
// at the price of burning the cores between jobs.
class SpinPool {
 public:
  explicit SpinPool(int n) : n_(n) {
    for (int t = 1; t < n_; ++t) workers_.emplace_back([this, t] { work(t); });
  }
  ~SpinPool() {
    stop_.store(true, std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_release);
    for (auto& w : workers_) w.join();
  }
  void run(std::int64_t n, ChunkFn fn, void* ctx) {
    n_items_ = n;
    fn_ = fn;
    ctx_ = ctx;
    pending_.store(n_ - 1, std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_release);
    fn(ctx, 0, n / n_);
    for (int spins = 0; pending_.load(std::memory_order_acquire) != 0; ++spins) backoff(spins);
  }

 private:
  static void backoff(int spins) {
    if (spins < 4096) {
      _mm_pause();
    } else {
      std::this_thread::yield();
    }
  }
  void work(int t) {
    std::uint64_t seen = 0;
    for (;;) {
      std::uint64_t g;
      for (int spins = 0; (g = generation_.load(std::memory_order_acquire)) == seen; ++spins) {
        backoff(spins);
      }
      seen = g;
      if (stop_.load(std::memory_order_relaxed)) return;
      const std::int64_t b = n_items_ * t / n_, e = n_items_ * (t + 1) / n_;
      if (b < e) fn_(ctx_, b, e);
      pending_.fetch_sub(1, std::memory_order_acq_rel);
    }
  }
  const int n_;
  std::vector<std::thread> workers_;
  alignas(64) std::atomic<std::uint64_t> generation_{0};
  alignas(64) std::atomic<int> pending_{0};
  std::atomic<bool> stop_{false};
  std::int64_t n_items_ = 0;
  ChunkFn fn_ = nullptr;
  void* ctx_ = nullptr;
};

// ------------------------------------------------------------------ bodies

void empty_body(void*, std::int64_t, std::int64_t) {
  benchmark::ClobberMemory();
}

// A compute body: per item, a dependent chain of 64 multiply-adds (no memory traffic, so the
// measurement is the runtime's, not the memory bus's).
struct Work {
  std::vector<float> out;
};
void compute_body(void* ctx, std::int64_t b, std::int64_t e) {
  auto* w = static_cast<Work*>(ctx);
  for (std::int64_t i = b; i < e; ++i) {
    float x = static_cast<float>(i) * 1e-6f;
    for (int k = 0; k < 64; ++k) x = x * 0.999f + 0.001f;
    w->out[static_cast<std::size_t>(i)] = x;
  }
  benchmark::ClobberMemory();
}

// Items of compute_body that take `ns` nanoseconds serially (calibrated once per process).
std::int64_t items_for(double ns) {
  static const double ns_per_item = [] {
    Work w{std::vector<float>(1 << 16)};
    double best = 1e30;
    for (int r = 0; r < 20; ++r) {
      auto t0 = clock_type::now();
      compute_body(&w, 0, 1 << 16);
      auto t1 = clock_type::now();
      best = std::min(best, std::chrono::duration<double, std::nano>(t1 - t0).count());
    }
    return best / (1 << 16);
  }();
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(ns / ns_per_item));
}

// ------------------------------------------------------------------ empty fan-out + join

// Latency percentiles of single fan-outs, as counters (microseconds).
void report_percentiles(benchmark::State& state, std::vector<double>& us) {
  if (us.empty()) return;
  std::sort(us.begin(), us.end());
  auto at = [&](double q) { return us[static_cast<std::size_t>(q * (us.size() - 1))]; };
  state.counters["p50_us"] = at(0.5);
  state.counters["p90_us"] = at(0.9);
  state.counters["p99_us"] = at(0.99);
}

// One fan-out of `threads` empty chunks, timed alone; `gap_us` of idleness before each.
template <class Launch>
void fan_out(benchmark::State& state, Launch launch) {
  const auto gap = std::chrono::microseconds(state.range(0));
  std::vector<double> us;
  for (int i = 0; i < 50; ++i) launch();  // workers created and warm
  for (auto _ : state) {
    if (gap.count() > 0) std::this_thread::sleep_for(gap);
    auto t0 = clock_type::now();
    launch();
    auto t1 = clock_type::now();
    double s = std::chrono::duration<double>(t1 - t0).count();
    state.SetIterationTime(s);
    us.push_back(s * 1e6);
  }
  report_percentiles(state, us);
}

// Back to back: as many iterations as Google Benchmark wants; after an idle gap: a fixed count
// (the sleeps are not timed, so a time-based count would sleep for minutes).
void idle_args(benchmark::internal::Benchmark* b) {
  b->ArgName("idle_us")->UseManualTime()->Unit(benchmark::kMicrosecond);
}

void openmp_empty(benchmark::State& state) {
  fan_out(state, [] { tack::detail::parallel_for(threads, 1, empty_body, nullptr); });
}
BENCHMARK(openmp_empty)
    ->Name("empty fan-out+join, OpenMP (parallel_for)")
    ->Arg(0)
    ->Apply(idle_args);
BENCHMARK(openmp_empty)
    ->Name("empty fan-out+join, OpenMP (parallel_for)")
    ->Arg(100)
    ->Iterations(3000)
    ->Apply(idle_args);
BENCHMARK(openmp_empty)
    ->Name("empty fan-out+join, OpenMP (parallel_for)")
    ->Arg(1000)
    ->Iterations(300)
    ->Apply(idle_args);

void pool_empty(benchmark::State& state) {
  SpinPool pool(threads);
  fan_out(state, [&] { pool.run(threads, empty_body, nullptr); });
}
BENCHMARK(pool_empty)->Name("empty fan-out+join, spin pool")->Arg(0)->Apply(idle_args);
BENCHMARK(pool_empty)
    ->Name("empty fan-out+join, spin pool")
    ->Arg(100)
    ->Iterations(3000)
    ->Apply(idle_args);
BENCHMARK(pool_empty)
    ->Name("empty fan-out+join, spin pool")
    ->Arg(1000)
    ->Iterations(300)
    ->Apply(idle_args);

#ifdef TACK_BENCH_HAVE_TBB
void tbb_empty(benchmark::State& state) {
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                            static_cast<std::size_t>(threads));
  auto body = [](const tbb::blocked_range<std::int64_t>& r) {
    empty_body(nullptr, r.begin(), r.end());
  };
  if (state.range(1) == 0) {
    fan_out(state, [&] {
      tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, threads, 1), body,
                        tbb::static_partitioner());
    });
  } else {
    fan_out(state, [&] {
      tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, threads, 1), body,
                        tbb::auto_partitioner());
    });
  }
}
void tbb_args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"idle_us", "auto_partitioner"})->UseManualTime()->Unit(benchmark::kMicrosecond);
}
BENCHMARK(tbb_empty)
    ->Name("empty fan-out+join, oneTBB parallel_for")
    ->Args({0, 0})
    ->Apply(tbb_args);
BENCHMARK(tbb_empty)
    ->Name("empty fan-out+join, oneTBB parallel_for")
    ->Args({0, 1})
    ->Apply(tbb_args);
BENCHMARK(tbb_empty)
    ->Name("empty fan-out+join, oneTBB parallel_for")
    ->Args({100, 0})
    ->Iterations(3000)
    ->Apply(tbb_args);
BENCHMARK(tbb_empty)
    ->Name("empty fan-out+join, oneTBB parallel_for")
    ->Args({1000, 0})
    ->Iterations(300)
    ->Apply(tbb_args);
#endif

// ------------------------------------------------------------------ speedup by work size

// Work of serial time `ns`: each iteration runs it serially, then fanned out, each timed alone
// (interleaved, so both see the same machine load). The benchmark's time is the fan-out's mean;
// the counters give medians and the median speedup, which load spikes on a shared machine
// distort far less than means.
template <class FanOut>
void speedup(benchmark::State& state, double ns, FanOut fan_out) {
  const std::int64_t n = items_for(ns);
  Work w{std::vector<float>(static_cast<std::size_t>(n))};
  std::vector<double> serial_us, fan_out_us;
  for (int i = 0; i < 20; ++i) fan_out(n, &w);
  for (auto _ : state) {
    auto t0 = clock_type::now();
    compute_body(&w, 0, n);
    auto t1 = clock_type::now();
    fan_out(n, &w);
    auto t2 = clock_type::now();
    serial_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    fan_out_us.push_back(std::chrono::duration<double, std::micro>(t2 - t1).count());
    state.SetIterationTime(fan_out_us.back() * 1e-6);
  }
  std::sort(serial_us.begin(), serial_us.end());
  std::sort(fan_out_us.begin(), fan_out_us.end());
  auto at = [](const std::vector<double>& v, double q) {
    return v[static_cast<std::size_t>(q * (v.size() - 1))];
  };
  state.counters["serial_p50_us"] = at(serial_us, 0.5);
  state.counters["par_p50_us"] = at(fan_out_us, 0.5);
  state.counters["par_p90_us"] = at(fan_out_us, 0.9);
  state.counters["speedup_p50"] = at(serial_us, 0.5) / at(fan_out_us, 0.5);
}

void openmp_work(benchmark::State& state, double ns) {
  speedup(state, ns,
          [](std::int64_t n, Work* w) { tack::detail::parallel_for(n, 1, compute_body, w); });
}

void pool_work(benchmark::State& state, double ns) {
  SpinPool pool(threads);
  speedup(state, ns, [&pool](std::int64_t n, Work* w) { pool.run(n, compute_body, w); });
}

#ifdef TACK_BENCH_HAVE_TBB
void tbb_work(benchmark::State& state, double ns) {
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                            static_cast<std::size_t>(threads));
  speedup(state, ns, [](std::int64_t n, Work* w) {
    tbb::parallel_for(
        tbb::blocked_range<std::int64_t>(0, n),
        [w](const tbb::blocked_range<std::int64_t>& r) { compute_body(w, r.begin(), r.end()); },
        tbb::static_partitioner());
  });
}
#endif

void register_work_benchmarks() {
  for (int us : {2, 5, 10, 20, 50, 100}) {
    const double ns = us * 1000.0;
    // About 0.4 s of serial work per case, at least 200 samples.
    const auto iterations = std::max<benchmark::IterationCount>(200, 400000 / us);
    auto add = [&](const char* runtime, void (*fn)(benchmark::State&, double)) {
      const std::string name = "work " + std::to_string(us) + " us, " + runtime;
      benchmark::RegisterBenchmark(name.c_str(), fn, ns)
          ->Iterations(iterations)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
    };
    add("OpenMP (parallel_for)", openmp_work);
    add("spin pool", pool_work);
#ifdef TACK_BENCH_HAVE_TBB
    add("oneTBB static_partitioner", tbb_work);
#endif
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::printf("threads: %d\n", threads);
  register_work_benchmarks();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
