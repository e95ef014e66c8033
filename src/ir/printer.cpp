// The IR printer: one line per statement, two-space indentation, parenthesized expressions.
#include "ir/printer.hpp"

#include <charconv>
#include <cmath>
#include <ostream>
#include <sstream>

#include "ir/visitor.hpp"

namespace tack::ir {

namespace {

// Shortest text that reads back as the same value of the constant's type; always shows it is a
// float ("1.0", not "1").
std::string float_text(ScalarType t, double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::to_chars_result r = t == ScalarType::f32
                               ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(v))
                               : std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string int_text(ScalarType t, int64_t v) {
  if (t == ScalarType::u64) return std::to_string(static_cast<uint64_t>(v));
  return std::to_string(v);
}

class Printer final : public ExhaustiveVisitor {
 public:
  Printer(std::ostream& os, const Function* fn) : os_(os), fn_(fn) {}

  void print_function(const Function& f) {
    os_ << "kernel " << f.name << "(";
    for (size_t i = 0; i < f.params.size(); ++i) {
      const ParamDecl& p = f.params[i];
      if (i) os_ << ", ";
      os_ << p.name << ": ";
      if (p.is_array()) {
        os_ << to_string(p.array_type());
      } else {
        os_ << name(p.type);
      }
    }
    os_ << ") default_float=" << name(f.default_float) << " ";
    print_body(f.body);
    os_ << "\n";
  }

  // A statement as the body of a construct: braces, contents indented.
  void print_body(const Stmt& s) {
    os_ << "{\n";
    ++indent_;
    if (const Block* b = s ? s->as<Block>() : nullptr) {
      for (const Stmt& st : b->stmts) print_line(st);
    } else if (s) {
      print_line(s);
    }
    --indent_;
    pad();
    os_ << "}";
  }

  void print_line(const Stmt& s) {
    pad();
    visit_stmt(s);
    os_ << "\n";
  }

  void visit(const IntConst& n) override {
    os_ << int_text(n.type, n.value) << ":" << name(n.type);
  }
  void visit(const FloatConst& n) override {
    os_ << float_text(n.type, n.value) << ":" << name(n.type);
  }
  void visit(const BoolConst& n) override { os_ << (n.value ? "true" : "false"); }
  void visit(const Var& n) override { os_ << n.name; }
  void visit(const Param& n) override { os_ << param_name(n.index); }
  void visit(const ArrayLoad& n) override {
    os_ << param_name(n.param);
    print_indices(n.indices);
  }
  void visit(const ArrayShape& n) override {
    os_ << param_name(n.param) << ".shape[" << n.dim << "]";
  }
  void visit(const LocalArrayLoad& n) override {
    os_ << n.name;
    print_indices(n.indices);
  }
  void visit(const Binary& n) override { infix(n.a, op_name(n.op), n.b); }
  void visit(const Compare& n) override { infix(n.a, op_name(n.op), n.b); }
  void visit(const Logical& n) override { infix(n.a, op_name(n.op), n.b); }
  void visit(const Unary& n) override {
    os_ << "(" << op_name(n.op) << (n.op == UnaryOp::Not ? " " : "");
    visit_expr(n.a);
    os_ << ")";
  }
  void visit(const Select& n) override {
    os_ << "select(";
    visit_expr(n.cond);
    os_ << ", ";
    visit_expr(n.t);
    os_ << ", ";
    visit_expr(n.f);
    os_ << ")";
  }
  void visit(const Cast& n) override {
    os_ << name(n.type) << "(";
    visit_expr(n.value);
    os_ << ")";
  }
  void visit(const MathCall& n) override {
    os_ << fn_name(n.fn) << "(";
    for (size_t i = 0; i < n.args.size(); ++i) {
      if (i) os_ << ", ";
      visit_expr(n.args[i]);
    }
    os_ << ")";
  }
  void visit(const AtomicRMW& n) override {
    os_ << op_name(n.op) << "(" << param_name(n.param);
    print_indices(n.indices);
    os_ << ", ";
    visit_expr(n.value);
    os_ << ")";
  }

