// Scalar and array type helpers of the IR.
#include <gtest/gtest.h>

#include "ir/types.hpp"

namespace tack::ir {
namespace {

TEST(IrTypes, ClassificationAndSizes) {
  EXPECT_TRUE(is_signed_int(ScalarType::I16));
  EXPECT_TRUE(is_unsigned_int(ScalarType::U64));
  EXPECT_FALSE(is_int(ScalarType::Bool));
  EXPECT_FALSE(is_numeric(ScalarType::Bool));
  EXPECT_TRUE(is_float(ScalarType::F64));
  EXPECT_EQ(bits(ScalarType::Bool), 1);
  EXPECT_EQ(bytes_in_memory(ScalarType::Bool), 1);
  EXPECT_EQ(bits(ScalarType::U16), 16);
  EXPECT_EQ(bytes_in_memory(ScalarType::F64), 8);
  EXPECT_EQ(bytes_in_memory(ScalarType::I32), 4);
}

TEST(IrTypes, NamesRoundTrip) {
  for (ScalarType t : {ScalarType::Bool, ScalarType::I8, ScalarType::I16, ScalarType::I32,
                       ScalarType::I64, ScalarType::U8, ScalarType::U16, ScalarType::U32,
                       ScalarType::U64, ScalarType::F32, ScalarType::F64}) {
    EXPECT_EQ(scalar_type_from_name(name(t)), t);
  }
  EXPECT_EQ(scalar_type_from_name("float"), std::nullopt);
}

TEST(IrTypes, ArrayTypeIndexCountIncludesVectorComponent) {
  ArrayType plain{ScalarType::F32, 2, 0};
  ArrayType vec{ScalarType::F32, 1, 3};
  EXPECT_EQ(plain.index_count(), 2);
  EXPECT_EQ(vec.index_count(), 2);
  EXPECT_EQ(to_string(plain), "array<f32, 2>");
  EXPECT_EQ(to_string(vec), "array<vec3<f32>, 1>");
}

}  // namespace
}  // namespace tack::ir
