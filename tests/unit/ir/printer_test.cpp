// The printer's text is stable: tests and tack.inspect(mode="ir") depend on it.
#include <gtest/gtest.h>

#include <cmath>

#include "ir/builder.hpp"
#include "ir/printer.hpp"

namespace tack::ir {
namespace {

TEST(IrPrinter, Saxpy) {
  FunctionBuilder fb("saxpy");
  ArrayRef x = fb.array_param("x", ScalarType::f32);
  ArrayRef y = fb.array_param("y", ScalarType::f32);
  Expr a = fb.scalar_param("a", ScalarType::f32);
  Expr i = var(ScalarType::i64, "i");
  Function f = fb.build({range_dim("i", shape(x, 0))},
                        block({store(y, {i}, add(mul(a, load(x, {i})), load(y, {i})))}));
  EXPECT_EQ(to_string(f),
            "kernel saxpy(x: array<f32, 1>, y: array<f32, 1>, a: f32) default_float=f32 {\n"
            "  parallel for i: i64 in range(0:i64, x.shape[0], 1:i64) {\n"
            "    y[i] = ((a * x[i]) + y[i])\n"
            "  }\n"
            "}\n");
}

TEST(IrPrinter, EveryStatementForm) {
  FunctionBuilder fb("forms", ScalarType::f64);
  ArrayRef h = fb.array_param("h", ScalarType::i32, 2);
  ArrayRef v = fb.array_param("v", ScalarType::f64, 1, 3);
  Expr n = fb.scalar_param("n", ScalarType::i32);
  fb.prelude(let("m", cast(ScalarType::i32, shape(h, 1))));
  Expr i = var(ScalarType::i32, "i"), j = var(ScalarType::i32, "j");
  Expr k = var(ScalarType::i32, "k");
  Stmt body = block({
      local_array("t", ScalarType::f64, {4}),
      local_store("t", {const_i32(0)}, call(MathFn::Sqrt, {const_f64(2.0)})),
      labeled("ret",
              block({if_then(logical_not(lt(i, j)), block({exit_block("ret")}),
                             block({eval(atomic(AtomicOp::Add, h, {i, j}, const_i32(1)))}))})),
      for_range("k", n, const_i32(0), const_i32(-1),
                block({if_then(eq(k, const_i32(1)), block({continue_stmt()}))})),
      while_loop(const_bool(false), block({break_stmt()})),
      block({let("q", floordiv(neg(i), invert(j)))}),
      store(v, {i, const_i32(2)},
            select(logical_or(const_bool(true), const_bool(false)),
                   local_load(ScalarType::f64, "t", {const_i32(0)}), const_f64(0.5))),
  });
  Function f = fb.build({range_dim("i", n), range_dim("j", var(ScalarType::i32, "m"))}, body);
  EXPECT_EQ(to_string(f),
            "kernel forms(h: array<i32, 2>, v: array<vec3<f64>, 1>, n: i32) default_float=f64 {\n"
            "  let m: i32 = i32(h.shape[1])\n"
            "  parallel for i: i32 in range(0:i32, n, 1:i32), j: i32 in range(0:i32, m, 1:i32) {\n"
            "    local t: f64[4]\n"
            "    t[0:i32] = sqrt(2.0:f64)\n"
            "    label ret {\n"
            "      if (not (i < j)) {\n"
            "        exit ret\n"
            "      } else {\n"
            "        eval atomic_add(h[i, j], 1:i32)\n"
            "      }\n"
            "    }\n"
            "    for k: i32 in range(n, 0:i32, -1:i32) {\n"
            "      if (k == 1:i32) {\n"
            "        continue\n"
            "      }\n"
            "    }\n"
            "    while false {\n"
            "      break\n"
            "    }\n"
            "    block {\n"
            "      let q: i32 = ((-i) // (~j))\n"
            "    }\n"
            "    v[i, 2:i32] = select((true or false), t[0:i32], 0.5:f64)\n"
            "  }\n"
            "}\n");
}

TEST(IrPrinter, ConstantsAreUnambiguous) {
  EXPECT_EQ(to_string(const_f32(1.0f)), "1.0:f32");
  EXPECT_EQ(to_string(const_f32(0.1f)), "0.1:f32");
  EXPECT_EQ(to_string(const_f64(0.1)), "0.1:f64");
  EXPECT_EQ(to_string(const_f64(1e300)), "1e+300:f64");
  EXPECT_EQ(to_string(const_f64(std::nan(""))), "nan:f64");
  EXPECT_EQ(to_string(const_f32(-INFINITY)), "-inf:f32");
  EXPECT_EQ(to_string(int_const(ScalarType::u64, -1)), "18446744073709551615:u64");
  EXPECT_EQ(to_string(int_const(ScalarType::i8, -5)), "-5:i8");
  EXPECT_EQ(to_string(Param::make(ScalarType::f32, 2)), "$2");  // no function: by index
  EXPECT_EQ(to_string(Expr()), "<null>");
}

}  // namespace
}  // namespace tack::ir
