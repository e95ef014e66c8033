// The typed Tack IR: immutable expression and statement nodes, the kernel Function, and the
// semantics every backend must implement.
//
// ============================== Semantics contract ==============================
// Every backend (LLVM for the CPU, the C-style printers for OpenCL and CUDA) implements exactly
// these rules; the verifier checks the typing rules, the rest is each backend's job.
//
// Types. Every expression has one ScalarType. Operands of Binary and Compare, and the two arms
//   of Select, have the same type (lowering inserts Casts; the IR never converts implicitly).
//   Bool takes no arithmetic: lowering casts it to an integer first. Bitwise &, |, ^ accept bool.
// Integers wrap at their width (two's complement), signed and unsigned alike; there is no
//   overflow UB anywhere in the IR.
// `/` (TrueDiv) is defined on float operands only. Lowering turns int / int into a division in
//   the Function's default_float type (f32 unless an f64 array argument or f64 value is
//   involved; docs/language.md, "Operators and the promotion table"), casting both operands first.
// `//` (FloorDiv) and `%` (Mod) follow Python: the quotient rounds toward -infinity and the
//   remainder takes the sign of the divisor, for ints and floats. Division by zero does not trap:
//   integer x // 0 == 0 and x % 0 == 0; float x // 0.0 == x / 0.0 (IEEE: +-inf, or NaN for 0/0)
//   and x % 0.0 == NaN (as NumPy). The signed INT_MIN // -1 wraps to INT_MIN, INT_MIN % -1 == 0.
//   Floats follow CPython's float floor-division algorithm (fmod, then adjust) exactly.
// `**` (Pow): floats call pow (IEEE, as C's pow). Integers multiply by repeated squaring and
//   wrap; a negative exponent gives the truncated value of 1 / x**|n|: 1 for x == 1, +-1 for
//   x == -1 (by the parity of n), 0 otherwise, including 0 ** -n == 0 (Python would raise).
// Shifts: the count is read as unsigned. A count >= the width (a negative signed count counts as
//   huge) gives 0 for <<, and for >> gives 0 (unsigned, or non-negative signed) or -1 (negative
//   signed), which is what Python's unbounded shift wrapped to the width gives. >> is arithmetic
//   for signed types, logical for unsigned.
// Comparisons on floats are IEEE: every comparison with NaN is false except != (true).
// `and` / `or` (Logical) take and give bool and short-circuit: the right operand is evaluated
//   only when needed. Select evaluates its condition and then exactly one arm.
// Casts: int -> int truncates or extends by the source's signedness; int -> float rounds to
//   nearest; float -> float rounds to nearest; float -> int truncates toward zero and saturates
//   at the target's range, NaN -> 0 (no UB); x -> bool is x != 0 (NaN -> true, as Python's
//   bool(nan)); bool -> x is 0 or 1.
// Floating point is IEEE 754 with round-to-nearest: no fast-math, no reassociation, no FMA
//   contraction, denormals kept.
// Evaluation order is left to right: an expression's operands, a load's indices, an atomic's
//   indices then its value; a store evaluates its value first, then its indices (Python's order
//   for `a[i] = v`); statements in order. Atomics are the only expressions with effects (and, in
//   debug mode, the first out-of-bounds access, which is the one reported).
// Math calls (MathFn) take float arguments of one type and return that type, except abs, min
//   and max, which also take integers, and isnan/isinf/isfinite, which return bool. min(a, b) is
//   Python's: (b < a) ? b : a; max(a, b) is (b > a) ? b : a (the first argument wins ties and
//   NaN comparisons). abs of the most negative integer wraps to itself. round is round-half-even
//   (Python's round) and keeps the float type; floor/ceil/trunc keep the float type too (lowering
//   casts when the language wants an int). fmod is C's fmod (sign of the dividend).
// Arrays. Array parameters may alias each other (overlap in any way): every load observes every
//   earlier store of the same iteration through any parameter. Only the CPU's "disjoint" variant
//   assumes otherwise, and dispatch chooses it only for calls whose written arrays are proved not
//   to overlap any other array argument. Different iterations of the ParallelFor run in any
//   order, concurrently: two iterations touching one element, one of them writing, is a race and
//   the program's bug, except through atomics. Array indices are not bounds-checked unless the
//   debug option is set (then an out-of-bounds access is skipped: a load gives 0, a store or an
//   atomic does nothing, and the first violation is reported).
// Atomics (AtomicRMW) are relaxed (monotonic): atomic with respect to other atomics on the same
//   element, with no ordering of other memory; they return the old value. Float min/max follow
//   IEEE minNum/maxNum (a NaN operand loses to a number).
// Locals. Let introduces a scalar local whose scope is the rest of the enclosing Block; names are
//   not shadowed (a Let of a name already in scope is an error). Local arrays are zero-filled at
//   their declaration, fixed size, private to one iteration of the ParallelFor.
// Control. For runs Python's range(start, stop, step): start, stop and step are evaluated once,
//   before the first iteration, in that order; the count is max(0, ceil((stop - start) / step))
//   computed exactly (no overflow); step == 0 runs no iteration (Python raises). Assigning the
//   loop variable in the body does not change the iteration. Break and Continue apply to the
//   innermost For or While; Continue directly in the ParallelFor body ends that iteration.
//   LabeledBlock + ExitBlock jump to the end of the named enclosing block: lowering uses them for
//   `return` in inlined device functions (store the result to a local, then ExitBlock).
// The kernel. A Function's body is a Block: zero or more effect-free prelude statements (Let,
//   Assign, If, loops, loads; no stores, atomics or local arrays), then exactly one ParallelFor,
//   last. Its dims are Python ranges; the iteration space is their product, row-major, the last
//   dim innermost. Locals of the prelude are read-only inside the ParallelFor.
// Vector values (tack.vec operations on small vectors) are not in the IR: lowering scalarizes
//   them into per-component locals and per-component loads and stores of vec arrays.
// ==================================================================================
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/types.hpp"
#include "support/operators.hpp"

