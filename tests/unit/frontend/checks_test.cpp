// The structural checks: kernels that must pass, and the helpers the lowering uses.
#include <gtest/gtest.h>

#include "frontend/checks.hpp"
#include "frontend/parser.hpp"

namespace tack::frontend {
namespace {

void check(const char* source, const char* kernel = "k") {
  Module m = parse_module(source);
  const FunctionDef* k = m.find(kernel);
  ASSERT_NE(k, nullptr);
  check_kernel_structure(m, *k);
}

TEST(Checks, AcceptsGoodKernels) {
  EXPECT_NO_THROW(check(R"(
@tack.kernel
def k(x, y, out):
    """Adds."""
    n = len(x)
    scale = tack.f32(2.0) * math.sqrt(4.0)
    n -= 0
    for i in range(n):
        if i % 2 == 0:
            continue
        j = 0
        while j < 3:
            if j == 2:
                break
            j += 1
        out[i] = x[i] * scale + y[i]
        tack.atomic_add(out, 0, 1.0)
    pass
)"));
  EXPECT_NO_THROW(check(R"(
@tack.func
def square(v):
    return v * v

@tack.func
def norm2(a, b):
    return square(a) + square(b)

@tack.kernel
def k(a, b, out):
    s = norm2(1.0, 2.0)
    for i, j in tack.ndrange(a.shape[0], a.shape[1]):
        out[i, j] = norm2(a[i, j], b[i, j]) + s
)"));
}

TEST(Checks, ParallelLoop) {
  Module m = parse_module("def k(a):\n    n = 1\n    for i in range(n):\n        pass\n");
  const For* loop = parallel_loop(m.functions[0]);
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->loc.line, 3);
  Module none = parse_module("def k(a):\n    n = 1\n");
  EXPECT_EQ(parallel_loop(none.functions[0]), nullptr);
}

TEST(Checks, ListCalls) {
  Module m = parse_module(
      "def k(a):\n    for i in range(len(a)):\n        tack.atomic_add(a, i, g(h(1)))\n"
      "        (f)(2)\n");
  std::vector<CallSite> calls = list_calls(m.functions[0]);
  ASSERT_EQ(calls.size(), 5u);
  EXPECT_EQ(calls[0].callee, "len");
  EXPECT_EQ(calls[1].callee, "tack.atomic_add");
  EXPECT_EQ(calls[2].callee, "g");
  EXPECT_EQ(calls[3].callee, "h");
  EXPECT_EQ(calls[4].callee, "f");
  EXPECT_EQ(calls[1].call->loc, (SourceLoc{3, 9}));
}

TEST(Checks, PureBuiltins) {
  EXPECT_TRUE(is_pure_builtin("len"));
  EXPECT_TRUE(is_pure_builtin("tack.f32"));
  EXPECT_TRUE(is_pure_builtin("tack.sqrt"));
  EXPECT_TRUE(is_pure_builtin("math.exp"));
  EXPECT_TRUE(is_pure_builtin("sqrt"));
  EXPECT_FALSE(is_pure_builtin("tack.atomic_add"));
  EXPECT_FALSE(is_pure_builtin("math.f32"));
  EXPECT_FALSE(is_pure_builtin("print"));
  EXPECT_FALSE(is_pure_builtin(""));
}

TEST(Checks, RecursionNotReachableFromTheKernelIsNotItsError) {
  // The cycle is reported when a kernel reaches it, not for every kernel of the module.
  EXPECT_NO_THROW(check(R"(
@tack.func
def loop(n):
    return loop(n)

@tack.kernel
def k(a):
    for i in range(len(a)):
        a[i] = 0
)"));
}

TEST(Checks, DiamondCallGraphIsNotRecursion) {
  EXPECT_NO_THROW(check(R"(
@tack.func
def leaf(x):
    return x

@tack.func
def left(x):
    return leaf(x)

@tack.func
def right(x):
    return leaf(x) + left(x)

@tack.kernel
def k(a):
    for i in range(len(a)):
        a[i] = left(a[i]) + right(a[i])
)"));
}

TEST(Checks, LongChainOfHelpers) {
  std::string source;
  for (int i = 0; i < 2000; ++i) {
    source += "def f" + std::to_string(i) + "(x):\n    return f" + std::to_string(i + 1) + "(x)\n";
  }
  source += "def f2000(x):\n    return f0(x)\n";
  source += "@tack.kernel\ndef k(a):\n    for i in range(len(a)):\n        a[i] = f0(a[i])\n";
  Module m = parse_module(source);
  try {
    check_kernel_structure(m, *m.find("k"));
    FAIL();
  } catch (const CompileError& e) {
    EXPECT_EQ(e.kernel(), "f2000");
    EXPECT_NE(e.message().find("recursive call to 'f0'"), std::string::npos);
  }
}

}  // namespace
}  // namespace tack::frontend
