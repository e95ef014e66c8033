// KernelEmitter: the module's functions, the ABI wrappers, the parallel loop and statements.
#include "codegen/llvm/kernel_emitter.hpp"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/MDBuilder.h>

#include <cstddef>

#include "support/error.hpp"

namespace tack::codegen::detail {

void emit_kernel_module(llvm::Module& m, const ir::Function& f, const CodegenOptions& opts,
                        const TargetAttrs& target) {
  KernelEmitter(m, f, opts, target).emit();
}

KernelEmitter::KernelEmitter(llvm::Module& m, const ir::Function& f, const CodegenOptions& opts,
                             TargetAttrs target)
    : m_(m), ctx_(m.getContext()), f_(f), opts_(opts), target_(std::move(target)), b_(ctx_) {}

void KernelEmitter::emit() {
  TACK_INTERNAL_ASSERT(f_.parallel_for() != nullptr, "codegen of a kernel without ParallelFor");
  SymbolNames names = symbol_names(f_);
  llvm::Type* i64 = b_.getInt64Ty();
  llvm::Type* ptr = b_.getPtrTy();
  llvm::Type* void_ty = b_.getVoidTy();

  std::vector<llvm::Type*> params = param_types();
  std::vector<llvm::Type*> body_params = params;
  body_params.insert(body_params.end(), {i64, i64, ptr});
  llvm::Function* body = make_function("tack_body", void_ty, body_params, true);
  emit_body_function(body);
  llvm::Function* count = make_function("tack_count", i64, params, true);
  emit_count_function(count);

  llvm::Function* chunk = make_function(names.chunk, void_ty, {ptr, i64, i64, ptr}, false);
  emit_wrapper(chunk, body, true);
  llvm::Function* extent = make_function(names.extent, i64, {ptr}, false);
  emit_wrapper(extent, count, false);
}

// ------------------------------------------------------------------ functions

std::vector<llvm::Type*> KernelEmitter::param_types() {
  std::vector<llvm::Type*> out;
  for (const ir::ParamDecl& p : f_.params) {
    if (p.is_array()) {
      out.push_back(b_.getPtrTy());
      for (int d = 0; d < p.array_type().abi_count(); ++d) out.push_back(b_.getInt64Ty());
    } else {
      out.push_back(value_type(p.type));
    }
  }
  return out;
}

llvm::Function* KernelEmitter::make_function(const std::string& name, llvm::Type* ret,
                                             std::vector<llvm::Type*> params, bool internal) {
  auto* type = llvm::FunctionType::get(ret, params, false);
  auto* fn = llvm::Function::Create(
      type, internal ? llvm::Function::InternalLinkage : llvm::Function::ExternalLinkage, name, m_);
  fn->setDoesNotThrow();
  fn->addFnAttr("target-cpu", target_.cpu);
  fn->addFnAttr("target-features", target_.features);
  if (internal) fn->addFnAttr(llvm::Attribute::AlwaysInline);
  return fn;
}

void KernelEmitter::begin_function(llvm::Function* fn) {
  fn_ = fn;
  entry_ = llvm::BasicBlock::Create(ctx_, "entry", fn);
  b_.SetInsertPoint(entry_);
  arrays_.assign(f_.params.size(), ArrayArgs{});
  scalars_.assign(f_.params.size(), nullptr);
  scopes_.assign(1, {});
  loops_.clear();
  labels_.clear();
  status_ = llvm::ConstantPointerNull::get(b_.getPtrTy());
  begin_ = end_ = nullptr;
}

// Names the internal function's parameters and records them. Array parameters never escape
// (nocapture); only the disjoint variant promises they do not overlap (noalias).
void KernelEmitter::bind_params(llvm::Function* fn) {
  unsigned arg = 0;
  for (size_t i = 0; i < f_.params.size(); ++i) {
    const ir::ParamDecl& p = f_.params[i];
    if (p.is_array()) {
      fn->addParamAttr(arg, llvm::Attribute::NoCapture);
      if (opts_.disjoint) fn->addParamAttr(arg, llvm::Attribute::NoAlias);
      llvm::Argument* data = fn->getArg(arg++);
      data->setName(p.name);
      arrays_[i].data = data;
      ir::ArrayType t = p.array_type();
      for (int d = 0; d < t.index_count(); ++d) {
        llvm::Argument* e = fn->getArg(arg++);
        e->setName(p.name + ".shape" + std::to_string(d));
        // The vector width is part of the type: a constant lets LLVM fold the flat index.
        bool vec_dim = t.vec_width > 0 && d == t.rank;
        arrays_[i].extents.push_back(vec_dim ? static_cast<llvm::Value*>(b_.getInt64(t.vec_width))
                                             : e);
      }
      if (t.strided) {
        arrays_[i].pitch = fn->getArg(arg++);
        arrays_[i].pitch->setName(p.name + ".pitch");
      }
    } else {
      llvm::Argument* v = fn->getArg(arg++);
      v->setName(p.name);
      scalars_[i] = v;
    }
  }
}

// Loads every parameter from the flat 8-byte slots of the ABI (see kernel_abi.hpp).
std::vector<llvm::Value*> KernelEmitter::unpack_args(llvm::Value* args) {
  ArgLayout layout = arg_layout(f_);
  std::vector<llvm::Value*> out;
  llvm::Type* i64 = b_.getInt64Ty();
  auto slot = [&](int s) { return b_.CreateConstInBoundsGEP1_64(i64, args, s); };
  for (size_t i = 0; i < f_.params.size(); ++i) {
    const ir::ParamDecl& p = f_.params[i];
    int s = layout.first_slot[i];
    if (p.is_array()) {
      out.push_back(b_.CreateLoad(b_.getPtrTy(), slot(s), p.name));
      for (int d = 0; d < p.array_type().abi_count(); ++d) {
        out.push_back(b_.CreateLoad(i64, slot(s + 1 + d)));
      }
      continue;
    }
    llvm::Value* bits = b_.CreateLoad(i64, slot(s), p.name + ".slot");
    switch (p.type) {
      case ir::ScalarType::boolean:
        out.push_back(b_.CreateICmpNE(bits, b_.getInt64(0)));
        break;
      case ir::ScalarType::f32:
        out.push_back(b_.CreateBitCast(b_.CreateTrunc(bits, b_.getInt32Ty()), b_.getFloatTy()));
        break;
      case ir::ScalarType::f64:
        out.push_back(b_.CreateBitCast(bits, b_.getDoubleTy()));
        break;
      default:
        out.push_back(b_.CreateTrunc(bits, value_type(p.type)));
    }
  }
  return out;
}

void KernelEmitter::emit_wrapper(llvm::Function* wrapper, llvm::Function* callee, bool chunk) {
  begin_function(wrapper);
  llvm::Argument* args = wrapper->getArg(0);
  args->setName("args");
  std::vector<llvm::Value*> call_args = unpack_args(args);
  if (chunk) {
    const char* names[] = {"begin", "end", "status"};
    for (unsigned i = 1; i <= 3; ++i) {
      wrapper->getArg(i)->setName(names[i - 1]);
      call_args.push_back(wrapper->getArg(i));
    }
  }
  llvm::Value* r = b_.CreateCall(callee, call_args);
  if (chunk) {
    b_.CreateRetVoid();
  } else {
    b_.CreateRet(r);
  }
}

void KernelEmitter::emit_prelude() {
  for (const ir::Stmt& s : f_.prelude()) visit_stmt(s);
}

void KernelEmitter::emit_body_function(llvm::Function* fn) {
  begin_function(fn);
  bind_params(fn);
  size_t n = fn->arg_size();
  begin_ = fn->getArg(n - 3);
  end_ = fn->getArg(n - 2);
  status_ = fn->getArg(n - 1);
  begin_->setName("begin");
  end_->setName("end");
  status_->setName("status");
  emit_prelude();
  visit(*f_.parallel_for());
  if (streamed_) {
    // Non-temporal stores are weakly ordered: fence them before the chunk returns, so that
    // whoever is told the launch is done (the caller, the next kernel) sees them.
#if defined(__x86_64__) || defined(__i386__)
    b_.CreateCall(llvm::Intrinsic::getDeclaration(&m_, llvm::Intrinsic::x86_sse_sfence));
#else
    b_.CreateFence(llvm::AtomicOrdering::SequentiallyConsistent);
#endif
  }
  b_.CreateRetVoid();
}

void KernelEmitter::emit_count_function(llvm::Function* fn) {
  begin_function(fn);
  bind_params(fn);
  emit_prelude();
  std::vector<DimBounds> dims = emit_dim_bounds(*f_.parallel_for());
  llvm::Value* total = b_.getInt64(1);
  for (const DimBounds& d : dims) total = b_.CreateMul(total, d.count, "total");
  b_.CreateRet(total);
}

std::vector<KernelEmitter::DimBounds> KernelEmitter::emit_dim_bounds(const ir::ParallelFor& pf) {
  std::vector<DimBounds> out;
  for (const ir::ParallelDim& d : pf.dims) {
    llvm::Value* start = emit(d.start);
    llvm::Value* stop = emit(d.stop);
    llvm::Value* step = emit(d.step);
    llvm::Value* count = range_count(d.type(), start, stop, step);
    if (llvm::isa<llvm::Instruction>(count)) count->setName(d.name + ".count");
    out.push_back({d.type(), start, step, count});
  }
  return out;
}

void KernelEmitter::set_dim_var(const ir::ParallelDim& d, const DimBounds& bounds,
                                llvm::Value* idx) {
  llvm::Type* t = value_type(bounds.type);
  llvm::Value* i = b_.CreateTrunc(idx, t);  // no-op for 64-bit; the sum below wraps exactly
  llvm::Value* v = position(bounds.start, i, bounds.step);
  const LocalSlot& l = lookup(d.name);
  store_local(l, v, l.wide ? wide_position(bounds.type, bounds.start, idx, bounds.step) : nullptr);
}

void KernelEmitter::declare_loop_var(const std::string& name, ir::ScalarType t) {
  LocalSlot slot{name, entry_alloca(value_type(t), name), t, {}};
  if (ir::is_int(t) && ir::bits(t) < 64) slot.wide = entry_alloca(b_.getInt64Ty(), name + ".wide");
  declare_local(std::move(slot));
}

void KernelEmitter::store_local(const LocalSlot& l, llvm::Value* v, llvm::Value* exact) {
  b_.CreateStore(v, l.ptr);
  if (l.wide) b_.CreateStore(exact ? exact : to_i64(l.type, v), l.wide);
}

// The chunk [begin, end) of the linearized iteration space. One dim: a counted loop. Two or
// three: the chunk is walked as row pieces — (outer position, [j0, j1) of the innermost dim) —
// so the innermost loop stays a unit-stride counted loop that the vectorizer recognizes.
void KernelEmitter::visit(const ir::ParallelFor& n) {
  std::vector<DimBounds> dims = emit_dim_bounds(n);
  scopes_.emplace_back();
  for (const ir::ParallelDim& d : n.dims) declare_loop_var(d.name, d.type());
  llvm::Type* i64 = b_.getInt64Ty();
  const size_t last = dims.size() - 1;

  llvm::BasicBlock* pre = b_.GetInsertBlock();
  llvm::BasicBlock* exit = new_block("parallel.exit");

  // The inner loop over [lo, hi) of the last dim; `outer` sets the other dims' variables.
  auto inner_loop = [&](llvm::Value* lo, llvm::Value* hi, const std::vector<llvm::Value*>& outer,
                        llvm::BasicBlock* after) {
    llvm::BasicBlock* from = b_.GetInsertBlock();
    llvm::BasicBlock* header = new_block("iter.header");
    llvm::BasicBlock* body = new_block("iter.body");
    llvm::BasicBlock* latch = new_block("iter.latch");
    b_.CreateBr(header);
    b_.SetInsertPoint(header);
    llvm::PHINode* j = b_.CreatePHI(i64, 2, "iter");
    j->addIncoming(lo, from);
    b_.CreateCondBr(b_.CreateICmpSLT(j, hi), body, after);
    b_.SetInsertPoint(body);
    // Every dim's variable is set each iteration: the body may assign them.
    for (size_t d = 0; d < outer.size(); ++d) set_dim_var(n.dims[d], dims[d], outer[d]);
    set_dim_var(n.dims[last], dims[last], j);
    loops_.push_back({nullptr, latch});
    scopes_.emplace_back();
    visit_stmt(n.body);
    scopes_.pop_back();
    loops_.pop_back();
    b_.CreateBr(latch);
    b_.SetInsertPoint(latch);
    j->addIncoming(b_.CreateAdd(j, b_.getInt64(1), "iter.next", true, true), latch);
    b_.CreateBr(header);
  };

  if (dims.size() == 1) {
    inner_loop(begin_, end_, {}, exit);
    b_.SetInsertPoint(exit);
    scopes_.pop_back();
    return;
  }

  llvm::BasicBlock* header = new_block("row.header");
  llvm::BasicBlock* body = new_block("row.body");
  llvm::BasicBlock* latch = new_block("row.latch");
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  llvm::PHINode* l = b_.CreatePHI(i64, 2, "linear");
  l->addIncoming(begin_, pre);
  b_.CreateCondBr(b_.CreateICmpSLT(l, end_), body, exit);

  b_.SetInsertPoint(body);
  llvm::Value* inner_n = dims[last].count;
  llvm::Value* outer_pos = b_.CreateUDiv(l, inner_n, "row");
  llvm::Value* j0 = b_.CreateURem(l, inner_n, "col.begin");
  llvm::Value* left = b_.CreateSub(end_, l);
  llvm::Value* j1 = b_.CreateBinaryIntrinsic(llvm::Intrinsic::umin, inner_n, b_.CreateAdd(j0, left),
                                             nullptr, "col.end");
  std::vector<llvm::Value*> outer;
  if (dims.size() == 2) {
    outer.push_back(outer_pos);
  } else {
    outer.push_back(b_.CreateUDiv(outer_pos, dims[1].count));
    outer.push_back(b_.CreateURem(outer_pos, dims[1].count));
  }
  inner_loop(j0, j1, outer, latch);

  b_.SetInsertPoint(latch);
  l->addIncoming(b_.CreateAdd(l, b_.CreateSub(j1, j0), "linear.next"), latch);
  b_.CreateBr(header);
  b_.SetInsertPoint(exit);
  scopes_.pop_back();
}

// ------------------------------------------------------------------ statements

void KernelEmitter::visit(const ir::Let& n) {
  llvm::Value* v = emit(n.value);
  llvm::AllocaInst* slot = entry_alloca(value_type(n.value->type), n.name);
  b_.CreateStore(v, slot);
  declare_local({n.name, slot, n.value->type, {}});
}

void KernelEmitter::visit(const ir::Assign& n) {
  llvm::Value* v = emit(n.value);
  store_local(lookup(n.name), v);
}

void KernelEmitter::visit(const ir::ArrayStore& n) {
  llvm::Value* v = emit(n.value);  // Python order: the value, then the target's indices
  std::vector<llvm::Value*> idx;
  for (const ir::Expr& e : n.indices) idx.push_back(emit_index(e));
  ir::ScalarType elem = f_.params[n.param].type;
  guarded(n.param, idx, arrays_[n.param].extents, nullptr, [&]() -> llvm::Value* {
    llvm::StoreInst* store =
        b_.CreateAlignedStore(to_memory(elem, v), array_address(n.param, idx), llvm::Align(1));
    if (n.streaming) {
      streamed_ = true;
      // tack.stream_store or a streamed output: a non-temporal store (x86: movnti at this
      // alignment), which writes the line without reading it first and leaves the caches alone.
      store->setMetadata(llvm::LLVMContext::MD_nontemporal,
                         llvm::MDNode::get(ctx_, {llvm::ConstantAsMetadata::get(b_.getInt32(1))}));
    }
    return nullptr;
  });
}

void KernelEmitter::visit(const ir::LocalArrayDecl& n) {
  int64_t total = 1;
  for (int64_t d : n.dims) total *= d;
  llvm::Type* elem = memory_type(n.elem);
  llvm::AllocaInst* slot = entry_alloca(llvm::ArrayType::get(elem, total), n.name);
  // Zero-filled at the declaration, each time it runs (per iteration, as the contract says).
  b_.CreateMemSet(slot, b_.getInt8(0), total * ir::bytes_in_memory(n.elem), slot->getAlign());
  declare_local({n.name, slot, n.elem, n.dims});
}

void KernelEmitter::visit(const ir::LocalArrayStore& n) {
  llvm::Value* v = emit(n.value);
  std::vector<llvm::Value*> idx;
  for (const ir::Expr& e : n.indices) idx.push_back(emit_index(e));
  const LocalSlot& l = lookup(n.name);
  guarded(-1, idx, local_extents(l), nullptr, [&]() -> llvm::Value* {
    b_.CreateStore(to_memory(l.type, v), local_address(l, idx));
    return nullptr;
  });
}

void KernelEmitter::visit(const ir::Block& n) {
  scopes_.emplace_back();
  for (const ir::Stmt& s : n.stmts) visit_stmt(s);
  scopes_.pop_back();
}

void KernelEmitter::visit(const ir::LabeledBlock& n) {
  llvm::BasicBlock* exit = new_block(n.label + ".exit");
  labels_.emplace_back(n.label, exit);
  scopes_.emplace_back();
  visit_stmt(n.body);
  scopes_.pop_back();
  labels_.pop_back();
  b_.CreateBr(exit);
  b_.SetInsertPoint(exit);
}

void KernelEmitter::visit(const ir::ExitBlock& n) {
  for (auto it = labels_.rbegin(); it != labels_.rend(); ++it) {
    if (it->first == n.label) return jump(it->second);
  }
  TACK_INTERNAL_ASSERT(false, "exit of unknown label " + n.label);
}

void KernelEmitter::visit(const ir::If& n) {
  llvm::Value* c = emit(n.cond);
  llvm::BasicBlock* then_bb = new_block("if.then");
  llvm::BasicBlock* merge = new_block("if.end");
  llvm::BasicBlock* else_bb = n.else_body ? new_block("if.else") : merge;
  b_.CreateCondBr(c, then_bb, else_bb);
  b_.SetInsertPoint(then_bb);
  visit(ir::Block({n.then_body}));
  b_.CreateBr(merge);
  if (n.else_body) {
    b_.SetInsertPoint(else_bb);
    visit(ir::Block({n.else_body}));
    b_.CreateBr(merge);
  }
  b_.SetInsertPoint(merge);
}

// for name in range(start, stop, step): a hidden 0-based counter runs to the exact count, and
// the variable is start + counter * step, so no overflow can make the loop run forever.
void KernelEmitter::visit(const ir::For& n) {
  ir::ScalarType t = n.type();
  llvm::Value* start = emit(n.start);
  llvm::Value* stop = emit(n.stop);
  llvm::Value* step = emit(n.step);
  llvm::Value* count = range_count(t, start, stop, step);
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  llvm::BasicBlock* header = new_block("for.header");
  llvm::BasicBlock* body = new_block("for.body");
  llvm::BasicBlock* latch = new_block("for.latch");
  llvm::BasicBlock* exit = new_block("for.end");
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  llvm::PHINode* c = b_.CreatePHI(b_.getInt64Ty(), 2, n.name + ".trip");
  c->addIncoming(b_.getInt64(0), pre);
  b_.CreateCondBr(b_.CreateICmpULT(c, count), body, exit);

  b_.SetInsertPoint(body);
  scopes_.emplace_back();
  declare_loop_var(n.name, t);
  const LocalSlot& slot = lookup(n.name);
  llvm::Value* i = b_.CreateTrunc(c, value_type(t));
  store_local(slot, position(start, i, step),
              slot.wide ? wide_position(t, start, c, step) : nullptr);
  loops_.push_back({exit, latch});
  visit_stmt(n.body);
  loops_.pop_back();
  scopes_.pop_back();
  b_.CreateBr(latch);

  b_.SetInsertPoint(latch);
  c->addIncoming(b_.CreateAdd(c, b_.getInt64(1), n.name + ".next", true, false), latch);
  llvm::BranchInst* back = b_.CreateBr(header);
  if (n.lanes) {
    // The copies are the lanes: the SLP vectorizer packs them into vectors of consecutive
    // elements; the loop vectorizer is kept off, which would vectorize across the steps with
    // strided gathers (a kernel value's loop ran 4x slower that way).
    llvm::LLVMContext& ctx = b_.getContext();
    llvm::Metadata* off[] = {llvm::MDString::get(ctx, "llvm.loop.vectorize.enable"),
                             llvm::ConstantAsMetadata::get(b_.getFalse())};
    llvm::MDNode* self = llvm::MDNode::getDistinct(ctx, {nullptr, llvm::MDNode::get(ctx, off)});
    self->replaceOperandWith(0, self);
    back->setMetadata(llvm::LLVMContext::MD_loop, self);
  }
  b_.SetInsertPoint(exit);
}

void KernelEmitter::visit(const ir::While& n) {
  llvm::BasicBlock* header = new_block("while.cond");
  llvm::BasicBlock* body = new_block("while.body");
  llvm::BasicBlock* exit = new_block("while.end");
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  b_.CreateCondBr(emit(n.cond), body, exit);
  b_.SetInsertPoint(body);
  loops_.push_back({exit, header});
  visit(ir::Block({n.body}));
  loops_.pop_back();
  b_.CreateBr(header);
  b_.SetInsertPoint(exit);
}

void KernelEmitter::visit(const ir::Break&) {
  TACK_INTERNAL_ASSERT(!loops_.empty() && loops_.back().break_to, "break outside a loop");
  jump(loops_.back().break_to);
}

void KernelEmitter::visit(const ir::Continue&) {
  TACK_INTERNAL_ASSERT(!loops_.empty(), "continue outside a loop");
  jump(loops_.back().continue_to);
}

void KernelEmitter::visit(const ir::ExprStmt& n) {
  emit(n.expr);
}

// Workgroup constructs never reach the CPU: its target refuses such kernels before compiling.
void KernelEmitter::visit(const ir::ThreadId&) {
  TACK_INTERNAL_ASSERT(false, "thread_id() in CPU code");
}
void KernelEmitter::visit(const ir::Barrier&) {
  TACK_INTERNAL_ASSERT(false, "barrier in CPU code");
}

void KernelEmitter::visit(const ir::Print& n) {
  // One printf call per line, so lines of different iterations never interleave.
  std::string format;
  std::vector<llvm::Value*> args;
  for (const ir::PrintPart& p : n.parts) {
    if (!p.value) {
      for (char c : p.text) {
        // A NUL or other control character would end or garble the format: '?' (as the C-style
        // printers), except newlines and tabs.
        const bool control = static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t';
        format += c == '%' ? "%%" : control ? "?" : std::string(1, c);
      }
      continue;
    }
    llvm::Value* v = emit(p.value);
    const ir::ScalarType t = p.value->type;
    if (t == ir::ScalarType::boolean) {
      format += "%s";
      args.push_back(b_.CreateSelect(v, b_.CreateGlobalString("True", "tack.true"),
                                     b_.CreateGlobalString("False", "tack.false")));
    } else if (tack::is_float(t)) {
      format += "%g";
      args.push_back(b_.CreateFPExt(v, b_.getDoubleTy()));
    } else if (t == ir::ScalarType::i64 || t == ir::ScalarType::u64) {
      format += t == ir::ScalarType::i64 ? "%lld" : "%llu";
      args.push_back(v);
    } else {
      format += ir::is_signed_int(t) ? "%d" : "%u";
      args.push_back(ir::is_signed_int(t) ? b_.CreateSExt(v, b_.getInt32Ty())
                                          : b_.CreateZExt(v, b_.getInt32Ty()));
    }
  }
  args.insert(args.begin(), b_.CreateGlobalString(format, "tack.format"));
  llvm::FunctionCallee printf = m_.getOrInsertFunction(
      "printf", llvm::FunctionType::get(b_.getInt32Ty(), {b_.getPtrTy()}, true));
  b_.CreateCall(printf, args);
}

void KernelEmitter::visit(const ir::Assert& n) {
  if (!opts_.bounds_check) return;  // asserts are checked in debug mode only
  scopes_.emplace_back();           // the setup's locals are in scope for the condition
  for (const ir::Stmt& s : n.setup->as<ir::Block>()->stmts) visit_stmt(s);
  llvm::Value* ok = emit(n.cond);
  llvm::BasicBlock* fail = new_block("assert.fail");
  llvm::BasicBlock* done = new_block("assert.end");
  b_.CreateCondBr(ok, done, fail, llvm::MDBuilder(ctx_).createLikelyBranchWeights());
  b_.SetInsertPoint(fail);
  std::vector<llvm::Value*> it(3, b_.getInt64(0));
  for (size_t k = 0; k < n.iteration.size(); ++k) it[k] = emit(n.iteration[k]);
  b_.CreateCall(oob_function(), {status_, b_.getInt32(static_cast<uint32_t>(kAssertParam)),
                                 b_.getInt32(static_cast<uint32_t>(n.site)), it[0], it[1], it[2]});
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  scopes_.pop_back();
}

// ------------------------------------------------------------------ helpers

llvm::Value* KernelEmitter::emit(const ir::Expr& e) {
  value_ = nullptr;
  visit_expr(e);
  TACK_INTERNAL_ASSERT(value_ != nullptr, "no value for " + std::string(ir::kind_name(e->kind)));
  return value_;
}

llvm::Type* KernelEmitter::value_type(ir::ScalarType t) {
  switch (t) {
    case ir::ScalarType::boolean:
      return b_.getInt1Ty();
    case ir::ScalarType::f32:
      return b_.getFloatTy();
    case ir::ScalarType::f64:
      return b_.getDoubleTy();
    default:
      return b_.getIntNTy(ir::bits(t));
  }
}

llvm::Type* KernelEmitter::memory_type(ir::ScalarType t) {
  return t == ir::ScalarType::boolean ? b_.getInt8Ty() : value_type(t);
}

llvm::Value* KernelEmitter::to_memory(ir::ScalarType t, llvm::Value* v) {
  return t == ir::ScalarType::boolean ? b_.CreateZExt(v, b_.getInt8Ty()) : v;
}

llvm::Value* KernelEmitter::from_memory(ir::ScalarType t, llvm::Value* v) {
  return t == ir::ScalarType::boolean ? b_.CreateICmpNE(v, b_.getInt8(0)) : v;
}

llvm::Value* KernelEmitter::emit_index(const ir::Expr& e) {
  if (const auto* var = e->as<ir::Var>()) {
    const LocalSlot& l = lookup(var->name);
    if (l.wide) return b_.CreateLoad(b_.getInt64Ty(), l.wide, var->name + ".wide");
  }
  return to_i64(e->type, emit(e));
}

llvm::Value* KernelEmitter::to_i64(ir::ScalarType t, llvm::Value* v) {
  if (ir::bits(t) == 64) return v;
  return ir::is_signed_int(t) ? b_.CreateSExt(v, b_.getInt64Ty())
                              : b_.CreateZExt(v, b_.getInt64Ty());
}

// The exact value of a range element: |i * step| is at most the range's span (below 2**33 for a
// narrow type), so nothing wraps and the flags hold.
llvm::Value* KernelEmitter::wide_position(ir::ScalarType t, llvm::Value* start, llvm::Value* i,
                                          llvm::Value* step) {
  const bool sgn = ir::is_signed_int(t);
  llvm::Value* s0 = to_i64(t, start);
  llvm::Value* st = to_i64(t, step);
  auto* c = llvm::dyn_cast<llvm::ConstantInt>(st);
  llvm::Value* offset = c && c->isOne() ? i : b_.CreateMul(i, st, "", !sgn, sgn);
  auto* s = llvm::dyn_cast<llvm::ConstantInt>(s0);
  return s && s->isZero() ? offset : b_.CreateAdd(s0, offset, "", !sgn, sgn);
}

// start + i * step, wrapping; the usual start 0 and step 1 emit nothing, which keeps the
// unoptimized IR (inspect, golden files) readable.
llvm::Value* KernelEmitter::position(llvm::Value* start, llvm::Value* i, llvm::Value* step) {
  auto* c = llvm::dyn_cast<llvm::ConstantInt>(step);
  llvm::Value* offset = c && c->isOne() ? i : b_.CreateMul(i, step);
  auto* s = llvm::dyn_cast<llvm::ConstantInt>(start);
  return s && s->isZero() ? offset : b_.CreateAdd(start, offset);
}

llvm::Value* KernelEmitter::zero_of(ir::ScalarType t) {
  return llvm::Constant::getNullValue(value_type(t));
}

llvm::AllocaInst* KernelEmitter::entry_alloca(llvm::Type* t, const std::string& name) {
  llvm::IRBuilder<> at_entry(entry_, entry_->begin());
  return at_entry.CreateAlloca(t, nullptr, name);
}

llvm::BasicBlock* KernelEmitter::new_block(const std::string& name) {
  return llvm::BasicBlock::Create(ctx_, name, fn_);
}

void KernelEmitter::jump(llvm::BasicBlock* target) {
  b_.CreateBr(target);
  b_.SetInsertPoint(new_block("unreachable"));
}

void KernelEmitter::declare_local(LocalSlot slot) {
  scopes_.back().push_back(std::move(slot));
}

const KernelEmitter::LocalSlot& KernelEmitter::lookup(const std::string& name) const {
  for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
    for (auto l = s->rbegin(); l != s->rend(); ++l) {
      if (l->name == name) return *l;
    }
  }
  TACK_INTERNAL_ASSERT(false, "codegen: unknown local " + name);
  return scopes_.front().front();
}

