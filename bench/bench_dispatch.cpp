// Dispatch benchmarks (issue 3): warm launch of a 16-element kernel from C++ (budget 1 us), the
// disjointness check for four arrays (budget 50 ns), a cold compile of a small kernel (budget
// 30 ms) and a load from the disk cache (budget 1 ms). References: a plain C++ loop over the
// same 16 elements, and an empty call.
#include <cstdlib>
#include <filesystem>
#include <string>

#include "ratio_reporter.hpp"
#include "tack/tack.hpp"
#include "targets/cpu/cpu_target.hpp"

namespace {

const char* kAddOne = R"(
def add_one(x, y):
    for i in range(x.shape[0]):
        y[i] = x[i] + 1.0
)";

void warm_dispatch(benchmark::State& state) {
  tack::Kernel k = tack::kernel(kAddOne);
  tack::Array x = tack::ones({16}), y = tack::zeros({16});
  k(x, y);
  for (auto _ : state) k(x, y);
}
BENCHMARK(warm_dispatch)->Name("launch 16 elements/tack");

void plain_loop(benchmark::State& state) {
  std::vector<float> x(16, 1.0f), y(16);
  for (auto _ : state) {
    for (int i = 0; i < 16; ++i) y[i] = x[i] + 1.0f;
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(plain_loop)->Name("launch 16 elements/reference");

void disjoint_check(benchmark::State& state) {
  tack::Array a = tack::zeros({64}), b = tack::zeros({64}), c = tack::zeros({64}),
              d = tack::zeros({64});
  const tack::KernelArg args[] = {a, b, c, d};
  const std::vector<bool> written = {false, false, true, true};
  for (auto _ : state) {
    benchmark::DoNotOptimize(tack::detail::arrays_disjoint(written, args, 4));
  }
}
BENCHMARK(disjoint_check)->Name("disjointness check, 4 arrays/tack");

// Each iteration compiles a new, distinct kernel (a different constant), with the disk cache off.
void cold_compile(benchmark::State& state) {
  setenv("TACK_CACHE_DIR", "", 1);
  tack::Array x = tack::ones({16}), y = tack::zeros({16});
  int n = 0;
  for (auto _ : state) {
    std::string src = std::string(kAddOne);
    src.replace(src.find("1.0"), 3, std::to_string(++n) + ".5");
    tack::Kernel k = tack::kernel(src);
    k(x, y);
  }
}
BENCHMARK(cold_compile)
    ->Name("cold compile + first launch/tack")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(20);

// The same kernel from a warm disk cache: a new Kernel object each time, so nothing is in memory.
void cache_load(benchmark::State& state) {
  auto dir = std::filesystem::temp_directory_path() / "tack-bench-cache";
  std::filesystem::remove_all(dir);
  setenv("TACK_CACHE_DIR", dir.c_str(), 1);
  tack::Array x = tack::ones({16}), y = tack::zeros({16});
  tack::kernel(kAddOne)(x, y);  // fills the cache
  for (auto _ : state) {
    tack::Kernel k = tack::kernel(kAddOne);
    k(x, y);
  }
  std::filesystem::remove_all(dir);
}
BENCHMARK(cache_load)
    ->Name("disk cache load + first launch/tack")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(50);

}  // namespace

TACK_BENCH_MAIN()
