// Workgroups (docs/design/workgroups.md): tack.barrier(), tack.thread_id(), tack.block_sum/min/
// max(x), and the shared arrays tack.shared(dtype, shape) / tack.shared_like(a, shape). Each
// needs a device with workgroups: the call driver records the use (Lowerer::use_workgroups).
#include "lowering/builtins/builtin.hpp"
#include "lowering/lowerer.hpp"

namespace tack::lowering {
namespace {

Value lower_barrier(Lowerer& l, const BuiltinCall& c, std::vector<Value>&) {
  l.emit(ir::Barrier::make(c.loc().line, c.loc().column));
  return Value{};
}

Value lower_thread_id(Lowerer&, const BuiltinCall&, std::vector<Value>&) {
  return Value::typed(ir::ThreadId::make());
}

Value lower_block_reduce(Lowerer& l, const BuiltinCall& c, std::vector<Value>&) {
  const ir::AtomicOp op = c.builtin.atomic;
  return l.block_reduce(c.name,
                        op == ir::AtomicOp::Add   ? 0
                        : op == ir::AtomicOp::Min ? 1
                                                  : 2,
                        c.call);
}

Builtin block(const char* what, ir::AtomicOp op, const char* doc) {
  const std::string name = std::string("tack.block_") + what;
  return {{name},
          1,
          1,
          Form::Raw,
          lower_block_reduce,
          name + "(x)",
          doc,
          Needs::Workgroups,
          {name},
          ir::MathFn::Sqrt,
          ir::ScalarType::f32,
          op};
}

}  // namespace

std::vector<Builtin> workgroup_builtins() {
  constexpr Needs wg = Needs::Workgroups;
  return {
      {{"tack.barrier"},
       0,
       0,
       Form::Raw,
       lower_barrier,
       "tack.barrier()",
       "waits until every item of the workgroup reaches it",
       wg,
       {"tack.barrier"}},
      {{"tack.thread_id"},
       0,
       0,
       Form::Raw,
       lower_thread_id,
       "tack.thread_id()",
       "the item's index in its workgroup",
       wg,
       {"tack.thread_id"}},
      block("sum", ir::AtomicOp::Add, "the sum of x over the workgroup, for every item"),
      block("min", ir::AtomicOp::Min, "the minimum of x over the workgroup, for every item"),
      block("max", ir::AtomicOp::Max, "the maximum of x over the workgroup, for every item"),
      {{"tack.shared"},
       2,
       2,
       Form::Raw,
       lower_local_array_call,
       "buf = tack.shared(dtype, shape)",
       "an array shared by a workgroup's items",
       wg,
       {"tack.shared"}},
      {{"tack.shared_like"},
       2,
       2,
       Form::Raw,
       lower_local_array_call,
       "buf = tack.shared_like(a, shape)",
       "a workgroup array of a's element type",
       wg,
       {"tack.shared_like"}},
  };
}

}  // namespace tack::lowering
