// Private to codegen/llvm: the emitter that turns one Tack IR Function into an LLVM module.
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <string>
#include <utility>
#include <vector>

#include "codegen/llvm/llvm_codegen.hpp"
#include "ir/visitor.hpp"

namespace tack::codegen::detail {

// Attributes every generated function carries so that LLVM tunes for this machine.
struct TargetAttrs {
  std::string cpu;
  std::string features;
};

// Fills `m` (already given its triple and data layout) with the kernel's functions:
//   <name>.body(arrays..., scalars..., i64 begin, i64 end, ptr status)   internal, alwaysinline
//   <name>.count(arrays..., scalars...) -> i64                           internal, alwaysinline
//   tack_chunk_<name>(ptr args, i64 begin, i64 end, ptr status)           the ABI wrapper
//   tack_extent_<name>(ptr args) -> i64                                  the ABI wrapper
// Each array parameter becomes a `ptr` (noalias when opts.disjoint) plus one i64 per extent.
// The wrappers unpack the argument slots and call the internal function, which O3 inlines;
// inlining turns the noalias parameters into scoped alias metadata on every access.
void emit_kernel_module(llvm::Module& m, const ir::Function& f, const CodegenOptions& opts,
                        const TargetAttrs& target);

class KernelEmitter final : public ir::ExhaustiveVisitor {
 public:
  KernelEmitter(llvm::Module& m, const ir::Function& f, const CodegenOptions& opts,
                TargetAttrs target);
  void emit();

  // ------------------------------------------------------------ expressions (emit_expr.cpp)
  void visit(const ir::IntConst& n) override;
  void visit(const ir::FloatConst& n) override;
  void visit(const ir::BoolConst& n) override;
  void visit(const ir::Var& n) override;
  void visit(const ir::Param& n) override;
  void visit(const ir::ArrayLoad& n) override;
  void visit(const ir::ArrayShape& n) override;
  void visit(const ir::LocalArrayLoad& n) override;
  void visit(const ir::Binary& n) override;
  void visit(const ir::Compare& n) override;
  void visit(const ir::Logical& n) override;
  void visit(const ir::Unary& n) override;
  void visit(const ir::Select& n) override;
  void visit(const ir::Cast& n) override;
  void visit(const ir::MathCall& n) override;
  void visit(const ir::AtomicRMW& n) override;

  // ------------------------------------------------------------ statements (kernel_emitter.cpp)
  void visit(const ir::Let& n) override;
  void visit(const ir::Assign& n) override;
  void visit(const ir::ArrayStore& n) override;
  void visit(const ir::LocalArrayDecl& n) override;
  void visit(const ir::LocalArrayStore& n) override;
  void visit(const ir::Block& n) override;
  void visit(const ir::LabeledBlock& n) override;
  void visit(const ir::ExitBlock& n) override;
  void visit(const ir::If& n) override;
  void visit(const ir::For& n) override;
  void visit(const ir::While& n) override;
  void visit(const ir::Break& n) override;
  void visit(const ir::Continue& n) override;
  void visit(const ir::ExprStmt& n) override;
  void visit(const ir::Print& n) override;
  void visit(const ir::ThreadId& n) override;
  void visit(const ir::Barrier& n) override;
  void visit(const ir::Assert& n) override;
  void visit(const ir::ParallelFor& n) override;

 private:
  struct ArrayArgs {
    llvm::Value* data = nullptr;
    std::vector<llvm::Value*> extents;  // i64, one per logical dim
    llvm::Value* pitch = nullptr;       // i64, strided arrays only (ir::ArrayType::strided)
  };
  struct LocalSlot {
    std::string name;
    llvm::AllocaInst* ptr = nullptr;
    ir::ScalarType type;
    std::vector<int64_t> dims;  // empty for a scalar local
    // Loop variables of integer types narrower than 64 bits: the value widened to i64 (sign- or
    // zero-extended by type), kept equal to it by every store (store_local). An index that is
    // the variable itself reads this instead of extending the narrow value, so LLVM sees the
    // exact affine i64 sequence and vectorizes without a runtime wrap check.
    llvm::AllocaInst* wide = nullptr;
  };
  struct LoopTargets {
    llvm::BasicBlock* break_to;
    llvm::BasicBlock* continue_to;
  };
  struct DimBounds {
    ir::ScalarType type;
    llvm::Value* start;
    llvm::Value* step;
    llvm::Value* count;  // i64
  };

