// The AST of the kernel language: one X-macro list of expression nodes and one of statement
// nodes, each with a source location; visit() and the child iterators for passes that walk it.
//
// Contract for passes that read the AST:
//  * Every node has a 1-based line/column in the user's file (SourceLoc); an expression's loc is
//    where it starts (Python's convention), and operators also carry the operator's own loc.
//  * Nodes are built once by the parser and then read-only; children are owned by unique_ptr
//    and never null unless a field says "may be null".
//  * Expression trees are at most kMaxExprHeight deep and blocks at most kMaxBlockDepth deep
//    (the parser refuses deeper input), so recursive walks over the AST cannot exhaust the stack.
//  * The parser has already refused everything outside the language's syntax; names, types and
//    the one-parallel-loop rule are checked later (checks.hpp, then the lowering).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frontend/source.hpp"
#include "frontend/token.hpp"
#include "support/error.hpp"
#include "support/operators.hpp"
#include "tack/constant.hpp"

namespace tack::frontend {

inline constexpr int kMaxExprHeight = 1000;
inline constexpr int kMaxBlockDepth = 100;

// Adding a node here makes every visit() and switch that does not handle it fail to compile.
#define TACK_FRONTEND_EXPRS(X) \
  X(IntLiteral)                \
  X(FloatLiteral)              \
  X(BoolLiteral)               \
  X(Name)                      \
  X(Attribute)                 \
  X(Subscript)                 \
  X(Call)                      \
  X(Unary)                     \
  X(Binary)                    \
  X(Logical)                   \
  X(Compare)                   \
  X(Conditional)               \
  X(Tuple)                     \
  X(String)

#define TACK_FRONTEND_STMTS(X) \
  X(Assign)                    \
  X(AugAssign)                 \
  X(ExprStmt)                  \
  X(If)                        \
  X(For)                       \
  X(While)                     \
  X(Break)                     \
  X(Continue)                  \
  X(Pass)                      \
  X(Return)                    \
  X(Assert)

enum class ExprKind : std::uint8_t {
#define TACK_X(name) name,
  TACK_FRONTEND_EXPRS(TACK_X)
#undef TACK_X
};

enum class StmtKind : std::uint8_t {
#define TACK_X(name) name,
  TACK_FRONTEND_STMTS(TACK_X)
#undef TACK_X
};

std::string_view kind_name(ExprKind kind);
std::string_view kind_name(StmtKind kind);

// The operators (support/operators.hpp, with the IR's), and what only the syntax has: unary `+`
// and `@` (matrix products of vectors and matrices).
enum class UnaryOp : std::uint8_t { TACK_UNARY_OPERATORS(TACK_OPERATOR_ENUM) Pos };
enum class BinaryOp : std::uint8_t { TACK_BINARY_OPERATORS(TACK_OPERATOR_ENUM) MatMul };
enum class LogicalOp : std::uint8_t { TACK_LOGICAL_OPERATORS(TACK_OPERATOR_ENUM) };
enum class CompareOp : std::uint8_t { TACK_COMPARE_OPERATORS(TACK_OPERATOR_ENUM) };

// Python spellings: "-", "not", "//", "and", "<=".
std::string_view spelling(UnaryOp op);
std::string_view spelling(BinaryOp op);
std::string_view spelling(LogicalOp op);
std::string_view spelling(CompareOp op);

// ---------------------------------------------------------------------------------------------
// Expressions

struct Expr {
  const ExprKind kind;
  SourceLoc loc;
  // 1 for a leaf, else 1 + the tallest child; bounded by kMaxExprHeight.
  int height = 1;

  Expr(const Expr&) = delete;
  Expr& operator=(const Expr&) = delete;
  virtual ~Expr() = default;

  template <class T>
  bool is() const {
    return kind == T::kKind;
  }
  template <class T>
  const T* as() const {
    return is<T>() ? static_cast<const T*>(this) : nullptr;
  }

