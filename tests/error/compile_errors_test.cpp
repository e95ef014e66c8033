// Bad kernels through the public API (tack::kernel, then a call): a CompileError with the right
// kernel, line and column, whether the front end refuses the source or the lowering refuses it
// for the call's argument types. Representative cases; the full tables are the unit tests'
// (tests/unit/frontend/bad_kernels_test.cpp, tests/unit/transforms/type_errors_test.cpp).
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "tack/tack.hpp"

namespace tack {
namespace {

enum class Stage { Parse, Call };

struct BadKernel {
  const char* name;
  const char* source;
  Stage stage;          // refused by tack::kernel, or by the first call
  int line;             // 1-based, counting the source's first line as line 1
  int column;           // 1-based
  const char* kernel;   // the function the error names
  const char* message;  // a substring of the message
  DType dtype = f32;    // the arrays of the call: (x, out), both of this dtype
};

void PrintTo(const BadKernel& c, std::ostream* os) {
  *os << c.name;
}

const BadKernel kBadKernels[] = {
    {"UnmatchedParenthesis",
     R"(def k(x, out):
    for i in range(len(x)):
        out[i] = (x[i] + 1))
)",
     Stage::Parse, 3, 28, "k", "unmatched ')'"},
    {"NoParallelLoop",
     R"(def k(x, out):
    n = len(x)
    m = n + 1
)",
     Stage::Parse, 1, 1, "k", "no top-level parallel loop"},
    {"StoreBeforeTheParallelLoop",
     R"(def k(x, out):
    out[0] = 1.0
    for i in range(len(x)):
        out[i] = x[i]
)",
     Stage::Parse, 2, 5, "k", "before the parallel loop"},
    {"ReturnInAKernel",
     R"(def k(x, out):
    for i in range(len(x)):
        if x[i] > 0.0:
            return
        out[i] = x[i]
)",
     Stage::Parse, 4, 13, "k", "'return' in a kernel gives the kernel's value"},
    {"StringLiteral",
     R"(def k(x, out):
    for i in range(len(x)):
        out[i] = f"one"
)",
     Stage::Parse, 3, 18, "k", "f-strings are not supported"},
    {"BreakLeavingTheParallelLoop",
     R"(def k(x, out):
    for i in range(len(x)):
        if x[i] > 0.0:
            break
        out[i] = x[i]
)",
     Stage::Parse, 4, 13, "k", "'break' cannot leave the parallel loop"},
    {"UnknownName",
     R"(def k(x, out):
    for i in range(len(x)):
        out[i] = x[i] + undefined_thing
)",
     Stage::Call, 3, 25, "k", "unknown name 'undefined_thing'"},
    {"WrongNumberOfIndices",
     R"(def k(x, out):
    for i in range(len(x)):
        out[i] = x[i, 0]
)",
     Stage::Call, 3, 18, "k", "'x'"},
    {"LiteralDoesNotFitTheElementType",
     R"(def k(x, out):
    for i in range(len(x)):
        out[i] = x[i] + 300
)",
     Stage::Call, 3, 23, "k", "the constant 300 does not fit in u8", u8},  // at the '+'
    {"LocalReadBeforeItIsAssigned",
     R"(def k(x, out):
    for i in range(len(x)):
        if x[i] > 0.0:
            y = 1.0
        out[i] = y
)",
     Stage::Call, 5, 18, "k", "'y' may be used before it is assigned"},
    {"TypeErrorInsideADeviceFunction",
     R"(@tack.func
def f(v):
    b = v > 0
    return b | 1

def k(x, out):
    for i in range(len(x)):
        out[i] = f(x[i])
)",
     Stage::Call, 4, 14, "f", "inlined from line 8"},  // at the '+'
    {"LocalChangesType",
     R"(def k(x, out):
    for i in range(len(x)):
        acc = 0
        acc += x[i]
        out[i] = acc
)",
     Stage::Call, 4, 16, "k", "'acc' is i32"},  // at the value assigned
};

class CompileErrors : public ::testing::TestWithParam<BadKernel> {};

TEST_P(CompileErrors, RaisesAtTheRightPlace) {
  const BadKernel& c = GetParam();
  try {
    const Kernel k = kernel(c.source);
    EXPECT_EQ(c.stage, Stage::Call) << "tack::kernel accepted the source";
    Array x = zeros({4}, c.dtype), out = zeros({4}, c.dtype);
    k(x, out);
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    const std::string text = e.what();
    EXPECT_EQ(e.kernel(), c.kernel) << text;
    EXPECT_EQ(e.line(), c.line) << text;
    EXPECT_EQ(e.column(), c.column) << text;
    EXPECT_NE(e.message().find(c.message), std::string::npos) << text;
    // what() holds the location and the source line.
    EXPECT_NE(text.find("line " + std::to_string(c.line)), std::string::npos) << text;
    EXPECT_NE(text.find(c.kernel), std::string::npos) << text;
  }
}

