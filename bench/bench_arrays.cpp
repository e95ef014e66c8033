// Array benchmarks (issue 2): view creation and element reads in ns per call; fill, copy in and
// copy out of 256 MiB against parallel memset and memcpy in the same run.
#include <omp.h>

#include <cstring>
#include <vector>

#include "ratio_reporter.hpp"
#include "runtime/parallel.hpp"
#include "tack/tack.hpp"

namespace {

constexpr std::size_t kBytes = 256u << 20;
constexpr std::int64_t kFloats = kBytes / 4;

void view_creation(benchmark::State& state) {
  tack::Array a = tack::zeros({1024, 16});
  for (auto _ : state) {
    tack::Array v = a.slice(100, 200);
    benchmark::DoNotOptimize(v);
  }
}
BENCHMARK(view_creation)->Name("slice a[100:200]/tack");

void element_read(benchmark::State& state) {
  tack::Array a = tack::ones({1024, 16});
  for (auto _ : state) benchmark::DoNotOptimize(a.item<float>({7, 3}));
}
BENCHMARK(element_read)->Name("item a[7, 3]/tack");

void fill_tack(benchmark::State& state) {
  tack::Array a = tack::empty({kFloats});
  for (auto _ : state) a.fill(1.5);
  state.SetBytesProcessed(state.iterations() * kBytes);
}
BENCHMARK(fill_tack)->Name("fill 256 MiB/tack")->Unit(benchmark::kMillisecond)->UseRealTime();

void fill_reference(benchmark::State& state) {
  // A parallel memset over the same number of threads, of a pattern with one byte value.
  std::vector<float> v(kFloats);
  auto* p = reinterpret_cast<char*>(v.data());
  const int threads = tack::detail::num_threads();
  for (auto _ : state) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int t = 0; t < threads; ++t) {
      std::size_t b = kBytes * t / threads, e = kBytes * (t + 1) / threads;
      std::memset(p + b, 0x3f, e - b);
    }
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kBytes);
}
BENCHMARK(fill_reference)
    ->Name("fill 256 MiB/reference")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void copy_in_tack(benchmark::State& state) {
  std::vector<float> host(kFloats, 2.0f);
  tack::Array a = tack::empty({kFloats});
  for (auto _ : state)
    tack::copyto(a, tack::HostView{host.data(), tack::ScalarType::f32, {kFloats}, {}});
  state.SetBytesProcessed(state.iterations() * kBytes);
}
BENCHMARK(copy_in_tack)->Name("copyto 256 MiB/tack")->Unit(benchmark::kMillisecond)->UseRealTime();

void copy_out_tack(benchmark::State& state) {
  std::vector<float> host(kFloats);
  tack::Array a = tack::ones({kFloats});
  for (auto _ : state) a.to_host(host.data(), kBytes);
  state.SetBytesProcessed(state.iterations() * kBytes);
}
BENCHMARK(copy_out_tack)
    ->Name("to_host 256 MiB/tack")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void memcpy_reference(benchmark::State& state) {
  std::vector<float> src(kFloats, 2.0f), dst(kFloats, 0.0f);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), kBytes);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kBytes);
}
BENCHMARK(memcpy_reference)
    ->Name("copyto 256 MiB/reference")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(memcpy_reference)
    ->Name("to_host 256 MiB/reference")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

TACK_BENCH_MAIN()
