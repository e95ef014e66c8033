// The Lowerer: the state shared by the files of src/lowering while one kernel is turned from
// its AST into typed IR. Internal to src/lowering; the entry point is lower.hpp.
//
// How expressions become IR. The kernel language has expressions that need statements in the
// IR: an inlined device function, a chained comparison whose middle operand must be evaluated
// once, `and`/`or`/`if-else` whose lazily evaluated side needs statements. Lowering an
// expression therefore may emit statements into the current buffer (`out_`) before the
// statement that uses the expression. To keep Python's left-to-right evaluation order, the
// operands of one construct are lowered through a Sequence: when an operand emits statements,
// the operands before it that read memory are first saved into temporaries (see
// Lowerer::spill_before). A lazily evaluated operand is lowered into a buffer of its own; if that
// buffer stays empty the construct is a plain IR expression, else it becomes an `if` that
// assigns a temporary.
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compiler/signature.hpp"
#include "frontend/ast.hpp"
#include "ir/builder.hpp"
#include "ir/effects.hpp"
#include "ir/ir.hpp"
#include "lowering/constants.hpp"
#include "lowering/lower.hpp"
#include "lowering/scope.hpp"

namespace tack::lowering {

// A lowered expression: typed IR, a weakly typed literal value, an array, a tuple of values, a
// vector or matrix (docs/design/vectors.md), or nothing (a call of a device function that
// returns no value).
//
// A vector of n components and a matrix of rows x cols are `tuple`s of their scalar components
// (a matrix row-major) with `rows` set: rows = n and cols = 0 for a vector. Every component has
// the same type (make_vector settles it), weak literals only when all are.
struct Value {
  ir::Expr expr;                  // typed IR; null for weak literals, arrays, tuples, "no value"
  std::optional<Constant> weak;   // a literal value whose type is not fixed yet
  const Symbol* array = nullptr;  // the expression names an array
  std::vector<Value> tuple;       // the elements of a tuple value (never empty for a tuple)
  int rows = 0;                   // vectors and matrices: the components, or the matrix's rows
  int cols = 0;                   // matrices: the columns; 0 for a vector

  static Value typed(ir::Expr e) { return Value{std::move(e), std::nullopt, nullptr, {}}; }
  static Value literal(Constant c) { return Value{nullptr, c, nullptr, {}}; }
  static Value of_array(const Symbol* s) { return Value{nullptr, std::nullopt, s, {}}; }
  static Value of_tuple(std::vector<Value> elements) {
    return Value{nullptr, std::nullopt, nullptr, std::move(elements)};
  }
  // A value of `shape`'s kind (tuple, vector or matrix of its size) with other elements.
  static Value like(const Value& shape, std::vector<Value> elements) {
    Value v = of_tuple(std::move(elements));
    v.rows = shape.rows;
    v.cols = shape.cols;
    return v;
  }
  bool is_weak() const { return weak.has_value(); }
  bool is_tuple() const { return !tuple.empty(); }  // a tuple, vector or matrix
  bool is_vecmat() const { return rows > 0; }       // a vector or a matrix
  bool is_vector() const { return rows > 0 && cols == 0; }
  bool is_matrix() const { return cols > 0; }
  bool is_plain_tuple() const { return is_tuple() && rows == 0; }
  bool is_none() const { return !expr && !weak && !array && tuple.empty(); }
};

// An element of an array parameter or local array, its indices lowered.
struct Access {
  const Symbol* array = nullptr;
  std::vector<ir::Expr> indices;
  bool whole = false;  // p[i] of a tack.vec array: the vector component is not indexed
};

// The bounds of a range() with one integer type.
// A local of the prelude that the parallel loop folds values into (`s += x[i]`,
// `s = min(s, x[i])`): a reduction (values.cpp, docs/design/kernel_values.md).
enum class ReduceOp : std::uint8_t { Add, Mul, Or, And, Xor, Min, Max };
struct Reduction {
  std::string name;
  Symbol* symbol = nullptr;  // the prelude's local: the initial value
  ReduceOp op = ReduceOp::Add;
  int param = -1;           // its hidden partial array parameter
  std::string accumulator;  // the loop part: the IR local of a block's partial
};

struct RangeBounds {
  ir::Expr start, stop, step;
};

// One function being lowered: the kernel (frames_[0]) or an inlined device function.
struct Frame {
  const frontend::FunctionDef* fn = nullptr;
  ScopeStack scopes;
  std::vector<Symbol*> tracked;  // hoisted locals whose definite assignment is tracked
  int loop_depth = 0;