llvm::Value* KernelEmitter::array_address(int param, const std::vector<llvm::Value*>& idx) {
  const ArrayArgs& a = arrays_[param];
  // Row-major flat index. Only in-bounds indices reach here (out of bounds is undefined, or
  // skipped in debug mode), so no step can overflow: nsw.
  // A strided array's first index steps by its pitch; the rest are row-major within the row.
  llvm::Value* linear = a.pitch && idx.size() > 1 ? idx[1] : idx[0];
  for (size_t d = a.pitch && idx.size() > 1 ? 2 : 1; d < idx.size(); ++d) {
    linear =
        b_.CreateAdd(b_.CreateMul(linear, a.extents[d], "", false, true), idx[d], "", false, true);
  }
  if (a.pitch) {
    llvm::Value* row = b_.CreateMul(idx[0], a.pitch, "", false, true);
    linear = idx.size() > 1 ? b_.CreateAdd(row, linear, "", false, true) : row;
  }
  llvm::Type* elem = memory_type(f_.params[param].type);
  return b_.CreateInBoundsGEP(elem, a.data, linear);
}

std::vector<llvm::Value*> KernelEmitter::local_extents(const LocalSlot& l) {
  std::vector<llvm::Value*> out;
  for (int64_t d : l.dims) out.push_back(b_.getInt64(d));
  return out;
}