 protected:
  Expr(ExprKind k, SourceLoc l) : kind(k), loc(l) {}
};
using ExprPtr = std::unique_ptr<Expr>;

#define TACK_FRONTEND_EXPR_HEAD(Node)               \
  static constexpr ExprKind kKind = ExprKind::Node; \
  explicit Node(SourceLoc l) : Expr(kKind, l) {}

// An integer literal. Literals are never negative (-1 is Unary(Neg, 1)) and fit in 64 bits; the
// lowering gives it a type (weakly typed: it takes the type of the other operand).
struct IntLiteral final : Expr {
  TACK_FRONTEND_EXPR_HEAD(IntLiteral)
  std::uint64_t value = 0;
  std::string text;  // as written: "0x_ff", "1_000"
};

struct FloatLiteral final : Expr {
  TACK_FRONTEND_EXPR_HEAD(FloatLiteral)
  double value = 0.0;  // correctly rounded; inf when the literal overflows, as in Python
  std::string text;
};

struct BoolLiteral final : Expr {
  TACK_FRONTEND_EXPR_HEAD(BoolLiteral)
  bool value = false;
};

struct Name final : Expr {
  TACK_FRONTEND_EXPR_HEAD(Name)
  std::string id;
};

// value.attr: a.shape, tack.f32, math.sqrt.
struct Attribute final : Expr {
  TACK_FRONTEND_EXPR_HEAD(Attribute)
  ExprPtr value;
  std::string attr;
  SourceLoc attr_loc;
};

// value[i, j]: one index per comma-separated item; a[(i, j)] is one Tuple index. Slices are
// refused by the parser.
struct Subscript final : Expr {
  TACK_FRONTEND_EXPR_HEAD(Subscript)
  ExprPtr value;
  std::vector<ExprPtr> indices;  // at least one, except for a[None]
  bool none = false;             // a[None]: the element of a one-element array (no indices)
};

// func(args...): positional arguments only.
struct Call final : Expr {
  TACK_FRONTEND_EXPR_HEAD(Call)
  ExprPtr func;
  std::vector<ExprPtr> args;
};

struct Unary final : Expr {
  TACK_FRONTEND_EXPR_HEAD(Unary)
  UnaryOp op = UnaryOp::Neg;
  ExprPtr operand;
};

struct Binary final : Expr {
  TACK_FRONTEND_EXPR_HEAD(Binary)
  BinaryOp op = BinaryOp::Add;
  SourceLoc op_loc;
  ExprPtr lhs;
  ExprPtr rhs;
};

// a and b / a or b, short-circuit. Chains nest to the left: a and b and c == (a and b) and c.
struct Logical final : Expr {
  TACK_FRONTEND_EXPR_HEAD(Logical)
  LogicalOp op = LogicalOp::And;
  SourceLoc op_loc;
  ExprPtr lhs;
  ExprPtr rhs;
};

// first ops[0] rest[0] ops[1] rest[1] ...: a chain 0 <= i < n means (0 <= i) and (i < n) with
// i evaluated once, as in Python.
struct Compare final : Expr {
  TACK_FRONTEND_EXPR_HEAD(Compare)
  ExprPtr first;
  std::vector<CompareOp> ops;  // at least one
  std::vector<SourceLoc> op_locs;
  std::vector<ExprPtr> rest;  // same size as ops
};

// then_value if cond else else_value; only the chosen side is evaluated.
struct Conditional final : Expr {
  TACK_FRONTEND_EXPR_HEAD(Conditional)
  ExprPtr cond;
  ExprPtr then_value;
  ExprPtr else_value;
};

// (a, b): written in parentheses (atomic index tuples), or bare after return / '='.
struct Tuple final : Expr {
  TACK_FRONTEND_EXPR_HEAD(Tuple)
  std::vector<ExprPtr> elements;  // at least one
  bool list = false;              // written [a, b, ...]: a vector (or, nested, a matrix) value
};

// A string literal: only an argument of print() (the lowering refuses it anywhere else).
struct String final : Expr {
  TACK_FRONTEND_EXPR_HEAD(String)
  std::string value;  // decoded (escapes resolved); adjacent literals concatenated
};

#undef TACK_FRONTEND_EXPR_HEAD

// ---------------------------------------------------------------------------------------------
// Statements

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;
using Block = std::vector<StmtPtr>;

struct Stmt {
  const StmtKind kind;
  SourceLoc loc;  // the first token of the statement

  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  virtual ~Stmt() = default;

