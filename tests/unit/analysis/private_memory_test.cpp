// private_array_bytes: every local array's element size times its extents, summed.
#include <gtest/gtest.h>

#include "analysis/private_memory.hpp"
#include "ir/builder.hpp"

namespace tack::analysis {
namespace {

using namespace tack::ir;

TEST(PrivateArrayBytes, SumsEveryLocalArrayWithItsElementSize) {
  FunctionBuilder fb("k");
  ArrayRef x = fb.array_param("x", ScalarType::f32);
  Expr i = var(ScalarType::i64, "i");
  Function f =
      fb.build({range_dim("i", shape(x, 0))},
               block({local_array("a", ScalarType::f32, {4096}),  // 16 KiB
                      local_array("b", ScalarType::f64, {3, 5}),  // 120 bytes
                      for_range("c", const_i32(0), const_i32(4), const_i32(1),
                                block({local_array("inner", ScalarType::u8, {7})})),  // 7 bytes
                      local_store("a", {const_i64(0)}, load(x, {i}))}));
  EXPECT_EQ(private_array_bytes(f), 4096 * 4 + 3 * 5 * 8 + 7);
}

TEST(PrivateArrayBytes, ZeroWithoutLocalArrays) {
  FunctionBuilder fb("k");
  ArrayRef x = fb.array_param("x", ScalarType::f32);
  Expr i = var(ScalarType::i64, "i");
  Function f = fb.build({range_dim("i", shape(x, 0))}, block({store(x, {i}, const_f32(0))}));
  EXPECT_EQ(private_array_bytes(f), 0);
}

}  // namespace
}  // namespace tack::analysis
