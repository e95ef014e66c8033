// Lowering of builtins: casts, int/float/bool, math functions, abs/min/max/pow/round, atomics
// with tuple indices, local arrays (tack.zeros), tack.vec arrays indexed by component.
#include <gtest/gtest.h>

#include "lower_test_util.hpp"

namespace tack::lowering::test {
namespace {

using ST = ScalarType;

TEST(LowerBuiltins, Casts) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(x, out):
    for i in range(len(x)):
        a = tack.f32(x[i])
        b = tack.float64(x[i])
        c = tack.i8(x[i])
        d = tack.uint16(x[i])
        e = tack.u64(i)
        f = tack.bool(x[i])
        g = tack.u8(300)
        h = tack.f64(1)
        j = tack.i32(2.7)
)",
                      {f32s, f32s}),
            "let a: f32 = x[i]\n"
            "let b: f64 = f64(x[i])\n"
            "let c: i8 = i8(x[i])\n"
            "let d: u16 = u16(x[i])\n"
            "let e: u64 = u64(i)\n"
            "let f: bool = bool(x[i])\n"
            "let g: u8 = 44:u8\n"
            "let h: f64 = 1.0:f64\n"
            "let j: i32 = 2:i32\n");
}

TEST(LowerBuiltins, IntFloatBool) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(x, n, out):
    for i in range(len(x)):
        a = int(x[i])
        b = int(n[i])
        c = float(n[i])
        d = float(x[i])
        e = bool(n[i])
        f = int(2.9)
        g = float(3)
        h = int(e)
)",
                      {f32s, arr(ST::i16), f32s}),
            "let a: i64 = i64(x[i])\n"
            "let b: i16 = n[i]\n"
            "let c: f32 = f32(n[i])\n"
            "let d: f32 = x[i]\n"
            "let e: bool = (n[i] != 0:i16)\n"
            "let f: i32 = 2:i32\n"
            "let g: f32 = 3.0:f32\n"
            "let h: i32 = i32(e)\n");
}

TEST(LowerBuiltins, MathFunctions) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(x, d, n):
    for i in range(len(x)):
        a = math.sqrt(x[i])
        b = tack.sqrt(d[i])
        c = math.sqrt(n[i])
        e = math.atan2(x[i], 1)
        f = math.atan2(x[i], d[i])
        g = math.exp(2)
        h = math.isnan(x[i])
        j = tack.rsqrt(x[i])
        l = math.fabs(n[i])
        m = math.pow(n[i], 2)
        o = hypot(x[i], x[i])
)",
                      {f32s, f64s, i32s}),
            "let a: f32 = sqrt(x[i])\n"
            "let b: f64 = sqrt(d[i])\n"
            "let c: f64 = sqrt(f64(n[i]))\n"
            "let e: f32 = atan2(x[i], 1.0:f32)\n"
            "let f: f64 = atan2(f64(x[i]), d[i])\n"
            "let g: f64 = exp(2.0:f64)\n"
            "let h: bool = isnan(x[i])\n"
            "let j: f32 = (1.0:f32 / sqrt(x[i]))\n"
            "let l: f64 = abs(f64(n[i]))\n"
            "let m: f64 = (f64(n[i]) ** 2.0:f64)\n"
            "let o: f32 = hypot(x[i], x[i])\n");
}

TEST(LowerBuiltins, PythonRoundingGivesIntegersTackRoundingKeepsFloats) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(x, n):
    for i in range(len(x)):
        a = math.floor(x[i])
        b = math.ceil(x[i])
        c = round(x[i])
        d = tack.floor(x[i])
        e = tack.round(x[i])
        f = math.trunc(n[i])
        g = round(2.5)
        h = math.floor(-0.5)
)",
                      {f32s, i32s}),
            "let a: i64 = i64(floor(x[i]))\n"
            "let b: i64 = i64(ceil(x[i]))\n"
            "let c: i64 = i64(round(x[i]))\n"
            "let d: f32 = floor(x[i])\n"
            "let e: f32 = round(x[i])\n"
            "let f: i32 = n[i]\n"
            "let g: i32 = 2:i32\n"
            "let h: i32 = -1:i32\n");
}