  void visit(const Let& n) override {
    os_ << "let " << n.name << ": " << name(n.value->type) << " = ";
    visit_expr(n.value);
  }
  void visit(const Assign& n) override {
    os_ << n.name << " = ";
    visit_expr(n.value);
  }
  void visit(const ArrayStore& n) override {
    os_ << param_name(n.param);
    print_indices(n.indices);
    os_ << (n.streaming ? " = stream " : " = ");
    visit_expr(n.value);
  }
  void visit(const ThreadId&) override { os_ << "thread_id()"; }
  void visit(const Barrier&) override { os_ << "barrier"; }
  void visit(const LocalArrayDecl& n) override {
    os_ << (n.shared ? "shared " : "local ") << n.name << ": " << name(n.elem) << "[";
    for (size_t i = 0; i < n.dims.size(); ++i) os_ << (i ? ", " : "") << n.dims[i];
    os_ << "]";
  }
  void visit(const LocalArrayStore& n) override {
    os_ << n.name;
    print_indices(n.indices);
    os_ << " = ";
    visit_expr(n.value);
  }
  void visit(const Block& n) override {
    os_ << "block ";
    print_body(Block::make(n.stmts));
  }
  void visit(const LabeledBlock& n) override {
    os_ << "label " << n.label << " ";
    print_body(n.body);
  }
  void visit(const ExitBlock& n) override { os_ << "exit " << n.label; }
  void visit(const If& n) override {
    os_ << "if ";
    visit_expr(n.cond);
    os_ << " ";
    print_body(n.then_body);
    if (n.else_body) {
      os_ << " else ";
      print_body(n.else_body);
    }
  }
  void visit(const For& n) override {
    os_ << "for " << n.name << ": " << name(n.type()) << " in ";
    print_range(n.start, n.stop, n.step);
    os_ << " ";
    print_body(n.body);
  }
  void visit(const While& n) override {
    os_ << "while ";
    visit_expr(n.cond);
    os_ << " ";
    print_body(n.body);
  }
  void visit(const Break&) override { os_ << "break"; }
  void visit(const Continue&) override { os_ << "continue"; }
  void visit(const ExprStmt& n) override {
    os_ << "eval ";
    visit_expr(n.expr);
  }
  void visit(const Print& n) override {
    os_ << "print";
    for (const PrintPart& p : n.parts) {
      os_ << " ";
      if (p.value) {
        visit_expr(p.value);
        continue;
      }
      os_ << '"';
      for (char c : p.text) {
        if (c == '\n') {
          os_ << "\\n";
        } else if (c == '"' || c == '\\') {
          os_ << '\\' << c;
        } else {
          os_ << c;
        }
      }
      os_ << '"';
    }
  }
  void visit(const Assert& n) override {
    os_ << "assert #" << n.site << " ";
    if (!n.setup->as<Block>()->stmts.empty()) {
      print_body(n.setup);
      os_ << " then ";
    }
    visit_expr(n.cond);
  }
  void visit(const ParallelFor& n) override {
    os_ << "parallel for ";
    for (size_t i = 0; i < n.dims.size(); ++i) {
      const ParallelDim& d = n.dims[i];
      if (i) os_ << ", ";
      os_ << d.name << ": " << name(d.type()) << " in ";
      print_range(d.start, d.stop, d.step);
    }
    os_ << " ";
    print_body(n.body);
  }

 private:
  void pad() {
    for (int i = 0; i < indent_; ++i) os_ << "  ";
  }
  std::string param_name(int index) const {
    if (fn_ && index >= 0 && static_cast<size_t>(index) < fn_->params.size()) {
      return fn_->params[index].name;
    }
    return "$" + std::to_string(index);
  }
  void print_indices(const std::vector<Expr>& idx) {
    os_ << "[";
    for (size_t i = 0; i < idx.size(); ++i) {
      if (i) os_ << ", ";
      visit_expr(idx[i]);
    }
    os_ << "]";
  }
  void infix(const Expr& a, std::string_view op, const Expr& b) {
    os_ << "(";
    visit_expr(a);
    os_ << " " << op << " ";
    visit_expr(b);
    os_ << ")";
  }
  void print_range(const Expr& a, const Expr& b, const Expr& c) {
    os_ << "range(";
    visit_expr(a);
    os_ << ", ";
    visit_expr(b);
    os_ << ", ";
    visit_expr(c);
    os_ << ")";
  }

  std::ostream& os_;
  const Function* fn_;
  int indent_ = 0;
};

}  // namespace

std::string to_string(const Expr& e, const Function* fn) {
  std::ostringstream os;
  Printer p(os, fn);
  if (e) {
    p.visit_expr(e);
  } else {
    os << "<null>";
  }
  return os.str();
}

std::string to_string(const Stmt& s, const Function* fn) {
  std::ostringstream os;
  Printer p(os, fn);
  if (s) {
    p.visit_stmt(s);
  } else {
    os << "<null>";
  }
  return os.str();
}

std::string to_string(const Function& f) {
  std::ostringstream os;
  os << f;
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Function& f) {
  Printer p(os, &f);
  p.print_function(f);
  return os;
}

}  // namespace tack::ir
