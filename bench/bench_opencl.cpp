// OpenCL benchmarks (issue 4): STREAM triad over 64 Mi f32 and a sum reduction (per-chunk
// partial sums written by a kernel, then summed on the host) on the first OpenCL device (PoCL
// in CI) and on Tack's CPU backend, each paired with a plain OpenMP loop in the same run; and
// the per-launch cost of a 16-element kernel on OpenCL (queued, and waited for) and on the CPU.
// OpenCL cases are skipped, with the reason, where no OpenCL device is present.
#include <omp.h>

#include <numeric>
#include <optional>
#include <vector>

#include "ratio_reporter.hpp"
#include "runtime/opencl/opencl_backend.hpp"
#include "runtime/parallel.hpp"
#include "tack/tack.hpp"

namespace {

constexpr std::int64_t kN = std::int64_t{64} << 20;  // 64 Mi elements
constexpr std::int64_t kChunk = 4096;
constexpr std::int64_t kChunks = kN / kChunk;
constexpr float kScalar = 3.0f;

std::optional<tack::Device> opencl_device() {
  for (const auto& d : tack::devices()) {
    if (d.kind() == "opencl") return d;
  }
  return std::nullopt;
}

// Resolves "cpu" or "opencl" to a device, or skips the benchmark.
std::optional<tack::Device> device_or_skip(benchmark::State& state, bool opencl) {
  if (!opencl) return tack::device("cpu");
  auto d = opencl_device();
  if (!d) state.SkipWithError(tack::detail::opencl_unavailable_reason().c_str());
  return d;
}

const tack::Kernel& triad_kernel() {
  static const tack::Kernel k = tack::kernel(R"(
def triad(a, b, c, s):
    for i in range(a.shape[0]):
        a[i] = b[i] + s * c[i]
)");
  return k;
}

const tack::Kernel& partial_sums_kernel() {
  static const tack::Kernel k = tack::kernel(R"(
def partial_sums(x, chunk, out):
    for c in range(out.shape[0]):
        acc = 0.0
        start = c * chunk
        stop = min(start + chunk, x.shape[0])
        for i in range(start, stop):
            acc += x[i]
        out[c] = acc
)");
  return k;
}

const tack::Kernel& tiny_kernel() {
  static const tack::Kernel k = tack::kernel(R"(
def add_one(y):
    for i in range(y.shape[0]):
        y[i] = y[i] + 1.0
)");
  return k;
}

// ---- STREAM triad -------------------------------------------------------------------------------

void triad_tack(benchmark::State& state, bool opencl) {
  auto dev = device_or_skip(state, opencl);
  if (!dev) return;
  tack::Array a = tack::zeros({kN}, tack::f32, *dev);
  tack::Array b = tack::full({kN}, tack::Scalar::from(1.0), tack::f32, *dev);
  tack::Array c = tack::full({kN}, tack::Scalar::from(2.0), tack::f32, *dev);
  triad_kernel()(a, b, c, kScalar);  // compiled, and the pages touched
  dev->synchronize();
  for (auto _ : state) {
    triad_kernel()(a, b, c, kScalar);
    dev->synchronize();
  }
  if (a.item<float>({kN - 1}) != 7.0f) state.SkipWithError("wrong triad result");
  state.SetBytesProcessed(state.iterations() * 3 * kN * 4);
}

void triad_reference(benchmark::State& state) {
  std::vector<float> a(kN), b(kN), c(kN);
  const int threads = tack::detail::num_threads();
  float* pa = a.data();
  float* pb = b.data();
  float* pc = c.data();
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t i = 0; i < kN; ++i) {  // first touch by the threads that use the pages
    pa[i] = 0.0f;
    pb[i] = 1.0f;
    pc[i] = 2.0f;
  }
  for (auto _ : state) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::int64_t i = 0; i < kN; ++i) pa[i] = pb[i] + kScalar * pc[i];
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * 3 * kN * 4);
}

