// Node construction through the builder, per node family: types, checks, kinds.
#include <gtest/gtest.h>

#include "ir/builder.hpp"
#include "ir/printer.hpp"
#include "tack/error.hpp"

namespace tack::ir {
namespace {

TEST(IrConstants, IntConstWrapsToItsType) {
  Expr held = int_const(ScalarType::u8, 300);  // as<> does not own the node
  auto c = held->as<IntConst>();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->value, 44);
  EXPECT_EQ(int_const(ScalarType::i8, 200)->as<IntConst>()->value, -56);
  EXPECT_EQ(int_const(ScalarType::u32, -1)->as<IntConst>()->value, 4294967295);
  EXPECT_EQ(int_const(ScalarType::u64, -1)->as<IntConst>()->value, -1);  // bit pattern
  EXPECT_THROW(int_const(ScalarType::f32, 1), InternalError);
}

TEST(IrConstants, FloatConstRoundsF32) {
  Expr held = const_f32(0.1f);
  auto c = held->as<FloatConst>();
  EXPECT_EQ(c->value, static_cast<double>(0.1f));
  EXPECT_EQ(float_const(ScalarType::f32, 0.1)->as<FloatConst>()->value, static_cast<double>(0.1f));
  EXPECT_EQ(const_f64(0.1)->as<FloatConst>()->value, 0.1);
  EXPECT_EQ(const_bool(true)->type, ScalarType::boolean);
  EXPECT_EQ(make_const(ScalarType::f64, 3)->as<FloatConst>()->value, 3.0);
  EXPECT_EQ(make_const(ScalarType::boolean, 3)->as<BoolConst>()->value, true);
}

TEST(IrExprs, BinaryTypesAndChecks) {
  Expr x = var(ScalarType::i32, "x");
  Expr e = add(x, const_i32(1));
  EXPECT_EQ(e->kind, NodeKind::Binary);
  EXPECT_EQ(e->type, ScalarType::i32);
  EXPECT_THROW(add(x, const_i64(1)), InternalError);      // no implicit conversion
  EXPECT_THROW(truediv(x, const_i32(2)), InternalError);  // '/' takes floats
  EXPECT_THROW(add(const_bool(true), const_bool(false)), InternalError);
  EXPECT_NO_THROW(bit_and(const_bool(true), const_bool(false)));
  EXPECT_THROW(shl(const_f32(1), const_f32(2)), InternalError);
  EXPECT_EQ(floordiv(const_f64(1), const_f64(2))->type, ScalarType::f64);
}

TEST(IrExprs, CompareLogicalUnarySelect) {
  Expr a = var(ScalarType::f32, "a");
  Expr c = lt(a, const_f32(0));
  EXPECT_EQ(c->type, ScalarType::boolean);
  EXPECT_EQ(logical_and(c, const_bool(true))->type, ScalarType::boolean);
  EXPECT_THROW(logical_or(a, c), InternalError);
  EXPECT_EQ(neg(a)->type, ScalarType::f32);
  EXPECT_THROW(invert(a), InternalError);
  EXPECT_THROW(logical_not(a), InternalError);
  EXPECT_EQ(select(c, a, const_f32(1))->type, ScalarType::f32);
  EXPECT_THROW(select(a, a, a), InternalError);
  EXPECT_THROW(select(c, a, const_f64(1)), InternalError);
}

TEST(IrExprs, CastReturnsSameNodeForSameType) {
  Expr a = var(ScalarType::i32, "a");
  EXPECT_EQ(cast(ScalarType::i32, a), a);
  Expr f = cast(ScalarType::f64, a);
  EXPECT_EQ(f->kind, NodeKind::Cast);
  EXPECT_EQ(f->type, ScalarType::f64);
}

TEST(IrExprs, MathCallTypes) {
  Expr x = var(ScalarType::f32, "x");
  EXPECT_EQ(call(MathFn::Sqrt, {x})->type, ScalarType::f32);
  EXPECT_EQ(call(MathFn::IsNan, {x})->type, ScalarType::boolean);
  EXPECT_EQ(call(MathFn::Atan2, {x, x})->type, ScalarType::f32);
  EXPECT_EQ(call(MathFn::Max, {const_i32(1), const_i32(2)})->type, ScalarType::i32);
  EXPECT_THROW(call(MathFn::Sqrt, {const_i32(4)}), InternalError);  // lowering casts first
  EXPECT_THROW(call(MathFn::Atan2, {x}), InternalError);
  EXPECT_THROW(call(MathFn::Min, {x, const_f64(1)}), InternalError);
  EXPECT_EQ(arity(MathFn::Hypot), 2);
  EXPECT_EQ(fn_name(MathFn::Log1p), "log1p");
}

TEST(IrArrays, LoadStoreShapeAtomicCheckIndexCounts) {
  FunctionBuilder fb("k");
  ArrayRef a = fb.array_param("a", ScalarType::f32, 2);
  ArrayRef v = fb.array_param("v", ScalarType::i32, 1, 3);
  Expr i = var(ScalarType::i64, "i");
  EXPECT_EQ(load(a, {i, i})->type, ScalarType::f32);
  EXPECT_THROW(load(a, {i}), InternalError);
  EXPECT_EQ(load(v, {i, const_i32(2)})->type, ScalarType::i32);  // vec component last
  EXPECT_THROW(load(a, {i, const_f32(0)}), InternalError);
  EXPECT_THROW(store(a, {i, i}, const_f64(1)), InternalError);
  EXPECT_EQ(shape(a, 1)->type, ScalarType::i64);
  EXPECT_EQ(shape(v, 1)->kind, NodeKind::ArrayShape);  // the vector width
  EXPECT_THROW(shape(a, 2), InternalError);
  Expr old = atomic(AtomicOp::Add, v, {i, const_i32(0)}, const_i32(1));
  EXPECT_EQ(old->type, ScalarType::i32);
  EXPECT_EQ(old->as<AtomicRMW>()->param, 1);
}

TEST(IrStmts, ControlFlowBuilders) {
  Expr k = var(ScalarType::i32, "k");
  Stmt f = for_range("k", const_i32(0), const_i32(10), const_i32(2), block({continue_stmt()}));
  EXPECT_EQ(f->as<For>()->type(), ScalarType::i32);
  EXPECT_THROW(for_range("k", const_i32(0), const_i64(10), const_i32(1), block({})), InternalError);
  EXPECT_THROW(if_then(k, block({})), InternalError);
  EXPECT_THROW(while_loop(k, block({})), InternalError);
  EXPECT_EQ(labeled("ret", block({exit_block("ret")}))->kind, NodeKind::LabeledBlock);
  EXPECT_THROW(local_array("t", ScalarType::f32, {}), InternalError);
  EXPECT_THROW(local_array("t", ScalarType::f32, {0}), InternalError);
  EXPECT_EQ(break_stmt()->kind, NodeKind::Break);
  EXPECT_EQ(eval(k)->as<ExprStmt>()->expr, k);
}

TEST(IrFunction, BuilderMakesPreludeThenParallelFor) {
  FunctionBuilder fb("saxpy");
  ArrayRef x = fb.array_param("x", ScalarType::f32);
  Expr s = fb.scalar_param("s", ScalarType::f32);
  fb.prelude(let("n", shape(x, 0)));
  Expr i = var(ScalarType::i64, "i");
  Function f = fb.build({range_dim("i", var(ScalarType::i64, "n"))},
                        block({store(x, {i}, mul(s, load(x, {i})))}));
  ASSERT_NE(f.parallel_for(), nullptr);
  EXPECT_EQ(f.prelude().size(), 1u);
  EXPECT_EQ(f.params.size(), 2u);
  EXPECT_TRUE(f.params[0].is_array());
  EXPECT_EQ(f.params[1].type, ScalarType::f32);
  EXPECT_EQ(s->as<Param>()->index, 1);
  EXPECT_EQ(f.parallel_for()->dims[0].start->as<IntConst>()->value, 0);
}

TEST(IrNodes, KindNamesAndDowncasts) {
  Expr e = const_i32(3);
  EXPECT_EQ(kind_name(e->kind), "IntConst");
  EXPECT_EQ(e->as<FloatConst>(), nullptr);
  EXPECT_EQ(kind_name(NodeKind::ParallelFor), "ParallelFor");
  EXPECT_EQ(op_name(BinaryOp::FloorDiv), "//");
  EXPECT_EQ(op_name(AtomicOp::Max), "atomic_max");
}

}  // namespace
}  // namespace tack::ir
