// privatizable_atomic_targets: integer targets used only by atomic statements of one kind in the
// parallel loop's body.
#include <gtest/gtest.h>

#include "analysis/privatizable.hpp"
#include "ir/builder.hpp"

namespace tack::analysis {
namespace {

using namespace tack::ir;

Expr vi(const char* n) {
  return var(ScalarType::i64, n);
}

TEST(Privatizable, AtomicStatementsOfOneKindQualify) {
  FunctionBuilder fb("k");
  ArrayRef x = fb.array_param("x", ScalarType::i32);
  ArrayRef bins = fb.array_param("bins", ScalarType::i32);
  ArrayRef lo = fb.array_param("lo", ScalarType::u16, 2);
  Expr i = vi("i");
  Expr b = cast(ScalarType::i64, load(x, {i}));
  Function f =
      fb.build({range_dim("i", shape(x, 0))},
               block({eval(atomic(AtomicOp::Add, bins, {b}, const_i32(1))),
                      eval(atomic(AtomicOp::Add, bins, {const_i64(0)}, load(x, {i}))),
                      for_range("c", const_i64(0), shape(lo, 1), const_i64(1),
                                block({eval(atomic(AtomicOp::Min, lo, {b, vi("c")},
                                                   cast(ScalarType::u16, load(x, {i}))))}))}));
  EXPECT_EQ(privatizable_atomic_targets(f),
            (std::vector<PrivatizableTarget>{{1, AtomicOp::Add}, {2, AtomicOp::Min}}));
}

TEST(Privatizable, AnyOtherUseDisqualifies) {
  FunctionBuilder fb("k");
  ArrayRef x = fb.array_param("x", ScalarType::i64);
  ArrayRef loaded = fb.array_param("loaded", ScalarType::i32);    // also read
  ArrayRef stored = fb.array_param("stored", ScalarType::i32);    // also stored to
  ArrayRef mixed = fb.array_param("mixed", ScalarType::i32);      // add and max
  ArrayRef used = fb.array_param("used", ScalarType::i32);        // the old value is used
  ArrayRef floats = fb.array_param("floats", ScalarType::f32);    // float adds round
  ArrayRef vecs = fb.array_param("vecs", ScalarType::i32, 1, 2);  // vector elements
  ArrayRef index = fb.array_param("index", ScalarType::i64);      // used inside an index
  Expr i = vi("i");
  Expr z = const_i64(0);
  Function f = fb.build(
      {range_dim("i", shape(x, 0))},
      block({eval(atomic(AtomicOp::Add, loaded, {z}, const_i32(1))),
             store(x, {i}, cast(ScalarType::i64, load(loaded, {z}))),
             eval(atomic(AtomicOp::Add, stored, {z}, const_i32(1))),
             store(stored, {i}, const_i32(0)),
             eval(atomic(AtomicOp::Add, mixed, {z}, const_i32(1))),
             eval(atomic(AtomicOp::Max, mixed, {z}, const_i32(1))),
             let("old", atomic(AtomicOp::Add, used, {z}, const_i32(1))),
             eval(atomic(AtomicOp::Add, floats, {z}, const_f32(1))),
             eval(atomic(AtomicOp::Add, vecs, {z, z}, const_i32(1))),
             eval(atomic(AtomicOp::Add, x, {atomic(AtomicOp::Add, index, {z}, const_i64(1))},
                         const_i64(1)))}));
  EXPECT_TRUE(privatizable_atomic_targets(f).empty());
}

TEST(Privatizable, AtomicsInThePreludeDisqualify) {
  FunctionBuilder fb("k");
  ArrayRef x = fb.array_param("x", ScalarType::i32);
  ArrayRef bins = fb.array_param("bins", ScalarType::i32);
  fb.prelude(eval(atomic(AtomicOp::Add, bins, {const_i64(0)}, const_i32(1))));
  Function f = fb.build({range_dim("i", shape(x, 0))},
                        block({eval(atomic(AtomicOp::Add, bins, {vi("i")}, const_i32(1)))}));
  EXPECT_TRUE(privatizable_atomic_targets(f).empty());
}

}  // namespace
}  // namespace tack::analysis