  // Device functions only.
  std::string label;        // the LabeledBlock that `return` leaves
  std::string result_base;  // the locals that hold the returned value: one per scalar of it
  std::vector<std::string> result_names;
  bool used_label = false;
  const frontend::Stmt* final_return = nullptr;  // a last top-level `return` needs no exit
  struct Return {
    const frontend::Return* stmt;
    std::optional<Value> value;
    // The Assigns emitted for it, one per scalar of the value (a tuple has several), retyped
    // once every return is known.
    std::vector<ir::Stmt> placeholders;
  };
  std::vector<Return> returns;
};

class Sequence;

// A part's own state (see Lowerer::calls_): made and destroyed in the part's file.
template <class T>
using Owned = std::unique_ptr<T, void (*)(T*)>;
struct CallState;
Owned<CallState> make_call_state();  // calls.cpp
struct WorkgroupState;
Owned<WorkgroupState> make_workgroup_state();  // workgroups.cpp

// Limits that turn pathological programs into CompileErrors instead of stack overflows or
// exponential work. Nesting counts expressions and statements being lowered at once, across
// inlined device functions (the front end bounds one function's expressions at 1000 levels).
inline constexpr int kMaxNesting = 1500;
inline constexpr int kMaxInlineDepth = 32;
inline constexpr int kMaxInlinedCalls = 10000;

class Lowerer {
 public:
  Lowerer(const frontend::Module& module, const frontend::FunctionDef& kernel,
          const std::vector<compiler::ArgType>& signature, KernelPart part = KernelPart::Loop);
  ir::Function run();

  // ------------------------------------------------------------ lower.cpp: kernel, helpers
  [[noreturn]] void fail(frontend::SourceLoc loc, const std::string& message) const;
  Frame& frame() { return *frames_.back(); }
  Symbol* new_symbol(Symbol s);
  std::string fresh(const std::string& base) { return names_.fresh(base); }
  void emit(ir::Stmt s) { out_->push_back(std::move(s)); }
  ir::ScalarType default_float() const { return fn_.default_float; }
  // Range bounds from already lowered arguments (1 to 3, as range()).
  RangeBounds range_bounds(std::vector<Value> args,
                           const std::vector<const frontend::Expr*>& exprs);

  // ------------------------------------------------------------ values.cpp
  // The reductions of the parallel loop: prelude locals it updates only by one fold.
  std::vector<Reduction> find_reductions(const frontend::For& loop);
  // One hidden partial array parameter per reduction, after the user's.
  void add_hidden_params(std::vector<Reduction>& reductions);
  // In the loop body: each reduction's name is its block's partial.
  void bind_partials(std::vector<Reduction>& reductions);
  // The loop part: the iteration space in blocks of ir::kReductionBlock, one partial per block
  // (the counts and block count go to `prelude`).
  ir::Stmt blocked_loop(std::vector<ir::ParallelDim> dims, std::vector<ir::Stmt> body,
                        const std::vector<Reduction>& reductions, std::vector<ir::Stmt>& prelude);
  // The epilogue part's one-iteration loop: the folds, the statements after the loop, the value.
  ir::Stmt epilogue(const frontend::For& loop, const std::vector<Reduction>& reductions);
  void lower_kernel_value(const frontend::Return& r);

  // ------------------------------------------------------------ statements.cpp
  // Lowers a block's statements into out_, in the current scope, declaring first the locals that
  // are first assigned inside if/for/while statements (they outlive them, as in Python).
  void lower_stmts(const frontend::Block& block);
  // Lowers a nested block into a new buffer and scope; returns it as one IR Block.
  ir::Stmt lower_body(const frontend::Block& block);
  void lower_stmt(const frontend::Stmt& s);
  // `name = value` for a local: declares it on first assignment, else converts and assigns.
  void assign_name(const std::string& name, frontend::SourceLoc loc, const Value& v,
                   frontend::SourceLoc value_loc);

