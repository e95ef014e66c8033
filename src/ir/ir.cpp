// Node constructors (unchecked), operator names, and the Function accessors.
#include "ir/ir.hpp"

#include <array>

#include "support/error.hpp"

namespace tack::ir {

std::string_view kind_name(NodeKind k) {
  static constexpr std::array kNames = {
#define TACK_IR_EXPR(Name) std::string_view(#Name),
#define TACK_IR_STMT(Name) std::string_view(#Name),
#include "ir/nodes.def"
  };
  return kNames[static_cast<size_t>(k)];
}

std::string_view op_name(BinaryOp op) {
  return operators::spelling_in(operators::kBinary, op);
}

std::string_view op_name(CompareOp op) {
  return operators::spelling_in(operators::kCompare, op);
}

std::string_view op_name(LogicalOp op) {
  return operators::spelling_in(operators::kLogical, op);
}

std::string_view op_name(UnaryOp op) {
  return operators::spelling_in(operators::kUnary, op);
}

std::string_view op_name(AtomicOp op) {
  switch (op) {
    case AtomicOp::Add:
      return "atomic_add";
    case AtomicOp::Min:
      return "atomic_min";
    case AtomicOp::Max:
      return "atomic_max";
  }
  return "?";
}

std::string_view fn_name(MathFn fn) {
  switch (fn) {
    case MathFn::Sqrt:
      return "sqrt";
    case MathFn::Cbrt:
      return "cbrt";
    case MathFn::Sin:
      return "sin";
    case MathFn::Cos:
      return "cos";
    case MathFn::Tan:
      return "tan";
    case MathFn::Asin:
      return "asin";
    case MathFn::Acos:
      return "acos";
    case MathFn::Atan:
      return "atan";
    case MathFn::Sinh:
      return "sinh";
    case MathFn::Cosh:
      return "cosh";
    case MathFn::Tanh:
      return "tanh";
    case MathFn::Asinh:
      return "asinh";
    case MathFn::Acosh:
      return "acosh";
    case MathFn::Atanh:
      return "atanh";
    case MathFn::Exp:
      return "exp";
    case MathFn::Exp2:
      return "exp2";
    case MathFn::Expm1:
      return "expm1";
    case MathFn::Log:
      return "log";
    case MathFn::Log2:
      return "log2";
    case MathFn::Log10:
      return "log10";
    case MathFn::Log1p:
      return "log1p";
    case MathFn::Erf:
      return "erf";
    case MathFn::Erfc:
      return "erfc";
    case MathFn::Floor:
      return "floor";
    case MathFn::Ceil:
      return "ceil";
    case MathFn::Trunc:
      return "trunc";
    case MathFn::Round:
      return "round";
    case MathFn::Atan2:
      return "atan2";
    case MathFn::Fmod:
      return "fmod";
    case MathFn::Copysign:
      return "copysign";
    case MathFn::Hypot:
      return "hypot";
    case MathFn::Abs:
      return "abs";
    case MathFn::Min:
      return "min";
    case MathFn::Max:
      return "max";
    case MathFn::IsNan:
      return "isnan";
    case MathFn::IsInf:
      return "isinf";
    case MathFn::IsFinite:
      return "isfinite";
  }
  return "?";
}

int arity(MathFn fn) {
  switch (fn) {
    case MathFn::Atan2:
    case MathFn::Fmod:
    case MathFn::Copysign:
    case MathFn::Hypot:
    case MathFn::Min:
    case MathFn::Max:
      return 2;
    default:
      return 1;
  }
}

Expr IntConst::make(ScalarType t, int64_t v) {
  return std::make_shared<const IntConst>(t, v);
}
Expr FloatConst::make(ScalarType t, double v) {
  return std::make_shared<const FloatConst>(t, v);
}
Expr BoolConst::make(bool v) {
  return std::make_shared<const BoolConst>(v);
}
Expr Var::make(ScalarType t, std::string name) {
  return std::make_shared<const Var>(t, std::move(name));
}
Expr Param::make(ScalarType t, int index) {
  return std::make_shared<const Param>(t, index);
}
Expr ArrayLoad::make(ScalarType elem, int param, std::vector<Expr> indices) {
  return std::make_shared<const ArrayLoad>(elem, param, std::move(indices));
}
Expr ArrayShape::make(int param, int dim) {
  return std::make_shared<const ArrayShape>(param, dim);
}
Expr LocalArrayLoad::make(ScalarType elem, std::string name, std::vector<Expr> indices) {
  return std::make_shared<const LocalArrayLoad>(elem, std::move(name), std::move(indices));
}
Expr Binary::make(BinaryOp op, Expr a, Expr b) {
  TACK_INTERNAL_ASSERT(a && b, "Binary with a null operand");
  return std::make_shared<const Binary>(op, std::move(a), std::move(b));
}
Expr Compare::make(CompareOp op, Expr a, Expr b) {
  TACK_INTERNAL_ASSERT(a && b, "Compare with a null operand");
  return std::make_shared<const Compare>(op, std::move(a), std::move(b));
}
Expr Logical::make(LogicalOp op, Expr a, Expr b) {
  TACK_INTERNAL_ASSERT(a && b, "Logical with a null operand");
  return std::make_shared<const Logical>(op, std::move(a), std::move(b));
}
Expr Unary::make(UnaryOp op, Expr a) {
  TACK_INTERNAL_ASSERT(a != nullptr, "Unary with a null operand");
  return std::make_shared<const Unary>(op, std::move(a));
}
Expr Select::make(Expr cond, Expr t, Expr f) {
  TACK_INTERNAL_ASSERT(cond && t && f, "Select with a null operand");
  return std::make_shared<const Select>(std::move(cond), std::move(t), std::move(f));
}
Expr Cast::make(ScalarType t, Expr value) {
  TACK_INTERNAL_ASSERT(value != nullptr, "Cast of a null value");
  return std::make_shared<const Cast>(t, std::move(value));
}
Expr MathCall::make(MathFn fn, std::vector<Expr> args) {
  TACK_INTERNAL_ASSERT(!args.empty() && args[0], "MathCall without arguments");
  ScalarType t = args[0]->type;
  if (fn == MathFn::IsNan || fn == MathFn::IsInf || fn == MathFn::IsFinite) t = ScalarType::boolean;
  return std::make_shared<const MathCall>(t, fn, std::move(args));
}
Expr AtomicRMW::make(AtomicOp op, int param, std::vector<Expr> indices, Expr value) {
  TACK_INTERNAL_ASSERT(value != nullptr, "AtomicRMW without a value");
  ScalarType t = value->type;
  return std::make_shared<const AtomicRMW>(t, op, param, std::move(indices), std::move(value));
}

Stmt Let::make(std::string name, Expr value) {
  TACK_INTERNAL_ASSERT(value != nullptr, "Let without a value");
  return std::make_shared<const Let>(std::move(name), std::move(value));
}
Stmt Assign::make(std::string name, Expr value) {
  TACK_INTERNAL_ASSERT(value != nullptr, "Assign without a value");
  return std::make_shared<const Assign>(std::move(name), std::move(value));
}
Stmt ArrayStore::make(int param, std::vector<Expr> indices, Expr value, bool streaming) {
  TACK_INTERNAL_ASSERT(value != nullptr, "ArrayStore without a value");
  return std::make_shared<const ArrayStore>(param, std::move(indices), std::move(value), streaming);
}
Stmt Barrier::make(int line, int column) {
  return std::make_shared<const Barrier>(line, column);
}

Expr ThreadId::make() {
  return std::make_shared<const ThreadId>();
}

Stmt LocalArrayDecl::make(std::string name, ScalarType elem, std::vector<int64_t> dims,
                          bool shared) {
  return std::make_shared<const LocalArrayDecl>(std::move(name), elem, std::move(dims), shared);
}
Stmt LocalArrayStore::make(std::string name, std::vector<Expr> indices, Expr value) {
  TACK_INTERNAL_ASSERT(value != nullptr, "LocalArrayStore without a value");
  return std::make_shared<const LocalArrayStore>(std::move(name), std::move(indices),
                                                 std::move(value));
}
Stmt Block::make(std::vector<Stmt> stmts) {
  return std::make_shared<const Block>(std::move(stmts));
}
Stmt LabeledBlock::make(std::string label, Stmt body) {
  TACK_INTERNAL_ASSERT(body != nullptr, "LabeledBlock without a body");
  return std::make_shared<const LabeledBlock>(std::move(label), std::move(body));
}
Stmt ExitBlock::make(std::string label) {
  return std::make_shared<const ExitBlock>(std::move(label));
}
Stmt If::make(Expr cond, Stmt then_body, Stmt else_body) {
  TACK_INTERNAL_ASSERT(cond && then_body, "If without a condition or a then-branch");
  return std::make_shared<const If>(std::move(cond), std::move(then_body), std::move(else_body));
}
Stmt For::make(std::string name, Expr start, Expr stop, Expr step, Stmt body, bool lanes) {
  TACK_INTERNAL_ASSERT(start && stop && step && body, "For with a null part");
  return std::make_shared<const For>(std::move(name), std::move(start), std::move(stop),
                                     std::move(step), std::move(body), lanes);
}
Stmt While::make(Expr cond, Stmt body) {
  TACK_INTERNAL_ASSERT(cond && body, "While with a null part");
  return std::make_shared<const While>(std::move(cond), std::move(body));
}
Stmt Break::make() {
  return std::make_shared<const Break>();
}
Stmt Continue::make() {
  return std::make_shared<const Continue>();
}
Stmt Print::make(std::vector<PrintPart> parts) {
  return std::make_shared<const Print>(std::move(parts));
}

Stmt Assert::make(Stmt setup, Expr cond, int site, std::vector<Expr> iteration) {
  TACK_INTERNAL_ASSERT(cond != nullptr, "Assert without a condition");
  TACK_INTERNAL_ASSERT(setup != nullptr && setup->kind == NodeKind::Block,
                       "Assert without its setup block");
  return std::make_shared<const Assert>(std::move(setup), std::move(cond), site,
                                        std::move(iteration));
}

Stmt ExprStmt::make(Expr expr) {
  TACK_INTERNAL_ASSERT(expr != nullptr, "ExprStmt without an expression");
  return std::make_shared<const ExprStmt>(std::move(expr));
}
Stmt ParallelFor::make(std::vector<ParallelDim> dims, Stmt body) {
  TACK_INTERNAL_ASSERT(body != nullptr, "ParallelFor without a body");
  for (const ParallelDim& d : dims) {
    TACK_INTERNAL_ASSERT(d.start && d.stop && d.step, "ParallelFor dim with a null bound");
  }
  return std::make_shared<const ParallelFor>(std::move(dims), std::move(body));
}

ParamDecl ParamDecl::array(std::string name, ArrayType t) {
  return ParamDecl{std::move(name), ParamKind::Array, t.elem, t.rank, t.vec_width, t.strided};
}
ParamDecl ParamDecl::scalar(std::string name, ScalarType t) {
  return ParamDecl{std::move(name), ParamKind::Scalar, t, 0, 0, false};
}

const ParallelFor* Function::parallel_for() const {
  const Block* b = body ? body->as<Block>() : nullptr;
  if (!b || b->stmts.empty() || !b->stmts.back()) return nullptr;
  return b->stmts.back()->as<ParallelFor>();
}

std::vector<Stmt> Function::prelude() const {
  const Block* b = body ? body->as<Block>() : nullptr;
  if (!b || b->stmts.empty()) return {};
  return std::vector<Stmt>(b->stmts.begin(), b->stmts.end() - 1);
}

}  // namespace tack::ir
