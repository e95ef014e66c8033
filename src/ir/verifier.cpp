// The IR verifier: one walk over the function with a scope stack, collecting every problem.
#include "ir/verifier.hpp"

#include <limits>
#include <type_traits>

#include "ir/printer.hpp"
#include "ir/visitor.hpp"
#include "support/error.hpp"

namespace tack::ir {

namespace {

struct Local {
  std::string name;
  ScalarType type;
  int array_dims = 0;    // > 0 for a local array
  bool prelude = false;  // declared outside the ParallelFor
};

bool normalized(ScalarType t, int64_t v) {
  switch (t) {
    case ScalarType::i8:
      return v >= INT8_MIN && v <= INT8_MAX;
    case ScalarType::i16:
      return v >= INT16_MIN && v <= INT16_MAX;
    case ScalarType::i32:
      return v >= INT32_MIN && v <= INT32_MAX;
    case ScalarType::u8:
      return v >= 0 && v <= UINT8_MAX;
    case ScalarType::u16:
      return v >= 0 && v <= UINT16_MAX;
    case ScalarType::u32:
      return v >= 0 && v <= static_cast<int64_t>(UINT32_MAX);
    default:
      return true;
  }
}

class Verifier final : public ExhaustiveVisitor {
 public:
  explicit Verifier(const Function& f) : fn_(f) {}

  std::vector<std::string> run() {
    check_params();
    if (fn_.default_float != ScalarType::f32 && fn_.default_float != ScalarType::f64) {
      error("default_float must be f32 or f64, not " + std::string(name(fn_.default_float)));
    }
    const Block* body = fn_.body ? fn_.body->as<Block>() : nullptr;
    if (!body) {
      error("the function body must be a Block");
      return errors_;
    }
    if (!fn_.parallel_for()) {
      error("the function body must end with its one ParallelFor");
    }
    scopes_.emplace_back();
    for (size_t i = 0; i < body->stmts.size(); ++i) {
      const Stmt& s = body->stmts[i];
      if (!s) {
        error("null statement in the function body");
        continue;
      }
      if (const ParallelFor* pf = s->as<ParallelFor>()) {
        if (i + 1 != body->stmts.size()) error("statements after the ParallelFor");
        check_parallel_for(*pf);
      } else {
        in_prelude_ = true;
        visit_stmt(s);
        in_prelude_ = false;
      }
    }
    scopes_.pop_back();
    return errors_;
  }

