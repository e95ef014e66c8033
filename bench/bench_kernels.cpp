// Kernel throughput (issue 3): STREAM triad on 64 Mi f32, a sum reduction, a 2-D 5-point
// stencil and a histogram with atomics, each against a plain -O3 OpenMP C++ loop in the same
// run (ratio = reference time / Tack time; 0.9 or more is the goal).
#include <omp.h>

#include <cstdlib>
#include <random>
#include <vector>

#include "ratio_reporter.hpp"
#include "runtime/parallel.hpp"
#include "tack/tack.hpp"

namespace {

constexpr std::int64_t kN = 64ll << 20;   // 64 Mi elements
constexpr std::int64_t kSide = 4096;      // stencil grid
constexpr std::int64_t kChunk = 1 << 16;  // reduction chunk
constexpr int kBins = 256;

const int threads = tack::detail::num_threads();

void triad_tack(benchmark::State& state) {
  tack::Kernel triad = tack::kernel(R"(
def triad(a, b, c, s):
    for i in range(a.shape[0]):
        c[i] = a[i] + s * b[i]
)");
  tack::Array a = tack::full({kN}, tack::Scalar::from(1.0)),
              b = tack::full({kN}, tack::Scalar::from(2.0)), c = tack::zeros({kN});
  triad(a, b, c, 3.0);
  for (auto _ : state) triad(a, b, c, 3.0);
  state.SetBytesProcessed(state.iterations() * kN * 12);
}
BENCHMARK(triad_tack)->Name("triad 64 Mi f32/tack")->Unit(benchmark::kMillisecond)->UseRealTime();

void triad_reference(benchmark::State& state) {
  std::vector<float> a(kN), b(kN), c(kN);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t i = 0; i < kN; ++i) a[i] = 1.0f, b[i] = 2.0f, c[i] = 0.0f;
  const float s = 3.0f;
  for (auto _ : state) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::int64_t i = 0; i < kN; ++i) c[i] = a[i] + s * b[i];
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kN * 12);
}
BENCHMARK(triad_reference)
    ->Name("triad 64 Mi f32/reference")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void sum_tack(benchmark::State& state) {
  tack::Kernel partial_sums = tack::kernel(R"(
def partial_sums(x, partial, chunk):
    for c in range(partial.shape[0]):
        s = 0.0
        start = c * chunk
        stop = min(start + chunk, x.shape[0])
        for i in range(start, stop):
            s += x[i]
        partial[c] = s
)");
  tack::Array x = tack::full({kN}, tack::Scalar::from(0.5));
  tack::Array partial = tack::zeros({(kN + kChunk - 1) / kChunk});
  partial_sums(x, partial, kChunk);  // warm: compile and probe outside the timed loop
  double total = 0;
  for (auto _ : state) {
    partial_sums(x, partial, kChunk);
    total = 0;
    for (float v : partial.to_vector<float>()) total += v;
    benchmark::DoNotOptimize(total);
  }
  if (total != 0.5 * kN) state.SkipWithError("wrong sum");
  state.SetBytesProcessed(state.iterations() * kN * 4);
}
BENCHMARK(sum_tack)->Name("sum 64 Mi f32/tack")->Unit(benchmark::kMillisecond)->UseRealTime();