  // `symbol = v` for a scalar local (not a tuple): converts v by the locals' rules.
  void assign_scalar(Symbol* s, const std::string& name, frontend::SourceLoc loc, const Value& v,
                     frontend::SourceLoc value_loc);

  // ------------------------------------------------------------ tuples.cpp
  // `(a, b, ...)` as a value: elements left to right, numbers, bools or tuples.
  Value lower_tuple(const frontend::Tuple& t);
  // The current value of a tuple local.
  Value read_tuple(const Symbol& s) const;
  // t[k] for a tuple value and an integer constant k (negative counts from the end).
  Value tuple_item(const Value& tuple, const frontend::Subscript& s);
  // A tuple symbol shaped like `v`, elements typed as v's; lets of v's values when `init`,
  // else of zeros into `lets` (a hoisted local, assigned later). Not declared in any scope.
  Symbol* make_tuple(const std::string& name, frontend::SourceLoc loc, const Value& v, bool init,
                     std::vector<ir::Stmt>* lets);
  // Assigns every element of the tuple local `s` from `v` (same shape), after saving v.
  void assign_tuple(Symbol& s, const std::string& name, const Value& v,
                    frontend::SourceLoc value_loc);
  // `a, b = value`: the value evaluated completely, then the targets left to right.
  void unpack(const frontend::Expr& target, const frontend::Expr& value);
  // The value with each element that is not a constant saved in a fresh local.
  Value settle(const Value& v);
  // A host constant (docs/language.md, "Constants") as a value: numbers weakly typed like
  // literals, typed constants typed, tuples as tuples; an unsupported object is the error at
  // `loc` naming `name`.
  Value constant_value(const ConstantValue& c, const std::string& name, frontend::SourceLoc loc);
  // A constant's tuple: a vector when it holds 1 to 4 numbers, a matrix when it holds equal
  // rows of them, else a tuple (host_constants.cpp).
  Value vector_constant(std::vector<Value> elements, const std::string& name,
                        frontend::SourceLoc loc);
  // "a tuple of 2 elements (i32, f32)", "a vec3 of f32" or the type name, for messages.
  std::string describe(const Value& v) const;