  // ------------------------------------------------------------ expressions
  void visit(const IntConst& n) override {
    if (!is_int(n.type))
      error("IntConst of type " + type_name(n.type));
    else if (!normalized(n.type, n.value))
      error("IntConst not wrapped to its type: " + str(n));
  }
  void visit(const FloatConst& n) override {
    if (!is_float(n.type))
      error("FloatConst of type " + type_name(n.type));
    else if (n.type == ScalarType::f32 && n.value == n.value &&
             static_cast<double>(static_cast<float>(n.value)) != n.value) {
      error("f32 FloatConst not exactly a float: " + str(n));
    }
  }
  void visit(const BoolConst& n) override {
    if (n.type != ScalarType::boolean) error("BoolConst of type " + type_name(n.type));
  }
  void visit(const Var& n) override {
    const Local* l = lookup(n.name);
    if (!l) return error("use of undefined local '" + n.name + "'");
    if (l->array_dims) return error("local array '" + n.name + "' read as a scalar");
    if (l->type != n.type) {
      error("local '" + n.name + "' is " + type_name(l->type) + ", read as " + type_name(n.type));
    }
  }
  void visit(const Param& n) override {
    const ParamDecl* p = param(n.index, "Param");
    if (!p) return;
    if (p->is_array()) return error("array parameter '" + p->name + "' used as a scalar");
    if (p->type != n.type) {
      error("parameter '" + p->name + "' is " + type_name(p->type) + ", read as " +
            type_name(n.type));
    }
  }
  void visit(const ArrayLoad& n) override {
    check_array_access(n.param, n.indices, n.type, "load", str(n));
    Visitor::visit(n);
  }
  void visit(const ArrayShape& n) override {
    const ParamDecl* p = param(n.param, "ArrayShape");
    if (!p) return;
    if (!p->is_array()) return error("shape of scalar parameter '" + p->name + "'");
    if (n.dim < 0 || n.dim >= p->array_type().index_count()) {
      error("shape dimension " + std::to_string(n.dim) + " out of range for '" + p->name + "'");
    }
    if (n.type != ScalarType::i64) error("ArrayShape must be i64: " + str(n));
  }
  void visit(const LocalArrayLoad& n) override {
    check_local_access(n.name, n.indices, n.type, str(n));
    Visitor::visit(n);
  }
  void visit(const Binary& n) override {
    Visitor::visit(n);
    if (!same(n.a, n.b, str(n))) return;
    ScalarType t = n.a->type;
    if (n.type != t) error("Binary result type differs from its operands: " + str(n));
    bool ok = true;
    switch (n.op) {
      case BinaryOp::TrueDiv:
        ok = is_float(t);
        break;
      case BinaryOp::BitAnd:
      case BinaryOp::BitOr:
      case BinaryOp::BitXor:
        ok = is_int(t) || is_bool(t);
        break;
      case BinaryOp::Shl:
      case BinaryOp::Shr:
        ok = is_int(t);
        break;
      default:
        ok = is_numeric(t);
    }
    if (!ok) error("operator '" + std::string(op_name(n.op)) + "' on " + type_name(t));
  }
  void visit(const Compare& n) override {
    Visitor::visit(n);
    same(n.a, n.b, str(n));
    if (n.type != ScalarType::boolean) error("Compare must be bool: " + str(n));
  }
  void visit(const Logical& n) override {
    Visitor::visit(n);
    if (!n.a || !n.b) return error("Logical with a null operand");
    if (!is_bool(n.a->type) || !is_bool(n.b->type) || !is_bool(n.type)) {
      error("'and'/'or' take and give bool: " + str(n));
    }
  }
  void visit(const Unary& n) override {
    Visitor::visit(n);
    if (!n.a) return error("Unary with a null operand");
    ScalarType t = n.a->type;
    bool ok = n.op == UnaryOp::Neg      ? is_numeric(t)
              : n.op == UnaryOp::Invert ? is_int(t)
                                        : is_bool(t);
    if (!ok) error("operator '" + std::string(op_name(n.op)) + "' on " + type_name(t));
    if (n.type != t) error("Unary result type differs from its operand: " + str(n));
  }
  void visit(const Select& n) override {
    Visitor::visit(n);
    if (!n.cond || !is_bool(n.cond->type)) error("select condition must be bool: " + str(n));
    if (same(n.t, n.f, str(n)) && n.type != n.t->type) error("select type mismatch: " + str(n));
  }
  void visit(const Cast& n) override {
    if (!n.value) return error("Cast of null");
    Visitor::visit(n);
  }
  void visit(const MathCall& n) override {
    Visitor::visit(n);
    if (static_cast<int>(n.args.size()) != arity(n.fn)) {
      return error(std::string(fn_name(n.fn)) + " takes " + std::to_string(arity(n.fn)) +
                   " arguments: " + str(n));
    }
    for (const Expr& a : n.args) {
      if (!a) return error("null math argument");
      if (a->type != n.args[0]->type) return error("math arguments differ in type: " + str(n));
    }
    ScalarType t = n.args[0]->type;
    bool any_numeric = n.fn == MathFn::Abs || n.fn == MathFn::Min || n.fn == MathFn::Max;
    if (any_numeric ? !is_numeric(t) : !is_float(t)) {
      error(std::string(fn_name(n.fn)) + " of " + type_name(t));
    }
    bool pred = n.fn == MathFn::IsNan || n.fn == MathFn::IsInf || n.fn == MathFn::IsFinite;
    if (n.type != (pred ? ScalarType::boolean : t)) error("math result type wrong: " + str(n));
  }
  void visit(const AtomicRMW& n) override {
    if (in_prelude_) error("atomic in the prelude (it must be effect-free): " + str(n));
    check_array_access(n.param, n.indices, n.type, "atomic", str(n));
    Visitor::visit(n);
    if (!n.value || n.value->type != n.type) error("atomic value type mismatch: " + str(n));
    if (!is_numeric(n.type)) error("atomic on " + type_name(n.type));
  }

