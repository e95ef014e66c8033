// streamed_outputs: an array is streamed only when it is written, never read, each element once
// from the parallel loop at its own index (docs/design/streaming_stores.md). Each test changes
// one thing of the triad that breaks one condition.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "analysis/streamed_outputs.hpp"
#include "ir/builder.hpp"

namespace tack::analysis {
namespace {

using namespace tack::ir;

using Flags = std::vector<bool>;

// c[i] = a[i] + s * b[i], with the store's statement made by `body` from (a, b, c, i).
template <class Body>
Function triad_with(Body body, ScalarType elem = ScalarType::f32) {
  FunctionBuilder fb("triad");
  ArrayRef a = fb.array_param("a", elem);
  ArrayRef b = fb.array_param("b", elem);
  ArrayRef c = fb.array_param("c", elem);
  Expr s = fb.scalar_param("s", elem);
  Expr i = var(ScalarType::i64, "i");
  Expr value = add(load(a, {i}), mul(s, load(b, {i})));
  return fb.build({range_dim("i", shape(a, 0))}, body(a, b, c, i, value));
}

TEST(StreamedOutputs, TheTriadsOutputIsStreamedAndItsInputsAreNot) {
  const Function f =
      triad_with([](auto&, auto&, auto& c, Expr i, Expr v) { return block({store(c, {i}, v)}); });
  EXPECT_EQ(streamed_outputs(f), (Flags{false, false, true, false}));
}

TEST(StreamedOutputs, AStoreUnderAnIfStillWritesItsOwnElement) {
  const Function f = triad_with([](auto& a, auto&, auto& c, Expr i, Expr v) {
    return block({if_then(gt(load(a, {i}), const_f32(0)), store(c, {i}, v))});
  });
  EXPECT_EQ(streamed_outputs(f)[2], true);
}

TEST(StreamedOutputs, AnOutputReadBackIsNotStreamed) {
  const Function f = triad_with([](auto&, auto&, auto& c, Expr i, Expr v) {
    return block({store(c, {i}, add(v, load(c, {i})))});
  });
  EXPECT_EQ(streamed_outputs(f)[2], false);
}

TEST(StreamedOutputs, AnotherElementThanTheIterationsIsNotStreamed) {
  const Function f = triad_with([](auto& a, auto&, auto& c, Expr i, Expr v) {
    (void)a;
    return block({store(c, {add(i, const_i64(1))}, v)});
  });
  EXPECT_EQ(streamed_outputs(f)[2], false);
}

TEST(StreamedOutputs, AStoreInAnInnerLoopIsNotStreamed) {
  // The same element written again and again: the caches are where it belongs.
  const Function f = triad_with([](auto&, auto&, auto& c, Expr i, Expr v) {
    return block(
        {for_range("r", const_i32(0), const_i32(4), const_i32(1), block({store(c, {i}, v)}))});
  });
  EXPECT_EQ(streamed_outputs(f)[2], false);
}

TEST(StreamedOutputs, AnAtomicTargetIsNotStreamed) {
  const Function f = triad_with([](auto&, auto&, auto& c, Expr i, Expr v) {
    return block({store(c, {i}, v), eval(atomic(AtomicOp::Add, c, {i}, const_f32(1)))});
  });
  EXPECT_EQ(streamed_outputs(f)[2], false);
}

TEST(StreamedOutputs, OnlyFourAndEightByteElementsAreStreamed) {
  // No non-temporal store of one or two bytes on the CPU.
  const std::pair<ScalarType, bool> cases[] = {
      {ScalarType::i8, false}, {ScalarType::u16, false}, {ScalarType::boolean, false},
      {ScalarType::i32, true}, {ScalarType::u64, true},  {ScalarType::f64, true}};
  for (const auto& [t, streamed] : cases) {
    FunctionBuilder fb("k");
    ArrayRef out = fb.array_param("out", t);
    const Function f = fb.build({range_dim("i", shape(out, 0))},
                                block({store(out, {var(ScalarType::i64, "i")}, make_const(t, 1))}));
    EXPECT_EQ(streamed_outputs(f), (Flags{streamed})) << static_cast<int>(t);
  }
}

TEST(StreamedOutputs, VectorElementsAreNotStreamed) {
  FunctionBuilder fb("k");
  ArrayRef out = fb.array_param("out", ScalarType::f32, 1, 3);
  const Function f = fb.build({range_dim("i", shape(out, 0))}, block({}));
  EXPECT_EQ(streamed_outputs(f), (Flags{false}));
}

TEST(StreamedOutputs, TwoDimensionsInOrderAreStreamedTransposedAreNot) {
  FunctionBuilder fb("k");
  ArrayRef u = fb.array_param("u", ScalarType::f32, 2);
  ArrayRef v = fb.array_param("v", ScalarType::f32, 2);
  ArrayRef w = fb.array_param("w", ScalarType::f32, 2);
  Expr i = var(ScalarType::i64, "i"), j = var(ScalarType::i64, "j");
  const Function f =
      fb.build({range_dim("i", shape(u, 0)), range_dim("j", shape(u, 1))},
               block({store(v, {i, j}, load(u, {i, j})), store(w, {j, i}, load(u, {i, j}))}));
  EXPECT_EQ(streamed_outputs(f), (Flags{false, true, false}));
}

TEST(StreamedOutputs, AStepOtherThanOneStreamsNothing) {
  // Every other element: half of each line, which a non-temporal store would write in part.
  FunctionBuilder fb("k");
  ArrayRef out = fb.array_param("out", ScalarType::f32);
  const Function f = fb.build({range_dim("i", const_i64(0), shape(out, 0), const_i64(2))},
                              block({store(out, {var(ScalarType::i64, "i")}, const_f32(1))}));
  EXPECT_EQ(streamed_outputs(f), (Flags{false}));
}

TEST(StreamedOutputs, AStoreBeforeTheLoopIsNotStreamed) {
  FunctionBuilder fb("k");
  ArrayRef out = fb.array_param("out", ScalarType::f32);
  fb.prelude(store(out, {const_i64(0)}, const_f32(2)));
  const Function f = fb.build({range_dim("i", shape(out, 0))},
                              block({store(out, {var(ScalarType::i64, "i")}, const_f32(1))}));
  EXPECT_EQ(streamed_outputs(f), (Flags{false}));
}

TEST(StreamedOutputs, AKernelWithoutItsLoopStreamsNothing) {
  FunctionBuilder fb("k");
  ArrayRef out = fb.array_param("out", ScalarType::f32);
  const Function f = fb.build_raw(block({store(out, {const_i64(0)}, const_f32(1))}));
  EXPECT_EQ(streamed_outputs(f), (Flags{false}));
}

}  // namespace
}  // namespace tack::analysis
