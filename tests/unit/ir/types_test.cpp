// Scalar and array type helpers of the IR.
#include <gtest/gtest.h>

#include "ir/types.hpp"

#include <type_traits>

namespace tack::ir {
namespace {

TEST(IrTypes, ClassificationAndSizes) {
  EXPECT_TRUE(is_signed_int(ScalarType::i16));
  EXPECT_TRUE(is_unsigned_int(ScalarType::u64));
  EXPECT_FALSE(is_int(ScalarType::boolean));
  EXPECT_FALSE(is_numeric(ScalarType::boolean));
  EXPECT_TRUE(is_float(ScalarType::f64));
  EXPECT_EQ(bits(ScalarType::boolean), 1);
  EXPECT_EQ(bytes_in_memory(ScalarType::boolean), 1);
  EXPECT_EQ(bits(ScalarType::u16), 16);
  EXPECT_EQ(bytes_in_memory(ScalarType::f64), 8);
  EXPECT_EQ(bytes_in_memory(ScalarType::i32), 4);
}

TEST(IrTypes, NamesAreTheArrayDtypeNamesAndBool) {
  for (ScalarType t :
       {ScalarType::i8, ScalarType::i16, ScalarType::i32, ScalarType::i64, ScalarType::u8,
        ScalarType::u16, ScalarType::u32, ScalarType::u64, ScalarType::f32, ScalarType::f64}) {
    EXPECT_EQ(tack::scalar_type_from_name(name(t)), t);
  }
  EXPECT_EQ(name(ScalarType::boolean), "bool");
  EXPECT_EQ(tack::scalar_type_from_name("float"), std::nullopt);
}

// The integer type of a width is read from the scalar type table (one definition): every
// integer type is the answer for its own size and signedness, and no other size has one.
TEST(IrTypes, IntTypeOfEverySizeAndSignedness) {
  for (ScalarType t : {ScalarType::i8, ScalarType::i16, ScalarType::i32, ScalarType::i64,
                       ScalarType::u8, ScalarType::u16, ScalarType::u32, ScalarType::u64}) {
    EXPECT_EQ(tack::int_type(tack::itemsize(t), tack::is_signed(t)), t) << name(t);
  }
  for (std::size_t size : {0, 3, 16}) {
    EXPECT_EQ(tack::int_type(size, true), std::nullopt);
    EXPECT_EQ(tack::int_type(size, false), std::nullopt);
  }
  static_assert(tack::int_type(4, false) == ScalarType::u32);
}

// One enumeration serves arrays and the IR: bool is a value type, never an array dtype.
TEST(IrTypes, BoolIsAValueTypeButNoArrayDtype) {
  EXPECT_EQ(tack::scalar_type_from_name("bool"), std::nullopt);
  EXPECT_EQ(tack::scalar_type_from_name("float32"), ScalarType::f32);
  static_assert(std::is_same_v<ir::ScalarType, tack::ScalarType>);
}

TEST(IrTypes, ArrayTypeIndexCountIncludesVectorComponent) {
  ArrayType plain{ScalarType::f32, 2, 0};
  ArrayType vec{ScalarType::f32, 1, 3};
  EXPECT_EQ(plain.index_count(), 2);
  EXPECT_EQ(vec.index_count(), 2);
  EXPECT_EQ(to_string(plain), "array<f32, 2>");
  EXPECT_EQ(to_string(vec), "array<vec3<f32>, 1>");
}

}  // namespace
}  // namespace tack::ir