  // ------------------------------------------------------------ statements
  void visit(const Let& n) override {
    Visitor::visit(n);
    if (!n.value) return error("Let without a value");
    declare(Local{n.name, n.value->type, 0, in_prelude_});
  }
  void visit(const Assign& n) override {
    Visitor::visit(n);
    const Local* l = lookup(n.name);
    if (!l) return error("assignment to undefined local '" + n.name + "'");
    if (l->array_dims) return error("assignment to local array '" + n.name + "' as a whole");
    if (n.value && n.value->type != l->type) {
      error("assignment of " + type_name(n.value->type) + " to " + type_name(l->type) + " local '" +
            n.name + "'");
    }
    if (l->prelude && !in_prelude_) {
      error("prelude local '" + n.name +
            "' assigned inside the ParallelFor (shared by all "
            "iterations)");
    }
  }
  void visit(const ArrayStore& n) override {
    if (in_prelude_) error("array store in the prelude (it must be effect-free)");
    ScalarType elem = n.value ? n.value->type : ScalarType::boolean;
    check_array_access(n.param, n.indices, elem, "store", str(n));
    Visitor::visit(n);
  }
  void visit(const LocalArrayDecl& n) override {
    if (in_prelude_) error("local array '" + n.name + "' in the prelude");
    if (n.dims.empty() || n.dims.size() > 3) error("local array '" + n.name + "' needs 1-3 dims");
    int64_t total = bytes_in_memory(n.elem);
    for (int64_t d : n.dims) {
      if (d <= 0) return error("local array '" + n.name + "' has a non-positive extent");
      total = total > kMaxLocalArrayBytes ? total : total * d;
    }
    if (total > kMaxLocalArrayBytes) {
      error("local array '" + n.name + "' is larger than " + std::to_string(kMaxLocalArrayBytes) +
            " bytes");
    }
    declare(Local{n.name, n.elem, static_cast<int>(n.dims.size()), in_prelude_});
  }
  void visit(const LocalArrayStore& n) override {
    if (in_prelude_) error("local array store in the prelude");
    check_local_access(n.name, n.indices, n.value ? n.value->type : ScalarType::boolean,
                       "store to " + n.name);
    Visitor::visit(n);
  }
  void visit(const Block& n) override {
    scopes_.emplace_back();
    for (const Stmt& s : n.stmts) {
      if (!s) error("null statement in a Block");
      visit_stmt(s);
    }
    scopes_.pop_back();
  }
  void visit(const LabeledBlock& n) override {
    for (const std::string& l : labels_) {
      if (l == n.label) error("label '" + n.label + "' shadows an enclosing label");
    }
    labels_.push_back(n.label);
    scoped(n.body);
    labels_.pop_back();
  }
  void visit(const ExitBlock& n) override {
    for (const std::string& l : labels_) {
      if (l == n.label) return;
    }
    error("exit of label '" + n.label + "' outside that LabeledBlock");
  }
  void visit(const If& n) override {
    visit_expr(n.cond);
    if (!n.cond || !is_bool(n.cond->type)) error("if condition must be bool");
    scoped(n.then_body);
    scoped(n.else_body);
  }
  void visit(const For& n) override {
    visit_expr(n.start);
    visit_expr(n.stop);
    visit_expr(n.step);
    check_range(n.name, n.start, n.stop, n.step);
    scopes_.emplace_back();
    if (n.start) declare(Local{n.name, n.start->type, 0, in_prelude_});
    ++loop_depth_;
    visit_stmt(n.body);
    --loop_depth_;
    scopes_.pop_back();
  }
  void visit(const While& n) override {
    visit_expr(n.cond);
    if (!n.cond || !is_bool(n.cond->type)) error("while condition must be bool");
    ++loop_depth_;
    scoped(n.body);
    --loop_depth_;
  }
  void visit(const Break&) override {
    if (loop_depth_ == 0) error("break outside a loop (the ParallelFor cannot be left early)");
  }
  void visit(const Continue&) override {
    if (loop_depth_ == 0 && !in_parallel_) error("continue outside a loop");
  }
  void visit(const ExprStmt& n) override {
    if (!n.expr) return error("ExprStmt without an expression");
    Visitor::visit(n);
  }
  void visit(const ThreadId&) override {
    if (!in_parallel_) error("thread_id() outside the ParallelFor");
  }
  void visit(const Barrier&) override {
    if (!in_parallel_) error("barrier outside the ParallelFor");
  }
  void visit(const Print& n) override {
    for (const PrintPart& p : n.parts) {
      if (p.value && p.value->type == ScalarType::boolean) continue;
      if (p.value && !is_int(p.value->type) && !is_float(p.value->type)) {
        error("print of a value of type " + std::string(name(p.value->type)));
      }
    }
    Visitor::visit(n);
  }
  void visit(const Assert& n) override {
    if (!n.cond || n.cond->type != ScalarType::boolean) error("assert of a non-bool condition");
    if (n.site < 0 || static_cast<size_t>(n.site) >= fn_.asserts.size()) {
      error("assert site " + std::to_string(n.site) + " out of range");
    }
    if (!in_parallel_) error("assert outside the ParallelFor");
    if (n.iteration.empty() || n.iteration.size() > 3) error("assert without its iteration");
    for (const Expr& e : n.iteration) {
      if (!e || e->type != ScalarType::i64) error("assert iteration values must be i64");
    }
    scopes_.emplace_back();  // the setup's locals are in scope for the condition
    Visitor::visit(n);
    scopes_.pop_back();
  }
  void visit(const ParallelFor&) override {
    error("a ParallelFor that is not the last statement of the function body");
  }

