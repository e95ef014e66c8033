// Generic traversal of the IR: a Visitor that walks every node, and a Mutator that rebuilds a
// tree and returns the same pointer when nothing changed (so "did a pass change anything" is a
// pointer comparison, and unchanged subtrees stay shared).
#pragma once

#include <set>
#include <string>

#include "ir/ir.hpp"

namespace tack::ir {

// Override the hooks of the nodes you care about; the defaults visit the children in
// evaluation order. Call Visitor::visit(node) from an override to keep walking below it.
class Visitor {
 public:
  virtual ~Visitor() = default;

  // Dispatch on the node's kind. Null pointers (an absent else branch) are ignored.
  void visit_expr(const Expr& e);
  void visit_stmt(const Stmt& s);
  void visit_function(const Function& f) { visit_stmt(f.body); }

#define TACK_IR_EXPR(Name) virtual void visit(const Name& node);
#define TACK_IR_STMT(Name) virtual void visit(const Name& node);
#include "ir/nodes.def"
};

// A visitor that must handle every node: each hook is pure, so a node added to nodes.def does
// not compile until the subclass handles it. The places that must know every node derive from
// it: the printer, the verifier and the LLVM code generator (the C-style printer's switches
// have no default over node kinds, so -Wswitch, an error in every build, names a new one).
class ExhaustiveVisitor : public Visitor {
 public:
#define TACK_IR_EXPR(Name) void visit(const Name& node) override = 0;
#define TACK_IR_STMT(Name) void visit(const Name& node) override = 0;
#include "ir/nodes.def"
};

// Override mutate(const X&, self) hooks; `self` is the node as a shared pointer, to return
// unchanged. The defaults mutate the children and rebuild the node only if a child changed.
class Mutator {
 public:
  virtual ~Mutator() = default;

  Expr mutate_expr(const Expr& e);
  Stmt mutate_stmt(const Stmt& s);
  // The function with its body mutated (params and attributes copied).
  Function mutate_function(const Function& f);

#define TACK_IR_EXPR(Name) virtual Expr mutate(const Name& node, const Expr& self);
#define TACK_IR_STMT(Name) virtual Stmt mutate(const Name& node, const Stmt& self);
#include "ir/nodes.def"

 protected:
  // Mutates each element; true when any changed.
  bool mutate_all(const std::vector<Expr>& in, std::vector<Expr>& out);
};

// Every name s binds (lets, loops and ParallelFor dims, local arrays, labels): a pass that makes
// names or copies code picks names outside this set (the IR forbids shadowing).
std::set<std::string> bound_names(const Stmt& s);

// Calls fn on every expression node below s (pre-order), without a Visitor subclass.
template <class Fn>
void for_each_expr(const Stmt& s, Fn&& fn);

namespace detail {
template <class Fn>
class ExprLambdaVisitor final : public Visitor {
 public:
  explicit ExprLambdaVisitor(Fn& fn) : fn_(fn) {}

#define TACK_IR_EXPR(Name)                   \
  void visit(const Name& node) override {    \
    fn_(static_cast<const ExprNode&>(node)); \
    Visitor::visit(node);                    \
  }
#include "ir/nodes.def"

 private:
  Fn& fn_;
};
}  // namespace detail

template <class Fn>
void for_each_expr(const Stmt& s, Fn&& fn) {
  detail::ExprLambdaVisitor<std::remove_reference_t<Fn>> v(fn);
  v.visit_stmt(s);
}

}  // namespace tack::ir