  // ------------------------------------------------------------ vectors.cpp
  // Vectors and matrices (docs/design/vectors.md): values made of scalar components.
  // lower_expr, refusing arrays, "no value" and plain tuples: a number, a bool, a vector or a
  // matrix (an operand of arithmetic, comparisons and element-wise builtins).
  Value operand(const frontend::Expr& e);
  // A vector (rows, cols 0) or matrix of `components`, checked (numbers or bools, no nesting)
  // and given one type: the common type of the typed ones, literals weak; all literals stay
  // weak, as floats if any is one. `what` names the construct in messages.
  Value make_vector(std::vector<Value> components, int rows, int cols, frontend::SourceLoc loc,
                    const std::string& what);
  // [a, b, c] (a vector) or [[a, b], [c, d]] / [u, v] of vectors (a matrix).
  Value lower_list(const frontend::Tuple& t);
  // tack.Vector(list[, dtype]) and tack.Matrix(list[, dtype]).
  Value construct_vector(const frontend::Call& c, bool matrix);
  // tack.Matrix.identity(n[, dtype]): n a constant 1 to 4; weak 1.0 and 0.0 without a dtype.
  Value identity_matrix(const frontend::Call& c);
  // A dtype argument (the second of `call`), or the CompileError saying it must be one.
  ScalarType dtype_argument(const frontend::Expr& e, const std::string& call);
  // The components' type (a vector of literals: their default type).
  ir::ScalarType component_type(const Value& v) const;
  // Element-wise a op b of vectors/matrices of one shape, or one of them a scalar; `@`.
  Value vector_binary(frontend::BinaryOp op, const Value& a, const Value& b,
                      frontend::SourceLoc loc);
  Value vector_unary(frontend::UnaryOp op, const Value& v, frontend::SourceLoc loc);
  // Element-wise comparison: a mask (a vector or matrix of bools).
  Value vector_compare(frontend::CompareOp op, const Value& a, const Value& b,
                       frontend::SourceLoc loc);
  // The value with every component that is not a leaf saved in a fresh local: a value used
  // more than once is evaluated once.
  Value once(const Value& v);
  // Operands of which one or both are used more than once (a number broadcast over a vector, a
  // matrix product's operands): if a repeated one is not a leaf, both are evaluated once, a
  // first.
  void settle_repeated(Value& a, bool a_repeated, Value& b, bool b_repeated);
  // v.x / v.y / v.z / v.w.
  Value vector_attribute(const Value& v, const frontend::Attribute& a);
  // v[k], m[i], m[i, j]; k may be a runtime integer for vectors and a matrix's row.
  Value vector_item(const Value& v, const frontend::Subscript& s);
  // v.dot(w), m.transpose(), ...: a method of a vector or matrix value; args[0] is the value,
  // the method's arguments follow, all lowered.
  Value vector_method(const std::string& method, std::vector<Value> args, frontend::SourceLoc loc);
  // `v.x = value`, `v[k] = value`, `m[i, j] = value`, `m[i] = row` for a vector local `s`
  // (op: an augmented assignment's operator).
  void assign_component(const frontend::Expr& target, const Value& value,
                        frontend::SourceLoc value_loc, std::optional<frontend::BinaryOp> op,
                        frontend::SourceLoc op_loc);
  // Whether the target names a component of a vector or matrix local (v.x, v[k], m[i, j]).
  bool is_component_target(const frontend::Expr& target);
  // any(m) / all(m) of a mask (a number or bool: its truth).
  Value reduce_mask(const Value& v, bool any, frontend::SourceLoc loc);
  // tack.select(mask, a, b), component by component (a bool mask picks whole values).
  Value vector_select(const Value& mask, const Value& a, const Value& b, frontend::SourceLoc loc);
  // The whole element p[i] of a tack.vec array (an Access with `whole`), and its store: the
  // value is read completely before the first component is stored; a number fills it.
  Value load_whole(const Access& acc);
  void store_whole(const Access& acc, const Value& value, frontend::SourceLoc value_loc);

  // Definite assignment of hoisted locals, saved and merged around branches and loops.
  using Snapshot = std::vector<std::pair<Symbol*, bool>>;
  Snapshot snapshot();
  void restore(const Snapshot& s);

  // ------------------------------------------------------------ expressions.cpp
  Value lower_expr(const frontend::Expr& e);
  // lower_expr, refusing arrays and "no value": the expression must be a number or a bool.
  Value scalar(const frontend::Expr& e);
  // An expression in a truth-testing position (if, while, `not`, and/or there): bool IR.
  ir::Expr lower_condition(const frontend::Expr& e);
  ir::Expr to_bool(const Value& v, frontend::SourceLoc loc);

  Value binary(frontend::BinaryOp op, const Value& a, const Value& b, frontend::SourceLoc loc);
  // -v, +v, ~v of a number (not `not`: lower_condition).
  Value unary(frontend::UnaryOp op, const Value& v, frontend::SourceLoc loc);
  ir::Expr compare(frontend::CompareOp op, const Value& a, const Value& b, frontend::SourceLoc loc);
  // The type two values merge into (conditional arms, returns, min/max), or a CompileError.
  ir::ScalarType merge_types(const Value& a, const Value& b, frontend::SourceLoc loc,
                             const std::string& what);

  // The value's type; weak literals report their default type.
  ir::ScalarType type_of(const Value& v) const;
  // The value as IR; weak literals take their default type.
  ir::Expr typed(const Value& v) const;
  // The value converted to `to`, where the typing rules already chose `to` (a promotion): weak
  // integers must fit (else a CompileError naming `what`), floats do not become integers.
  ir::Expr coerce(const Value& v, ir::ScalarType to, frontend::SourceLoc loc,
                  const std::string& what);
  // The value converted for a store into an element of type `to` (NumPy's a[i] = v: any number
  // converts; a literal integer must fit).
  ir::Expr convert_store(const Value& v, ir::ScalarType to, frontend::SourceLoc loc,
                         const std::string& what);