 private:
  void check_params() {
    for (size_t i = 0; i < fn_.params.size(); ++i) {
      const ParamDecl& p = fn_.params[i];
      for (size_t j = 0; j < i; ++j) {
        if (fn_.params[j].name == p.name) error("duplicate parameter name '" + p.name + "'");
      }
      if (p.is_array()) {
        if (p.rank < 1 || p.rank > 3) error("array parameter '" + p.name + "' has rank 1-3");
        if (p.vec_width < 0) error("array parameter '" + p.name + "' has a negative vec width");
      } else if (p.rank != 0 || p.vec_width != 0) {
        error("scalar parameter '" + p.name + "' has a rank or vector width");
      }
    }
  }

  void check_parallel_for(const ParallelFor& pf) {
    if (pf.dims.empty() || pf.dims.size() > 3) error("the ParallelFor has 1 to 3 dims");
    in_prelude_ = true;  // the bounds are evaluated once, before any iteration
    for (const ParallelDim& d : pf.dims) {
      visit_expr(d.start);
      visit_expr(d.stop);
      visit_expr(d.step);
      check_range(d.name, d.start, d.stop, d.step);
    }
    in_prelude_ = false;
    in_parallel_ = true;
    scopes_.emplace_back();
    for (const ParallelDim& d : pf.dims) {
      if (d.start) declare(Local{d.name, d.start->type, 0, false});
    }
    visit_stmt(pf.body);
    scopes_.pop_back();
    in_parallel_ = false;
  }

  void check_range(const std::string& var, const Expr& a, const Expr& b, const Expr& c) {
    if (!a || !b || !c) return error("range of '" + var + "' has a null bound");
    if (!is_int(a->type)) error("range of '" + var + "' is not over integers");
    if (a->type != b->type || a->type != c->type) {
      error("range bounds of '" + var + "' differ in type");
    }
  }

