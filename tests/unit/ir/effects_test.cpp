// The one answer to "does this expression read memory, contain an atomic, or cost nothing to
// repeat?", shared by the lowering, the C-style printer and the LLVM code generator.
#include <gtest/gtest.h>

#include "ir/builder.hpp"
#include "ir/effects.hpp"

namespace tack::ir {
namespace {

struct Sample {
  FunctionBuilder fb{"k"};
  ArrayRef a = fb.array_param("a", ScalarType::f32);
  Expr n = fb.scalar_param("n", ScalarType::i64);
  Expr i = var(ScalarType::i64, "i");
};

TEST(IrEffects, LeavesAreCheapToRepeatAndReadNothing) {
  Sample s;
  for (const Expr& e : {const_i32(1), const_f64(2.0), const_bool(true), s.i, s.n, shape(s.a, 0)}) {
    EXPECT_TRUE(cheap_to_repeat(e));
    EXPECT_FALSE(reads_memory(e));
    EXPECT_FALSE(contains_atomic(e));
  }
}

TEST(IrEffects, OperatorsAreNotRepeatedEvenWithoutMemory) {
  Sample s;
  EXPECT_FALSE(cheap_to_repeat(add(s.i, s.n)));
  EXPECT_FALSE(cheap_to_repeat(neg(s.i)));
  EXPECT_FALSE(cheap_to_repeat(cast(ScalarType::f32, s.i)));
  EXPECT_FALSE(reads_memory(add(s.i, s.n)));
}

TEST(IrEffects, LoadsAndAtomicsAreCountedAnywhereBelow) {
  Sample s;
  Expr load_i = load(s.a, {s.i});
  Expr bump = atomic(AtomicOp::Add, s.a, {const_i64(0)}, const_f32(1.0f));
  Expr nested = select(gt(load_i, const_f32(0.0f)), add(load_i, bump), const_f32(0.0f));
  Effects f = effects_of(nested);
  EXPECT_EQ(f.array_loads, 2);
  EXPECT_EQ(f.atomics, 1);
  EXPECT_EQ(f.local_loads, 0);
  EXPECT_TRUE(reads_memory(nested));
  EXPECT_TRUE(contains_atomic(nested));
  EXPECT_FALSE(cheap_to_repeat(load_i));
  EXPECT_TRUE(reads_memory(load_i));
  EXPECT_FALSE(contains_atomic(load_i));

  Expr local = local_load(ScalarType::f32, "tmp", {const_i64(0)});
  EXPECT_EQ(effects_of(local).local_loads, 1);
  EXPECT_TRUE(reads_memory(local));  // a local array is memory too
}

TEST(IrEffects, StatementsWriteThroughStoresAtomicsAndLocalArrays) {
  Sample s;
  EXPECT_FALSE(writes_memory(let("x", load(s.a, {s.i}))));
  EXPECT_TRUE(writes_memory(store(s.a, {s.i}, const_f32(1.0f))));
  EXPECT_TRUE(writes_memory(eval(atomic(AtomicOp::Max, s.a, {s.i}, const_f32(1.0f)))));
  EXPECT_TRUE(writes_memory(local_array("t", ScalarType::f32, {4})));
  EXPECT_TRUE(writes_memory(block(
      {if_then(const_bool(true), block({local_store("t", {const_i64(0)}, const_f32(2.0f))}))})));
}

}  // namespace
}  // namespace tack::ir
