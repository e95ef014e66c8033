// Names of AST kinds and operators, Module lookup, and the S-expression dump used by tests.
#include "frontend/ast.hpp"

#include <charconv>
#include <cmath>
#include <sstream>

namespace tack::frontend {

std::string_view kind_name(ExprKind kind) {
  switch (kind) {
#define TACK_X(name)   \
  case ExprKind::name: \
    return #name;
    TACK_FRONTEND_EXPRS(TACK_X)
#undef TACK_X
  }
  return "?";
}

std::string_view kind_name(StmtKind kind) {
  switch (kind) {
#define TACK_X(name)   \
  case StmtKind::name: \
    return #name;
    TACK_FRONTEND_STMTS(TACK_X)
#undef TACK_X
  }
  return "?";
}

std::string_view spelling(UnaryOp op) {
  return operators::spelling_in(operators::kUnary, op, "+");
}

std::string_view spelling(BinaryOp op) {
  return operators::spelling_in(operators::kBinary, op, "@");
}

std::string_view spelling(LogicalOp op) {
  return operators::spelling_in(operators::kLogical, op);
}

std::string_view spelling(CompareOp op) {
  return operators::spelling_in(operators::kCompare, op);
}

const FunctionDef* Module::find(std::string_view name) const {
  for (const FunctionDef& f : functions) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const FunctionDef* Module::find_callee(std::string_view caller, std::string_view called) const {
  for (const FunctionAlias& a : aliases) {
    if (a.function == caller && a.name == called) return find(a.target);
  }
  if (called.find('.') != std::string_view::npos) return nullptr;  // tack.x, math.x: builtins
  return find(called);
}

std::string Module::canonical(std::string_view caller, const std::string& name) const {
  for (const FunctionAlias& a : aliases) {
    if (a.function != caller || find(a.target) != nullptr) continue;
    if (name == a.name) return a.target;
    if (name.size() > a.name.size() && name.compare(0, a.name.size(), a.name) == 0 &&
        name[a.name.size()] == '.') {
      return a.target + name.substr(a.name.size());
    }
  }
  return name;
}

bool assigns_names_only(const Expr& target) {
  if (target.is<Name>()) return true;
  const auto* t = target.as<Tuple>();
  if (!t) return false;
  for (const ExprPtr& e : t->elements) {
    if (!assigns_names_only(*e)) return false;
  }
  return true;
}

std::string dotted_name(const Expr& callee) {
  if (const auto* n = callee.as<Name>()) return n->id;
  if (const auto* a = callee.as<Attribute>()) {
    std::string base = dotted_name(*a->value);
    return base.empty() ? base : base + "." + a->attr;
  }
  return {};
}

namespace {

// Shortest text that reads back to the same double, always with a '.', 'e', "inf" or "nan" so
// that it cannot be mistaken for an integer.
std::string format_float(double value) {
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (std::isnan(value)) return "nan";
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  std::string text(buffer, result.ptr);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

class Dumper {
 public:
  explicit Dumper(DumpOptions options) : options_(options) {}

  std::string take() { return out_.str(); }

  void loc(SourceLoc l) {
    if (options_.locations) out_ << '@' << l.line << ':' << l.column;
  }

  void expr(const Expr& e) {
    visit(e, [&](const auto& node) { expr_node(node); });
  }

  void head(std::string_view name, SourceLoc l) {
    out_ << '(' << name;
    loc(l);
  }

  void expr_node(const IntLiteral& e) {
    out_ << e.value;
    loc(e.loc);
  }
  void expr_node(const FloatLiteral& e) {
    out_ << format_float(e.value);
    loc(e.loc);
  }
  void expr_node(const BoolLiteral& e) {
    out_ << (e.value ? "True" : "False");
    loc(e.loc);
  }
  void expr_node(const Name& e) {
    out_ << e.id;
    loc(e.loc);
  }
  void expr_node(const Attribute& e) {
    head(".", e.loc);
    out_ << ' ';
    expr(*e.value);
    out_ << ' ' << e.attr << ')';
  }
  void expr_node(const Subscript& e) {
    head("[]", e.loc);
    out_ << ' ';
    expr(*e.value);
    if (e.none) out_ << " None";
    list(e.indices);
    out_ << ')';
  }
  void expr_node(const Call& e) {
    head("call", e.loc);
    out_ << ' ';
    expr(*e.func);
    list(e.args);
    out_ << ')';
  }
  void expr_node(const Unary& e) {
    head(spelling(e.op), e.loc);
    out_ << ' ';
    expr(*e.operand);
    out_ << ')';
  }
  void expr_node(const Binary& e) {
    head(spelling(e.op), e.op_loc);
    out_ << ' ';
    expr(*e.lhs);
    out_ << ' ';
    expr(*e.rhs);
    out_ << ')';
  }
  void expr_node(const Logical& e) {
    head(spelling(e.op), e.op_loc);
    out_ << ' ';
    expr(*e.lhs);
    out_ << ' ';
    expr(*e.rhs);
    out_ << ')';
  }
  void expr_node(const Compare& e) {
    head("cmp", e.loc);
    out_ << ' ';
    expr(*e.first);
    for (std::size_t i = 0; i < e.ops.size(); ++i) {
      out_ << ' ' << spelling(e.ops[i]);
      loc(e.op_locs[i]);
      out_ << ' ';
      expr(*e.rest[i]);
    }
    out_ << ')';
  }
  void expr_node(const Conditional& e) {
    head("ifexp", e.loc);
    out_ << ' ';
    expr(*e.cond);
    out_ << ' ';
    expr(*e.then_value);
    out_ << ' ';
    expr(*e.else_value);
    out_ << ')';
  }
  void expr_node(const Tuple& e) {
    head(e.list ? "list" : "tuple", e.loc);
    list(e.elements);
    out_ << ')';
  }

  void expr_node(const String& e) {
    head("string", e.loc);
    out_ << ' ' << e.value.size() << ')';
  }

  void list(const std::vector<ExprPtr>& v) {
    for (const ExprPtr& x : v) {
      out_ << ' ';
      expr(*x);
    }
  }

  void newline(int depth) {
    out_ << '\n';
    for (int i = 0; i < depth; ++i) out_ << "  ";
  }

  void block(const Block& b, int depth) {
    for (const StmtPtr& s : b) {
      newline(depth);
      stmt(*s, depth);
    }
  }

  void stmt(const Stmt& s, int depth) {
    visit(s, [&](const auto& node) { stmt_node(node, depth); });
  }

  void stmt_node(const Assign& s, int) {
    head("=", s.loc);
    out_ << ' ';
    expr(*s.target);
    out_ << ' ';
    expr(*s.value);
    out_ << ')';
  }
  void stmt_node(const AugAssign& s, int) {
    head(std::string(spelling(s.op)) + "=", s.loc);
    out_ << ' ';
    expr(*s.target);
    out_ << ' ';
    expr(*s.value);
    out_ << ')';
  }
  void stmt_node(const ExprStmt& s, int) {
    head("expr", s.loc);
    out_ << ' ';
    expr(*s.value);
    out_ << ')';
  }
  void stmt_node(const If& s, int depth) {
    for (std::size_t i = 0; i < s.branches.size(); ++i) {
      const If::Branch& b = s.branches[i];
      if (i > 0) newline(depth + 1);
      head(i == 0 ? "if" : "elif", b.loc);
      out_ << ' ';
      expr(*b.cond);
      block(b.body, depth + (i == 0 ? 1 : 2));
      if (i > 0) out_ << ')';
    }
    if (s.has_else) {
      newline(depth + 1);
      head("else", s.else_loc);
      block(s.else_body, depth + 2);
      out_ << ')';
    }
    out_ << ')';
  }
  void stmt_node(const For& s, int depth) {
    head("for", s.loc);
    out_ << " (";
    for (std::size_t i = 0; i < s.targets.size(); ++i) {
      if (i > 0) out_ << ' ';
      out_ << s.targets[i].name;
      loc(s.targets[i].loc);
    }
    out_ << ") ";
    head(s.range == LoopRange::Range ? "range" : "ndrange", s.iter_loc);
    list(s.args);
    out_ << ')';
    block(s.body, depth + 1);
    out_ << ')';
  }
  void stmt_node(const While& s, int depth) {
    head("while", s.loc);
    out_ << ' ';
    expr(*s.cond);
    block(s.body, depth + 1);
    out_ << ')';
  }
  void stmt_node(const Break& s, int) {
    head("break", s.loc);
    out_ << ')';
  }
  void stmt_node(const Continue& s, int) {
    head("continue", s.loc);
    out_ << ')';
  }
  void stmt_node(const Pass& s, int) {
    head("pass", s.loc);
    out_ << ')';
  }
  void stmt_node(const Assert& s, int) {
    head("assert", s.loc);
    out_ << ' ';
    expr(*s.test);
    out_ << ')';
  }

  void stmt_node(const Return& s, int) {
    head("return", s.loc);
    if (s.value) {
      out_ << ' ';
      expr(*s.value);
    }
    out_ << ')';
  }

  void function(const FunctionDef& f, int depth) {
    head("def", f.loc);
    out_ << ' ' << f.name << ' '
         << (f.kind == FunctionKind::Kernel ? "kernel"
             : f.kind == FunctionKind::Func ? "func"
                                            : "plain")
         << " (";
    for (std::size_t i = 0; i < f.params.size(); ++i) {
      const Param& p = f.params[i];
      if (i > 0) out_ << ' ';
      if (p.annotation) {
        out_ << "(: " << p.name;
        loc(p.loc);
        out_ << ' ';
        expr(*p.annotation);
        out_ << ')';
      } else {
        out_ << p.name;
        loc(p.loc);
      }
    }
    out_ << ')';
    if (f.returns) {
      out_ << " (-> ";
      expr(*f.returns);
      out_ << ')';
    }
    if (!f.docstring.empty()) out_ << " (doc)";
    block(f.body, depth + 1);
    out_ << ')';
  }

 private:
  DumpOptions options_;
  std::ostringstream out_;
};

}  // namespace

std::string dump(const Module& module, DumpOptions options) {
  std::string text;
  for (const FunctionDef& f : module.functions) {
    text += dump(f, options);
    text += '\n';
  }
  return text;
}

std::string dump(const FunctionDef& function, DumpOptions options) {
  Dumper d(options);
  d.function(function, 0);
  return d.take();
}

std::string dump(const Stmt& stmt, DumpOptions options) {
  Dumper d(options);
  d.stmt(stmt, 0);
  return d.take();
}

std::string dump(const Expr& expr, DumpOptions options) {
  Dumper d(options);
  d.expr(expr);
  return d.take();
}

}  // namespace tack::frontend
