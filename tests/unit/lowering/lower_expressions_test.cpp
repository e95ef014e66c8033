// Lowering of expressions: typing from the signature, weak literals, promotions, Python's
// arithmetic, comparisons (chained), and/or/not, conditional expressions, evaluation order.
#include <gtest/gtest.h>

#include "lower_test_util.hpp"

namespace tack::lowering::test {
namespace {

using ST = ScalarType;

TEST(LowerExpressions, VectorAdd) {
  EXPECT_EQ(ir_text(R"(
@tack.kernel
def k(x, y, out):
    for i in range(len(x)):
        out[i] = x[i] + y[i]
)",
                    {f32s, f32s, f32s}),
            "kernel k(x: array<f32, 1>, y: array<f32, 1>, out: array<f32, 1>) default_float=f32 {\n"
            "  parallel for i: i64 in range(0:i64, x.shape[0], 1:i64) {\n"
            "    out[i] = (x[i] + y[i])\n"
            "  }\n"
            "}\n");
}

TEST(LowerExpressions, SaxpyWithScalarAndPrelude) {
  EXPECT_EQ(ir_text(R"(
@tack.kernel
def k(a, x, y, n):
    half = n // 2
    for i in range(half):
        y[i] = a * x[i] + y[i]
)",
                    {num(ST::f32), f32s, f32s, num(ST::i32)}),
            "kernel k(a: f32, x: array<f32, 1>, y: array<f32, 1>, n: i32) default_float=f32 {\n"
            "  let half: i32 = (n // 2:i32)\n"
            "  parallel for i: i32 in range(0:i32, half, 1:i32) {\n"
            "    y[i] = ((a * x[i]) + y[i])\n"
            "  }\n"
            "}\n");
}

TEST(LowerExpressions, WeakLiteralsTakeTheOtherOperandsType) {
  const char* src = R"(
@tack.kernel
def k(x, out, m):
    for i in range(m):
        out[i] = x[i] * 2 + 0.5
        a = i + 1
        b = 1
        c = 5000000000
        d = 0.25
        e = 18446744073709551615
        f = -1
)";
  EXPECT_EQ(loop_body(src, {f32s, f32s, num(ST::i64)}),
            "out[i] = ((x[i] * 2.0:f32) + 0.5:f32)\n"
            "let a: i64 = (i + 1:i64)\n"
            "let b: i32 = 1:i32\n"
            "let c: i64 = 5000000000:i64\n"
            "let d: f32 = 0.25:f32\n"
            "let e: u64 = 18446744073709551615:u64\n"
            "let f: i32 = -1:i32\n");
  // An f64 array makes the default float f64: lone float literals follow.
  EXPECT_EQ(loop_body(src, {f64s, f32s, num(ST::i64)}),
            "out[i] = f32(((x[i] * 2.0:f64) + 0.5:f64))\n"
            "let a: i64 = (i + 1:i64)\n"
            "let b: i32 = 1:i32\n"
            "let c: i64 = 5000000000:i64\n"
            "let d: f64 = 0.25:f64\n"
            "let e: u64 = 18446744073709551615:u64\n"
            "let f: i32 = -1:i32\n");
}

TEST(LowerExpressions, FloatLiteralWithIntegerOperandIsTheDefaultFloat) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(out):
    for i in range(len(out)):
        out[i] = i * 0.5
)",
                      {f64s}),
            "out[i] = (f64(i) * 0.5:f64)\n");
}

TEST(LowerExpressions, PromotionTable) {
  const char* src = R"(
@tack.kernel
def k(a, b, out):
    for i in range(len(out)):
        v = a[i] + b[i]
)";
  auto typed = [&](ArgType a, ArgType b) {
    std::string body = loop_body(src, {a, b, f32s});
    return body.substr(body.find(':') + 2, body.find(' ', body.find(':') + 2) - body.find(':') - 2);
  };
  EXPECT_EQ(typed(i32s, f32s), "f32");
  EXPECT_EQ(typed(f32s, f64s), "f64");
  EXPECT_EQ(typed(i64s, f32s), "f32");
  EXPECT_EQ(typed(i32s, i64s), "i64");
  EXPECT_EQ(typed(arr(ST::i8), arr(ST::u8)), "i16");
  EXPECT_EQ(typed(arr(ST::u32), i32s), "i64");
  EXPECT_EQ(typed(arr(ST::u16), arr(ST::u64)), "u64");
  EXPECT_EQ(typed(arr(ST::u8), arr(ST::i32)), "i32");
  EXPECT_EQ(loop_body(src, {arr(ST::u32), i32s, f32s}), "let v: i64 = (i64(a[i]) + i64(b[i]))\n");
}

