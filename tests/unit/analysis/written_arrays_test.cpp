// written_array_params: stores and atomic targets count as written, loads do not.
#include <gtest/gtest.h>

#include "analysis/written_arrays.hpp"
#include "ir/builder.hpp"

namespace tack::analysis {
namespace {

using namespace tack::ir;

TEST(WrittenArrays, StoresAndAtomicsAreWrittenLoadsAreNot) {
  FunctionBuilder fb("k");
  ArrayRef src = fb.array_param("src", ScalarType::f32);
  Expr s = fb.scalar_param("s", ScalarType::f32);
  ArrayRef dst = fb.array_param("dst", ScalarType::f32);
  ArrayRef hist = fb.array_param("hist", ScalarType::i32);
  ArrayRef unused = fb.array_param("unused", ScalarType::i32);
  Expr i = var(ScalarType::i64, "i");
  Function f = fb.build({range_dim("i", shape(src, 0))},
                        block({store(dst, {i}, mul(s, load(src, {i}))),
                               eval(atomic(AtomicOp::Add, hist, {const_i64(0)}, const_i32(1))),
                               let("n", cast(ScalarType::i32, shape(unused, 0)))}));
  std::optional<std::vector<bool>> w = written_array_params(f);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(*w, (std::vector<bool>{false, false, true, true, false}));
}

TEST(WrittenArrays, StoresInsideControlFlowAndLabeledBlocksCount) {
  FunctionBuilder fb("k");
  ArrayRef a = fb.array_param("a", ScalarType::f64);
  ArrayRef b = fb.array_param("b", ScalarType::f64);
  Expr i = var(ScalarType::i64, "i");
  // An inlined device function that stores through its parameter: lowering already resolved
  // that parameter to kernel parameter b.
  Stmt inlined = labeled("ret", block({if_then(lt(i, const_i64(2)), block({exit_block("ret")})),
                                       store(b, {i}, load(a, {i}))}));
  Function f = fb.build({range_dim("i", shape(a, 0))},
                        block({while_loop(const_bool(false), block({inlined}))}));
  EXPECT_EQ(*written_array_params(f), (std::vector<bool>{false, true}));
}

TEST(WrittenArrays, LocalArrayStoresDoNotCount) {
  FunctionBuilder fb("k");
  ArrayRef a = fb.array_param("a", ScalarType::f32);
  Expr i = var(ScalarType::i64, "i");
  Function f = fb.build({range_dim("i", shape(a, 0))},
                        block({local_array("t", ScalarType::f32, {4}),
                               local_store("t", {const_i32(0)}, load(a, {i}))}));
  EXPECT_EQ(*written_array_params(f), (std::vector<bool>{false}));
}

TEST(WrittenArrays, UntraceableStoreMeansEveryArrayIsWritten) {
  FunctionBuilder fb("k");
  ArrayRef a = fb.array_param("a", ScalarType::f32);
  Expr n = fb.scalar_param("n", ScalarType::i64);
  Expr i = var(ScalarType::i64, "i");
  // A store naming no array parameter (here: the scalar) cannot be traced.
  Function f =
      fb.build({range_dim("i", n)},
               block({ArrayStore::make(1, {i}, const_f32(1)), store(a, {i}, const_f32(2))}));
  EXPECT_EQ(written_array_params(f), std::nullopt);
}

}  // namespace
}  // namespace tack::analysis