TEST(LowerBuiltins, AbsMinMaxPowClamp) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(x, n):
    for i in range(len(x)):
        a = abs(x[i])
        b = abs(-3)
        c = min(x[i], 0)
        d = max(n[i], x[i], 2)
        e = min(3, 1, 2)
        f = pow(n[i], 3)
        g = tack.clamp(x[i], 0, 1)
        h = max(n[i], i)
)",
                      {f32s, i32s}),
            "let a: f32 = abs(x[i])\n"
            "let b: i32 = 3:i32\n"
            "let c: f32 = min(x[i], 0.0:f32)\n"
            "let d: f32 = max(max(f32(n[i]), x[i]), 2.0:f32)\n"
            "let e: i32 = 1:i32\n"
            "let f: i32 = (n[i] ** 3:i32)\n"
            "let g: f32 = min(max(x[i], 0.0:f32), 1.0:f32)\n"
            "let h: i64 = max(i64(n[i]), i)\n");
}

TEST(LowerBuiltins, AtomicsWithScalarAndTupleIndices) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(hist, grid, bins):
    for i in range(len(bins)):
        tack.atomic_add(hist, bins[i], 1)
        old = tack.atomic_max(grid, (i, bins[i]), 2.5)
        tack.atomic_min(grid, (0, 0), old)
)",
                      {i32s, arr(ST::f64, 2), i64s}),
            "eval atomic_add(hist[bins[i]], 1:i32)\n"
            "let old: f64 = atomic_max(grid[i, bins[i]], 2.5:f64)\n"
            "eval atomic_min(grid[0:i32, 0:i32], old)\n");
}

TEST(LowerBuiltins, AtomicValueIsConvertedToTheElementType) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(total, x):
    for i in range(len(x)):
        tack.atomic_add(total, 0, x[i])
)",
                      {i64s, f32s}),
            "eval atomic_add(total[0:i32], i64(x[i]))\n");
}

TEST(LowerBuiltins, LocalArrays) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(x, out):
    for i in range(len(x)):
        buf = tack.zeros(8, tack.i32)
        m = tack.zeros((2, 3))
        flags = tack.zeros((2, 2, 2), bool)
        for j in range(8):
            buf[j] = j
        buf[0] += 1
        m[1, 2] = x[i]
        m[1][0] = len(buf) + m.shape[1]
        flags[0, 1, 1] = True
        out[i] = buf[3] + m[1, 2]
)",
                      {f32s, f32s}),
            "local buf: i32[8]\n"
            "local m: f32[2, 3]\n"
            "local flags: bool[2, 2, 2]\n"
            "for j: i32 in range(0:i32, 8:i32, 1:i32) {\n"
            "  buf[j] = j\n"
            "}\n"
            "buf[0:i32] = (buf[0:i32] + 1:i32)\n"
            "m[1:i32, 2:i32] = x[i]\n"
            "m[1:i32, 0:i32] = f32((8:i64 + 3:i64))\n"
            "flags[0:i32, 1:i32, 1:i32] = true\n"
            "out[i] = (f32(buf[3:i32]) + m[1:i32, 2:i32])\n");
}

TEST(LowerBuiltins, LocalArrayDefaultDtypeIsTheDefaultFloat) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(x):
    for i in range(len(x)):
        t = tack.zeros(4)
        x[i] = t[0]
)",
                      {f64s}),
            "local t: f64[4]\n"
            "x[i] = t[0:i32]\n");
}

TEST(LowerBuiltins, VecArraysAreIndexedByComponent) {
  EXPECT_EQ(ir_text(R"(
@tack.kernel
def k(p, v, dt):
    for i in range(len(p)):
        for c in range(3):
            p[i, c] += v[i][c] * dt
        p[i, 0] = p[i][1]
)",
                    {arr(ST::f32, 1, 3), arr(ST::f32, 1, 3), num(ST::f32)}),
            "kernel k(p: array<vec3<f32>, 1>, v: array<vec3<f32>, 1>, dt: f32) "
            "default_float=f32 {\n"
            "  parallel for i: i64 in range(0:i64, p.shape[0], 1:i64) {\n"
            "    for c: i32 in range(0:i32, 3:i32, 1:i32) {\n"
            "      p[i, c] = (p[i, c] + (v[i, c] * dt))\n"
            "    }\n"
            "    p[i, 0:i32] = p[i, 1:i32]\n"
            "  }\n"
            "}\n");
}

TEST(LowerBuiltins, VecArrayAtomicsTakeTheComponent) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(f, x):
    for i in range(len(x)):
        tack.atomic_add(f, (0, 2), x[i])
)",
                      {arr(ST::f32, 1, 4), f32s}),
            "eval atomic_add(f[0:i32, 2:i32], x[i])\n");
}

}  // namespace
}  // namespace tack::lowering::test
