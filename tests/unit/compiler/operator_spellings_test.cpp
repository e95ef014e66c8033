// The front end's and the IR's operators are declared from one list (support/operators.hpp): the
// operators both have are spelled alike, the front end's own (`@`, unary `+`) only by it.
#include <gtest/gtest.h>

#include "frontend/ast.hpp"
#include "ir/ir.hpp"

namespace tack::frontend {
namespace {

TEST(OperatorSpellings, TheFrontEndAndTheIrSpellTheSharedOperatorsAlike) {
  for (int k = 0; k <= static_cast<int>(ir::BinaryOp::Shr); ++k) {
    EXPECT_EQ(spelling(static_cast<BinaryOp>(k)), ir::op_name(static_cast<ir::BinaryOp>(k)));
  }
  for (int k = 0; k <= static_cast<int>(ir::CompareOp::Ne); ++k) {
    EXPECT_EQ(spelling(static_cast<CompareOp>(k)), ir::op_name(static_cast<ir::CompareOp>(k)));
  }
  for (int k = 0; k <= static_cast<int>(ir::UnaryOp::Not); ++k) {
    EXPECT_EQ(spelling(static_cast<UnaryOp>(k)), ir::op_name(static_cast<ir::UnaryOp>(k)));
  }
  EXPECT_EQ(spelling(BinaryOp::MatMul), "@") << "the front end's own";
  EXPECT_EQ(spelling(UnaryOp::Pos), "+");
}

}  // namespace
}  // namespace tack::frontend
