#include <gtest/gtest.h>
#include <iostream>
#include <sys/resource.h>
#include "lower_test_util.hpp"
namespace tack::transforms::test {
TEST(Scratch, Deep) {
  std::string e = "x[i]";
  for (int k = 0; k < 990; ++k) e += " + x[i]";
  std::string src = "@tack.kernel\ndef k(x):\n    for i in range(len(x)):\n        x[i] = " + e + "\n";
  lower(src, {f32s});
  std::string c = "i";
  for (int k = 0; k < 180; ++k) c = "(" + c + " + 1)";
  src = "@tack.kernel\ndef k(x):\n    for i in range(len(x)):\n        x[i] = " + c + "\n";
  lower(src, {f32s});
  struct rusage ru; getrusage(RUSAGE_SELF, &ru); std::cout << "maxrss " << ru.ru_maxrss << "\n";
}
}