llvm::Value* KernelEmitter::local_address(const LocalSlot& l,
                                          const std::vector<llvm::Value*>& idx) {
  llvm::Value* linear = idx[0];
  for (size_t d = 1; d < idx.size(); ++d) {
    linear = b_.CreateAdd(b_.CreateMul(linear, b_.getInt64(l.dims[d]), "", false, true), idx[d], "",
                          false, true);
  }
  return b_.CreateInBoundsGEP(memory_type(l.type), l.ptr, linear);
}

llvm::Value* KernelEmitter::guarded(int param, const std::vector<llvm::Value*>& idx,
                                    const std::vector<llvm::Value*>& extents, llvm::Type* result,
                                    llvm::function_ref<llvm::Value*()> access) {
  if (!opts_.bounds_check) return access();
  // Unsigned compare: a negative index is a huge unsigned one, so one test covers both ends.
  std::vector<llvm::Value*> ok;
  llvm::Value* all = b_.getTrue();
  for (size_t d = 0; d < idx.size(); ++d) {
    ok.push_back(b_.CreateICmpULT(idx[d], extents[d]));
    all = b_.CreateAnd(all, ok.back());
  }
  llvm::BasicBlock* in = new_block("inbounds");
  llvm::BasicBlock* out = new_block("oob");
  llvm::BasicBlock* join = new_block("access.end");
  b_.CreateCondBr(all, in, out, llvm::MDBuilder(ctx_).createLikelyBranchWeights());

  b_.SetInsertPoint(out);
  // The first failing dim, its index and extent: walk from the last so the first one wins.
  llvm::Value* dim = b_.getInt32(0);
  llvm::Value* index = idx[0];
  llvm::Value* extent = extents[0];
  for (size_t d = idx.size(); d-- > 0;) {
    llvm::Value* bad = b_.CreateNot(ok[d]);
    dim = b_.CreateSelect(bad, b_.getInt32(static_cast<uint32_t>(d)), dim);
    index = b_.CreateSelect(bad, idx[d], index);
    extent = b_.CreateSelect(bad, extents[d], extent);
  }
  b_.CreateCall(oob_function(), {status_, b_.getInt32(static_cast<uint32_t>(param)), dim, index,
                                 extent, b_.getInt64(0)});
  b_.CreateBr(join);

  b_.SetInsertPoint(in);
  llvm::Value* v = access();
  llvm::BasicBlock* in_end = b_.GetInsertBlock();
  b_.CreateBr(join);

  b_.SetInsertPoint(join);
  if (!result) return nullptr;
  llvm::PHINode* phi = b_.CreatePHI(result, 2);
  phi->addIncoming(v, in_end);
  phi->addIncoming(llvm::Constant::getNullValue(result), out);
  return phi;
}

