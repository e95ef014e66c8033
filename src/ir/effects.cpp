// Effects of IR expressions and statements (see effects.hpp).
#include "ir/effects.hpp"

#include "ir/visitor.hpp"

namespace tack::ir {
namespace {

class Writes final : public Visitor {
 public:
  bool found = false;

  void visit(const AtomicRMW& n) override {
    found = true;
    Visitor::visit(n);
  }
  void visit(const ArrayStore& n) override {
    found = true;
    Visitor::visit(n);
  }
  void visit(const LocalArrayDecl& n) override {
    found = true;
    Visitor::visit(n);
  }
  void visit(const LocalArrayStore& n) override {
    found = true;
    Visitor::visit(n);
  }
};

}  // namespace

Effects effects_of(const Expr& e) {
  Effects out;
  for_each_expr(ExprStmt::make(e), [&](const ExprNode& n) {
    out.array_loads += n.kind == NodeKind::ArrayLoad;
    out.local_loads += n.kind == NodeKind::LocalArrayLoad;
    out.atomics += n.kind == NodeKind::AtomicRMW;
  });
  return out;
}

bool reads_memory(const Expr& e) {
  return effects_of(e).reads_memory();
}

bool contains_atomic(const Expr& e) {
  return effects_of(e).contains_atomic();
}

bool cheap_to_repeat(const Expr& e) {
  switch (e->kind) {
    case NodeKind::IntConst:
    case NodeKind::FloatConst:
    case NodeKind::BoolConst:
    case NodeKind::Var:
    case NodeKind::Param:
    case NodeKind::ArrayShape:
    case NodeKind::ThreadId:
      return true;
    case NodeKind::ArrayLoad:
    case NodeKind::LocalArrayLoad:
    case NodeKind::AtomicRMW:
    case NodeKind::Binary:  // integer division may trap, and every operator costs an instruction
    case NodeKind::Compare:
    case NodeKind::Logical:
    case NodeKind::Unary:
    case NodeKind::Select:
    case NodeKind::Cast:
    case NodeKind::MathCall:
      return false;
#define TACK_IR_STMT(Name) case NodeKind::Name:
#include "ir/nodes.def"
      break;
  }
  return false;  // a statement kind: not an expression
}

bool writes_memory(const Stmt& s) {
  Writes w;
  w.visit_stmt(s);
  return w.found;
}

}  // namespace tack::ir
