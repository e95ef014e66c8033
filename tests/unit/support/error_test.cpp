// The error hierarchy: each class is a tack::Error, CompileError formats its location.
#include <gtest/gtest.h>

#include "support/error.hpp"

namespace tack {
namespace {

TEST(Error, CompileErrorCarriesLocationAndSourceLine) {
  CompileError e("saxpy", 3, 9, "unknown name 'q'", "    y[i] = q * x[i]");
  EXPECT_EQ(e.line(), 3);
  EXPECT_EQ(e.column(), 9);
  EXPECT_EQ(e.kernel(), "saxpy");
  std::string text = e.what();
  EXPECT_NE(text.find("kernel 'saxpy', line 3, column 9: unknown name 'q'"), std::string::npos);
  EXPECT_NE(text.find("        ^"), std::string::npos) << text;
}

TEST(Error, InternalAssertSaysInternalError) {
  try {
    TACK_INTERNAL_ASSERT(1 + 1 == 3, "arithmetic");
    FAIL() << "no throw";
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("internal error"), std::string::npos);
  }
}

}  // namespace
}  // namespace tack