BENCHMARK_CAPTURE(triad_tack, cpu, false)
    ->Name("triad 64 Mi f32 cpu/tack")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(triad_reference)
    ->Name("triad 64 Mi f32 cpu/reference")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(triad_tack, opencl, true)
    ->Name("triad 64 Mi f32 opencl/tack")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(triad_reference)
    ->Name("triad 64 Mi f32 opencl/reference")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// ---- sum reduction ------------------------------------------------------------------------------

void sum_tack(benchmark::State& state, bool opencl) {
  auto dev = device_or_skip(state, opencl);
  if (!dev) return;
  tack::Array x = tack::full({kN}, tack::Scalar::from(0.5), tack::f32, *dev);
  tack::Array partial = tack::zeros({kChunks}, tack::f32, *dev);
  std::vector<float> host(kChunks);
  double total = 0.0;
  for (int warm = 0; warm < 2; ++warm) partial_sums_kernel()(x, kChunk, partial);
  dev->synchronize();  // the fill and the first runs (page faults) stay out of the timing
  for (auto _ : state) {
    partial_sums_kernel()(x, kChunk, partial);
    partial.to_host(host.data(), host.size() * sizeof(float));  // waits for the kernel
    total = std::accumulate(host.begin(), host.end(), 0.0);
    benchmark::DoNotOptimize(total);
  }
  if (total != 0.5 * static_cast<double>(kN)) state.SkipWithError("wrong sum");
  state.SetBytesProcessed(state.iterations() * kN * 4);
}

void sum_reference(benchmark::State& state) {
  std::vector<float> x(kN);
  const int threads = tack::detail::num_threads();
  float* px = x.data();
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t i = 0; i < kN; ++i) px[i] = 0.5f;
  double total = 0.0;
  for (auto _ : state) {
    float s = 0.0f;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : s)
    for (std::int64_t i = 0; i < kN; ++i) s += px[i];
    total = s;
    benchmark::DoNotOptimize(total);
  }
  state.SetBytesProcessed(state.iterations() * kN * 4);
}

BENCHMARK_CAPTURE(sum_tack, cpu, false)
    ->Name("sum 64 Mi f32 cpu/tack")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(sum_reference)
    ->Name("sum 64 Mi f32 cpu/reference")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(sum_tack, opencl, true)
    ->Name("sum 64 Mi f32 opencl/tack")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(sum_reference)
    ->Name("sum 64 Mi f32 opencl/reference")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// ---- per-launch cost of a 16-element kernel -----------------------------------------------------

// Queued: launches only; the device is waited for once per 256 launches, so the time is the
// enqueue cost plus the device's own time per launch, whichever bounds the loop.
void launch_queued(benchmark::State& state, bool opencl) {
  auto dev = device_or_skip(state, opencl);
  if (!dev) return;
  tack::Array y = tack::zeros({16}, tack::f32, *dev);
  tiny_kernel()(y);
  dev->synchronize();
  std::int64_t n = 0;
  for (auto _ : state) {
    tiny_kernel()(y);
    if ((++n & 255) == 0) dev->synchronize();
  }
  dev->synchronize();
}

// Waited for: the launch and the device's completion of it, every time.
void launch_waited(benchmark::State& state) {
  auto dev = device_or_skip(state, true);
  if (!dev) return;
  tack::Array y = tack::zeros({16}, tack::f32, *dev);
  tiny_kernel()(y);
  dev->synchronize();
  for (auto _ : state) {
    tiny_kernel()(y);
    dev->synchronize();
  }
}

BENCHMARK_CAPTURE(launch_queued, cpu, false)->Name("launch 16 elements cpu/tack")->UseRealTime();
BENCHMARK_CAPTURE(launch_queued, opencl, true)
    ->Name("launch 16 elements opencl queued/tack")
    ->UseRealTime();
BENCHMARK(launch_waited)->Name("launch 16 elements opencl waited/tack")->UseRealTime();

}  // namespace

TACK_BENCH_MAIN()
