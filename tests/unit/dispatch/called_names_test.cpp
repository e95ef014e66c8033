// tack::called_names: the calls of kernel-language text as the front end parses them (what the
// Python front door finds device functions with).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tack/kernel.hpp"

namespace tack {
namespace {

TEST(CalledNames, TheCallsDottedAsWrittenOnceInSourceOrder) {
  const char* source = R"src(
def k(x, out):
    for i in range(len(x)):
        # helper(x) in a comment and "other(x)" in a string are no calls
        s = "other(1)"
        out[i] = mylib.helper(x[i]) + tm.fract(helper(x[i])) + x[i] * 2
        out[i] = helper(out[i])
)src";
  // (a loop's range(...) is the loop's own syntax; the calls in its bounds are calls)
  const std::vector<std::string> want = {"len", "mylib.helper", "tm.fract", "helper"};
  EXPECT_EQ(called_names(source), want);
}

TEST(CalledNames, EveryFunctionOfTheText) {
  const char* source = R"(
@tack.func
def a(v):
    return b(v) + 1

def k(x):
    for i in range(len(x)):
        x[i] = a(x[i])
)";
  const std::vector<std::string> want = {"b", "len", "a"};
  EXPECT_EQ(called_names(source), want);
}

TEST(CalledNames, TextThatDoesNotParseCallsNothing) {
  EXPECT_TRUE(called_names("def k(x:\n    helper(x)\n").empty());
  EXPECT_TRUE(called_names("").empty());
}

}  // namespace
}  // namespace tack