  // a[i, j], a[i][j], p[i, c]: the element, with its indices lowered into `seq`. With `whole`,
  // p[i] of a tack.vec array is the whole vector element (Access::whole).
  Access lower_access(const frontend::Subscript& s, Sequence& seq, bool whole = false);
  ir::Expr load(const Access& a);
  ir::Stmt store(const Access& a, ir::Expr value);
  // An index: any integer type; literals must not be negative.
  ir::Expr index(const Value& v, frontend::SourceLoc loc);
  // The symbol an array-valued expression names (a bare name), or a CompileError.
  const Symbol* array_of(const frontend::Expr& e, const std::string& what);

  // Saves into temporaries the values that read memory (the operands lowered before a
  // statement-emitting operand), inserting the Lets at `mark` in out_.
  void spill_before(std::vector<Value>& values, size_t mark);
  // The value in a fresh local (when it would otherwise be evaluated twice).
  ir::Expr spill(ir::Expr e);
  // A lazily evaluated `and`/`or` operand: plain Logical when its buffer is empty.
  ir::Expr lazy_logical(ir::LogicalOp op, ir::Expr lhs, std::vector<ir::Stmt> rhs_stmts,
                        ir::Expr rhs);

  // ------------------------------------------------------------ builtins.cpp, builtins/
  // A call in an expression (discard: in an expression statement, the result is unused): the
  // driver of builtins.cpp, the builtins' own lowering in the table (builtins/builtin.hpp).
  Value lower_call(const frontend::Call& call, bool discard);
  // print(...) as an IR Print: one line, arguments separated by spaces (print.cpp).
  void lower_print(const frontend::Call& c);
  // assert test[, "message"] (print.cpp).
  void lower_assert(const frontend::Assert& a);
  // Workgroups (workgroups.cpp, docs/design/workgroups.md): records the first use (for
  // devices without workgroups) and refuses one before the parallel loop.
  void use_workgroups(const std::string& what, frontend::SourceLoc loc);
  // tack.block_sum/min/max(v) (op 0, 1, 2): every work item of the group gets the result.
  Value block_reduce(const std::string& name, int op, const frontend::Call& c);
  // Barriers (and so block reductions) only where every work item of a group reaches them.
  void check_uniform_barriers();
  // tack.random.seed/uniform/normal/... (random.cpp, docs/design/random.md).
  Value lower_random(const std::string& name, const frontend::Call& c);
  // tex.<method>(...) on a texture parameter (textures.cpp): only sample(u, v, w).
  Value lower_texture_sample(const Symbol& tex, const std::string& method, const frontend::Call& c);
  // Any other use of a texture: a CompileError saying to sample it or pass its array.
  [[noreturn]] void refuse_texture(const Symbol& s, frontend::SourceLoc loc);
  // `name = tack.zeros(shape, dtype)` (builtins/local_arrays.cpp).
  void declare_local_array(const std::string& name, frontend::SourceLoc loc,
                           const frontend::Call& call);
  // The scalar type a dtype expression names (tack.f32, float, ...), or nothing.
  std::optional<ir::ScalarType> dtype_named(const frontend::Expr& e) const;
  // Whether a bare name is taken by a builtin, a module or a module function.
  bool is_reserved_name(const std::string& name) const;

  // ------------------------------------------------------------ calls.cpp
  // The names a function assigns anywhere (its locals, as Python decides them).
  const std::set<std::string>& assigned_in(const frontend::FunctionDef& f);
  // The names of f's range-loop variables that f also uses outside every loop of that name
  // (read or assigned after the loop, or a local before it): Python's loop variables are
  // locals of the function, so these loops assign a local that outlives them. The others stay
  // each loop's own counter.
  const std::set<std::string>& carried_loop_vars(const frontend::FunctionDef& f);
  Value inline_call(const frontend::FunctionDef& fn, const frontend::Call& call, bool discard);
  void lower_return(const frontend::Return& r);

  // The state every part of the lowering shares: the kernel, the IR being built, the frames of
  // the functions being lowered, the statement buffer, the names. Public to the files of this
  // class; nothing outside src/lowering sees them.
  const frontend::Module& module_;
  const frontend::FunctionDef& kernel_;
  const std::vector<compiler::ArgType>& signature_;
  ir::Function fn_;
  NameSupply names_;
  std::deque<Symbol> symbols_;
  std::vector<std::unique_ptr<Frame>> frames_;
  std::vector<ir::Stmt>* out_ = nullptr;
  bool in_prelude_ = false;
  KernelPart part_ = KernelPart::Loop;
  int nesting_ = 0;
  std::vector<ir::Expr> iteration_;  // the parallel loop's variables, as i64 (for asserts)