namespace tack::ir {

enum class NodeKind : uint8_t {
#define TACK_IR_EXPR(Name) Name,
#define TACK_IR_STMT(Name) Name,
#include "ir/nodes.def"
};

std::string_view kind_name(NodeKind k);

struct Node {
  explicit Node(NodeKind k) : kind(k) {}
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  virtual ~Node() = default;

  // Checked downcast: nullptr when this node is not a T.
  template <class T>
  const T* as() const {
    return kind == T::kKind ? static_cast<const T*>(this) : nullptr;
  }

  const NodeKind kind;
};

struct ExprNode : Node {
  ExprNode(NodeKind k, ScalarType t) : Node(k), type(t) {}
  ScalarType type;
};
struct StmtNode : Node {
  using Node::Node;
};

// Nodes are shared and never changed after construction.
using Expr = std::shared_ptr<const ExprNode>;
using Stmt = std::shared_ptr<const StmtNode>;

// ---------------------------------------------------------------- operators

// The operators, declared from support/operators.hpp (the front end's share the lists).
enum class BinaryOp : uint8_t { TACK_BINARY_OPERATORS(TACK_OPERATOR_ENUM) };
enum class CompareOp : uint8_t { TACK_COMPARE_OPERATORS(TACK_OPERATOR_ENUM) };
enum class LogicalOp : uint8_t { TACK_LOGICAL_OPERATORS(TACK_OPERATOR_ENUM) };
enum class UnaryOp : uint8_t { TACK_UNARY_OPERATORS(TACK_OPERATOR_ENUM) };
enum class MathFn : uint8_t {
  // float -> float
  Sqrt,
  Cbrt,
  Sin,
  Cos,
  Tan,
  Asin,
  Acos,
  Atan,
  Sinh,
  Cosh,
  Tanh,
  Asinh,
  Acosh,
  Atanh,
  Exp,
  Exp2,
  Expm1,
  Log,
  Log2,
  Log10,
  Log1p,
  Erf,
  Erfc,
  Floor,
  Ceil,
  Trunc,
  Round,
  // (float, float) -> float
  Atan2,
  Fmod,
  Copysign,
  Hypot,
  // any numeric type; Abs unary, Min/Max binary
  Abs,
  Min,
  Max,
  // float -> bool
  IsNan,
  IsInf,
  IsFinite,
};
enum class AtomicOp : uint8_t { Add, Min, Max };

std::string_view op_name(BinaryOp op);   // "+", "//", "**", "<<", ...
std::string_view op_name(CompareOp op);  // "<", "==", ...
std::string_view op_name(LogicalOp op);  // "and", "or"
std::string_view op_name(UnaryOp op);    // "-", "~", "not"
std::string_view fn_name(MathFn fn);     // "sqrt", "isnan", ...
std::string_view op_name(AtomicOp op);   // "atomic_add", ...
int arity(MathFn fn);

// ---------------------------------------------------------------- expressions
// Each node: kKind, its fields, and make() building an unchecked node (builder.hpp has the
// checked helpers; the verifier checks a whole function).

#define TACK_IR_NODE(Name) static constexpr NodeKind kKind = NodeKind::Name;

// An integer constant, stored wrapped to its type (sign- or zero-extended into 64 bits; a u64
// above INT64_MAX is kept as its bit pattern).
struct IntConst final : ExprNode {
  TACK_IR_NODE(IntConst)
  IntConst(ScalarType t, int64_t v) : ExprNode(kKind, t), value(v) {}
  static Expr make(ScalarType t, int64_t v);
  int64_t value;
};

// A float constant; for f32 the value is exactly a float.
struct FloatConst final : ExprNode {
  TACK_IR_NODE(FloatConst)
  FloatConst(ScalarType t, double v) : ExprNode(kKind, t), value(v) {}
  static Expr make(ScalarType t, double v);
  double value;
};

struct BoolConst final : ExprNode {
  TACK_IR_NODE(BoolConst)
  explicit BoolConst(bool v) : ExprNode(kKind, ScalarType::boolean), value(v) {}
  static Expr make(bool v);
  bool value;
};

// A read of a scalar local (introduced by Let, For, or a ParallelFor dim).
struct Var final : ExprNode {
  TACK_IR_NODE(Var)
  Var(ScalarType t, std::string n) : ExprNode(kKind, t), name(std::move(n)) {}
  static Expr make(ScalarType t, std::string name);
  std::string name;
};

// A read of the kernel's scalar parameter number `index` (an index into Function::params).
struct Param final : ExprNode {
  TACK_IR_NODE(Param)
  Param(ScalarType t, int i) : ExprNode(kKind, t), index(i) {}
  static Expr make(ScalarType t, int index);
  int index;
};

// array[indices...] of array parameter `param`; one index per logical dimension (rank, plus
// the vector component for vec arrays). Indices have any integer type.
struct ArrayLoad final : ExprNode {
  TACK_IR_NODE(ArrayLoad)
  ArrayLoad(ScalarType t, int p, std::vector<Expr> i)
      : ExprNode(kKind, t), param(p), indices(std::move(i)) {}
  static Expr make(ScalarType elem, int param, std::vector<Expr> indices);
  int param;
  std::vector<Expr> indices;
};

// The extent of logical dimension `dim` of array parameter `param`, as i64. For a vec array,
// dim == rank is the vector width.
struct ArrayShape final : ExprNode {
  TACK_IR_NODE(ArrayShape)
  ArrayShape(int p, int d) : ExprNode(kKind, ScalarType::i64), param(p), dim(d) {}
  static Expr make(int param, int dim);
  int param;
  int dim;
};

// local[indices...] of a LocalArrayDecl in scope.
struct LocalArrayLoad final : ExprNode {
  TACK_IR_NODE(LocalArrayLoad)
  LocalArrayLoad(ScalarType t, std::string n, std::vector<Expr> i)
      : ExprNode(kKind, t), name(std::move(n)), indices(std::move(i)) {}
  static Expr make(ScalarType elem, std::string name, std::vector<Expr> indices);
  std::string name;
  std::vector<Expr> indices;
};

// a op b; a, b and the result share one type.
struct Binary final : ExprNode {
  TACK_IR_NODE(Binary)
  Binary(BinaryOp o, Expr x, Expr y)
      : ExprNode(kKind, x->type), op(o), a(std::move(x)), b(std::move(y)) {}
  static Expr make(BinaryOp op, Expr a, Expr b);
  BinaryOp op;
  Expr a, b;
};

// a op b -> bool; a and b share one type.
struct Compare final : ExprNode {
  TACK_IR_NODE(Compare)
  Compare(CompareOp o, Expr x, Expr y)
      : ExprNode(kKind, ScalarType::boolean), op(o), a(std::move(x)), b(std::move(y)) {}
  static Expr make(CompareOp op, Expr a, Expr b);
  CompareOp op;
  Expr a, b;
};

// a and b / a or b, short-circuit; bool operands.
struct Logical final : ExprNode {
  TACK_IR_NODE(Logical)
  Logical(LogicalOp o, Expr x, Expr y)
      : ExprNode(kKind, ScalarType::boolean), op(o), a(std::move(x)), b(std::move(y)) {}
  static Expr make(LogicalOp op, Expr a, Expr b);
  LogicalOp op;
  Expr a, b;
};

// -a (numeric), ~a (integer), not a (bool); the result has the operand's type.
struct Unary final : ExprNode {
  TACK_IR_NODE(Unary)
  Unary(UnaryOp o, Expr x) : ExprNode(kKind, x->type), op(o), a(std::move(x)) {}
  static Expr make(UnaryOp op, Expr a);
  UnaryOp op;
  Expr a;
};

// cond ? t : f, evaluating only the chosen arm.
struct Select final : ExprNode {
  TACK_IR_NODE(Select)
  Select(Expr c, Expr x, Expr y)
      : ExprNode(kKind, x->type), cond(std::move(c)), t(std::move(x)), f(std::move(y)) {}
  static Expr make(Expr cond, Expr t, Expr f);
  Expr cond, t, f;
};

// The value converted to `type` (rules in the contract above).
struct Cast final : ExprNode {
  TACK_IR_NODE(Cast)
  Cast(ScalarType t, Expr v) : ExprNode(kKind, t), value(std::move(v)) {}
  static Expr make(ScalarType t, Expr value);
  Expr value;
};

struct MathCall final : ExprNode {
  TACK_IR_NODE(MathCall)
  MathCall(ScalarType t, MathFn f, std::vector<Expr> a)
      : ExprNode(kKind, t), fn(f), args(std::move(a)) {}
  // The result type follows from fn and the arguments (bool for the predicates).
  static Expr make(MathFn fn, std::vector<Expr> args);
  MathFn fn;
  std::vector<Expr> args;
};

// Atomically array[indices] = op(array[indices], value); yields the old value. `value` has the
// element type.
struct AtomicRMW final : ExprNode {
  TACK_IR_NODE(AtomicRMW)
  AtomicRMW(ScalarType t, AtomicOp o, int p, std::vector<Expr> i, Expr v)
      : ExprNode(kKind, t), op(o), param(p), indices(std::move(i)), value(std::move(v)) {}
  static Expr make(AtomicOp op, int param, std::vector<Expr> indices, Expr value);
  AtomicOp op;
  int param;
  std::vector<Expr> indices;
  Expr value;
};

// tack.thread_id(): the work item's position in its workgroup (0 to kWorkgroupSize - 1), i32.
struct ThreadId final : ExprNode {
  TACK_IR_NODE(ThreadId)
  ThreadId() : ExprNode(kKind, ScalarType::i32) {}
  static Expr make();
};

// The work items of one workgroup in a kernel that uses workgroups (docs/design/workgroups.md).
inline constexpr int kWorkgroupSize = 256;

// ---------------------------------------------------------------- statements

// Introduces local `name` of value's type, initialized to value.
struct Let final : StmtNode {
  TACK_IR_NODE(Let)
  Let(std::string n, Expr v) : StmtNode(kKind), name(std::move(n)), value(std::move(v)) {}
  static Stmt make(std::string name, Expr value);
  std::string name;
  Expr value;
};

// Assigns a local in scope; value has the local's type.
struct Assign final : StmtNode {
  TACK_IR_NODE(Assign)
  Assign(std::string n, Expr v) : StmtNode(kKind), name(std::move(n)), value(std::move(v)) {}
  static Stmt make(std::string name, Expr value);
  std::string name;
  Expr value;
};

// `streaming`: tack.stream_store -- the same store, with the hint that the value will not be read
// again soon; a backend that can write around its caches does (the CPU: non-temporal stores).
struct ArrayStore final : StmtNode {
  TACK_IR_NODE(ArrayStore)
  ArrayStore(int p, std::vector<Expr> i, Expr v, bool s)
      : StmtNode(kKind), param(p), indices(std::move(i)), value(std::move(v)), streaming(s) {}
  static Stmt make(int param, std::vector<Expr> indices, Expr value, bool streaming = false);
  int param;
  std::vector<Expr> indices;
  Expr value;
  bool streaming;
};

// Local arrays live on the worker thread's stack, so their size is capped; lowering reports a
// larger one as a CompileError and the verifier refuses it.
inline constexpr int64_t kMaxLocalArrayBytes = 64 * 1024;

// A zero-filled local array with constant extents (1 to 3 dims, each > 0).
// A local array: private to one iteration and zero-filled, or (shared) one array per workgroup,
// its contents unspecified until written (tack.shared; docs/design/workgroups.md).
struct LocalArrayDecl final : StmtNode {
  TACK_IR_NODE(LocalArrayDecl)
  LocalArrayDecl(std::string n, ScalarType e, std::vector<int64_t> d, bool s)
      : StmtNode(kKind), name(std::move(n)), elem(e), dims(std::move(d)), shared(s) {}
  static Stmt make(std::string name, ScalarType elem, std::vector<int64_t> dims,
                   bool shared = false);
  std::string name;
  ScalarType elem;
  std::vector<int64_t> dims;
  bool shared;
};

struct LocalArrayStore final : StmtNode {
  TACK_IR_NODE(LocalArrayStore)
  LocalArrayStore(std::string n, std::vector<Expr> i, Expr v)
      : StmtNode(kKind), name(std::move(n)), indices(std::move(i)), value(std::move(v)) {}
  static Stmt make(std::string name, std::vector<Expr> indices, Expr value);
  std::string name;
  std::vector<Expr> indices;
  Expr value;
};

// Statements in order; the scope of the Lets and LocalArrayDecls inside it.
struct Block final : StmtNode {
  TACK_IR_NODE(Block)
  explicit Block(std::vector<Stmt> s) : StmtNode(kKind), stmts(std::move(s)) {}
  static Stmt make(std::vector<Stmt> stmts);
  std::vector<Stmt> stmts;
};

// A block that ExitBlock(label) inside it leaves early (used for inlined `return`).
struct LabeledBlock final : StmtNode {
  TACK_IR_NODE(LabeledBlock)
  LabeledBlock(std::string l, Stmt b) : StmtNode(kKind), label(std::move(l)), body(std::move(b)) {}
  static Stmt make(std::string label, Stmt body);
  std::string label;
  Stmt body;
};

struct ExitBlock final : StmtNode {
  TACK_IR_NODE(ExitBlock)
  explicit ExitBlock(std::string l) : StmtNode(kKind), label(std::move(l)) {}
  static Stmt make(std::string label);
  std::string label;
};

// else_body may be null.
struct If final : StmtNode {
  TACK_IR_NODE(If)
  If(Expr c, Stmt t, Stmt e)
      : StmtNode(kKind), cond(std::move(c)), then_body(std::move(t)), else_body(std::move(e)) {}
  static Stmt make(Expr cond, Stmt then_body, Stmt else_body = nullptr);
  Expr cond;
  Stmt then_body, else_body;
};

// for name in range(start, stop, step): body. name is a local of `type` (an integer type, the
// type of start, stop and step) scoped to the body. `lanes`: the body is already several
// independent copies of one iteration over consecutive indices (a kernel value's block,
// docs/design/kernel_values.md), so a backend vectorizes across the copies, not across the
// loop's steps (LLVM's loop vectorizer would load each copy's elements with strided gathers).
struct For final : StmtNode {
  TACK_IR_NODE(For)
  For(std::string n, Expr s0, Expr s1, Expr st, Stmt b, bool l)
      : StmtNode(kKind),
        name(std::move(n)),
        start(std::move(s0)),
        stop(std::move(s1)),
        step(std::move(st)),
        body(std::move(b)),
        lanes(l) {}
  static Stmt make(std::string name, Expr start, Expr stop, Expr step, Stmt body,
                   bool lanes = false);
  ScalarType type() const { return start->type; }
  std::string name;
  Expr start, stop, step;
  Stmt body;
  bool lanes = false;
};

struct While final : StmtNode {
  TACK_IR_NODE(While)
  While(Expr c, Stmt b) : StmtNode(kKind), cond(std::move(c)), body(std::move(b)) {}
  static Stmt make(Expr cond, Stmt body);
  Expr cond;
  Stmt body;
};

struct Break final : StmtNode {
  TACK_IR_NODE(Break)
  Break() : StmtNode(kKind) {}
  static Stmt make();
};

struct Continue final : StmtNode {
  TACK_IR_NODE(Continue)
  Continue() : StmtNode(kKind) {}
  static Stmt make();
};

// An expression evaluated for its effect (an atomic whose old value is unused).
struct ExprStmt final : StmtNode {
  TACK_IR_NODE(ExprStmt)
  explicit ExprStmt(Expr e) : StmtNode(kKind), expr(std::move(e)) {}
  static Stmt make(Expr expr);
  Expr expr;
};

// print(...): one line of output, written at once (lines of different iterations never mix).
// Each part is text or a value (a number or bool); the backends format values as
// docs/language.md says ("print and assert").
struct PrintPart {
  std::string text;  // when value is null
  Expr value;
};
struct Print final : StmtNode {
  TACK_IR_NODE(Print)
  explicit Print(std::vector<PrintPart> p) : StmtNode(kKind), parts(std::move(p)) {}
  static Stmt make(std::vector<PrintPart> parts);
  std::vector<PrintPart> parts;
};

// assert cond: in a checking (debug) variant, `setup` runs (the statements the condition needs,
// an inlined device function's body; its locals are in scope for cond), then a false cond records
// assertion `site` (an index into Function::asserts) and the iteration (the parallel loop's
// variables) in the debug status, the first failure winning; other variants compile all of it
// to nothing.
struct Assert final : StmtNode {
  TACK_IR_NODE(Assert)
  Assert(Stmt su, Expr c, int s, std::vector<Expr> it)
      : StmtNode(kKind),
        setup(std::move(su)),
        cond(std::move(c)),
        site(s),
        iteration(std::move(it)) {}
  static Stmt make(Stmt setup, Expr cond, int site, std::vector<Expr> iteration);
  Stmt setup;  // a Block, possibly empty
  Expr cond;
  int site;
  std::vector<Expr> iteration;  // i64, one per parallel dim (1 to 3)
};

// tack.barrier(): every work item of the workgroup waits here; memory written before it (shared
// and global) is visible after it. `line`/`column`: the source position, for the uniformity
// check's and the CPU's refusals.
struct Barrier final : StmtNode {
  TACK_IR_NODE(Barrier)
  Barrier(int l, int c) : StmtNode(kKind), line(l), column(c) {}
  static Stmt make(int line, int column);
  int line, column;
};

// One dimension of the parallel loop: name in range(start, stop, step), as For. Lowering keeps
// Python's range; codegen turns each dim into a 0-based count so that a chunk of the linearized
// iteration space is a plain counted loop.
struct ParallelDim {
  std::string name;
  Expr start, stop, step;
  ScalarType type() const { return start->type; }
};

// Iterations per partial of an in-loop reduction: a fixed number, so the bits of a reduction do
// not depend on the thread count or the device.
inline constexpr std::int64_t kReductionBlock = 1024;

// The kernel's one parallel loop (1 to 3 dims; the last dim is innermost and contiguous).
struct ParallelFor final : StmtNode {
  TACK_IR_NODE(ParallelFor)
  ParallelFor(std::vector<ParallelDim> d, Stmt b)
      : StmtNode(kKind), dims(std::move(d)), body(std::move(b)) {}
  static Stmt make(std::vector<ParallelDim> dims, Stmt body);
  std::vector<ParallelDim> dims;
  Stmt body;
};

#undef TACK_IR_NODE

// ---------------------------------------------------------------- the kernel

enum class ParamKind : uint8_t { Array, Scalar };

// One kernel parameter. Arrays: element type, rank, vector width. Scalars: their type.
struct ParamDecl {
  std::string name;
  ParamKind kind = ParamKind::Scalar;
  ScalarType type = ScalarType::i32;  // the scalar's type, or the array's element type
  int rank = 0;                       // arrays only: 1 to 3
  int vec_width = 0;                  // arrays only: 0, or n for tack.vec(n, dtype)
  bool strided = false;               // arrays only: tack.arrays.Strided (ArrayType::strided)