TEST(LowerExpressions, TrueDivisionOfIntegersIsTheDefaultFloat) {
  const char* src = R"(
@tack.kernel
def k(a, b, out):
    for i in range(len(out)):
        q = a[i] / b[i]
        h = a[i] / 2
)";
  EXPECT_EQ(loop_body(src, {i32s, i32s, f32s}),
            "let q: f32 = (f32(a[i]) / f32(b[i]))\n"
            "let h: f32 = (f32(a[i]) / 2.0:f32)\n");
  EXPECT_EQ(loop_body(src, {i32s, i32s, f64s}),
            "let q: f64 = (f64(a[i]) / f64(b[i]))\n"
            "let h: f64 = (f64(a[i]) / 2.0:f64)\n");
}

TEST(LowerExpressions, FloorDivisionModuloAndPower) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(a, x, out):
    for i in range(len(out)):
        p = a[i] // 3
        q = a[i] % -3
        r = x[i] // 2
        s = x[i] % 1.5
        t = a[i] ** 2
        u = x[i] ** 0.5
)",
                      {i32s, f32s, f32s}),
            "let p: i32 = (a[i] // 3:i32)\n"
            "let q: i32 = (a[i] % -3:i32)\n"
            "let r: f32 = (x[i] // 2.0:f32)\n"
            "let s: f32 = (x[i] % 1.5:f32)\n"
            "let t: i32 = (a[i] ** 2:i32)\n"
            "let u: f32 = (x[i] ** 0.5:f32)\n");
}

TEST(LowerExpressions, LiteralExpressionsFoldWithPythonSemantics) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(out):
    for i in range(len(out)):
        a = -7 // 2
        b = 7 % -3
        c = 2 ** 10
        d = 1 << 40
        e = 7 / 2
        f = 2 ** -1
        g = -7.5 // 2
        h = ~5
        out[i] = (1 + 2) * i
)",
                      {i64s}),
            "let a: i32 = -4:i32\n"
            "let b: i32 = -2:i32\n"
            "let c: i32 = 1024:i32\n"
            "let d: i64 = 1099511627776:i64\n"
            "let e: f32 = 3.5:f32\n"
            "let f: f32 = 0.5:f32\n"
            "let g: f32 = -4.0:f32\n"
            "let h: i32 = -6:i32\n"
            "out[i] = (3:i64 * i)\n");
}

TEST(LowerExpressions, MathConstantsAreWeakFloats) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(x):
    for i in range(len(x)):
        x[i] = x[i] * math.pi + math.e + math.tau
        y = math.inf
)",
                      {f64s}),
            "x[i] = (((x[i] * 3.141592653589793:f64) + 2.718281828459045:f64) + "
            "6.283185307179586:f64)\n"
            "let y: f64 = inf:f64\n");
}

TEST(LowerExpressions, BitwiseAndShifts) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(h, out):
    for i in range(len(out)):
        out[i] = ((h[i] ^ 0x811c) & 0xff) | (h[i] << 3) | (h[i] >> 1) | ~h[i]
)",
                      {arr(ST::u32), arr(ST::u32)}),
            "out[i] = (((((h[i] ^ 33052:u32) & 255:u32) | (h[i] << 3:u32)) | (h[i] >> 1:u32)) | "
            "(~h[i]))\n");
}

TEST(LowerExpressions, ChainedComparisonEvaluatesTheMiddleOnce) {
  // A pure middle operand is simply used twice.
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(x, n):
    for i in range(len(x)):
        if 0 <= i < n:
            x[i] = 1
)",
                      {f32s, num(ST::i64)}),
            "if ((0:i64 <= i) and (i < n)) {\n"
            "  x[i] = 1.0:f32\n"
            "}\n");
  // A middle operand that reads memory goes into a temporary, evaluated once; the second
  // comparison's right operand is evaluated only if the first comparison holds.
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(x, y):
    for i in range(len(x)):
        ok = 0.0 < x[i] <= y[i] < 1.0
)",
                      {f32s, f32s}),
            "let _t: f32 = x[i]\n"
            "let _c: bool = (0.0:f32 < _t)\n"
            "if _c {\n"
            "  let _t_1: f32 = y[i]\n"
            "  _c = ((_t <= _t_1) and (_t_1 < 1.0:f32))\n"
            "}\n"
            "let ok: bool = _c\n");
}