void sum_reference(benchmark::State& state) {
  std::vector<float> x(kN);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t i = 0; i < kN; ++i) x[i] = 0.5f;
  for (auto _ : state) {
    double total = 0;
    // The same work as the kernel: f32 partial sums per chunk, then a double total.
    const std::int64_t chunks = (kN + kChunk - 1) / kChunk;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : total)
    for (std::int64_t c = 0; c < chunks; ++c) {
      float s = 0.0f;
      const std::int64_t stop = std::min((c + 1) * kChunk, kN);
      for (std::int64_t i = c * kChunk; i < stop; ++i) s += x[i];
      total += s;
    }
    benchmark::DoNotOptimize(total);
  }
  state.SetBytesProcessed(state.iterations() * kN * 4);
}
BENCHMARK(sum_reference)
    ->Name("sum 64 Mi f32/reference")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void stencil_tack(benchmark::State& state) {
  tack::Kernel stencil = tack::kernel(R"(
def stencil(u, v):
    for i, j in tack.ndrange((1, u.shape[0] - 1), (1, u.shape[1] - 1)):
        v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
)");
  tack::Array u = tack::full({kSide, kSide}, tack::Scalar::from(1.0)),
              v = tack::zeros({kSide, kSide});
  stencil(u, v);
  for (auto _ : state) stencil(u, v);
  state.SetBytesProcessed(state.iterations() * kSide * kSide * 8);
}
BENCHMARK(stencil_tack)
    ->Name("stencil 4096x4096 f32/tack")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void stencil_reference(benchmark::State& state) {
  std::vector<float> u(kSide * kSide, 1.0f), v(kSide * kSide, 0.0f);
  for (auto _ : state) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::int64_t i = 1; i < kSide - 1; ++i) {
      for (std::int64_t j = 1; j < kSide - 1; ++j) {
        v[i * kSide + j] = 0.25f * (u[(i - 1) * kSide + j] + u[(i + 1) * kSide + j] +
                                    u[i * kSide + j - 1] + u[i * kSide + j + 1]);
      }
    }
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kSide * kSide * 8);
}
BENCHMARK(stencil_reference)
    ->Name("stencil 4096x4096 f32/reference")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

std::vector<std::int32_t> random_bins() {
  std::vector<std::int32_t> v(kN / 4);
  std::mt19937 gen(7);
  std::uniform_int_distribution<int> d(0, kBins - 1);
  for (auto& x : v) x = d(gen);
  return v;
}

void histogram_tack(benchmark::State& state) {
  tack::Kernel histogram = tack::kernel(R"(
def histogram(values, bins):
    for i in range(values.shape[0]):
        tack.atomic_add(bins, values[i], 1)
)");
  auto host = random_bins();
  tack::Array values = tack::array(host, {static_cast<std::int64_t>(host.size())});
  tack::Array bins = tack::zeros({kBins}, tack::i32);
  histogram(values, bins);  // warm: compile and probe outside the timed loop
  for (auto _ : state) {
    bins.fill(0.0);
    histogram(values, bins);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(host.size()));
}
BENCHMARK(histogram_tack)
    ->Name("histogram 16 Mi i32 atomics/tack")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void histogram_reference(benchmark::State& state) {
  auto values = random_bins();
  std::vector<std::int32_t> bins(kBins);
  const auto n = static_cast<std::int64_t>(values.size());
  for (auto _ : state) {
    std::fill(bins.begin(), bins.end(), 0);
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
#pragma omp atomic
      bins[values[i]] += 1;
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(histogram_reference)
    ->Name("histogram 16 Mi i32 atomics/reference")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The same Tack kernel against a loop privatized by hand: per-thread bins, merged once (what
// Tack does for it, docs/design/privatized_atomics.md).
void histogram_privatized_reference(benchmark::State& state) {
  auto values = random_bins();
  std::vector<std::int32_t> bins(kBins);
  const auto n = static_cast<std::int64_t>(values.size());
  for (auto _ : state) {
    std::fill(bins.begin(), bins.end(), 0);
#pragma omp parallel num_threads(threads)
    {
      std::vector<std::int32_t> mine(kBins, 0);
#pragma omp for schedule(static) nowait
      for (std::int64_t i = 0; i < n; ++i) mine[values[i]] += 1;
      for (int b = 0; b < kBins; ++b) {
#pragma omp atomic
        bins[b] += mine[b];
      }
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(histogram_tack)
    ->Name("histogram 16 Mi i32 vs privatized by hand/tack")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(histogram_privatized_reference)
    ->Name("histogram 16 Mi i32 vs privatized by hand/reference")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

TACK_BENCH_MAIN()
