// atomic_targets: one entry per atomic target parameter, aligned to its element size.
#include <gtest/gtest.h>

#include "analysis/atomic_targets.hpp"
#include "ir/builder.hpp"

namespace tack::analysis {
namespace {

using namespace tack::ir;

TEST(AtomicTargets, OneEntryPerParamWithElementSize) {
  FunctionBuilder fb("k");
  ArrayRef x = fb.array_param("x", ScalarType::f32);
  ArrayRef counts = fb.array_param("counts", ScalarType::i64, 2);
  ArrayRef m = fb.array_param("m", ScalarType::u16);
  ArrayRef plain = fb.array_param("plain", ScalarType::f64);
  Expr i = var(ScalarType::i64, "i");
  Expr z = const_i64(0);
  Function f =
      fb.build({range_dim("i", shape(x, 0))},
               block({eval(atomic(AtomicOp::Add, counts, {z, i}, const_i64(1))),
                      eval(atomic(AtomicOp::Max, counts, {i, z}, const_i64(1))),
                      let("old", atomic(AtomicOp::Min, m, {i}, int_const(ScalarType::u16, 3))),
                      store(plain, {i}, cast(ScalarType::f64, load(x, {i})))}));
  std::vector<AtomicTarget> t = atomic_targets(f);
  EXPECT_EQ(t, (std::vector<AtomicTarget>{{1, 8}, {2, 2}}));
}

TEST(AtomicTargets, NoneWithoutAtomics) {
  FunctionBuilder fb("k");
  ArrayRef x = fb.array_param("x", ScalarType::f32);
  Expr i = var(ScalarType::i64, "i");
  Function f = fb.build({range_dim("i", shape(x, 0))}, block({store(x, {i}, const_f32(0))}));
  EXPECT_TRUE(atomic_targets(f).empty());
}

TEST(AtomicTargets, AtomicInsideNestedLoopIsFound) {
  FunctionBuilder fb("k");
  ArrayRef x = fb.array_param("x", ScalarType::f64, 1, 4);
  Expr i = var(ScalarType::i64, "i");
  Function f = fb.build(
      {range_dim("i", shape(x, 0))},
      block({for_range(
          "c", const_i32(0), const_i32(4), const_i32(1),
          block({eval(atomic(AtomicOp::Add, x, {i, var(ScalarType::i32, "c")}, const_f64(1)))}))}));
  EXPECT_EQ(atomic_targets(f), (std::vector<AtomicTarget>{{0, 8}}));
}

}  // namespace
}  // namespace tack::analysis
