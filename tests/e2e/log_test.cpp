// The log of compiles and cache loads through the public API (tack/log.hpp): a program that
// collects events gets one per variant compiled (kernel, signature, device, time), none for a
// launch of a known variant, and the collection empties when taken.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tack/tack.hpp"

namespace tack {
namespace {

TEST(Log, CollectsOneEventPerVariantCompiled) {
  set_log_collect(true);
  take_log_events();
  const Kernel k = kernel(R"(
def log_twice(x):
    for i in range(len(x)):
        x[i] = x[i] * 2
)");
  Array x = zeros({4}, f32, device("cpu"));
  k(x);
  ASSERT_TRUE(log_events_pending());
  const std::vector<std::string> events = take_log_events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_NE(events[0].find("kernel 'log_twice' (x: array<f32, 1>) on cpu"), std::string::npos)
      << events[0];
  EXPECT_NE(events[0].find(" ms"), std::string::npos) << events[0];
  EXPECT_FALSE(log_events_pending());
  k(x);  // a known variant: nothing new
  EXPECT_TRUE(take_log_events().empty());
  set_log_collect(false);
  k(zeros({4}, i32, device("cpu")));  // a new variant, but nobody collects
  EXPECT_TRUE(take_log_events().empty());
}

}  // namespace
}  // namespace tack
