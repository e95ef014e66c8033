// Inlining of @tack.func device functions: parameters typed by the arguments, expression
// functions, early return through LabeledBlock/ExitBlock, merged return types, array
// arguments, nested calls, functions without a result.
#include <gtest/gtest.h>

#include "lower_test_util.hpp"

namespace tack::lowering::test {
namespace {

using ST = ScalarType;

TEST(LowerFunctions, OneReturnFunctionIsAnExpression) {
  const char* src = R"(
@tack.func
def clamp01(v):
    return 0.0 if v < 0.0 else (1.0 if v > 1.0 else v)

@tack.kernel
def k(x):
    for i in range(len(x)):
        t = x[i] * 2
        x[i] = clamp01(t)
)";
  EXPECT_EQ(loop_body(src, {f32s}),
            "let t: f32 = (x[i] * 2.0:f32)\n"
            "x[i] = select((t < 0.0:f32), 0.0:f32, select((t > 1.0:f32), 1.0:f32, t))\n");
  // The same function typed for f64 where it is called with f64.
  EXPECT_EQ(loop_body(src, {f64s}),
            "let t: f64 = (x[i] * 2.0:f64)\n"
            "x[i] = select((t < 0.0:f64), 0.0:f64, select((t > 1.0:f64), 1.0:f64, t))\n");
}

TEST(LowerFunctions, ArgumentThatReadsMemoryIsEvaluatedOnce) {
  EXPECT_EQ(loop_body(R"(
@tack.func
def square(v):
    return v * v

@tack.kernel
def k(x):
    for i in range(len(x)):
        x[i] = square(x[i])
)",
                      {i32s}),
            "let v: i32 = x[i]\n"
            "x[i] = (v * v)\n");
}

TEST(LowerFunctions, EarlyReturnUsesALabeledBlock) {
  EXPECT_EQ(loop_body(R"(
@tack.func
def relu(x):
    if x < 0:
        return 0
    return x

@tack.kernel
def k(a, out):
    for i in range(len(a)):
        out[i] = relu(a[i] - 1)
)",
                      {f32s, f32s}),
            "let x: f32 = (a[i] - 1.0:f32)\n"
            "let relu_result: f32 = 0.0:f32\n"
            "label relu_body {\n"
            "  if (x < 0.0:f32) {\n"
            "    relu_result = 0.0:f32\n"
            "    exit relu_body\n"
            "  }\n"
            "  relu_result = x\n"
            "}\n"
            "out[i] = relu_result\n");
}

TEST(LowerFunctions, ReturnTypesMerge) {
  // i32 and i64 returns merge into i64; a literal return takes the merged type.
  EXPECT_EQ(loop_body(R"(
@tack.func
def pick(a, b, c):
    if c:
        return a
    elif c > 5:
        return 7
    return b

@tack.kernel
def k(x, y, out):
    for i in range(len(out)):
        out[i] = pick(x[i], y[i], i)
)",
                      {i32s, i64s, i64s}),
            "let a: i32 = x[i]\n"
            "let b: i64 = y[i]\n"
            "let pick_result: i64 = 0:i64\n"
            "label pick_body {\n"
            "  if (i != 0:i64) {\n"
            "    pick_result = i64(a)\n"
            "    exit pick_body\n"
            "  } else {\n"
            "    if (i > 5:i64) {\n"
            "      pick_result = 7:i64\n"
            "      exit pick_body\n"
            "    }\n"
            "  }\n"
            "  pick_result = b\n"
            "}\n"
            "out[i] = pick_result\n");
}

TEST(LowerFunctions, ArrayArgumentsPassThrough) {
  EXPECT_EQ(loop_body(R"(
@tack.func
def accumulate(dst, src, i, w):
    dst[i] += src[i] * w

@tack.kernel
def k(a, b):
    for i in range(len(a)):
        accumulate(a, b, i, 0.5)
        buf = tack.zeros(4, tack.f32)
        accumulate(buf, a, 1, 2)
)",
                      {f32s, f32s}),
            "block {\n"
            "  a[i] = (a[i] + (b[i] * 0.5:f32))\n"
            "}\n"
            "local buf: f32[4]\n"
            "block {\n"
            "  buf[1:i32] = (buf[1:i32] + (a[1:i32] * f32(2:i32)))\n"
            "}\n");
}

TEST(LowerFunctions, ParametersAssignedInTheFunctionAreCopies) {
  EXPECT_EQ(loop_body(R"(
@tack.func
def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps

@tack.kernel
def k(out):
    for i in range(1, len(out)):
        out[i] = collatz_steps(i)
)",
                      {i64s}),
            "let n: i64 = i\n"
            "let collatz_steps_result: i32 = 0:i32\n"
            "block {\n"
            "  let steps: i32 = 0:i32\n"
            "  while (n != 1:i64) {\n"
            "    if ((n % 2:i64) == 0:i64) {\n"
            "      n = (n // 2:i64)\n"
            "    } else {\n"
            "      n = ((3:i64 * n) + 1:i64)\n"
            "    }\n"
            "    steps = (steps + 1:i32)\n"
            "  }\n"
            "  collatz_steps_result = steps\n"
            "}\n"
            "out[i] = i64(collatz_steps_result)\n");
}

TEST(LowerFunctions, NestedCallsAndReturnInsideALoop) {
  EXPECT_EQ(loop_body(R"(
@tack.func
def sq(v):
    return v * v

@tack.func
def find(a, x):
    for j in range(len(a)):
        if sq(a[j]) == x:
            return j
    return -1

@tack.kernel
def k(a, out):
    for i in range(len(out)):
        out[i] = find(a, out[i])
)",
                      {f32s, i64s}),
            "let x: i64 = out[i]\n"
            "let find_result: i64 = 0:i64\n"
            "label find_body {\n"
            "  for j: i64 in range(0:i64, a.shape[0], 1:i64) {\n"
            "    let v: f32 = a[j]\n"
            "    if ((v * v) == f32(x)) {\n"
            "      find_result = j\n"
            "      exit find_body\n"
            "    }\n"
            "  }\n"
            "  find_result = -1:i64\n"
            "}\n"
            "out[i] = find_result\n");
}

TEST(LowerFunctions, CallsInTheSameExpressionGetDistinctNames) {
  EXPECT_EQ(loop_body(R"(
@tack.func
def twice(v):
    r = v * 2
    return r

@tack.kernel
def k(x):
    for i in range(len(x)):
        x[i] = twice(i) + twice(1)
)",
                      {i64s}),
            "let twice_result: i64 = 0:i64\n"
            "block {\n"
            "  let r: i64 = (i * 2:i64)\n"
            "  twice_result = r\n"
            "}\n"
            "let twice_result_1: i32 = 0:i32\n"
            "block {\n"
            "  let r_1: i32 = (1:i32 * 2:i32)\n"
            "  twice_result_1 = r_1\n"
            "}\n"
            "x[i] = (twice_result + i64(twice_result_1))\n");
}

TEST(LowerFunctions, CalledBeforeTheParallelLoop) {
  EXPECT_EQ(ir_text(R"(
@tack.func
def half(n):
    return n // 2

@tack.kernel
def k(x):
    m = half(len(x))
    for i in range(m):
        x[i] = 0
)",
                    {f32s}),
            "kernel k(x: array<f32, 1>) default_float=f32 {\n"
            "  let m: i64 = (x.shape[0] // 2:i64)\n"
            "  parallel for i: i64 in range(0:i64, m, 1:i64) {\n"
            "    x[i] = 0.0:f32\n"
            "  }\n"
            "}\n");
}

}  // namespace
}  // namespace tack::lowering::test