// tack_oob(status, param, dim, index, extent, extra): the first caller to swing status->failed from
// 0 to 1 fills in the rest; everyone else, and a null status, records nothing.
llvm::Function* KernelEmitter::oob_function() {
  if (llvm::Function* f = m_.getFunction("tack_oob")) return f;
  llvm::Type* i32 = b_.getInt32Ty();
  llvm::Type* i64 = b_.getInt64Ty();
  llvm::Type* ptr = b_.getPtrTy();
  auto* fn = llvm::Function::Create(
      llvm::FunctionType::get(b_.getVoidTy(), {ptr, i32, i32, i64, i64, i64}, false),
      llvm::Function::InternalLinkage, "tack_oob", m_);
  fn->setDoesNotThrow();
  fn->addFnAttr(llvm::Attribute::NoInline);
  fn->addFnAttr(llvm::Attribute::Cold);
  fn->addFnAttr("target-cpu", target_.cpu);
  fn->addFnAttr("target-features", target_.features);
  llvm::IRBuilder<> b(ctx_);
  auto* entry = llvm::BasicBlock::Create(ctx_, "entry", fn);
  auto* try_bb = llvm::BasicBlock::Create(ctx_, "try", fn);
  auto* fill = llvm::BasicBlock::Create(ctx_, "fill", fn);
  auto* done = llvm::BasicBlock::Create(ctx_, "done", fn);
  llvm::Value* status = fn->getArg(0);
  b.SetInsertPoint(entry);
  b.CreateCondBr(b.CreateIsNull(status), done, try_bb);
  b.SetInsertPoint(try_bb);
  llvm::Value* r =
      b.CreateAtomicCmpXchg(status, b.getInt32(0), b.getInt32(1), llvm::Align(4),
                            llvm::AtomicOrdering::Monotonic, llvm::AtomicOrdering::Monotonic);
  b.CreateCondBr(b.CreateExtractValue(r, 1), fill, done);
  b.SetInsertPoint(fill);
  auto field = [&](int offset) {
    return b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), status, offset);
  };
  b.CreateStore(fn->getArg(1), field(offsetof(TackDebugStatus, param)));
  b.CreateStore(fn->getArg(2), field(offsetof(TackDebugStatus, dim)));
  b.CreateStore(fn->getArg(3), field(offsetof(TackDebugStatus, index)));
  b.CreateStore(fn->getArg(4), field(offsetof(TackDebugStatus, extent)));
  b.CreateStore(fn->getArg(5), field(offsetof(TackDebugStatus, extra)));
  b.CreateBr(done);
  b.SetInsertPoint(done);
  b.CreateRetVoid();
  return fn;
}

}  // namespace tack::codegen::detail
