// KernelEmitter: expressions — constants, locals, parameters, array and local-array loads,
// operators, short-circuit logic, selects, casts, math calls and atomics.
#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>

#include "codegen/llvm/kernel_emitter.hpp"
#include "ir/effects.hpp"
#include "support/error.hpp"

namespace tack::codegen::detail {

void KernelEmitter::visit(const ir::IntConst& n) {
  unsigned width = static_cast<unsigned>(ir::bits(n.type));
  uint64_t bits = static_cast<uint64_t>(n.value);
  if (width < 64) bits &= (uint64_t{1} << width) - 1;
  value_ = llvm::ConstantInt::get(ctx_, llvm::APInt(width, bits));
}

void KernelEmitter::visit(const ir::FloatConst& n) {
  value_ = llvm::ConstantFP::get(value_type(n.type), n.value);
}

void KernelEmitter::visit(const ir::BoolConst& n) {
  value_ = b_.getInt1(n.value);
}

void KernelEmitter::visit(const ir::Var& n) {
  value_ = b_.CreateLoad(value_type(n.type), lookup(n.name).ptr, n.name);
}

void KernelEmitter::visit(const ir::Param& n) {
  value_ = scalars_[n.index];
}

void KernelEmitter::visit(const ir::ArrayLoad& n) {
  std::vector<llvm::Value*> idx;
  for (const ir::Expr& e : n.indices) idx.push_back(emit_index(e));
  ir::ScalarType elem = n.type;
  value_ = guarded(n.param, idx, arrays_[n.param].extents, value_type(elem), [&] {
    // Alignment 1: imported buffers may start at any byte (seed: "Alignment").
    llvm::Value* v =
        b_.CreateAlignedLoad(memory_type(elem), array_address(n.param, idx), llvm::Align(1));
    return from_memory(elem, v);
  });
}

void KernelEmitter::visit(const ir::ArrayShape& n) {
  value_ = arrays_[n.param].extents[n.dim];
}

void KernelEmitter::visit(const ir::LocalArrayLoad& n) {
  std::vector<llvm::Value*> idx;
  for (const ir::Expr& e : n.indices) idx.push_back(emit_index(e));
  const LocalSlot& l = lookup(n.name);
  value_ = guarded(-1, idx, local_extents(l), value_type(l.type), [&] {
    return from_memory(l.type, b_.CreateLoad(memory_type(l.type), local_address(l, idx)));
  });
}

void KernelEmitter::visit(const ir::Binary& n) {
  llvm::Value* a = emit(n.a);
  llvm::Value* b = emit(n.b);
  value_ = arith(n.op, n.a->type, a, b);
}

void KernelEmitter::visit(const ir::Compare& n) {
  llvm::Value* a = emit(n.a);
  llvm::Value* b = emit(n.b);
  value_ = compare(n.op, n.a->type, a, b);
}

// `a and b` / `a or b`: b is evaluated only when a does not decide.
void KernelEmitter::visit(const ir::Logical& n) {
  bool is_and = n.op == ir::LogicalOp::And;
  llvm::Value* a = emit(n.a);
  llvm::BasicBlock* a_end = b_.GetInsertBlock();
  llvm::BasicBlock* rhs = new_block(is_and ? "and.rhs" : "or.rhs");
  llvm::BasicBlock* merge = new_block(is_and ? "and.end" : "or.end");
  if (is_and) {
    b_.CreateCondBr(a, rhs, merge);
  } else {
    b_.CreateCondBr(a, merge, rhs);
  }
  b_.SetInsertPoint(rhs);
  llvm::Value* b = emit(n.b);
  llvm::BasicBlock* rhs_end = b_.GetInsertBlock();
  b_.CreateBr(merge);
  b_.SetInsertPoint(merge);
  llvm::PHINode* phi = b_.CreatePHI(b_.getInt1Ty(), 2);
  phi->addIncoming(b_.getInt1(!is_and), a_end);
  phi->addIncoming(b, rhs_end);
  value_ = phi;
}

void KernelEmitter::visit(const ir::Unary& n) {
  llvm::Value* a = emit(n.a);
  switch (n.op) {
    case ir::UnaryOp::Neg:
      value_ = tack::is_float(n.type) ? b_.CreateFNeg(a) : b_.CreateNeg(a);  // wraps
      break;
    case ir::UnaryOp::Invert:
    case ir::UnaryOp::Not:
      value_ = b_.CreateNot(a);
      break;
  }
}

// cond ? t : f evaluating one arm; arms that are safe to evaluate anyway become a `select`.
void KernelEmitter::visit(const ir::Select& n) {
  llvm::Value* c = emit(n.cond);
  if (ir::cheap_to_repeat(n.t) && ir::cheap_to_repeat(n.f)) {
    llvm::Value* t = emit(n.t);
    llvm::Value* f = emit(n.f);
    value_ = b_.CreateSelect(c, t, f);
    return;
  }
  llvm::BasicBlock* then_bb = new_block("sel.then");
  llvm::BasicBlock* else_bb = new_block("sel.else");
  llvm::BasicBlock* merge = new_block("sel.end");
  b_.CreateCondBr(c, then_bb, else_bb);
  b_.SetInsertPoint(then_bb);
  llvm::Value* t = emit(n.t);
  llvm::BasicBlock* t_end = b_.GetInsertBlock();
  b_.CreateBr(merge);
  b_.SetInsertPoint(else_bb);
  llvm::Value* f = emit(n.f);
  llvm::BasicBlock* f_end = b_.GetInsertBlock();
  b_.CreateBr(merge);
  b_.SetInsertPoint(merge);
  llvm::PHINode* phi = b_.CreatePHI(value_type(n.type), 2);
  phi->addIncoming(t, t_end);
  phi->addIncoming(f, f_end);
  value_ = phi;
}

void KernelEmitter::visit(const ir::Cast& n) {
  value_ = convert(n.value->type, n.type, emit(n.value));
}

void KernelEmitter::visit(const ir::MathCall& n) {
  std::vector<llvm::Value*> args;
  for (const ir::Expr& a : n.args) args.push_back(emit(a));
  value_ = math(n.fn, n.args[0]->type, args);
}

// Relaxed (monotonic) read-modify-write at the element's natural alignment, which dispatch
// checks before every launch. Float min/max are LLVM's fmin/fmax (IEEE minNum/maxNum).
void KernelEmitter::visit(const ir::AtomicRMW& n) {
  std::vector<llvm::Value*> idx;
  for (const ir::Expr& e : n.indices) idx.push_back(emit_index(e));
  llvm::Value* v = emit(n.value);
  ir::ScalarType t = n.type;
  bool fp = tack::is_float(t), sgn = ir::is_signed_int(t);
  llvm::AtomicRMWInst::BinOp op = llvm::AtomicRMWInst::Add;
  switch (n.op) {
    case ir::AtomicOp::Add:
      op = fp ? llvm::AtomicRMWInst::FAdd : llvm::AtomicRMWInst::Add;
      break;
    case ir::AtomicOp::Min:
      op = fp    ? llvm::AtomicRMWInst::FMin
           : sgn ? llvm::AtomicRMWInst::Min
                 : llvm::AtomicRMWInst::UMin;
      break;
    case ir::AtomicOp::Max:
      op = fp    ? llvm::AtomicRMWInst::FMax
           : sgn ? llvm::AtomicRMWInst::Max
                 : llvm::AtomicRMWInst::UMax;
      break;
  }
  value_ = guarded(n.param, idx, arrays_[n.param].extents, value_type(t), [&]() -> llvm::Value* {
    return b_.CreateAtomicRMW(op, array_address(n.param, idx), v,
                              llvm::Align(ir::bytes_in_memory(t)), llvm::AtomicOrdering::Monotonic);
  });
}

}  // namespace tack::codegen::detail
