// Google Benchmark main with ratios: benchmarks named "<case>/tack" and "<case>/reference"
// are paired, and the run ends with a table of reference_time / tack_time (above 1: Tack is
// faster) and, where bytes were processed, GB/s of both. With TACK_BENCH_RECORD set, each ratio
// is also appended to that file as a JSON line for the dated table (bench/write_table.py).
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>

namespace tack::bench {

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  explicit RatioReporter(std::string bench) : bench_(std::move(bench)) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const auto& r : runs) {
      if (r.run_type != Run::RT_Iteration || r.error_occurred) continue;
      std::string name = r.benchmark_name();
      for (const char* suffix : {"/iterations:", "/real_time", "/process_time"}) {
        auto at = name.find(suffix);
        if (at != std::string::npos) name.erase(at);
      }
      auto slash = name.rfind('/');
      if (slash == std::string::npos) continue;
      std::string side = name.substr(slash + 1), key = name.substr(0, slash);
      double ns = r.GetAdjustedRealTime();
      double bytes = 0;
      auto it = r.counters.find("bytes_per_second");
      if (it != r.counters.end()) bytes = it->second;
      if (side == "tack") tack_[key] = {ns, bytes};
      if (side == "reference") ref_[key] = {ns, bytes};
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    std::printf("\n%-40s %12s %12s %8s %10s %10s\n", "case", "tack", "reference", "ratio",
                "tack GB/s", "ref GB/s");
    for (const auto& [key, t] : tack_) {
      auto r = ref_.find(key);
      if (r == ref_.end()) {
        std::printf("%-40s %12.1f %12s %8s\n", key.c_str(), t.first, "-", "-");
        continue;
      }
      std::printf("%-40s %12.1f %12.1f %8.2f %10.1f %10.1f\n", key.c_str(), t.first,
                  r->second.first, r->second.first / t.first, t.second / 1e9,
                  r->second.second / 1e9);
      record(key, r->second.first / t.first);
    }
    std::printf(
        "(times in the benchmark's unit; ratio = reference / tack, above 1 means Tack is "
        "faster)\n");
  }

 private:
  // One JSON line for bench/write_table.py (case names are benchmark names: no quotes).
  void record(const std::string& key, double ratio) const {
    const char* path = std::getenv("TACK_BENCH_RECORD");
    if (path == nullptr || *path == '\0') return;
    if (std::FILE* f = std::fopen(path, "a")) {
      std::fprintf(f,
                   "{\"bench\": \"%s\", \"case\": \"%s\", \"value\": %.4f, "
                   "\"meaning\": \"reference / tack\"}\n",
                   bench_.c_str(), key.c_str(), ratio);
      std::fclose(f);
    }
  }

  std::string bench_;
  std::map<std::string, std::pair<double, double>> tack_, ref_;
};

inline int run_with_ratios(int argc, char** argv) {
  std::string bench = argc > 0 ? argv[0] : "bench";
  bench = bench.substr(bench.rfind('/') + 1);
  benchmark::Initialize(&argc, argv);
  RatioReporter reporter(bench);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}

}  // namespace tack::bench

#define TACK_BENCH_MAIN()                            \
  int main(int argc, char** argv) {                  \
    return tack::bench::run_with_ratios(argc, argv); \
  }