  void check_array_access(int index, const std::vector<Expr>& idx, ScalarType elem,
                          const char* what, const std::string& text) {
    const ParamDecl* p = param(index, what);
    if (!p) return;
    if (!p->is_array()) return error(std::string(what) + " through scalar '" + p->name + "'");
    if (static_cast<int>(idx.size()) != p->array_type().index_count()) {
      error(std::string(what) + " of '" + p->name + "' with " + std::to_string(idx.size()) +
            " indices, needs " + std::to_string(p->array_type().index_count()));
    }
    for (const Expr& i : idx) {
      if (!i || !is_int(i->type)) error(std::string(what) + " index is not an integer");
    }
    if (elem != p->type) {
      error(std::string(what) + " of '" + p->name + "' (" + type_name(p->type) + ") as " +
            type_name(elem) + (text.empty() ? "" : ": " + text));
    }
  }

  void check_local_access(const std::string& n, const std::vector<Expr>& idx, ScalarType elem,
                          const std::string& text) {
    const Local* l = lookup(n);
    if (!l) return error("use of undefined local array '" + n + "'");
    if (!l->array_dims) return error("scalar local '" + n + "' indexed");
    if (static_cast<int>(idx.size()) != l->array_dims) {
      error("local array '" + n + "' indexed with " + std::to_string(idx.size()) + " indices");
    }
    for (const Expr& i : idx) {
      if (!i || !is_int(i->type)) error("local array index is not an integer: " + text);
    }
    if (l->type != elem) error("local array '" + n + "' element type mismatch: " + text);
  }

  const ParamDecl* param(int index, const char* what) {
    if (index < 0 || static_cast<size_t>(index) >= fn_.params.size()) {
      error(std::string(what) + " of parameter " + std::to_string(index) +
            ", which does not exist");
      return nullptr;
    }
    return &fn_.params[index];
  }

  bool same(const Expr& a, const Expr& b, const std::string& text) {
    if (!a || !b) {
      error("null operand");
      return false;
    }
    if (a->type != b->type) {
      error("operands differ in type (" + type_name(a->type) + ", " + type_name(b->type) +
            "): " + text);
      return false;
    }
    return true;
  }

  void scoped(const Stmt& s) {
    if (!s) return;
    scopes_.emplace_back();
    visit_stmt(s);
    scopes_.pop_back();
  }

  void declare(Local l) {
    if (lookup(l.name)) return error("'" + l.name + "' is already defined in this scope");
    scopes_.back().push_back(std::move(l));
  }

  const Local* lookup(const std::string& n) const {
    for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
      for (const Local& l : *s) {
        if (l.name == n) return &l;
      }
    }
    return nullptr;
  }

  // The node's text. Printing takes a shared pointer: a non-owning alias of the node, which
  // outlives the call.
  template <class N>
  std::string str(const N& n) const {
    if constexpr (std::is_base_of_v<ExprNode, N>) {
      return to_string(Expr(std::shared_ptr<const ExprNode>(), &n), &fn_);
    } else {
      return to_string(Stmt(std::shared_ptr<const StmtNode>(), &n), &fn_);
    }
  }
  static std::string type_name(ScalarType t) { return std::string(name(t)); }
  void error(std::string msg) { errors_.push_back(std::move(msg)); }

  const Function& fn_;
  std::vector<std::vector<Local>> scopes_;
  std::vector<std::string> labels_;
  std::vector<std::string> errors_;
  int loop_depth_ = 0;
  bool in_prelude_ = false;
  bool in_parallel_ = false;
};

}  // namespace

std::vector<std::string> verify(const Function& f) {
  return Verifier(f).run();
}

void verify_or_throw(const Function& f, std::string_view after_pass) {
  std::vector<std::string> errors = verify(f);
  if (errors.empty()) return;
  std::string msg = "internal error: invalid IR after " + std::string(after_pass) + " in kernel '" +
                    f.name + "':\n";
  for (const std::string& e : errors) msg += "  " + e + "\n";
  msg += to_string(f);
  throw InternalError(msg);
}

}  // namespace tack::ir
