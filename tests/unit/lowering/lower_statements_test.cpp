// Lowering of statements: assignments and the typing of locals, augmented assignment to array
// elements, if/elif/else, for/while/break/continue, the parallel loop (range, ndrange), the
// prelude, locals first assigned inside branches and loops.
#include <gtest/gtest.h>

#include "lower_test_util.hpp"

namespace tack::lowering::test {
namespace {

using ST = ScalarType;

TEST(LowerStatements, AugmentedAssignmentToArrayElements) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(a, b, idx):
    for i in range(len(a)):
        a[i] += b[i]
        a[i] *= 2
        b[i] //= 3
)",
                      {f32s, f32s, i32s}),
            "a[i] = (a[i] + b[i])\n"
            "a[i] = (a[i] * 2.0:f32)\n"
            "b[i] = (b[i] // 3.0:f32)\n");
}

TEST(LowerStatements, AugmentedAssignmentEvaluatesTheIndexOnce) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(hist, bins):
    for i in range(len(bins)):
        hist[bins[i]] += 1
)",
                      {i32s, i64s}),
            "let _t: i64 = bins[i]\n"
            "hist[_t] = (hist[_t] + 1:i32)\n");
}

TEST(LowerStatements, StoresConvertToTheElementType) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(x, n, b):
    for i in range(len(x)):
        n[i] = x[i] * 2
        b[i] = x[i]
        x[i] = 3
        n[i] = 2.5
)",
                      {f64s, i32s, arr(ST::boolean)}),
            "n[i] = i32((x[i] * 2.0:f64))\n"
            "b[i] = bool(x[i])\n"
            "x[i] = 3.0:f64\n"
            "n[i] = 2:i32\n");
}

TEST(LowerStatements, LocalsPromoteOnLaterAssignments) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(x, m, out):
    for i in range(len(x)):
        acc = 0.0
        acc += x[i]
        acc = m[i]
        k = tack.i16(1)
        k = m[i]
        k += 1
        out[i] = acc + k
)",
                      {f32s, arr(ST::i8), f32s}),
            "let acc: f32 = 0.0:f32\n"
            "acc = (acc + x[i])\n"
            "acc = f32(m[i])\n"
            "let k: i16 = 1:i16\n"
            "k = i16(m[i])\n"
            "k = (k + 1:i16)\n"
            "out[i] = (acc + f32(k))\n");
}

TEST(LowerStatements, IfElifElse) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(x):
    for i in range(len(x)):
        if x[i] < 0:
            x[i] = 0
        elif x[i] > 1:
            x[i] = 1
        elif x[i] == 0.5:
            pass
        else:
            x[i] = x[i] * 2
)",
                      {f32s}),
            "if (x[i] < 0.0:f32) {\n"
            "  x[i] = 0.0:f32\n"
            "} else {\n"
            "  if (x[i] > 1.0:f32) {\n"
            "    x[i] = 1.0:f32\n"
            "  } else {\n"
            "    if (x[i] == 0.5:f32) {\n"
            "    } else {\n"
            "      x[i] = (x[i] * 2.0:f32)\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST(LowerStatements, ALocalAssignedOnEveryBranchOutlivesTheIf) {
  // Declared before the if, typed by its first assignment (f32); the int in the else branch
  // converts (a promotion).
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(x, out):
    for i in range(len(x)):
        if x[i] > 0:
            y = 1.0
        else:
            y = i
        out[i] = y
)",
                      {f32s, f32s}),
            "let y: f32 = 0.0:f32\n"
            "if (x[i] > 0.0:f32) {\n"
            "  y = 1.0:f32\n"
            "} else {\n"
            "  y = f32(i)\n"
            "}\n"
            "out[i] = y\n");
}