  // ------------------------------------------------------------ functions
  std::vector<llvm::Type*> param_types();
  llvm::Function* make_function(const std::string& name, llvm::Type* ret,
                                std::vector<llvm::Type*> params, bool internal);
  void begin_function(llvm::Function* fn);
  void bind_params(llvm::Function* fn);
  std::vector<llvm::Value*> unpack_args(llvm::Value* args);
  void emit_body_function(llvm::Function* fn);
  void emit_count_function(llvm::Function* fn);
  void emit_wrapper(llvm::Function* wrapper, llvm::Function* callee, bool chunk);
  void emit_prelude();
  std::vector<DimBounds> emit_dim_bounds(const ir::ParallelFor& pf);
  // Stores dim d's variable for 0-based position idx (i64): start + idx * step, wrapping.
  void set_dim_var(const ir::ParallelDim& d, const DimBounds& b, llvm::Value* idx);
  // A loop variable's slot (and its wide shadow when the type is narrow), declared in scope.
  void declare_loop_var(const std::string& name, ir::ScalarType t);
  // Stores a loop variable's value; `exact` is its i64 value when known (else it is extended).
  void store_local(const LocalSlot& l, llvm::Value* v, llvm::Value* exact = nullptr);
  // start + i * step in i64 (operands extended by the type's signedness), no wrap: only for the
  // values of a range, which are representable.
  llvm::Value* wide_position(ir::ScalarType t, llvm::Value* start, llvm::Value* i,
                             llvm::Value* step);

  // ------------------------------------------------------------ helpers
  llvm::Value* emit(const ir::Expr& e);
  llvm::Type* value_type(ir::ScalarType t);
  llvm::Type* memory_type(ir::ScalarType t);
  llvm::Value* to_memory(ir::ScalarType t, llvm::Value* v);
  llvm::Value* from_memory(ir::ScalarType t, llvm::Value* v);
  // An index expression, emitted and converted to i64.
  llvm::Value* emit_index(const ir::Expr& e);
  llvm::Value* to_i64(ir::ScalarType t, llvm::Value* v);
  llvm::Value* zero_of(ir::ScalarType t);
  llvm::Value* position(llvm::Value* start, llvm::Value* i, llvm::Value* step);
  llvm::AllocaInst* entry_alloca(llvm::Type* t, const std::string& name);
  llvm::BasicBlock* new_block(const std::string& name);
  // Branches to target and continues emitting into a fresh unreachable block.
  void jump(llvm::BasicBlock* target);
  void declare_local(LocalSlot slot);
  const LocalSlot& lookup(const std::string& name) const;

  // Runs `access()` only when every index is inside its extent. With bounds checks off it
  // just runs it. Returns the access's value, or `oob_value` when skipped (null for stores).
  llvm::Value* guarded(int param, const std::vector<llvm::Value*>& idx,
                       const std::vector<llvm::Value*>& extents, llvm::Type* result,
                       llvm::function_ref<llvm::Value*()> access);
  llvm::Value* array_address(int param, const std::vector<llvm::Value*>& idx);
  llvm::Value* local_address(const LocalSlot& l, const std::vector<llvm::Value*>& idx);
  std::vector<llvm::Value*> local_extents(const LocalSlot& l);
  llvm::Function* oob_function();

  // ------------------------------------------------------------ Python arithmetic
  // (python_arith.cpp)
  llvm::Value* arith(ir::BinaryOp op, ir::ScalarType t, llvm::Value* a, llvm::Value* b);
  llvm::Value* int_floordiv_mod(bool want_mod, ir::ScalarType t, llvm::Value* a, llvm::Value* b);
  llvm::Value* float_floordiv_mod(bool want_mod, llvm::Value* a, llvm::Value* b);
  llvm::Value* int_pow(ir::ScalarType t, llvm::Value* a, llvm::Value* b);
  llvm::Function* int_pow_function(ir::ScalarType t);
  llvm::Value* shift(bool left, ir::ScalarType t, llvm::Value* a, llvm::Value* n);
  llvm::Value* compare(ir::CompareOp op, ir::ScalarType t, llvm::Value* a, llvm::Value* b);
  llvm::Value* convert(ir::ScalarType from, ir::ScalarType to, llvm::Value* v);
  llvm::Value* math(ir::MathFn fn, ir::ScalarType t, const std::vector<llvm::Value*>& args);
  llvm::Value* libm_call(const char* f32_name, const char* f64_name, ir::ScalarType t,
                         const std::vector<llvm::Value*>& args);
  // Python's len(range(start, stop, step)) as i64, exact for every integer type; 0 for step 0.
  llvm::Value* range_count(ir::ScalarType t, llvm::Value* start, llvm::Value* stop,
                           llvm::Value* step);

  llvm::Module& m_;
  llvm::LLVMContext& ctx_;
  const ir::Function& f_;
  CodegenOptions opts_;
  TargetAttrs target_;
  // The default (constant-only) folder on purpose: a simplifying folder would fold uses of a
  // loop's PHI before its back-edge value exists, as if the PHI were its initial value.
  llvm::IRBuilder<> b_;

  llvm::Function* fn_ = nullptr;
  llvm::BasicBlock* entry_ = nullptr;
  std::vector<ArrayArgs> arrays_;      // per parameter (empty for scalars)
  std::vector<llvm::Value*> scalars_;  // per parameter (null for arrays)
  llvm::Value* status_ = nullptr;
  llvm::Value* begin_ = nullptr;
  llvm::Value* end_ = nullptr;
  std::vector<std::vector<LocalSlot>> scopes_;
  std::vector<LoopTargets> loops_;
  std::vector<std::pair<std::string, llvm::BasicBlock*>> labels_;
  llvm::Value* value_ = nullptr;  // the result of the expression just visited
  bool streamed_ = false;         // a non-temporal store was emitted: fence before returning
};

}  // namespace tack::codegen::detail