  bool is_array() const { return kind == ParamKind::Array; }
  ArrayType array_type() const { return {type, rank, vec_width, strided}; }
  static ParamDecl array(std::string name, ArrayType t);
  static ParamDecl scalar(std::string name, ScalarType t);
};

// A kernel: its parameters in call order, its body, and the float type that int / int and
// weakly typed float literals take (f32 or f64).
// Where an `assert` is, for the AssertionError (Assert::site indexes these).
// The first use of a workgroup construct (tack.shared, barrier, thread_id, block_*), for the
// refusal of devices without workgroups; line 0: none.
struct WorkgroupUse {
  int line = 0, column = 0;
  std::string what;         // "tack.barrier()"
  std::string source_line;  // the line's text, for the CompileError
};

struct AssertSite {
  int line = 0;
  std::string text;     // the condition as written
  std::string message;  // the assert's message, or empty
};

struct Function {
  std::string name;
  std::vector<ParamDecl> params;
  Stmt body;
  ScalarType default_float = ScalarType::f32;
  std::vector<AssertSite> asserts;
  WorkgroupUse workgroups;  // line 0 when the kernel uses none

  // A kernel with in-loop reductions or a value (docs/design/kernel_values.md) is lowered in
  // two parts. The loop part folds each block of kReductionBlock iterations into one element of
  // a hidden array parameter per reduction (after the user's parameters); the epilogue part runs
  // one iteration: it folds the partials in block order, runs the statements after the loop and
  // stores the value into a last hidden one-element array.
  std::vector<ScalarType> partials;     // both parts: the hidden partial arrays' element types
  bool has_epilogue = false;            // the loop part: an epilogue part follows
  bool returns = false;                 // the epilogue part: it stores a value
  std::vector<std::string> loop_names;  // the loop part: the user's loop variables (reports)
  ScalarType result = ScalarType::f32;  // the value's type, when it returns one

  // The one top-level ParallelFor (nullptr if the body breaks the verifier's shape rule).
  const ParallelFor* parallel_for() const;
  // The prelude: the body's statements before the ParallelFor.
  std::vector<Stmt> prelude() const;
};

}  // namespace tack::ir