  template <class T>
  bool is() const {
    return kind == T::kKind;
  }
  template <class T>
  const T* as() const {
    return is<T>() ? static_cast<const T*>(this) : nullptr;
  }

 protected:
  Stmt(StmtKind k, SourceLoc l) : kind(k), loc(l) {}
};

#define TACK_FRONTEND_STMT_HEAD(Node)               \
  static constexpr StmtKind kKind = StmtKind::Node; \
  explicit Node(SourceLoc l) : Stmt(kKind, l) {}

// target = value; target is a Name, a Subscript, or a Tuple of targets (unpacking; the parser
// refuses anything else).
struct Assign final : Stmt {
  TACK_FRONTEND_STMT_HEAD(Assign)
  ExprPtr target;
  ExprPtr value;
};

// target op= value; target is a Name or a Subscript, evaluated once.
struct AugAssign final : Stmt {
  TACK_FRONTEND_STMT_HEAD(AugAssign)
  BinaryOp op = BinaryOp::Add;
  SourceLoc op_loc;
  ExprPtr target;
  ExprPtr value;
};

// An expression evaluated for its effect: tack.atomic_add(a, i, v).
struct ExprStmt final : Stmt {
  TACK_FRONTEND_STMT_HEAD(ExprStmt)
  ExprPtr value;
};

// if / elif ... / else, flat so that a long elif chain is not a deep tree.
struct If final : Stmt {
  TACK_FRONTEND_STMT_HEAD(If)
  struct Branch {
    SourceLoc loc;  // the 'if' or 'elif' keyword
    ExprPtr cond;
    Block body;
  };
  std::vector<Branch> branches;  // branches[0] is the 'if'; at least one
  SourceLoc else_loc;            // valid when has_else
  bool has_else = false;
  Block else_body;
};

struct Identifier {
  std::string name;
  SourceLoc loc;
};

enum class LoopRange : std::uint8_t {
  Range,    // for i in range(stop) / range(start, stop) / range(start, stop, step)
  NDRange,  // for i, j[, k] in tack.ndrange(n0, n1[, n2]): one extent per target
};

// A counted loop. The parser guarantees: Range has one target and 1 to 3 args; NDRange has 1 to
// 3 distinct targets and as many args. Whether it is the kernel's parallel loop is decided by
// its position (checks.hpp: parallel_loop()).
struct For final : Stmt {
  TACK_FRONTEND_STMT_HEAD(For)
  LoopRange range = LoopRange::Range;
  std::vector<Identifier> targets;
  SourceLoc iter_loc;  // the range/ndrange call
  std::vector<ExprPtr> args;
  Block body;
};

struct While final : Stmt {
  TACK_FRONTEND_STMT_HEAD(While)
  ExprPtr cond;
  Block body;
};

struct Break final : Stmt {
  TACK_FRONTEND_STMT_HEAD(Break)
};

struct Continue final : Stmt {
  TACK_FRONTEND_STMT_HEAD(Continue)
};

struct Pass final : Stmt {
  TACK_FRONTEND_STMT_HEAD(Pass)
};

struct Return final : Stmt {
  TACK_FRONTEND_STMT_HEAD(Return)
  ExprPtr value;  // may be null
};

// assert test[, "message"]: checked in debug mode only (docs/language.md, "print and assert").
struct Assert final : Stmt {
  TACK_FRONTEND_STMT_HEAD(Assert)
  ExprPtr test;
  std::string message;  // empty when none was given
  std::string text;     // the test as written, for the AssertionError's message
};

#undef TACK_FRONTEND_STMT_HEAD

// ---------------------------------------------------------------------------------------------
// Functions and modules

enum class FunctionKind : std::uint8_t {
  Plain,   // no decorator
  Kernel,  // @tack.kernel or @kernel
  Func,    // @tack.func or @func: a device function, inlined at each call
};

struct Param {
  std::string name;
  SourceLoc loc;
  ExprPtr annotation;  // `x: tack.f32`, may be null; the front end does not interpret it
};

struct FunctionDef {
  std::string name;
  SourceLoc loc;  // the 'def' keyword
  SourceLoc name_loc;
  FunctionKind kind = FunctionKind::Plain;
  SourceLoc decorator_loc;  // the '@', when kind != Plain
  std::vector<Param> params;
  ExprPtr returns;        // `-> tack.f32`, may be null; not interpreted
  std::string docstring;  // the literal as written, quotes included; empty when absent
  Block body;             // without the docstring (empty when that is all there is)
};

// One parsed source text: its functions in source order, and the text itself for diagnostics.
struct Module {
  explicit Module(SourceText text) : source(std::move(text)) {}