INSTANTIATE_TEST_SUITE_P(PublicApi, CompileErrors, ::testing::ValuesIn(kBadKernels),
                         [](const ::testing::TestParamInfo<BadKernel>& info) {
                           return std::string(info.param.name);
                         });

// A call-time error is raised again by every call (nothing half-compiled is cached), and the
// kernel's other signatures still work.
TEST(CompileErrorsPublicApi, CallTimeErrorsRepeatAndOtherSignaturesWork) {
  const Kernel k = kernel(R"(def k(x, out):
    for i in range(len(x)):
        out[i] = x[i] + 300
)");
  Array xu = zeros({4}, u8), ou = zeros({4}, u8);
  for (int round = 0; round < 3; ++round) EXPECT_THROW(k(xu, ou), CompileError);
  EXPECT_EQ(k.variant_count(), 0u);
  Array x = zeros({4}, i32), out = zeros({4}, i32);
  k(x, out);
  EXPECT_EQ(out.to_vector<std::int32_t>(), std::vector<std::int32_t>(4, 300));
}

// first_line maps the source's lines to a file's: a kernel starting at line 40.
TEST(CompileErrorsPublicApi, FirstLineShiftsTheReportedLine) {
  try {
    kernel(R"(def k(x, out):
    for i in range(len(x)):
        out[i] = f"one"
)",
           "", 40);
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    EXPECT_EQ(e.line(), 42);
    EXPECT_EQ(e.column(), 18);
  }
  const Kernel k = kernel(R"(def k(x, out):
    for i in range(len(x)):
        out[i] = x[i] + nope
)",
                          "", 100);
  Array x = zeros({4}), out = zeros({4});
  try {
    k(x, out);
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    EXPECT_EQ(e.line(), 102);
    EXPECT_EQ(e.column(), 25);
  }
}

// A source in pieces (as Python's decorators gather a kernel and the device functions it calls
// from their files): an error is reported at its piece's file and line, naming the file when it
// is not the kernel's, whether the parser or the first call's lowering finds it.
TEST(CompileErrorsPublicApi, PiecesReportTheirOwnFileAndLine) {
  const SourcePiece helper{"@tack.func\ndef helper(v):\n    return v + \"oops\"\n", 5,
                           "/src/helpers.py"};
  const SourcePiece kernel_piece{
      "def k(x):\n    for i in range(len(x)):\n        x[i] = helper(x[i])\n", 20,
      "/src/kernels.py"};
  Array x = zeros({4});
  try {
    kernel(std::vector<SourcePiece>{kernel_piece, helper}, "k")(x);
    ADD_FAILURE() << "compiled";
  } catch (const CompileError& e) {
    EXPECT_EQ(e.line(), 7);
    EXPECT_EQ(e.file(), "/src/helpers.py");
    EXPECT_EQ(std::string(e.what()).rfind("kernel 'helper', line 7 of /src/helpers.py, column", 0),
              0u)
        << e.what();
  }
  // Found by lowering, at the first call: moved the same way.
  const SourcePiece lowered{"@tack.func\ndef helper3(v):\n    return v + nowhere\n", 5,
                            "/src/helpers.py"};
  const SourcePiece calls{"def k3(x):\n    for i in range(len(x)):\n        x[i] = helper3(x[i])\n",
                          20, "/src/kernels.py"};
  Kernel k3 = kernel(std::vector<SourcePiece>{calls, lowered}, "k3");
  try {
    k3(x);
    ADD_FAILURE() << "compiled";
  } catch (const CompileError& e) {
    EXPECT_EQ(e.line(), 7);
    EXPECT_EQ(e.file(), "/src/helpers.py");
    EXPECT_NE(std::string(e.what()).find("line 7 of /src/helpers.py"), std::string::npos)
        << e.what();
  }
  // An error in the kernel's own piece names its line only; overlapping pieces (lines 1-3 and
  // 2-4) are laid one after another and still map back.
  const SourcePiece bad_kernel{"def k2(x):\n    for i in range(len(x)):\n        x[i] = +\n", 2,
                               "/src/kernels.py"};
  const SourcePiece early{"@tack.func\ndef helper2(v):\n    return v\n", 1, "/src/other.py"};
  try {
    kernel(std::vector<SourcePiece>{bad_kernel, early}, "k2");
    ADD_FAILURE() << "parsed";
  } catch (const CompileError& e) {
    EXPECT_EQ(e.line(), 4);
    EXPECT_EQ(e.file(), "/src/kernels.py");
    EXPECT_EQ(std::string(e.what()).rfind("kernel 'k2', line 4, column", 0), 0u) << e.what();
  }
}

TEST(CompileErrorsPublicApi, NamingAKernelThatIsNotThere) {
  EXPECT_THROW(kernel("def k(x):\n    for i in range(len(x)):\n        x[i] = 0\n", "other"),
               ValueError);
  try {
    kernel("@tack.func\ndef f(v):\n    return v\n");
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("no kernel"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tack