TEST(LowerStatements, SequentialForLoops) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(x, n):
    for i in range(len(x)):
        s = 0.0
        for j in range(n):
            s += 1
        for j in range(2, n):
            s += 2
        for j in range(n, 0, -2):
            s += 3
        x[i] = s
)",
                      {f32s, num(ST::i32)}),
            "let s: f32 = 0.0:f32\n"
            "for j: i32 in range(0:i32, n, 1:i32) {\n"
            "  s = (s + 1.0:f32)\n"
            "}\n"
            "for j_1: i32 in range(2:i32, n, 1:i32) {\n"
            "  s = (s + 2.0:f32)\n"
            "}\n"
            "for j_2: i32 in range(n, 0:i32, -2:i32) {\n"
            "  s = (s + 3.0:f32)\n"
            "}\n"
            "x[i] = s\n");
}

TEST(LowerStatements, RangeBoundsArePromotedTogether) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(x, n):
    for i in range(len(x)):
        for j in range(n, x.shape[0]):
            pass
        for j in range(5000000000):
            pass
)",
                      {f32s, num(ST::i32)}),
            "for j: i64 in range(i64(n), x.shape[0], 1:i64) {\n"
            "}\n"
            "for j_1: i64 in range(0:i64, 5000000000:i64, 1:i64) {\n"
            "}\n");
}

TEST(LowerStatements, WhileBreakContinue) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(x):
    for i in range(len(x)):
        if x[i] < 0:
            continue
        k = 0
        while True:
            k += 1
            if k > 10:
                break
            if k % 2 == 0:
                continue
            x[i] += 1
)",
                      {f32s}),
            "if (x[i] < 0.0:f32) {\n"
            "  continue\n"
            "}\n"
            "let k: i32 = 0:i32\n"
            "while true {\n"
            "  k = (k + 1:i32)\n"
            "  if (k > 10:i32) {\n"
            "    break\n"
            "  }\n"
            "  if ((k % 2:i32) == 0:i32) {\n"
            "    continue\n"
            "  }\n"
            "  x[i] = (x[i] + 1.0:f32)\n"
            "}\n");
}

TEST(LowerStatements, WhileConditionThatNeedsStatementsIsEvaluatedEachIteration) {
  EXPECT_EQ(loop_body(R"(
@tack.func
def next_index(a, j):
    if a[j] < 0:
        return 0
    return j + 1

@tack.kernel
def k(a):
    for i in range(len(a)):
        j = i
        while next_index(a, j) < 10:
            j += 1
)",
                      {i64s}),
            "let j: i64 = i\n"
            "while true {\n"
            "  let next_index_result: i64 = 0:i64\n"
            "  label next_index_body {\n"
            "    if (a[j] < 0:i64) {\n"
            "      next_index_result = 0:i64\n"
            "      exit next_index_body\n"
            "    }\n"
            "    next_index_result = (j + 1:i64)\n"
            "  }\n"
            "  if (not (next_index_result < 10:i64)) {\n"
            "    break\n"
            "  }\n"
            "  j = (j + 1:i64)\n"
            "}\n");
}

TEST(LowerStatements, NDRangeTwoAndThreeDimensions) {
  EXPECT_EQ(ir_text(R"(
@tack.kernel
def k(a, out):
    for i, j in tack.ndrange(a.shape[0], a.shape[1]):
        out[j, i] = a[i, j]
)",
                    {arr(ST::f32, 2), arr(ST::f32, 2)}),
            "kernel k(a: array<f32, 2>, out: array<f32, 2>) default_float=f32 {\n"
            "  parallel for i: i64 in range(0:i64, a.shape[0], 1:i64), j: i64 in range(0:i64, "
            "a.shape[1], 1:i64) {\n"
            "    out[j, i] = a[i, j]\n"
            "  }\n"
            "}\n");
  EXPECT_EQ(ir_text(R"(
@tack.kernel
def k(v, n):
    for i, j, l in tack.ndrange(n, (1, 9), (0, 10, 2)):
        v[i, j, l] = i + j + l
)",
                    {arr(ST::i32, 3), num(ST::i32)}),
            "kernel k(v: array<i32, 3>, n: i32) default_float=f32 {\n"
            "  parallel for i: i32 in range(0:i32, n, 1:i32), j: i32 in range(1:i32, 9:i32, "
            "1:i32), l: i32 in range(0:i32, 10:i32, 2:i32) {\n"
            "    v[i, j, l] = ((i + j) + l)\n"
            "  }\n"
            "}\n");
}

