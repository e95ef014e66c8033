// The operators' spellings are written once (support/operators.hpp): the lexer's tokens agree --
// each operator's spelling, between two names, parses as that operator (the IR's spell alike:
// tests/unit/compiler/operator_spellings_test.cpp).
#include <gtest/gtest.h>

#include <string>

#include "frontend/parser.hpp"

namespace tack::frontend {
namespace {

const Expr& value_of(const Module& m) {
  const auto* s = m.functions.at(0).body.at(0)->as<ExprStmt>();
  EXPECT_NE(s, nullptr);
  return *s->value;
}

Module parse_expression(const std::string& text) {
  return parse_module("def k(a, b):\n    " + text + "\n");
}

TEST(Operators, EveryBinarySpellingParsesAsItsOperator) {
  for (int k = 0; k <= static_cast<int>(BinaryOp::MatMul); ++k) {
    const auto op = static_cast<BinaryOp>(k);
    const std::string text = "a " + std::string(spelling(op)) + " b";
    const Module m = parse_expression(text);
    const auto* b = value_of(m).as<Binary>();
    ASSERT_NE(b, nullptr) << text;
    EXPECT_EQ(b->op, op) << text;
  }
}

TEST(Operators, EveryComparisonLogicalAndUnarySpellingParsesAsItsOperator) {
  for (int k = 0; k <= static_cast<int>(CompareOp::Ne); ++k) {
    const auto op = static_cast<CompareOp>(k);
    const std::string text = "a " + std::string(spelling(op)) + " b";
    const Module m = parse_expression(text);
    const auto* c = value_of(m).as<Compare>();
    ASSERT_NE(c, nullptr) << text;
    EXPECT_EQ(c->ops.at(0), op) << text;
  }
  for (LogicalOp op : {LogicalOp::And, LogicalOp::Or}) {
    const std::string text = "a " + std::string(spelling(op)) + " b";
    const Module m = parse_expression(text);
    const auto* l = value_of(m).as<Logical>();
    ASSERT_NE(l, nullptr) << text;
    EXPECT_EQ(l->op, op) << text;
  }
  for (int k = 0; k <= static_cast<int>(UnaryOp::Pos); ++k) {
    const auto op = static_cast<UnaryOp>(k);
    const std::string text = std::string(spelling(op)) + " a";
    const Module m = parse_expression(text);
    const auto* u = value_of(m).as<Unary>();
    ASSERT_NE(u, nullptr) << text;
    EXPECT_EQ(u->op, op) << text;
  }
}

}  // namespace
}  // namespace tack::frontend
