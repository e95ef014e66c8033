// Tiered compile through the public API (tack::set_tiered_compile): the first launch of a
// variant runs the quick build, the next one the optimized build, both with the same bits; a
// kernel whose math the optimized build vectorizes is built once; off, every variant is built
// once. The Python suite (tests/python/test_tiered_compile.py) covers the disk cache across
// processes, a launch the optimized build takes over, and fork().
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tack/tack.hpp"

namespace tack {
namespace {

constexpr const char* kQuick =
    "compiled (quick build; the optimized build follows in the background)";

class TieredCompile : public ::testing::Test {
 protected:
  void SetUp() override {
    ::setenv("TACK_CACHE_DIR", "", 1);  // no disk cache: every variant is compiled here
    ::unsetenv("TACK_TIERED_COMPILE");
    set_tiered_compile(true);
    set_log_collect(true);
    take_log_events();
  }
  void TearDown() override {
    finish_compiles();  // before the program ends: see tack::set_tiered_compile
    set_tiered_compile(false);
    set_log_collect(false);
    ::unsetenv("TACK_CACHE_DIR");
  }
  static std::vector<float> values(const Array& a) {
    std::vector<float> v(static_cast<std::size_t>(a.size()));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = a.item<float>({static_cast<std::int64_t>(i)});
    return v;
  }
};

const char* kPoly = R"(
def tiered_poly(out, x, a):
    for i in range(len(out)):
        v = x[i]
        acc = 0.0
        for k in range(16):
            acc = acc * v + a
        out[i] = acc
)";

TEST_F(TieredCompile, TheFirstLaunchRunsTheQuickBuildAndTheNextTheOptimizedOne) {
  const Kernel k = kernel(kPoly);
  std::vector<float> xs(5000);
  for (std::size_t i = 0; i < xs.size(); ++i) xs[i] = -1.0f + 2.0f * static_cast<float>(i) / 5000;
  const Array x = array(xs, {5000});
  Array out = zeros({5000});
  k(out, x, 0.5f);
  const std::vector<float> first = values(out);
  std::vector<std::string> events = take_log_events();
  ASSERT_GE(events.size(), 1u);
  EXPECT_NE(events[0].find(kQuick), std::string::npos) << events[0];
  out.fill(0.0);
  k(out, x, 0.5f);  // waits for the optimized build, then runs it
  const std::vector<float> second = values(out);
  EXPECT_EQ(0, std::memcmp(first.data(), second.data(), first.size() * sizeof(float)));
  for (const std::string& e : take_log_events()) events.push_back(e);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_NE(events[1].find(": compiled in "), std::string::npos) << events[1];
  EXPECT_EQ(k.variant_count(), 1u);
}

TEST_F(TieredCompile, AKernelWithVectorizableMathIsBuiltOnce) {
  const Kernel k = kernel(R"(
def tiered_waves(out):
    for i in range(len(out)):
        out[i] = tack.exp(float(i) * 0.001)
)");
  Array out = zeros({100});
  k(out);
  const std::vector<std::string> events = take_log_events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_NE(events[0].find(": compiled in "), std::string::npos) << events[0];
}

TEST_F(TieredCompile, OffEveryVariantIsBuiltOnce) {
  set_tiered_compile(false);
  EXPECT_FALSE(tiered_compile());
  ::setenv("TACK_TIERED_COMPILE", "1", 1);  // the environment overrides the setting
  EXPECT_TRUE(tiered_compile());
  ::setenv("TACK_TIERED_COMPILE", "0", 1);
  set_tiered_compile(true);
  EXPECT_FALSE(tiered_compile());
  const Kernel k = kernel(kPoly);
  Array out = zeros({10});
  k(out, zeros({10}), 1.0f);
  const std::vector<std::string> events = take_log_events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_NE(events[0].find(": compiled in "), std::string::npos) << events[0];
  ::unsetenv("TACK_TIERED_COMPILE");
}

}  // namespace
}  // namespace tack