TEST(LowerStatements, ParallelRangeWithStartAndStep) {
  EXPECT_EQ(ir_text(R"(
@tack.kernel
def k(x, n):
    for i in range(1, n, 2):
        x[i] = 0
)",
                    {f32s, num(ST::i64)}),
            "kernel k(x: array<f32, 1>, n: i64) default_float=f32 {\n"
            "  parallel for i: i64 in range(1:i64, n, 2:i64) {\n"
            "    x[i] = 0.0:f32\n"
            "  }\n"
            "}\n");
}

TEST(LowerStatements, ScalarParametersAssignedBecomeLocals) {
  // Assigned before the parallel loop: one shared local.
  EXPECT_EQ(ir_text(R"(
@tack.kernel
def k(x, n):
    n = n - 1
    for i in range(n):
        x[i] = n
)",
                    {f32s, num(ST::i32)}),
            "kernel k(x: array<f32, 1>, n: i32) default_float=f32 {\n"
            "  let n_1: i32 = n\n"
            "  n_1 = (n_1 - 1:i32)\n"
            "  parallel for i: i32 in range(0:i32, n_1, 1:i32) {\n"
            "    x[i] = f32(n_1)\n"
            "  }\n"
            "}\n");
  // Assigned only inside: a private copy per iteration, set from the argument at the start of
  // each iteration (the original Tack's meaning), so a read before its assignment reads the
  // argument.
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(x, s):
    for i in range(len(x)):
        s = x[i] * 2
        s *= 2
        x[i] = s
)",
                      {f32s, num(ST::f32)}),
            "let s_1: f32 = s\n"
            "s_1 = (x[i] * 2.0:f32)\n"
            "s_1 = (s_1 * 2.0:f32)\n"
            "x[i] = s_1\n");
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(x, s):
    for i in range(len(x)):
        s += x[i]
        x[i] = s
)",
                      {f32s, num(ST::f32)}),
            "let s_1: f32 = s\n"
            "s_1 = (s_1 + x[i])\n"
            "x[i] = s_1\n");
}

TEST(LowerStatements, PreludeLocalsAreVisibleInTheLoop) {
  EXPECT_EQ(ir_text(R"(
@tack.kernel
def k(x, scale):
    n = len(x)
    inv = 1 / scale
    for i in range(n):
        x[i] = x[i] * inv
)",
                    {f64s, num(ST::f64)}),
            "kernel k(x: array<f64, 1>, scale: f64) default_float=f64 {\n"
            "  let n: i64 = x.shape[0]\n"
            "  let inv: f64 = (1.0:f64 / scale)\n"
            "  parallel for i: i64 in range(0:i64, n, 1:i64) {\n"
            "    x[i] = (x[i] * inv)\n"
            "  }\n"
            "}\n");
}

TEST(LowerStatements, AtomicStatementIsEvaluatedForItsEffect) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(x, total):
    for i in range(len(x)):
        tack.atomic_add(total, 0, x[i])
        x[i]
)",
                      {f32s, f64s}),
            "eval atomic_add(total[0:i32], f64(x[i]))\n");
}

TEST(LowerStatements, LocalFirstAssignedInALoopIsDeclaredBeforeIt) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(x, out):
    for i in range(len(x)):
        last = 0.0
        for j in range(3):
            v = x[j]
            last = v
        out[i] = last
)",
                      {f32s, f32s}),
            "let last: f32 = 0.0:f32\n"
            "let v: f32 = 0.0:f32\n"
            "for j: i32 in range(0:i32, 3:i32, 1:i32) {\n"
            "  v = x[j]\n"
            "  last = v\n"
            "}\n"
            "out[i] = last\n");
}

TEST(LowerStatements, ABranchThatLeavesDoesNotNeedToAssign) {
  EXPECT_NO_THROW(lower(R"(
@tack.kernel
def k(x, out):
    for i in range(len(x)):
        for j in range(4):
            if x[j] > 0:
                y = x[j]
            else:
                continue
            out[i] = y
)",
                        {f32s, f32s}));
}

}  // namespace
}  // namespace tack::lowering::test
