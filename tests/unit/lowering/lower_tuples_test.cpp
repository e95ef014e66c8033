// Tuples in the lowering (docs/design/tuples.md): unpacking evaluates the right side completely
// first, tuple locals are one scalar local per element, device functions return tuples with each
// element's type merged over the returns, and tuple arguments bind a tuple parameter.
#include <gtest/gtest.h>

#include "lower_test_util.hpp"

namespace tack::lowering::test {
namespace {

using ST = ScalarType;

TEST(LowerTuples, SwapSavesTheRightSideBeforeAssigning) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(x):
    for i in range(len(x)):
        a = x[i]
        b = 2.0
        a, b = b, a
        x[i] = a - b
)",
                      {f32s}),
            "let a: f32 = x[i]\n"
            "let b: f32 = 2.0:f32\n"
            "let _t: f32 = b\n"
            "let _t_1: f32 = a\n"
            "a = _t\n"
            "b = _t_1\n"
            "x[i] = (a - b)\n");
}

TEST(LowerTuples, ElementSwapReadsBothElementsFirst) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(x):
    for i in range(len(x) - 1):
        x[i], x[i + 1] = x[i + 1], x[i]
)",
                      {f32s}),
            "let _t: f32 = x[(i + 1:i64)]\n"
            "let _t_1: f32 = x[i]\n"
            "x[i] = _t\n"
            "x[(i + 1:i64)] = _t_1\n");
}

TEST(LowerTuples, NestedUnpackingAndConstantsNeedNoTemporaries) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(x, n):
    for i in range(len(x)):
        (a, b), c = (1, n), 0.5
        x[i] = a + b + c
)",
                      {f32s, num(ST::i32)}),
            "let a: i32 = 1:i32\n"
            "let b: i32 = n\n"
            "let c: f32 = 0.5:f32\n"
            "x[i] = (f32((a + b)) + c)\n");
}

TEST(LowerTuples, TupleLocalIsOneLocalPerElement) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(x):
    for i in range(len(x)):
        t = (i, x[i])
        t = (t[0] + 1, t[1])
        u = (t[1], 2 * t[1])
        u = (u[1], u[0])
        x[i] = t[0] + u[-1] + len(t)
)",
                      {f32s}),
            "let t_0: i64 = i\n"
            "let t_1: f32 = x[i]\n"
            "let _t: i64 = (t_0 + 1:i64)\n"
            "let _t_1: f32 = t_1\n"
            "t_0 = _t\n"
            "t_1 = _t_1\n"
            "let u_0: f32 = t_1\n"
            "let u_1: f32 = (2.0:f32 * t_1)\n"
            "let _t_2: f32 = u_1\n"
            "let _t_3: f32 = u_0\n"
            "u_0 = _t_2\n"
            "u_1 = _t_3\n"
            "x[i] = ((f32(t_0) + u_1) + 2.0:f32)\n");
}

TEST(LowerTuples, FunctionReturnsATupleWithMergedElementTypes) {
  EXPECT_EQ(loop_body(R"(
@tack.func
def order(a, b):
    if a < b:
        return a, 0
    return b, 1.5

@tack.kernel
def k(x, y):
    for i in range(len(x)):
        v, which = order(x[i], y[i])
        x[i] = v * which
)",
                      {f32s, f32s}),
            "let a: f32 = x[i]\n"
            "let b: f32 = y[i]\n"
            "let order_result: f32 = 0.0:f32\n"
            "let order_result_1: f32 = 0.0:f32\n"
            "label order_body {\n"
            "  if (a < b) {\n"
            "    order_result = a\n"
            "    order_result_1 = 0.0:f32\n"
            "    exit order_body\n"
            "  }\n"
            "  order_result = b\n"
            "  order_result_1 = 1.5:f32\n"
            "}\n"
            "let _t: f32 = order_result\n"
            "let _t_1: f32 = order_result_1\n"
            "let v: f32 = _t\n"
            "let which: f32 = _t_1\n"
            "x[i] = (v * which)\n");
}

TEST(LowerTuples, TupleArgumentBindsATupleParameter) {
  EXPECT_EQ(loop_body(R"(
@tack.func
def total(p):
    return p[0] + p[1]

@tack.kernel
def k(x):
    for i in range(len(x)):
        x[i] = total((x[i], 1.0))
)",
                      {f32s}),
            "let p_0: f32 = x[i]\n"
            "let p_1: f32 = 1.0:f32\n"
            "x[i] = (p_0 + p_1)\n");
}

TEST(LowerTuples, TupleFirstAssignedInABranchIsDeclaredBeforeIt) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(x):
    for i in range(len(x)):
        if x[i] > 0:
            t = (1, x[i])
        else:
            t = (2, 0.0)
        x[i] = t[0] * t[1]
)",
                      {f32s}),
            "let t_0: i32 = 0:i32\n"
            "let t_1: f32 = 0.0:f32\n"
            "if (x[i] > 0.0:f32) {\n"
            "  let _t: f32 = x[i]\n"  // the right side is saved before any element is assigned
            "  t_0 = 1:i32\n"
            "  t_1 = _t\n"
            "} else {\n"
            "  t_0 = 2:i32\n"
            "  t_1 = 0.0:f32\n"
            "}\n"
            "x[i] = (f32(t_0) * t_1)\n");
}

}  // namespace
}  // namespace tack::lowering::test
