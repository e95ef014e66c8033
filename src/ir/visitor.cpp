// Default traversal (Visitor) and rebuild-on-change (Mutator) for every IR node.
#include "ir/visitor.hpp"

#include "support/error.hpp"

namespace tack::ir {

// ---------------------------------------------------------------- Visitor

void Visitor::visit_expr(const Expr& e) {
  if (!e) return;
  switch (e->kind) {
#define TACK_IR_EXPR(Name) \
  case NodeKind::Name:     \
    return visit(static_cast<const Name&>(*e));
#include "ir/nodes.def"
    default:
      TACK_INTERNAL_ASSERT(false,
                           "expression node of statement kind " + std::string(kind_name(e->kind)));
  }
}

void Visitor::visit_stmt(const Stmt& s) {
  if (!s) return;
  switch (s->kind) {
#define TACK_IR_STMT(Name) \
  case NodeKind::Name:     \
    return visit(static_cast<const Name&>(*s));
#include "ir/nodes.def"
    default:
      TACK_INTERNAL_ASSERT(false,
                           "statement node of expression kind " + std::string(kind_name(s->kind)));
  }
}

void Visitor::visit(const IntConst&) {}
void Visitor::visit(const FloatConst&) {}
void Visitor::visit(const BoolConst&) {}
void Visitor::visit(const Var&) {}
void Visitor::visit(const Param&) {}
void Visitor::visit(const ArrayLoad& n) {
  for (const Expr& i : n.indices) visit_expr(i);
}
void Visitor::visit(const ArrayShape&) {}
void Visitor::visit(const LocalArrayLoad& n) {
  for (const Expr& i : n.indices) visit_expr(i);
}
void Visitor::visit(const Binary& n) {
  visit_expr(n.a);
  visit_expr(n.b);
}
void Visitor::visit(const Compare& n) {
  visit_expr(n.a);
  visit_expr(n.b);
}
void Visitor::visit(const Logical& n) {
  visit_expr(n.a);
  visit_expr(n.b);
}
void Visitor::visit(const Unary& n) {
  visit_expr(n.a);
}
void Visitor::visit(const Select& n) {
  visit_expr(n.cond);
  visit_expr(n.t);
  visit_expr(n.f);
}
void Visitor::visit(const Cast& n) {
  visit_expr(n.value);
}
void Visitor::visit(const MathCall& n) {
  for (const Expr& a : n.args) visit_expr(a);
}
void Visitor::visit(const ThreadId&) {}
void Visitor::visit(const Barrier&) {}
void Visitor::visit(const AtomicRMW& n) {
  for (const Expr& i : n.indices) visit_expr(i);
  visit_expr(n.value);
}

void Visitor::visit(const Let& n) {
  visit_expr(n.value);
}
void Visitor::visit(const Assign& n) {
  visit_expr(n.value);
}
void Visitor::visit(const ArrayStore& n) {
  visit_expr(n.value);  // Python evaluates the stored value before the target's indices
  for (const Expr& i : n.indices) visit_expr(i);
}
void Visitor::visit(const LocalArrayDecl&) {}
void Visitor::visit(const LocalArrayStore& n) {
  visit_expr(n.value);  // Python evaluates the stored value before the target's indices
  for (const Expr& i : n.indices) visit_expr(i);
}
void Visitor::visit(const Block& n) {
  for (const Stmt& s : n.stmts) visit_stmt(s);
}
void Visitor::visit(const LabeledBlock& n) {
  visit_stmt(n.body);
}
void Visitor::visit(const ExitBlock&) {}
void Visitor::visit(const If& n) {
  visit_expr(n.cond);
  visit_stmt(n.then_body);
  visit_stmt(n.else_body);
}
void Visitor::visit(const For& n) {
  visit_expr(n.start);
  visit_expr(n.stop);
  visit_expr(n.step);
  visit_stmt(n.body);
}
void Visitor::visit(const While& n) {
  visit_expr(n.cond);
  visit_stmt(n.body);
}
void Visitor::visit(const Break&) {}
void Visitor::visit(const Continue&) {}
void Visitor::visit(const ExprStmt& n) {
  visit_expr(n.expr);
}
void Visitor::visit(const Print& n) {
  for (const PrintPart& p : n.parts) {
    if (p.value) visit_expr(p.value);
  }
}
void Visitor::visit(const Assert& n) {
  for (const Stmt& s : n.setup->as<Block>()->stmts) visit_stmt(s);
  visit_expr(n.cond);
  for (const Expr& e : n.iteration) visit_expr(e);
}
void Visitor::visit(const ParallelFor& n) {
  for (const ParallelDim& d : n.dims) {
    visit_expr(d.start);
    visit_expr(d.stop);
    visit_expr(d.step);
  }
  visit_stmt(n.body);
}

// ---------------------------------------------------------------- Mutator

Expr Mutator::mutate_expr(const Expr& e) {
  if (!e) return e;
  switch (e->kind) {
#define TACK_IR_EXPR(Name) \
  case NodeKind::Name:     \
    return mutate(static_cast<const Name&>(*e), e);
#include "ir/nodes.def"
    default:
      TACK_INTERNAL_ASSERT(false,
                           "expression node of statement kind " + std::string(kind_name(e->kind)));
  }
  return e;
}

Stmt Mutator::mutate_stmt(const Stmt& s) {
  if (!s) return s;
  switch (s->kind) {
#define TACK_IR_STMT(Name) \
  case NodeKind::Name:     \
    return mutate(static_cast<const Name&>(*s), s);
#include "ir/nodes.def"
    default:
      TACK_INTERNAL_ASSERT(false,
                           "statement node of expression kind " + std::string(kind_name(s->kind)));
  }
  return s;
}

Function Mutator::mutate_function(const Function& f) {
  Function out = f;
  out.body = mutate_stmt(f.body);
  return out;
}

bool Mutator::mutate_all(const std::vector<Expr>& in, std::vector<Expr>& out) {
  out.clear();
  out.reserve(in.size());
  bool changed = false;
  for (const Expr& e : in) {
    out.push_back(mutate_expr(e));
    changed |= out.back() != e;
  }
  return changed;
}

Expr Mutator::mutate(const IntConst&, const Expr& self) {
  return self;
}
Expr Mutator::mutate(const FloatConst&, const Expr& self) {
  return self;
}
Expr Mutator::mutate(const BoolConst&, const Expr& self) {
  return self;
}
Expr Mutator::mutate(const Var&, const Expr& self) {
  return self;
}
Expr Mutator::mutate(const Param&, const Expr& self) {
  return self;
}
Expr Mutator::mutate(const ArrayShape&, const Expr& self) {
  return self;
}

Expr Mutator::mutate(const ArrayLoad& n, const Expr& self) {
  std::vector<Expr> idx;
  if (!mutate_all(n.indices, idx)) return self;
  return ArrayLoad::make(n.type, n.param, std::move(idx));
}
Expr Mutator::mutate(const LocalArrayLoad& n, const Expr& self) {
  std::vector<Expr> idx;
  if (!mutate_all(n.indices, idx)) return self;
  return LocalArrayLoad::make(n.type, n.name, std::move(idx));
}
Expr Mutator::mutate(const Binary& n, const Expr& self) {
  Expr a = mutate_expr(n.a), b = mutate_expr(n.b);
  if (a == n.a && b == n.b) return self;
  return Binary::make(n.op, std::move(a), std::move(b));
}
Expr Mutator::mutate(const Compare& n, const Expr& self) {
  Expr a = mutate_expr(n.a), b = mutate_expr(n.b);
  if (a == n.a && b == n.b) return self;
  return Compare::make(n.op, std::move(a), std::move(b));
}
Expr Mutator::mutate(const Logical& n, const Expr& self) {
  Expr a = mutate_expr(n.a), b = mutate_expr(n.b);
  if (a == n.a && b == n.b) return self;
  return Logical::make(n.op, std::move(a), std::move(b));
}
Expr Mutator::mutate(const Unary& n, const Expr& self) {
  Expr a = mutate_expr(n.a);
  if (a == n.a) return self;
  return Unary::make(n.op, std::move(a));
}
Expr Mutator::mutate(const Select& n, const Expr& self) {
  Expr c = mutate_expr(n.cond), t = mutate_expr(n.t), f = mutate_expr(n.f);
  if (c == n.cond && t == n.t && f == n.f) return self;
  return Select::make(std::move(c), std::move(t), std::move(f));
}
Expr Mutator::mutate(const Cast& n, const Expr& self) {
  Expr v = mutate_expr(n.value);
  if (v == n.value) return self;
  return Cast::make(n.type, std::move(v));
}
Expr Mutator::mutate(const MathCall& n, const Expr& self) {
  std::vector<Expr> args;
  if (!mutate_all(n.args, args)) return self;
  return MathCall::make(n.fn, std::move(args));
}
Expr Mutator::mutate(const ThreadId&, const Expr& self) {
  return self;
}
Stmt Mutator::mutate(const Barrier&, const Stmt& self) {
  return self;
}
Expr Mutator::mutate(const AtomicRMW& n, const Expr& self) {
  std::vector<Expr> idx;
  bool changed = mutate_all(n.indices, idx);
  Expr v = mutate_expr(n.value);
  if (!changed && v == n.value) return self;
  return AtomicRMW::make(n.op, n.param, std::move(idx), std::move(v));
}

Stmt Mutator::mutate(const Let& n, const Stmt& self) {
  Expr v = mutate_expr(n.value);
  if (v == n.value) return self;
  return Let::make(n.name, std::move(v));
}
Stmt Mutator::mutate(const Assign& n, const Stmt& self) {
  Expr v = mutate_expr(n.value);
  if (v == n.value) return self;
  return Assign::make(n.name, std::move(v));
}
Stmt Mutator::mutate(const ArrayStore& n, const Stmt& self) {
  Expr v = mutate_expr(n.value);  // evaluation order: value, then indices
  std::vector<Expr> idx;
  bool changed = mutate_all(n.indices, idx);
  if (!changed && v == n.value) return self;
  return ArrayStore::make(n.param, std::move(idx), std::move(v), n.streaming);
}
Stmt Mutator::mutate(const LocalArrayDecl&, const Stmt& self) {
  return self;
}
Stmt Mutator::mutate(const LocalArrayStore& n, const Stmt& self) {
  Expr v = mutate_expr(n.value);
  std::vector<Expr> idx;
  bool changed = mutate_all(n.indices, idx);
  if (!changed && v == n.value) return self;
  return LocalArrayStore::make(n.name, std::move(idx), std::move(v));
}
Stmt Mutator::mutate(const Block& n, const Stmt& self) {
  std::vector<Stmt> out;
  out.reserve(n.stmts.size());
  bool changed = false;
  for (const Stmt& s : n.stmts) {
    out.push_back(mutate_stmt(s));
    changed |= out.back() != s;
  }
  if (!changed) return self;
  return Block::make(std::move(out));
}
Stmt Mutator::mutate(const LabeledBlock& n, const Stmt& self) {
  Stmt b = mutate_stmt(n.body);
  if (b == n.body) return self;
  return LabeledBlock::make(n.label, std::move(b));
}
Stmt Mutator::mutate(const ExitBlock&, const Stmt& self) {
  return self;
}
Stmt Mutator::mutate(const If& n, const Stmt& self) {
  Expr c = mutate_expr(n.cond);
  Stmt t = mutate_stmt(n.then_body), e = mutate_stmt(n.else_body);
  if (c == n.cond && t == n.then_body && e == n.else_body) return self;
  return If::make(std::move(c), std::move(t), std::move(e));
}
Stmt Mutator::mutate(const For& n, const Stmt& self) {
  Expr a = mutate_expr(n.start), b = mutate_expr(n.stop), c = mutate_expr(n.step);
  Stmt body = mutate_stmt(n.body);
  if (a == n.start && b == n.stop && c == n.step && body == n.body) return self;
  return For::make(n.name, std::move(a), std::move(b), std::move(c), std::move(body), n.lanes);
}
Stmt Mutator::mutate(const While& n, const Stmt& self) {
  Expr c = mutate_expr(n.cond);
  Stmt body = mutate_stmt(n.body);
  if (c == n.cond && body == n.body) return self;
  return While::make(std::move(c), std::move(body));
}
Stmt Mutator::mutate(const Break&, const Stmt& self) {
  return self;
}
Stmt Mutator::mutate(const Continue&, const Stmt& self) {
  return self;
}
Stmt Mutator::mutate(const ExprStmt& n, const Stmt& self) {
  Expr e = mutate_expr(n.expr);
  if (e == n.expr) return self;
  return ExprStmt::make(std::move(e));
}
Stmt Mutator::mutate(const Print& n, const Stmt& self) {
  std::vector<PrintPart> parts;
  bool changed = false;
  for (const PrintPart& p : n.parts) {
    Expr v = p.value ? mutate_expr(p.value) : nullptr;
    changed |= v != p.value;
    parts.push_back(PrintPart{p.text, std::move(v)});
  }
  if (!changed) return self;
  return Print::make(std::move(parts));
}
Stmt Mutator::mutate(const Assert& n, const Stmt& self) {
  Stmt setup = mutate_stmt(n.setup);
  Expr c = mutate_expr(n.cond);
  std::vector<Expr> it;
  bool changed = c != n.cond || setup != n.setup;
  for (const Expr& e : n.iteration) {
    it.push_back(mutate_expr(e));
    changed |= it.back() != e;
  }
  if (!changed) return self;
  return Assert::make(std::move(setup), std::move(c), n.site, std::move(it));
}
Stmt Mutator::mutate(const ParallelFor& n, const Stmt& self) {
  std::vector<ParallelDim> dims;
  bool changed = false;
  for (const ParallelDim& d : n.dims) {
    ParallelDim m{d.name, mutate_expr(d.start), mutate_expr(d.stop), mutate_expr(d.step)};
    changed |= m.start != d.start || m.stop != d.stop || m.step != d.step;
    dims.push_back(std::move(m));
  }
  Stmt body = mutate_stmt(n.body);
  if (!changed && body == n.body) return self;
  return ParallelFor::make(std::move(dims), std::move(body));
}

namespace {
class BoundNames final : public Visitor {
 public:
  void visit(const Let& n) override {
    names.insert(n.name);
    Visitor::visit(n);
  }
  void visit(const For& n) override {
    names.insert(n.name);
    Visitor::visit(n);
  }
  void visit(const LocalArrayDecl& n) override {
    names.insert(n.name);
    Visitor::visit(n);
  }
  void visit(const LabeledBlock& n) override {
    names.insert(n.label);
    Visitor::visit(n);
  }
  void visit(const ParallelFor& n) override {
    for (const ParallelDim& d : n.dims) names.insert(d.name);
    Visitor::visit(n);
  }
  std::set<std::string> names;
};
}  // namespace

std::set<std::string> bound_names(const Stmt& s) {
  BoundNames b;
  b.visit_stmt(s);
  return std::move(b.names);
}

}  // namespace tack::ir
