// Visitor walks every node in evaluation order; Mutator returns the same pointer when nothing
// changed and shares unchanged subtrees when something did.
#include <gtest/gtest.h>

#include "ir/builder.hpp"
#include "ir/printer.hpp"
#include "ir/visitor.hpp"

namespace tack::ir {
namespace {

Function sample() {
  FunctionBuilder fb("k");
  ArrayRef a = fb.array_param("a", ScalarType::i32);
  Expr n = fb.scalar_param("n", ScalarType::i32);
  Expr i = var(ScalarType::i32, "i");
  Expr k = var(ScalarType::i32, "k");
  Stmt body = block({
      let("acc", const_i32(0)),
      for_range("k", const_i32(0), n, const_i32(1),
                block({if_then(gt(k, const_i32(3)), block({break_stmt()})),
                       assign("acc", add(var(ScalarType::i32, "acc"), k))})),
      store(a, {i}, var(ScalarType::i32, "acc")),
  });
  return fb.build({range_dim("i", n)}, body);
}

class KindCounter final : public Visitor {
 public:
  void visit(const Var& n) override {
    vars.push_back(n.name);
    Visitor::visit(n);
  }
  void visit(const For& n) override {
    ++fors;
    Visitor::visit(n);
  }
  std::vector<std::string> vars;
  int fors = 0;
};

TEST(IrVisitor, VisitsEveryNodeInOrder) {
  Function f = sample();
  KindCounter c;
  c.visit_function(f);
  EXPECT_EQ(c.fors, 1);
  std::vector<std::string> expected = {"k", "acc", "k", "acc", "i"};  // value before index
  EXPECT_EQ(c.vars, expected);
}

TEST(IrVisitor, ForEachExprSeesConstants) {
  Function f = sample();
  int consts = 0;
  for_each_expr(f.body, [&](const ExprNode& e) { consts += e.kind == NodeKind::IntConst; });
  // 0 (acc), 0 and 1 (range), 3 (compare), 0 and 1 (the ParallelFor's range(n)).
  EXPECT_EQ(consts, 6);
}

class Identity final : public Mutator {};

TEST(IrMutator, UnchangedTreeIsTheSamePointer) {
  Function f = sample();
  Identity id;
  EXPECT_EQ(id.mutate_stmt(f.body), f.body);
  EXPECT_EQ(id.mutate_function(f).body, f.body);
}

// Replaces the constant 3 by 5.
class ThreeToFive final : public Mutator {
 public:
  Expr mutate(const IntConst& n, const Expr& self) override {
    return n.value == 3 ? int_const(n.type, 5) : self;
  }
};

TEST(IrMutator, ChangeRebuildsOnlyThePath) {
  Function f = sample();
  ThreeToFive m;
  Function g = m.mutate_function(f);
  ASSERT_NE(g.body, f.body);
  EXPECT_NE(to_string(g).find("(k > 5:i32)"), std::string::npos);
  EXPECT_EQ(to_string(g).find("3:i32"), std::string::npos);
  // The store (the third statement of the parallel body) did not change: shared.
  auto old_body = f.parallel_for()->body->as<Block>();
  auto new_body = g.parallel_for()->body->as<Block>();
  EXPECT_EQ(old_body->stmts[2], new_body->stmts[2]);
  EXPECT_NE(old_body->stmts[1], new_body->stmts[1]);
  EXPECT_EQ(old_body->stmts[0], new_body->stmts[0]);
}

}  // namespace
}  // namespace tack::ir