TEST(LowerExpressions, AndOrNotTestNumbersAgainstZero) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(x, m):
    for i in range(len(x)):
        if x[i] and not m[i] or i:
            x[i] = 0
        flag = x[i] > 0 and m[i] < 3
        neg = not x[i]
)",
                      {f32s, i32s}),
            "if (((x[i] != 0.0:f32) and (not (m[i] != 0:i32))) or (i != 0:i64)) {\n"
            "  x[i] = 0.0:f32\n"
            "}\n"
            "let flag: bool = ((x[i] > 0.0:f32) and (m[i] < 3:i32))\n"
            "let neg: bool = (not (x[i] != 0.0:f32))\n");
}

TEST(LowerExpressions, ConditionalExpressionMergesItsArms) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(x, out):
    for i in range(len(x)):
        out[i] = x[i] if x[i] > 0 else 0
        s = 1 if x[i] > 0 else -1
        t = i if x[i] > 0 else 0.5
)",
                      {f32s, f32s}),
            "out[i] = select((x[i] > 0.0:f32), x[i], 0.0:f32)\n"
            "let s: i32 = select((x[i] > 0.0:f32), 1:i32, -1:i32)\n"
            "let t: f32 = select((x[i] > 0.0:f32), f32(i), 0.5:f32)\n");
}

TEST(LowerExpressions, BoolComparisonsAndUnary) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(b, x):
    for i in range(len(x)):
        e = b[i] == True
        f = b[i] < True
        g = b[i] == x[i]
        h = -x[i]
        j = +x[i]
        x[i] = b[i]
)",
                      {arr(ST::boolean), f32s}),
            "let e: bool = (b[i] == true)\n"
            "let f: bool = (i32(b[i]) < i32(true))\n"
            "let g: bool = (f32(b[i]) == x[i])\n"
            "let h: f32 = (-x[i])\n"
            "let j: f32 = x[i]\n"
            "x[i] = f32(b[i])\n");
}

TEST(LowerExpressions, ComparisonWithALiteralOutsideTheTypeWidens) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(x):
    for i in range(len(x)):
        big = x[i] < 300
)",
                      {arr(ST::u8)}),
            "let big: bool = (i32(x[i]) < 300:i32)\n");
}

TEST(LowerExpressions, OperandsBeforeAStatementEmittingCallAreSaved) {
  // bump() stores into a; Python reads a[i] before calling it, so the load is saved first.
  EXPECT_EQ(loop_body(R"(
@tack.func
def bump(a, i):
    a[i] += 1.0
    return a[i]

@tack.kernel
def k(a, out):
    for i in range(len(a)):
        out[i] = a[i] + bump(a, i)
)",
                      {f32s, f32s}),
            "let _t: f32 = a[i]\n"
            "let bump_result: f32 = 0.0:f32\n"
            "block {\n"
            "  a[i] = (a[i] + 1.0:f32)\n"
            "  bump_result = a[i]\n"
            "}\n"
            "out[i] = (_t + bump_result)\n");
}

TEST(LowerExpressions, ArrayIndicesAcceptAnyIntegerType) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(x, idx, out):
    for i in range(len(out)):
        out[i] = x[idx[i]] + x[2] + x[tack.u8(1)]
)",
                      {f32s, arr(ST::u16), f32s}),
            "out[i] = ((x[idx[i]] + x[2:i32]) + x[1:u8])\n");
}

TEST(LowerExpressions, ShapeAndLen) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(a, out):
    for i in range(len(out)):
        out[i] = a.shape[0] + a.shape[1] + a.shape[-1] + len(a)
)",
                      {arr(ST::f32, 2), i64s}),
            "out[i] = (((a.shape[0] + a.shape[1]) + a.shape[1]) + a.shape[0])\n");
}

}  // namespace
}  // namespace tack::lowering::test