  SourceText source;
  std::vector<FunctionDef> functions;  // distinct names
  // Names the host binds for a function that reads but does not define them (Python globals
  // and closure variables): compile-time constants, looked up after the function's own names.
  std::vector<NamedConstant> constants;
  // Device functions `caller` calls by another name (an alias, a module attribute).
  std::vector<FunctionAlias> aliases;

  // The constant `name` as `function` sees it, or null.
  const ConstantValue* find_constant(std::string_view function, std::string_view name) const {
    for (const NamedConstant& c : constants) {
      if (c.function == function && c.name == name) return &c.value;
    }
    return nullptr;
  }

  // The function named `name`, or null.
  const FunctionDef* find(std::string_view name) const;
  // The function a call of `called` (as written: "f", "mylib.f") in `caller` reaches: an alias
  // of the caller's, else the function of that bare name; null for anything else.
  const FunctionDef* find_callee(std::string_view caller, std::string_view called) const;
  // `name` (as written in `caller`: "tm.fract", "m.pi", "fract") with a module alias of the
  // caller's replaced by the module's own name ("tack.math.fract", "math.pi"): Python's `import
  // tack.math as tm` and `from tack.math import fract`. Unchanged when no alias applies.
  std::string canonical(std::string_view caller, const std::string& name) const;

