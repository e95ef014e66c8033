// End-to-end code generation of whole kernels built by hand: run through the ABI on host data.
#include <gtest/gtest.h>

#include <numeric>

#include "codegen/llvm/llvm_codegen.hpp"
#include "ir/builder.hpp"
#include "kernel_runner.hpp"

namespace tack::codegen {
namespace {

using namespace tack::ir;
using testing::Args;
using testing::run;

Function vector_add() {
  FunctionBuilder fb("vector_add");
  ArrayRef a = fb.array_param("a", ScalarType::f32);
  ArrayRef b = fb.array_param("b", ScalarType::f32);
  ArrayRef c = fb.array_param("c", ScalarType::f32);
  Expr i = var(ScalarType::i64, "i");
  return fb.build({range_dim("i", shape(c, 0))},
                  block({store(c, {i}, add(load(a, {i}), load(b, {i})))}));
}

TEST(CodegenKernels, VectorAdd) {
  for (bool disjoint : {false, true}) {
    auto m = compile(vector_add(), {.disjoint = disjoint});
    std::vector<float> a(1003), b(1003), c(1003, -1);
    std::iota(a.begin(), a.end(), 0.0f);
    std::iota(b.begin(), b.end(), 1000.0f);
    EXPECT_EQ(run(*m, Args().array(a).array(b).array(c), nullptr, 100), 1003);
    for (size_t i = 0; i < c.size(); ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;
  }
}

TEST(CodegenKernels, SaxpyWithScalarAndPrelude) {
  FunctionBuilder fb("saxpy");
  ArrayRef x = fb.array_param("x", ScalarType::f32);
  ArrayRef y = fb.array_param("y", ScalarType::f32);
  Expr alpha = fb.scalar_param("alpha", ScalarType::f32);
  Expr limit = fb.scalar_param("limit", ScalarType::i32);
  // n = min(len(x), limit): the launch length comes from the prelude.
  fb.prelude(let("n", call(MathFn::Min, {shape(x, 0), cast(ScalarType::i64, limit)})));
  Expr i = var(ScalarType::i64, "i");
  Function f = fb.build({range_dim("i", var(ScalarType::i64, "n"))},
                        block({store(y, {i}, add(mul(alpha, load(x, {i})), load(y, {i})))}));
  auto m = compile(f, {});
  std::vector<float> xs(100), ys(100, 1.0f);
  std::iota(xs.begin(), xs.end(), 0.0f);
  EXPECT_EQ(run(*m, Args().array(xs).array(ys).f32(2.5f).i64(60)), 60);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(ys[i], i < 60 ? 2.5f * i + 1.0f : 1.0f) << i;
}

// out[i, j] = 10 * i + j over ndrange(rows, cols), run in chunks that cut rows anywhere.
TEST(CodegenKernels, NdRange2D) {
  FunctionBuilder fb("fill2d");
  ArrayRef out = fb.array_param("out", ScalarType::i32, 2);
  Expr i = var(ScalarType::i64, "i"), j = var(ScalarType::i64, "j");
  Function f =
      fb.build({range_dim("i", shape(out, 0)), range_dim("j", shape(out, 1))},
               block({store(out, {i, j}, cast(ScalarType::i32, add(mul(i, const_i64(10)), j)))}));
  auto m = compile(f, {});
  for (int64_t chunk : {1, 3, 7, 10, 1000}) {
    std::vector<int32_t> v(5 * 7, -1);
    EXPECT_EQ(run(*m, Args().array(v.data(), {5, 7}), nullptr, chunk), 35);
    for (int r = 0; r < 5; ++r) {
      for (int c = 0; c < 7; ++c) ASSERT_EQ(v[r * 7 + c], 10 * r + c) << chunk;
    }
  }
}

// range(a, b, c) dims with offsets and negative steps; 3-D, i32 loop variables.
TEST(CodegenKernels, NdRange3DWithStartsAndSteps) {
  FunctionBuilder fb("fill3d");
  ArrayRef out = fb.array_param("out", ScalarType::i32, 3);
  Expr i = var(ScalarType::i32, "i"), j = var(ScalarType::i32, "j"), k = var(ScalarType::i32, "k");
  // i in range(1, 4) -> 1..3, j in range(5, -1, -2) -> 5, 3, 1, k in range(0, 8, 3) -> 0, 3, 6
  Function f = fb.build(
      {range_dim("i", const_i32(1), const_i32(4), const_i32(1)),
       range_dim("j", const_i32(5), const_i32(-1), const_i32(-2)),
       range_dim("k", const_i32(0), const_i32(8), const_i32(3))},
      block(
          {store(out, {sub(i, const_i32(1)), floordiv(j, const_i32(2)), floordiv(k, const_i32(3))},
                 add(add(mul(i, const_i32(100)), mul(j, const_i32(10))), k))}));
  auto m = compile(f, {});
  for (int64_t chunk : {1, 2, 5, 27}) {
    std::vector<int32_t> v(27, -1);
    EXPECT_EQ(run(*m, Args().array(v.data(), {3, 3, 3}), nullptr, chunk), 27);
    for (int a = 0; a < 3; ++a) {
      for (int b = 0; b < 3; ++b) {
        for (int c = 0; c < 3; ++c) {
          ASSERT_EQ(v[(a * 3 + b) * 3 + c], (a + 1) * 100 + (2 * b + 1) * 10 + 3 * c);
        }
      }
    }
  }
}

TEST(CodegenKernels, EmptyAndEdgeRangesHaveExactCounts) {
  struct Case {
    int64_t start, stop, step, count;
  };
  const Case cases[] = {{0, 10, 1, 10},
                        {0, 10, 3, 4},
                        {10, 0, -3, 4},
                        {5, 5, 1, 0},
                        {5, 0, 1, 0},
                        {0, 5, -1, 0},
                        {0, 10, 0, 0},
                        {-7, 7, 7, 2},
                        {INT64_MIN, INT64_MAX, INT64_MAX, 3},
                        {INT64_MAX, INT64_MIN, INT64_MIN, 2}};
  FunctionBuilder fb("count");
  ArrayRef out = fb.array_param("out", ScalarType::i64);
  Expr a = fb.scalar_param("a", ScalarType::i64);
  Expr b = fb.scalar_param("b", ScalarType::i64);
  Expr c = fb.scalar_param("c", ScalarType::i64);
  Function f = fb.build({range_dim("i", a, b, c)}, block({}));
  auto m = compile(f, {});
  int64_t unused = 0;
  for (const Case& k : cases) {
    Args args = Args().array(&unused, {1}).i64(k.start).i64(k.stop).i64(k.step);
    EXPECT_EQ(m->extent()(args.data()), k.count) << k.start << " " << k.stop << " " << k.step;
  }
  (void)out;
}

TEST(CodegenKernels, UnsignedAndNarrowParallelRanges) {
  FunctionBuilder fb("narrow");
  ArrayRef out = fb.array_param("out", ScalarType::u8);
  Expr i = var(ScalarType::u8, "i");
  // range(250, 255) over u8: 250..254; stored at i - 250.
  Function f = fb.build({range_dim("i", int_const(ScalarType::u8, 250),
                                   int_const(ScalarType::u8, 255), int_const(ScalarType::u8, 1))},
                        block({store(out, {sub(i, int_const(ScalarType::u8, 250))}, i)}));
  auto m = compile(f, {});
  std::vector<uint8_t> v(5, 0);
  EXPECT_EQ(run(*m, Args().array(v)), 5);
  EXPECT_EQ(v, (std::vector<uint8_t>{250, 251, 252, 253, 254}));
}

// Narrow loop variables used directly as indices read their exact i64 value (a shadow kept by
// every store): negative steps, chunks that cut rows, and assignments in the body.
TEST(CodegenKernels, NarrowLoopVariablesIndexExactly) {
  FunctionBuilder fb("narrow_index");
  ArrayRef out = fb.array_param("out", ScalarType::i32, 2);
  ArrayRef hits = fb.array_param("hits", ScalarType::i32);
  Expr i = var(ScalarType::i16, "i"), j = var(ScalarType::i8, "j"), k = var(ScalarType::i32, "k");
  // i in range(4, -1, -1) -> 4..0 (i16), j in range(6, -1, -2) -> 6, 4, 2, 0 (i8);
  // for k in range(10, 0, -3) (i32): k = k - 1, then hits[k] += 1 -> hits 9, 6, 3, 0.
  Function f = fb.build(
      {range_dim("i", int_const(ScalarType::i16, 4), int_const(ScalarType::i16, -1),
                 int_const(ScalarType::i16, -1)),
       range_dim("j", int_const(ScalarType::i8, 6), int_const(ScalarType::i8, -1),
                 int_const(ScalarType::i8, -2))},
      block({store(out, {i, j},
                   add(mul(cast(ScalarType::i32, i), const_i32(100)), cast(ScalarType::i32, j))),
             for_range("k", const_i32(10), const_i32(0), const_i32(-3),
                       block({assign("k", sub(k, const_i32(1))),
                              eval(atomic(AtomicOp::Add, hits, {k}, const_i32(1)))}))}));
  for (bool disjoint : {false, true}) {
    auto m = compile(f, {.disjoint = disjoint});
    for (int64_t chunk : {1, 3, 4, 7, 20}) {
      std::vector<int32_t> v(5 * 7, -1), h(10, 0);
      EXPECT_EQ(run(*m, Args().array(v.data(), {5, 7}).array(h), nullptr, chunk), 20);
      for (int r = 0; r < 5; ++r) {
        for (int c = 0; c < 7; ++c) ASSERT_EQ(v[r * 7 + c], c % 2 ? -1 : 100 * r + c) << chunk;
      }
      EXPECT_EQ(h, (std::vector<int32_t>{20, 0, 0, 20, 0, 0, 20, 0, 0, 20})) << chunk;
    }
  }
}

// A narrow variable assigned a wrapped value indexes with the wrapped value, as before: debug
// mode reports the negative index. Ranges ending at the type's limits keep exact values (the
// increment after the last element would overflow).
TEST(CodegenKernels, NarrowLoopVariablesWrapAndReachTheLimits) {
  FunctionBuilder fb("narrow_wrap");
  ArrayRef out = fb.array_param("out", ScalarType::i64);
  Expr k = var(ScalarType::i8, "k"), m8 = var(ScalarType::i8, "m"), u = var(ScalarType::u8, "u");
  Function f = fb.build(
      {range_dim("i", const_i64(1))},
      block({let("n", const_i64(0)),
             // m in range(127, -128, -100) -> 127, 27, -73 (next: -173 would wrap)
             for_range(
                 "m", int_const(ScalarType::i8, 127), int_const(ScalarType::i8, -128),
                 int_const(ScalarType::i8, -100),
                 block({assign("n", add(var(ScalarType::i64, "n"), cast(ScalarType::i64, m8)))})),
             // u in range(250, 255, 3) -> 250, 253 (next: 256 would wrap)
             for_range(
                 "u", int_const(ScalarType::u8, 250), int_const(ScalarType::u8, 255),
                 int_const(ScalarType::u8, 3),
                 block({assign("n", add(var(ScalarType::i64, "n"), cast(ScalarType::i64, u)))})),
             store(out, {const_i64(0)}, var(ScalarType::i64, "n")),
             // k = 100 + 100 wraps to -56 in i8: out[k] is out of bounds at -56.
             for_range("k", int_const(ScalarType::i8, 100), int_const(ScalarType::i8, 101),
                       int_const(ScalarType::i8, 1),
                       block({assign("k", add(k, int_const(ScalarType::i8, 100))),
                              store(out, {k}, const_i64(7))}))}));
  auto m = compile(f, {.bounds_check = true});
  std::vector<int64_t> v(4, 0);
  TackDebugStatus st;
  run(*m, Args().array(v), &st);
  EXPECT_EQ(v[0], 127 + 27 - 73 + 250 + 253);
  EXPECT_EQ(st.failed, 1);
  EXPECT_EQ(st.index, -56);
}

TEST(CodegenKernels, VecArraysAddressComponentsLast) {
  FunctionBuilder fb("vec3");
  ArrayRef p = fb.array_param("p", ScalarType::f32, 1, 3);
  ArrayRef out = fb.array_param("out", ScalarType::f32);
  Expr i = var(ScalarType::i64, "i");
  Expr sum =
      add(add(load(p, {i, const_i32(0)}), load(p, {i, const_i32(1)})), load(p, {i, const_i32(2)}));
  Function f = fb.build({range_dim("i", shape(p, 0))},
                        block({store(out, {i}, sum),
                               store(p, {i, const_i32(1)}, cast(ScalarType::f32, shape(p, 1)))}));
  auto m = compile(f, {});
  std::vector<float> pts = {1, 2, 3, 10, 20, 30};
  std::vector<float> out_v(2);
  run(*m, Args().array(pts.data(), {2, 3}).array(out_v));
  EXPECT_EQ(out_v, (std::vector<float>{6, 60}));
  EXPECT_EQ(pts, (std::vector<float>{1, 3, 3, 10, 3, 30}));  // shape[1] is the width, 3
}

TEST(CodegenKernels, ScalarSlotsOfEveryType) {
  FunctionBuilder fb("scalars");
  ArrayRef out = fb.array_param("out", ScalarType::f64);
  std::vector<Expr> params = {
      fb.scalar_param("a", ScalarType::i8),     fb.scalar_param("b", ScalarType::u16),
      fb.scalar_param("c", ScalarType::i32),    fb.scalar_param("d", ScalarType::u64),
      fb.scalar_param("e", ScalarType::f32),    fb.scalar_param("f", ScalarType::f64),
      fb.scalar_param("g", ScalarType::boolean)};
  std::vector<Stmt> body;
  for (size_t k = 0; k < params.size(); ++k) {
    body.push_back(
        store(out, {const_i64(static_cast<int64_t>(k))}, cast(ScalarType::f64, params[k])));
  }
  Function f = fb.build({range_dim("i", const_i64(1))}, block(body));
  auto m = compile(f, {});
  std::vector<double> v(7);
  run(*m,
      Args().array(v).i64(-5).u64(65535).i64(-70000).u64(1ull << 40).f32(1.5f).f64(-2.25).u64(1));
  EXPECT_EQ(v, (std::vector<double>{-5, 65535, -70000, 1099511627776.0, 1.5, -2.25, 1}));
}

}  // namespace
}  // namespace tack::codegen
