// Memory semantics of generated code: atomics under concurrency, debug-mode bounds checks,
// overlapping array arguments (default and disjoint variants), and unaligned buffers.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "codegen/llvm/llvm_codegen.hpp"
#include "ir/builder.hpp"
#include "kernel_runner.hpp"

namespace tack::codegen {
namespace {

using namespace tack::ir;
using testing::Args;
using testing::run;

const Expr kI = Var::make(ScalarType::i64, "i");

// hist[v[i] % bins] += 1, sum[0] += v[i], lo[0] = min, hi[0] = max, returning old values into
// old[i] — run on 4 threads in small chunks so the atomics really race.
TEST(CodegenMemory, AtomicsAreAtomicAndReturnTheOldValue) {
  FunctionBuilder fb("atomics");
  ArrayRef v = fb.array_param("v", ScalarType::i32);
  ArrayRef hist = fb.array_param("hist", ScalarType::i64);
  ArrayRef fsum = fb.array_param("fsum", ScalarType::f64);
  ArrayRef lo = fb.array_param("lo", ScalarType::i32);
  ArrayRef hi = fb.array_param("hi", ScalarType::u32);
  ArrayRef fmax = fb.array_param("fmax", ScalarType::f32);
  ArrayRef old = fb.array_param("old", ScalarType::i64);
  Expr x = load(v, {kI});
  Expr z = const_i64(0);
  Function f = fb.build(
      {range_dim("i", shape(v, 0))},
      block({store(old, {kI}, atomic(AtomicOp::Add, hist, {mod(x, const_i32(8))}, const_i64(1))),
             eval(atomic(AtomicOp::Add, fsum, {z}, cast(ScalarType::f64, x))),
             eval(atomic(AtomicOp::Min, lo, {z}, sub(const_i32(0), x))),
             eval(atomic(AtomicOp::Max, hi, {z}, cast(ScalarType::u32, x))),
             eval(atomic(AtomicOp::Max, fmax, {z}, cast(ScalarType::f32, x)))}));
  auto m = compile(f, {});
  const int n = 20000;
  std::vector<int32_t> vals(n);
  std::iota(vals.begin(), vals.end(), 0);
  std::vector<int64_t> h(8, 0), olds(n, -1);
  std::vector<double> s(1, 0.0);
  std::vector<int32_t> l(1, 0);
  std::vector<uint32_t> u(1, 0);
  std::vector<float> fm(1, -1.0f);
  run(*m, Args().array(vals).array(h).array(s).array(l).array(u).array(fm).array(olds), nullptr, 7,
      4);
  for (int64_t c : h) EXPECT_EQ(c, n / 8);
  EXPECT_EQ(s[0], static_cast<double>(n) * (n - 1) / 2);  // exact: integers below 2**53
  EXPECT_EQ(l[0], -(n - 1));
  EXPECT_EQ(u[0], static_cast<uint32_t>(n - 1));
  EXPECT_EQ(fm[0], static_cast<float>(n - 1));
  // Each bin's old values are exactly 0 .. n/8 - 1, in some order.
  std::vector<std::vector<bool>> seen(8, std::vector<bool>(n / 8, false));
  for (int i = 0; i < n; ++i) {
    ASSERT_GE(olds[i], 0);
    ASSERT_LT(olds[i], n / 8);
    ASSERT_FALSE(seen[i % 8][olds[i]]);
    seen[i % 8][olds[i]] = true;
  }
}

TEST(CodegenMemory, BoundsCheckSkipsAndReportsTheFirstViolation) {
  // out[i] = a[i + shift] for i in range(len(out)): reads past a's end are skipped (load gives
  // 0) and the violation names parameter 0, dim 0, the index and a's extent.
  FunctionBuilder fb("shifted");
  ArrayRef a = fb.array_param("a", ScalarType::f32);
  ArrayRef out = fb.array_param("out", ScalarType::f32);
  Expr shift = fb.scalar_param("shift", ScalarType::i64);
  Function f = fb.build({range_dim("i", shape(out, 0))},
                        block({store(out, {kI}, load(a, {add(kI, shift)}))}));
  auto m = compile(f, {.bounds_check = true});
  std::vector<float> av = {1, 2, 3};
  std::vector<float> o(5, -1);
  TackDebugStatus st;
  run(*m, Args().array(av).array(o).i64(1), &st);
  EXPECT_EQ(o, (std::vector<float>{2, 3, 0, 0, 0}));
  EXPECT_EQ(st.failed, 1);
  EXPECT_EQ(st.param, 0);
  EXPECT_EQ(st.dim, 0);
  EXPECT_EQ(st.index, 3);  // the first one, in a single-threaded run
  EXPECT_EQ(st.extent, 3);

  // Negative indices are out of bounds too (no Python wrap-around).
  std::vector<float> o2(2, -1);
  TackDebugStatus st2;
  run(*m, Args().array(av).array(o2).i64(-1), &st2);
  EXPECT_EQ(o2, (std::vector<float>{0, 1}));
  EXPECT_EQ(st2.failed, 1);
  EXPECT_EQ(st2.index, -1);

  // A null status is allowed: the access is still skipped.
  std::vector<float> o3(4, -1);
  run(*m, Args().array(av).array(o3).i64(1), nullptr);
  EXPECT_EQ(o3, (std::vector<float>{2, 3, 0, 0}));
}

TEST(CodegenMemory, BoundsCheckCoversStoresAtomicsLocalsAndEachDim) {
  FunctionBuilder fb("stores");
  ArrayRef g = fb.array_param("g", ScalarType::i32, 2);
  ArrayRef c = fb.array_param("c", ScalarType::i32);
  Function f = fb.build({range_dim("i", const_i64(1))},
                        block({store(g, {const_i64(1), const_i64(2)}, const_i32(7)),  // in bounds
                               store(g, {const_i64(1), const_i64(3)}, const_i32(9)),  // dim 1 out
                               eval(atomic(AtomicOp::Add, c, {const_i64(5)}, const_i32(1))),
                               local_array("t", ScalarType::i32, {2}),
                               local_store("t", {const_i64(2)}, const_i32(1))}));
  auto m = compile(f, {.bounds_check = true});
  std::vector<int32_t> grid(2 * 3, 0), cnt(2, 0);
  TackDebugStatus st;
  run(*m, Args().array(grid.data(), {2, 3}).array(cnt), &st);
  EXPECT_EQ(grid, (std::vector<int32_t>{0, 0, 0, 0, 0, 7}));
  EXPECT_EQ(cnt, (std::vector<int32_t>{0, 0}));
  EXPECT_EQ(st.failed, 1);
  EXPECT_EQ(st.param, 0);
  EXPECT_EQ(st.dim, 1);
  EXPECT_EQ(st.index, 3);
  EXPECT_EQ(st.extent, 3);

  // Only the local array is out of bounds: reported as parameter -1.
  FunctionBuilder fb2("local_oob");
  ArrayRef o = fb2.array_param("o", ScalarType::i32);
  Function f2 =
      fb2.build({range_dim("i", const_i64(1))},
                block({local_array("t", ScalarType::i32, {2}),
                       store(o, {kI}, local_load(ScalarType::i32, "t", {const_i64(-3)}))}));
  auto m2 = compile(f2, {.bounds_check = true});
  std::vector<int32_t> ov(1, 5);
  TackDebugStatus st2;
  run(*m2, Args().array(ov), &st2);
  EXPECT_EQ(ov[0], 0);
  EXPECT_EQ(st2.param, -1);
  EXPECT_EQ(st2.index, -3);
  EXPECT_EQ(st2.extent, 2);
}

// The seed's reproduction: write 1 through a, 2 through b, read a. With a and b the same
// storage the read must see 2 (program order within an iteration).
Function alias_kernel() {
  FunctionBuilder fb("alias");
  ArrayRef a = fb.array_param("a", ScalarType::i32);
  ArrayRef b = fb.array_param("b", ScalarType::i32);
  ArrayRef out = fb.array_param("out", ScalarType::i32);
  return fb.build({range_dim("i", shape(out, 0))},
                  block({store(a, {kI}, const_i32(1)), store(b, {kI}, const_i32(2)),
                         store(out, {kI}, load(a, {kI}))}));
}

TEST(CodegenMemory, AliasedArraysKeepProgramOrder) {
  auto m = compile(alias_kernel(), {});
  std::vector<int32_t> shared(64, 0), out(64, 0);
  run(*m, Args().array(shared).array(shared).array(out));
  for (int32_t x : out) ASSERT_EQ(x, 2);
  // Partial overlap: b is a view of a one element further on.
  std::vector<int32_t> buf(65, 0), out2(64, 0);
  run(*m, Args().array(buf.data(), {64}).array(buf.data() + 1, {64}).array(out2));
  for (int i = 0; i < 63; ++i) ASSERT_EQ(out2[i], 1) << i;  // a[i] was rewritten to 1 last
  EXPECT_EQ(buf[64], 2);
}

TEST(CodegenMemory, DisjointVariantGivesTheSameResultsOnDisjointData) {
  auto plain = compile(alias_kernel(), {});
  auto disjoint = compile(alias_kernel(), {.disjoint = true});
  std::vector<int32_t> a1(64, 0), b1(64, 0), o1(64, 0);
  std::vector<int32_t> a2(64, 0), b2(64, 0), o2(64, 0);
  run(*plain, Args().array(a1).array(b1).array(o1));
  run(*disjoint, Args().array(a2).array(b2).array(o2));
  EXPECT_EQ(o1, o2);
  for (int32_t x : o2) ASSERT_EQ(x, 1);
  EXPECT_EQ(a1, a2);
  EXPECT_EQ(b1, b2);
}

TEST(CodegenMemory, UnalignedBuffersWork) {
  // Every array starts one byte past an aligned address (as an imported buffer may).
  FunctionBuilder fb("unaligned");
  ArrayRef x = fb.array_param("x", ScalarType::f64);
  ArrayRef y = fb.array_param("y", ScalarType::f64);
  Function f = fb.build({range_dim("i", shape(x, 0))},
                        block({store(y, {kI}, mul(load(x, {kI}), const_f64(2)))}));
  auto m = compile(f, {});
  const int n = 1001;
  std::vector<unsigned char> xs(n * 8 + 1), ys(n * 8 + 1);
  for (int i = 0; i < n; ++i) {
    double d = i + 0.5;
    std::memcpy(&xs[1 + 8 * i], &d, 8);
  }
  run(*m, Args().array(xs.data() + 1, {n}).array(ys.data() + 1, {n}));
  for (int i = 0; i < n; ++i) {
    double d;
    std::memcpy(&d, &ys[1 + 8 * i], 8);
    ASSERT_EQ(d, 2 * (i + 0.5));
  }
}

}  // namespace
}  // namespace tack::codegen