  // Throws the CompileError for `loc` inside `function` (null: "<module>"), quoting the line.
  [[noreturn]] void fail(const FunctionDef* function, SourceLoc loc, std::string message) const {
    source.fail(function ? std::string_view(function->name) : std::string_view("<module>"), loc,
                std::move(message));
  }
};

// ---------------------------------------------------------------------------------------------
// Walking

// Calls f(node) with the node's concrete type; f must accept every expression node type.
template <class F>
decltype(auto) visit(const Expr& e, F&& f) {
  switch (e.kind) {
#define TACK_X(name)   \
  case ExprKind::name: \
    return std::forward<F>(f)(static_cast<const name&>(e));
    TACK_FRONTEND_EXPRS(TACK_X)
#undef TACK_X
  }
  ::tack::detail::internal_fail(__FILE__, __LINE__, "visit(Expr)", "unknown expression kind");
}

// Calls f(node) with the node's concrete type; f must accept every statement node type.
template <class F>
decltype(auto) visit(const Stmt& s, F&& f) {
  switch (s.kind) {
#define TACK_X(name)   \
  case StmtKind::name: \
    return std::forward<F>(f)(static_cast<const name&>(s));
    TACK_FRONTEND_STMTS(TACK_X)
#undef TACK_X
  }
  ::tack::detail::internal_fail(__FILE__, __LINE__, "visit(Stmt)", "unknown statement kind");
}

// Calls f(const Expr&) for each direct child of e, in source order.
template <class F>
void for_each_child(const Expr& e, F&& f) {
  auto each = [&](const std::vector<ExprPtr>& v) {
    for (const ExprPtr& x : v) f(*x);
  };
  switch (e.kind) {
    case ExprKind::IntLiteral:
    case ExprKind::FloatLiteral:
    case ExprKind::BoolLiteral:
    case ExprKind::Name:
      return;
    case ExprKind::Attribute:
      f(*static_cast<const Attribute&>(e).value);
      return;
    case ExprKind::Subscript:
      f(*static_cast<const Subscript&>(e).value);
      each(static_cast<const Subscript&>(e).indices);
      return;
    case ExprKind::Call:
      f(*static_cast<const Call&>(e).func);
      each(static_cast<const Call&>(e).args);
      return;
    case ExprKind::Unary:
      f(*static_cast<const Unary&>(e).operand);
      return;
    case ExprKind::Binary:
      f(*static_cast<const Binary&>(e).lhs);
      f(*static_cast<const Binary&>(e).rhs);
      return;
    case ExprKind::Logical:
      f(*static_cast<const Logical&>(e).lhs);
      f(*static_cast<const Logical&>(e).rhs);
      return;
    case ExprKind::Compare:
      f(*static_cast<const Compare&>(e).first);
      each(static_cast<const Compare&>(e).rest);
      return;
    case ExprKind::Conditional: {
      // Source order: then_value if cond else else_value.
      const auto& c = static_cast<const Conditional&>(e);
      f(*c.then_value);
      f(*c.cond);
      f(*c.else_value);
      return;
    }
    case ExprKind::Tuple:
      each(static_cast<const Tuple&>(e).elements);
      return;
    case ExprKind::String:
      return;
  }
}

// Calls f(const Expr&) for each expression directly held by s (not those of nested
// statements), in source order. For a For: the range arguments.
template <class F>
void for_each_expr(const Stmt& s, F&& f) {
  switch (s.kind) {
    case StmtKind::Assign:
      f(*static_cast<const Assign&>(s).target);
      f(*static_cast<const Assign&>(s).value);
      return;
    case StmtKind::AugAssign:
      f(*static_cast<const AugAssign&>(s).target);
      f(*static_cast<const AugAssign&>(s).value);
      return;
    case StmtKind::ExprStmt:
      f(*static_cast<const ExprStmt&>(s).value);
      return;
    case StmtKind::If:
      for (const If::Branch& b : static_cast<const If&>(s).branches) f(*b.cond);
      return;
    case StmtKind::For:
      for (const ExprPtr& a : static_cast<const For&>(s).args) f(*a);
      return;
    case StmtKind::While:
      f(*static_cast<const While&>(s).cond);
      return;
    case StmtKind::Return:
      if (const auto& v = static_cast<const Return&>(s).value) f(*v);
      return;
    case StmtKind::Assert:
      f(*static_cast<const Assert&>(s).test);
      return;
    case StmtKind::Break:
    case StmtKind::Continue:
    case StmtKind::Pass:
      return;
  }
}

// Calls f(const Block&) for each block directly nested in s, in source order.
template <class F>
void for_each_block(const Stmt& s, F&& f) {
  switch (s.kind) {
    case StmtKind::If: {
      const auto& i = static_cast<const If&>(s);
      for (const If::Branch& b : i.branches) f(b.body);
      if (i.has_else) f(i.else_body);
      return;
    }
    case StmtKind::For:
      f(static_cast<const For&>(s).body);
      return;
    case StmtKind::While:
      f(static_cast<const While&>(s).body);
      return;
    default:
      return;
  }
}

// "tack.atomic_add" for the callee of tack.atomic_add(...), "f" for f, "" for anything that is
// not a chain of names and attributes (f(x)(y) has callee f(x): "").
std::string dotted_name(const Expr& callee);

// Whether an assignment target stores only into names (a Name, or a Tuple of such targets): no
// array element is written.
bool assigns_names_only(const Expr& target);

// ---------------------------------------------------------------------------------------------
// Printing

struct DumpOptions {
  bool locations = false;  // append "@line:column" to every node
};

// A stable S-expression text, one statement per line, for tests and debugging:
//   (def vector_add kernel (x y out)
//     (for (i) (range ([] (. x shape) 0))
//       (= ([] out i) (+ ([] x i) ([] y i)))))
std::string dump(const Module& module, DumpOptions options = {});
std::string dump(const FunctionDef& function, DumpOptions options = {});
std::string dump(const Stmt& stmt, DumpOptions options = {});
std::string dump(const Expr& expr, DumpOptions options = {});

}  // namespace tack::frontend
