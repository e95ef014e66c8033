// The typing rules on their own: the promotion table, implicit conversions of locals, and the
// folding of weakly typed literals with Python's semantics.
#include <gtest/gtest.h>

#include <cmath>

#include "ir/printer.hpp"
#include "lowering/constants.hpp"
#include "lowering/typing.hpp"

namespace tack::lowering {
namespace {

using ST = ir::ScalarType;
using frontend::BinaryOp;

TEST(Typing, PromotionTable) {
  EXPECT_EQ(promote(ST::i32, ST::i32), ST::i32);
  EXPECT_EQ(promote(ST::f32, ST::f64), ST::f64);
  EXPECT_EQ(promote(ST::i64, ST::f32), ST::f32);
  EXPECT_EQ(promote(ST::u8, ST::f64), ST::f64);
  EXPECT_EQ(promote(ST::i8, ST::i64), ST::i64);
  EXPECT_EQ(promote(ST::u16, ST::u32), ST::u32);
  EXPECT_EQ(promote(ST::i8, ST::u8), ST::i16);
  EXPECT_EQ(promote(ST::u16, ST::i16), ST::i32);
  EXPECT_EQ(promote(ST::u32, ST::i8), ST::i64);
  EXPECT_EQ(promote(ST::u8, ST::i32), ST::i32);
  EXPECT_EQ(promote(ST::u64, ST::i64), std::nullopt);
  EXPECT_EQ(promote(ST::i8, ST::u64), std::nullopt);
  EXPECT_EQ(promote(ST::boolean, ST::i32), std::nullopt);
  // Symmetric for every pair.
  for (int a = 0; a <= static_cast<int>(ST::f64); ++a) {
    for (int b = 0; b <= static_cast<int>(ST::f64); ++b) {
      EXPECT_EQ(promote(ST(a), ST(b)), promote(ST(b), ST(a)));
    }
  }
}

TEST(Typing, MergeLetsBoolJoinAnyType) {
  EXPECT_EQ(merge(ST::boolean, ST::boolean), ST::boolean);
  EXPECT_EQ(merge(ST::boolean, ST::f32), ST::f32);
  EXPECT_EQ(merge(ST::u8, ST::boolean), ST::u8);
  EXPECT_EQ(merge(ST::i32, ST::i64), ST::i64);
  EXPECT_EQ(merge(ST::u64, ST::i32), std::nullopt);
}

TEST(Typing, ImplicitConversionsOfLocals) {
  EXPECT_TRUE(converts_implicitly(ST::i32, ST::i32));
  EXPECT_TRUE(converts_implicitly(ST::boolean, ST::i8));
  EXPECT_TRUE(converts_implicitly(ST::i64, ST::f32));
  EXPECT_TRUE(converts_implicitly(ST::f32, ST::f64));
  EXPECT_TRUE(converts_implicitly(ST::i8, ST::i64));
  EXPECT_TRUE(converts_implicitly(ST::u8, ST::u16));
  EXPECT_TRUE(converts_implicitly(ST::u32, ST::i64));
  EXPECT_FALSE(converts_implicitly(ST::f64, ST::f32));
  EXPECT_FALSE(converts_implicitly(ST::f32, ST::i64));
  EXPECT_FALSE(converts_implicitly(ST::i64, ST::i32));
  EXPECT_FALSE(converts_implicitly(ST::i8, ST::u64));
  EXPECT_FALSE(converts_implicitly(ST::u32, ST::i32));
  EXPECT_FALSE(converts_implicitly(ST::i32, ST::boolean));
}

Constant fold(BinaryOp op, Constant a, Constant b) {
  Folded f = fold_binary(op, a, b);
  EXPECT_TRUE(f.value.has_value()) << f.error;
  return f.value.value_or(Constant{});
}

std::string fold_error(BinaryOp op, Constant a, Constant b) {
  return fold_binary(op, a, b).error;
}

Constant I(long long v) {
  return Constant::of_int(v);
}
Constant F(double v) {
  return Constant::of_float(v);
}

TEST(Constants, IntegerArithmeticIsPythons) {
  EXPECT_EQ(fold(BinaryOp::FloorDiv, I(-7), I(2)).text(), "-4");
  EXPECT_EQ(fold(BinaryOp::Mod, I(-7), I(2)).text(), "1");
  EXPECT_EQ(fold(BinaryOp::Mod, I(7), I(-2)).text(), "-1");
  EXPECT_EQ(fold(BinaryOp::TrueDiv, I(7), I(2)).text(), "3.5");
  EXPECT_EQ(fold(BinaryOp::Pow, I(2), I(62)).text(), "4611686018427387904");
  EXPECT_EQ(fold(BinaryOp::Pow, I(2), I(-2)).text(), "0.25");
  EXPECT_EQ(fold(BinaryOp::Pow, I(-1), I(1000001)).text(), "-1");
  EXPECT_EQ(fold(BinaryOp::Shl, I(1), I(63)).text(), "9223372036854775808");
  EXPECT_EQ(fold(BinaryOp::Shr, I(-9), I(1)).text(), "-5");
  EXPECT_EQ(fold(BinaryOp::BitAnd, I(-1), I(0xff)).text(), "255");
}

TEST(Constants, FloatArithmeticIsPythons) {
  EXPECT_EQ(fold(BinaryOp::FloorDiv, F(-7.5), I(2)).text(), "-4.0");
  EXPECT_EQ(fold(BinaryOp::Mod, F(-7.5), I(2)).text(), "0.5");
  EXPECT_EQ(fold(BinaryOp::Mod, F(7.5), F(-2)).text(), "-0.5");
  EXPECT_EQ(fold(BinaryOp::Mod, F(-0.0), F(1)).text(), "0.0");
  EXPECT_EQ(fold(BinaryOp::Add, I(1), F(0.5)).text(), "1.5");
  EXPECT_EQ(fold(BinaryOp::Pow, F(2), F(0.5)).as_double(), std::sqrt(2.0));
}

TEST(Constants, WhatPythonWouldRaiseIsAnError) {
  EXPECT_NE(fold_error(BinaryOp::FloorDiv, I(1), I(0)), "");
  EXPECT_NE(fold_error(BinaryOp::TrueDiv, F(1), F(0)), "");
  EXPECT_NE(fold_error(BinaryOp::Mod, F(1), I(0)), "");
  EXPECT_NE(fold_error(BinaryOp::Pow, I(0), I(-1)), "");
  EXPECT_NE(fold_error(BinaryOp::Pow, F(-8), F(0.5)), "");
  EXPECT_NE(fold_error(BinaryOp::Shl, I(1), I(-1)), "");
  EXPECT_NE(fold_error(BinaryOp::BitAnd, F(1), I(1)), "");
  // Beyond 64 bits (the union of the i64 and u64 ranges).
  EXPECT_NE(fold_error(BinaryOp::Pow, I(2), I(64)), "");
  EXPECT_NE(fold_error(BinaryOp::Mul, I(1LL << 62), I(1LL << 62)), "");
  EXPECT_NE(fold_error(BinaryOp::Shl, I(1), I(64)), "");
  EXPECT_NE(fold_error(BinaryOp::Sub, I(INT64_MIN), I(1)), "");
  EXPECT_EQ(fold_unary(frontend::UnaryOp::Neg, I(INT64_MIN)).value->text(), "9223372036854775808");
}

TEST(Constants, DefaultTypesAndFits) {
  EXPECT_EQ(default_type(I(1), ST::f32), ST::i32);
  EXPECT_EQ(default_type(I(-2147483649LL), ST::f32), ST::i64);
  EXPECT_EQ(default_type(Constant::of_int(static_cast<Int128>(UINT64_MAX)), ST::f32), ST::u64);
  EXPECT_EQ(default_type(F(1), ST::f64), ST::f64);
  EXPECT_TRUE(fits(I(255), ST::u8));
  EXPECT_FALSE(fits(I(256), ST::u8));
  EXPECT_FALSE(fits(I(-1), ST::u32));
  EXPECT_TRUE(fits(I(-128), ST::i8));
  EXPECT_FALSE(fits(F(1), ST::i32));
}

TEST(Constants, MakeConstantFollowsTheCastRules) {
  EXPECT_EQ(ir::to_string(make_constant(I(300), ST::u8)), "44:u8");
  EXPECT_EQ(ir::to_string(make_constant(F(-2.7), ST::i32)), "-2:i32");
  EXPECT_EQ(ir::to_string(make_constant(F(1e30), ST::i32)), "2147483647:i32");
  EXPECT_EQ(ir::to_string(make_constant(F(-1e30), ST::u8)), "0:u8");
  EXPECT_EQ(ir::to_string(make_constant(F(1e30), ST::u64)), "18446744073709551615:u64");
  EXPECT_EQ(ir::to_string(make_constant(F(NAN), ST::i64)), "0:i64");
  EXPECT_EQ(ir::to_string(make_constant(F(0.1), ST::f32)), "0.1:f32");
  EXPECT_EQ(ir::to_string(make_constant(I(2), ST::boolean)), "true");
}

TEST(Constants, RoundHalfEven) {
  EXPECT_EQ(round_half_even(2.5), 2.0);
  EXPECT_EQ(round_half_even(3.5), 4.0);
  EXPECT_EQ(round_half_even(-2.5), -2.0);
  EXPECT_EQ(round_half_even(2.6), 3.0);
  EXPECT_EQ(round_half_even(-0.4), -0.0);
}

}  // namespace
}  // namespace tack::lowering
