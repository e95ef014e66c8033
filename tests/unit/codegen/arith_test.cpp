// Python semantics of the generated arithmetic: floor division and modulo of negatives and by
// zero, integer powers, shifts, saturating casts, comparisons with NaN, min/max and math calls.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "codegen/llvm/llvm_codegen.hpp"
#include "ir/builder.hpp"
#include "kernel_runner.hpp"

namespace tack::codegen {
namespace {

using namespace tack::ir;
using testing::Args;
using testing::run;

template <class T>
constexpr ScalarType type_of() {
  if constexpr (std::is_same_v<T, bool>)
    return ScalarType::boolean;
  else if constexpr (std::is_same_v<T, int8_t>)
    return ScalarType::i8;
  else if constexpr (std::is_same_v<T, int16_t>)
    return ScalarType::i16;
  else if constexpr (std::is_same_v<T, int32_t>)
    return ScalarType::i32;
  else if constexpr (std::is_same_v<T, int64_t>)
    return ScalarType::i64;
  else if constexpr (std::is_same_v<T, uint8_t>)
    return ScalarType::u8;
  else if constexpr (std::is_same_v<T, uint16_t>)
    return ScalarType::u16;
  else if constexpr (std::is_same_v<T, uint32_t>)
    return ScalarType::u32;
  else if constexpr (std::is_same_v<T, uint64_t>)
    return ScalarType::u64;
  else if constexpr (std::is_same_v<T, float>)
    return ScalarType::f32;
  else
    return ScalarType::f64;
}

// out[i] = f(a[i], b[i]) compiled and run; the element types come from the vectors.
template <class Out, class In>
std::vector<Out> map2(const std::function<Expr(Expr, Expr)>& f, std::vector<In> a,
                      std::vector<In> b) {
  FunctionBuilder fb("map2");
  ArrayRef pa = fb.array_param("a", type_of<In>());
  ArrayRef pb = fb.array_param("b", type_of<In>());
  ArrayRef po = fb.array_param("out", type_of<Out>());
  Expr i = var(ScalarType::i64, "i");
  Function fn = fb.build({range_dim("i", shape(pa, 0))},
                         block({store(po, {i}, f(load(pa, {i}), load(pb, {i})))}));
  auto m = compile(fn, {});
  std::vector<Out> out(a.size());
  run(*m, Args().array(a).array(b).array(out));
  return out;
}

template <class Out, class In>
std::vector<Out> map1(const std::function<Expr(Expr)>& f, std::vector<In> a) {
  return map2<Out, In>([&](Expr x, Expr) { return f(x); }, a, a);
}

template <class T>
std::function<Expr(Expr, Expr)> op(BinaryOp o) {
  return [o](Expr a, Expr b) { return binary(o, a, b); };
}

TEST(CodegenArith, IntFloorDivAndModFollowPython) {
  std::vector<int32_t> a = {-7, 7, -7, 7, 0, 5, -5, INT32_MIN, INT32_MIN, 3, -3};
  std::vector<int32_t> b = {2, -2, -2, 2, 5, 0, 0, -1, 1, 7, 7};
  EXPECT_EQ(map2<int32_t>(op<int32_t>(BinaryOp::FloorDiv), a, b),
            (std::vector<int32_t>{-4, -4, 3, 3, 0, 0, 0, INT32_MIN, INT32_MIN, 0, -1}));
  EXPECT_EQ(map2<int32_t>(op<int32_t>(BinaryOp::Mod), a, b),
            (std::vector<int32_t>{1, -1, -1, 1, 0, 0, 0, 0, 0, 3, 4}));
  std::vector<uint32_t> ua = {7, 0xFFFFFFFFu, 5};
  std::vector<uint32_t> ub = {2, 2, 0};
  EXPECT_EQ(map2<uint32_t>(op<uint32_t>(BinaryOp::FloorDiv), ua, ub),
            (std::vector<uint32_t>{3, 0x7FFFFFFFu, 0}));
  EXPECT_EQ(map2<uint32_t>(op<uint32_t>(BinaryOp::Mod), ua, ub), (std::vector<uint32_t>{1, 1, 0}));
  std::vector<int8_t> ca = {-128, -100};
  std::vector<int8_t> cb = {-1, 3};
  EXPECT_EQ(map2<int8_t>(op<int8_t>(BinaryOp::FloorDiv), ca, cb), (std::vector<int8_t>{-128, -34}));
  EXPECT_EQ(map2<int8_t>(op<int8_t>(BinaryOp::Mod), ca, cb), (std::vector<int8_t>{0, 2}));
}

TEST(CodegenArith, FloatFloorDivAndModFollowPython) {
  const double inf = INFINITY;
  std::vector<double> a = {7, -7, 7, -7, 0.0, -0.0, 5, -5, 1.0, -0.0};
  std::vector<double> b = {2, 2, -2, -2, -2, 2, inf, inf, 0.1, 1};
  std::vector<double> q = map2<double>(op<double>(BinaryOp::FloorDiv), a, b);
  std::vector<double> r = map2<double>(op<double>(BinaryOp::Mod), a, b);
  // Values printed by CPython 3.11 for the same operands.
  std::vector<double> pq = {3, -4, -4, 3, -0.0, -0.0, 0, -1, 9, -0.0};
  std::vector<double> pr = {1, 1, -1, -1, -0.0, 0.0, 5, inf, 0.09999999999999995, 0.0};
  for (size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(q[k], pq[k]) << a[k] << " // " << b[k];
    EXPECT_EQ(std::signbit(q[k]), std::signbit(pq[k])) << a[k] << " // " << b[k];
    EXPECT_EQ(r[k], pr[k]) << a[k] << " % " << b[k];
    EXPECT_EQ(std::signbit(r[k]), std::signbit(pr[k])) << a[k] << " % " << b[k];
  }
}

TEST(CodegenArith, FloatDivisionByZeroFollowsNumPy) {
  std::vector<float> a = {1, -1, 0};
  std::vector<float> z = {0, 0, 0};
  std::vector<float> q = map2<float>(op<float>(BinaryOp::FloorDiv), a, z);
  std::vector<float> r = map2<float>(op<float>(BinaryOp::Mod), a, z);
  EXPECT_EQ(q[0], INFINITY);
  EXPECT_EQ(q[1], -INFINITY);
  EXPECT_TRUE(std::isnan(q[2]));
  for (float x : r) EXPECT_TRUE(std::isnan(x));
}

TEST(CodegenArith, IntegerPowerWrapsAndTruncatesNegativeExponents) {
  std::vector<int32_t> a = {3, 2, 2, -2, 5, 0, 2, 1, -1, -1, 0, 7};
  std::vector<int32_t> b = {4, 31, 32, 3, 0, 0, -1, -5, -3, -4, -1, 1};
  EXPECT_EQ(map2<int32_t>(op<int32_t>(BinaryOp::Pow), a, b),
            (std::vector<int32_t>{81, INT32_MIN, 0, -8, 1, 1, 0, 1, -1, 1, 0, 7}));
  std::vector<uint8_t> ua = {3, 3, 2};
  std::vector<uint8_t> ub = {5, 6, 255};
  EXPECT_EQ(map2<uint8_t>(op<uint8_t>(BinaryOp::Pow), ua, ub), (std::vector<uint8_t>{243, 217, 0}));
  std::vector<double> fa = {2, 4, -8};
  std::vector<double> fb = {0.5, -0.5, 1.0 / 3};
  std::vector<double> p = map2<double>(op<double>(BinaryOp::Pow), fa, fb);
  EXPECT_DOUBLE_EQ(p[0], std::sqrt(2.0));
  EXPECT_EQ(p[1], 0.5);
  EXPECT_TRUE(std::isnan(p[2]));  // C's pow of a negative base with a fractional exponent
}

TEST(CodegenArith, ShiftsAreDefinedForEveryCount) {
  std::vector<int32_t> a = {1, 1, 1, 1, 5};
  std::vector<int32_t> n = {31, 32, -1, 100, 2};
  EXPECT_EQ(map2<int32_t>(op<int32_t>(BinaryOp::Shl), a, n),
            (std::vector<int32_t>{INT32_MIN, 0, 0, 0, 20}));
  std::vector<int32_t> s = {-8, -8, 8, -1, 8};
  std::vector<int32_t> m = {1, 40, 40, -1, 3};
  EXPECT_EQ(map2<int32_t>(op<int32_t>(BinaryOp::Shr), s, m),
            (std::vector<int32_t>{-4, -1, 0, -1, 1}));
  std::vector<uint32_t> u = {0x80000000u, 0x80000000u};
  std::vector<uint32_t> k = {31, 32};
  EXPECT_EQ(map2<uint32_t>(op<uint32_t>(BinaryOp::Shr), u, k), (std::vector<uint32_t>{1, 0}));
}

TEST(CodegenArith, IntegerArithmeticWraps) {
  std::vector<int32_t> a = {INT32_MAX, INT32_MIN, 65536};
  std::vector<int32_t> b = {1, 1, 65536};
  EXPECT_EQ(map2<int32_t>(op<int32_t>(BinaryOp::Add), a, b),
            (std::vector<int32_t>{INT32_MIN, INT32_MIN + 1, 131072}));
  EXPECT_EQ(map2<int32_t>(op<int32_t>(BinaryOp::Mul), a, b),
            (std::vector<int32_t>{INT32_MAX, INT32_MIN, 0}));
  std::vector<int32_t> negated =
      map1<int32_t, int32_t>([](Expr x) { return neg(x); }, std::vector<int32_t>{INT32_MIN, 5});
  EXPECT_EQ(negated, (std::vector<int32_t>{INT32_MIN, -5}));
  std::vector<uint16_t> inverted =
      map1<uint16_t, uint16_t>([](Expr x) { return invert(x); }, std::vector<uint16_t>{0, 1});
  EXPECT_EQ(inverted, (std::vector<uint16_t>{65535, 65534}));
}

TEST(CodegenArith, CastsSaturateAndWrap) {
  const float nan = std::nanf("");
  EXPECT_EQ((map1<int32_t, float>([](Expr x) { return cast(ScalarType::i32, x); },
                                  {3.9f, -3.9f, 1e10f, -1e10f, nan, INFINITY})),
            (std::vector<int32_t>{3, -3, INT32_MAX, INT32_MIN, 0, INT32_MAX}));
  EXPECT_EQ((map1<uint8_t, double>([](Expr x) { return cast(ScalarType::u8, x); },
                                   {-1.0, 300.0, 255.9, 7.5})),
            (std::vector<uint8_t>{0, 255, 255, 7}));
  EXPECT_EQ((map1<int8_t, int32_t>([](Expr x) { return cast(ScalarType::i8, x); }, {300, -129})),
            (std::vector<int8_t>{44, 127}));
  EXPECT_EQ((map1<uint32_t, int8_t>([](Expr x) { return cast(ScalarType::u32, x); }, {-1})),
            (std::vector<uint32_t>{0xFFFFFFFFu}));
  EXPECT_EQ((map1<int32_t, uint8_t>([](Expr x) { return cast(ScalarType::i32, x); }, {255})),
            (std::vector<int32_t>{255}));
  EXPECT_EQ((map1<float, double>([](Expr x) { return cast(ScalarType::f32, x); }, {0.1})),
            (std::vector<float>{0.1f}));
  // To bool and back: NaN is true, -0.0 is false.
  EXPECT_EQ((map1<float, double>(
                [](Expr x) { return cast(ScalarType::f32, cast(ScalarType::boolean, x)); },
                {std::nan(""), 0.0, -0.0, 2.0})),
            (std::vector<float>{1, 0, 0, 1}));
}

TEST(CodegenArith, ComparisonsWithNaNAreIeee) {
  const float nan = std::nanf("");
  std::vector<float> a = {nan, nan, 1, nan};
  std::vector<float> b = {1, nan, 1, 1};
  auto as_i32 = [](CompareOp c) {
    return [c](Expr x, Expr y) { return cast(ScalarType::i32, compare(c, x, y)); };
  };
  EXPECT_EQ(map2<int32_t>(as_i32(CompareOp::Lt), a, b), (std::vector<int32_t>{0, 0, 0, 0}));
  EXPECT_EQ(map2<int32_t>(as_i32(CompareOp::Ge), a, b), (std::vector<int32_t>{0, 0, 1, 0}));
  EXPECT_EQ(map2<int32_t>(as_i32(CompareOp::Eq), a, b), (std::vector<int32_t>{0, 0, 1, 0}));
  EXPECT_EQ(map2<int32_t>(as_i32(CompareOp::Ne), a, b), (std::vector<int32_t>{1, 1, 0, 1}));
  std::vector<uint32_t> ua = {1};
  std::vector<uint32_t> ub = {0xFFFFFFFFu};
  EXPECT_EQ(map2<int32_t>(as_i32(CompareOp::Lt), ua, ub), (std::vector<int32_t>{1}));  // unsigned
}

TEST(CodegenArith, MinMaxArePythons) {
  const float nan = std::nanf("");
  auto mn = [](Expr x, Expr y) { return call(MathFn::Min, {x, y}); };
  auto mx = [](Expr x, Expr y) { return call(MathFn::Max, {x, y}); };
  std::vector<float> r =
      map2<float>(mn, std::vector<float>{nan, 1, -0.0f, 3}, std::vector<float>{1, nan, 0.0f, 2});
  EXPECT_TRUE(std::isnan(r[0]));    // min(nan, 1) keeps the first argument
  EXPECT_EQ(r[1], 1);               // min(1, nan) too
  EXPECT_TRUE(std::signbit(r[2]));  // min(-0.0, 0.0): neither is smaller, the first wins
  EXPECT_EQ(r[3], 2);
  EXPECT_EQ(map2<int32_t>(mx, std::vector<int32_t>{-1, 5}, std::vector<int32_t>{1, 2}),
            (std::vector<int32_t>{1, 5}));
  EXPECT_EQ(map2<uint32_t>(mn, std::vector<uint32_t>{1}, std::vector<uint32_t>{0xFFFFFFFFu}),
            (std::vector<uint32_t>{1}));
}

TEST(CodegenArith, MathFunctions) {
  auto f = [](MathFn fn) { return [fn](Expr x) { return call(fn, {x}); }; };
  auto one = [&](MathFn fn, double x) { return map1<double, double>(f(fn), {x})[0]; };
  const double pi = 3.14159265358979323846;
  EXPECT_EQ(one(MathFn::Sqrt, 4), 2);
  EXPECT_DOUBLE_EQ(one(MathFn::Cbrt, 27), 3);  // glibc cbrt is not correctly rounded
  EXPECT_NEAR(one(MathFn::Sin, pi / 2), 1, 1e-15);
  EXPECT_NEAR(one(MathFn::Cos, 0), 1, 1e-15);
  EXPECT_NEAR(one(MathFn::Tan, pi / 4), 1, 1e-15);
  EXPECT_NEAR(one(MathFn::Asin, 1), pi / 2, 1e-15);
  EXPECT_NEAR(one(MathFn::Acos, 1), 0, 1e-15);
  EXPECT_NEAR(one(MathFn::Atan, 1), pi / 4, 1e-15);
  EXPECT_NEAR(one(MathFn::Sinh, 1), std::sinh(1.0), 1e-15);
  EXPECT_NEAR(one(MathFn::Cosh, 1), std::cosh(1.0), 1e-15);
  EXPECT_NEAR(one(MathFn::Tanh, 1), std::tanh(1.0), 1e-15);
  EXPECT_NEAR(one(MathFn::Asinh, 1), std::asinh(1.0), 1e-15);
  EXPECT_NEAR(one(MathFn::Acosh, 2), std::acosh(2.0), 1e-15);
  EXPECT_NEAR(one(MathFn::Atanh, 0.5), std::atanh(0.5), 1e-15);
  EXPECT_NEAR(one(MathFn::Exp, 1), std::exp(1.0), 1e-15);
  EXPECT_EQ(one(MathFn::Exp2, 3), 8);
  EXPECT_EQ(one(MathFn::Expm1, 0), 0);
  EXPECT_EQ(one(MathFn::Log, 1), 0);
  EXPECT_EQ(one(MathFn::Log2, 8), 3);
  EXPECT_EQ(one(MathFn::Log10, 1000), 3);
  EXPECT_EQ(one(MathFn::Log1p, 0), 0);
  EXPECT_EQ(one(MathFn::Erf, 0), 0);
  EXPECT_EQ(one(MathFn::Erfc, 0), 1);
  EXPECT_EQ(one(MathFn::Floor, -1.5), -2);
  EXPECT_EQ(one(MathFn::Ceil, -1.5), -1);
  EXPECT_EQ(one(MathFn::Trunc, -1.5), -1);
  EXPECT_EQ((map1<double, double>(f(MathFn::Round), {2.5, 3.5, -2.5, 0.4})),
            (std::vector<double>{2, 4, -2, 0}));  // half to even, as Python's round
  EXPECT_EQ(one(MathFn::Abs, -3), 3);
  auto g = [](MathFn fn) { return [fn](Expr x, Expr y) { return call(fn, {x, y}); }; };
  std::vector<float> two =
      map2<float>(g(MathFn::Atan2), std::vector<float>{1}, std::vector<float>{1});
  EXPECT_NEAR(two[0], pi / 4, 1e-7);
  EXPECT_EQ(map2<double>(g(MathFn::Hypot), std::vector<double>{3}, std::vector<double>{4})[0], 5);
  EXPECT_EQ(map2<double>(g(MathFn::Fmod), std::vector<double>{-7}, std::vector<double>{2})[0], -1);
  EXPECT_EQ(map2<double>(g(MathFn::Copysign), std::vector<double>{1}, std::vector<double>{-0.0})[0],
            -1);
  EXPECT_EQ((map1<int32_t, int32_t>(f(MathFn::Abs), {INT32_MIN, -3, 4})),
            (std::vector<int32_t>{INT32_MIN, 3, 4}));
  auto pred = [](MathFn fn) {
    return [fn](Expr x) { return cast(ScalarType::i32, call(fn, {x})); };
  };
  std::vector<float> special = {std::nanf(""), INFINITY, -INFINITY, 1.0f};
  EXPECT_EQ(map1<int32_t>(pred(MathFn::IsNan), special), (std::vector<int32_t>{1, 0, 0, 0}));
  EXPECT_EQ(map1<int32_t>(pred(MathFn::IsInf), special), (std::vector<int32_t>{0, 1, 1, 0}));
  EXPECT_EQ(map1<int32_t>(pred(MathFn::IsFinite), special), (std::vector<int32_t>{0, 0, 0, 1}));
}

TEST(CodegenArith, NoFmaContraction) {
  // a * b + c rounded twice differs from fma(a, b, c) for these values.
  float a = 1.0f + 0x1p-12f, c = -(1.0f + 0x1p-11f);
  auto f = [](Expr x, Expr y) { return add(mul(x, x), y); };
  float got = map2<float>(f, std::vector<float>{a}, std::vector<float>{c})[0];
  volatile float prod = a * a;
  EXPECT_EQ(got, prod + c);
  EXPECT_NE(got, std::fma(a, a, c));
}

}  // namespace
}  // namespace tack::codegen