  // The state one part owns: its type is complete only in that part's file, so no other file
  // can touch it (calls.cpp: the functions' assigned names and carried loop variables, the
  // inlined-call count; workgroups.cpp: the locals holding block reduction results).
  Owned<CallState> calls_ = make_call_state();
  Owned<WorkgroupState> workgroups_ = make_workgroup_state();
};

// Counts one level of nesting (see kMaxNesting) for its lifetime.
class NestingGuard {
 public:
  NestingGuard(Lowerer& l, frontend::SourceLoc loc) : l_(l) {
    if (++l_.nesting_ > kMaxNesting) {
      l_.fail(loc, "the code is nested too deeply here (more than " + std::to_string(kMaxNesting) +
                       " levels of expressions and statements, counting inlined device "
                       "functions); split it with local variables");
    }
  }
  ~NestingGuard() { --l_.nesting_; }
  NestingGuard(const NestingGuard&) = delete;
  NestingGuard& operator=(const NestingGuard&) = delete;

 private:
  Lowerer& l_;
};

// Redirects emitted statements into `buffer` for its lifetime.
class Redirect {
 public:
  Redirect(Lowerer& l, std::vector<ir::Stmt>& buffer) : l_(l), saved_(l.out_) { l.out_ = &buffer; }
  ~Redirect() { l_.out_ = saved_; }
  Redirect(const Redirect&) = delete;
  Redirect& operator=(const Redirect&) = delete;

 private:
  Lowerer& l_;
  std::vector<ir::Stmt>* saved_;
};

// A scope of the current frame for its lifetime.
class ScopeGuard {
 public:
  explicit ScopeGuard(Lowerer& l) : scopes_(l.frame().scopes) { scopes_.push(); }
  ~ScopeGuard() { scopes_.pop(); }
  ScopeGuard(const ScopeGuard&) = delete;
  ScopeGuard& operator=(const ScopeGuard&) = delete;

 private:
  ScopeStack& scopes_;
};

// The operands of one construct, lowered left to right in Python's order (see the top).
class Sequence {
 public:
  explicit Sequence(Lowerer& l) : l_(l) {}

  // Lowers one operand with `lower` (returning a Value); returns its position.
  template <class F>
  size_t add(F&& lower) {
    size_t mark = l_.out_->size();
    Value v = lower();
    if (l_.out_->size() != mark) l_.spill_before(values_, mark);
    values_.push_back(std::move(v));
    return values_.size() - 1;
  }
  size_t add_expr(const frontend::Expr& e) {
    return add([&] { return l_.scalar(e); });
  }
  // An operand that may also be a vector or matrix (Lowerer::operand).
  size_t add_operand(const frontend::Expr& e) {
    return add([&] { return l_.operand(e); });
  }
  Value& operator[](size_t i) { return values_[i]; }
  std::vector<Value>& values() { return values_; }

 private:
  Lowerer& l_;
  std::vector<Value> values_;
};

// Every name assigned (= or op=) in s or its nested blocks, with the first assignment's location,
// in source order: not loop variables of loops inside s, not `x = tack.zeros(...)` (local arrays
// are scoped to their block).
struct AssignedName {
  std::string name;
  frontend::SourceLoc loc;
};
// With `carried`, the loop variables of loops inside s that are in it count as assigned (loop
// variables whose value is used after their loop, Lowerer::carried_loop_vars).
void assigned_names(const frontend::Stmt& s, std::vector<AssignedName>& out,
                    const std::set<std::string>* carried = nullptr);

// IR facts the lowering needs about expressions it built: ir/effects.hpp.
using ir::cheap_to_repeat;
using ir::contains_atomic;
using ir::reads_memory;
using ir::writes_memory;
// Whether a block can complete normally (its last statement is not break/continue/return or an
// if/else all of whose branches end so). Used for definite assignment and device functions.
bool falls_through(const frontend::Block& block);

}  // namespace tack::lowering
