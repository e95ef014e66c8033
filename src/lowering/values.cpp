// A kernel's value and its in-loop reductions (docs/design/kernel_values.md): the detection of
// `s += x[i]` on a local computed before the parallel loop, the loop part that folds each block
// of ir::kReductionBlock iterations into a hidden partial array, and the one-iteration epilogue
// part that folds the partials in block order, runs the statements after the loop and stores
// the kernel's value.
#include <functional>
#include <limits>

#include "ir/visitor.hpp"
#include "lowering/lowerer.hpp"
#include "lowering/typing.hpp"

namespace tack::lowering {
namespace {

using frontend::SourceLoc;

std::optional<ReduceOp> reduce_op(frontend::BinaryOp op) {
  switch (op) {
    case frontend::BinaryOp::Add:
      return ReduceOp::Add;
    case frontend::BinaryOp::Mul:
      return ReduceOp::Mul;
    case frontend::BinaryOp::BitOr:
      return ReduceOp::Or;
    case frontend::BinaryOp::BitAnd:
      return ReduceOp::And;
    case frontend::BinaryOp::BitXor:
      return ReduceOp::Xor;
    default:
      return std::nullopt;
  }
}

const char* op_spelling(ReduceOp op) {
  switch (op) {
    case ReduceOp::Add:
      return "+=";
    case ReduceOp::Mul:
      return "*=";
    case ReduceOp::Or:
      return "|=";
    case ReduceOp::And:
      return "&=";
    case ReduceOp::Xor:
      return "^=";
    case ReduceOp::Min:
      return "= min(..)";
    case ReduceOp::Max:
      return "= max(..)";
  }
  return "";
}

// `s = min(s, e)` / `s = max(s, e)` (also tack.min, tack.max), `s = s + e` (also *, |, &, ^):
// the op, when `a` is that form.
std::optional<ReduceOp> assign_update(const frontend::Assign& a, const std::string& name) {
  if (const auto* b = a.value->as<frontend::Binary>()) {
    const auto* first = b->lhs->as<frontend::Name>();
    if (first && first->id == name) return reduce_op(b->op);
    return std::nullopt;
  }
  const auto* c = a.value->as<frontend::Call>();
  if (!c || c->args.size() != 2) return std::nullopt;
  const auto* first = c->args[0]->as<frontend::Name>();
  if (!first || first->id != name) return std::nullopt;
  const std::string f = frontend::dotted_name(*c->func);
  if (f == "min" || f == "tack.min") return ReduceOp::Min;
  if (f == "max" || f == "tack.max") return ReduceOp::Max;
  return std::nullopt;
}

// The identity of a fold: its first value for a block with no iteration.
ir::Expr identity(ReduceOp op, ir::ScalarType t) {
  const bool fp = tack::is_float(t);
  const bool is_signed = ir::is_signed_int(t);
  const int bits = static_cast<int>(ir::bytes_in_memory(t)) * 8;
  switch (op) {
    case ReduceOp::Add:
    case ReduceOp::Or:
    case ReduceOp::Xor:
      return ir::make_const(t, 0);
    case ReduceOp::Mul:
      return ir::make_const(t, 1);
    case ReduceOp::And:
      return ir::make_const(t, -1);  // every bit set
    case ReduceOp::Min:
      if (fp) return ir::float_const(t, std::numeric_limits<double>::infinity());
      if (!is_signed) return ir::make_const(t, -1);  // the largest unsigned value
      return ir::make_const(t, bits == 64 ? std::numeric_limits<std::int64_t>::max()
                                          : (std::int64_t{1} << (bits - 1)) - 1);
    case ReduceOp::Max:
      if (fp) return ir::float_const(t, -std::numeric_limits<double>::infinity());
      if (!is_signed) return ir::make_const(t, 0);
      return ir::make_const(t, bits == 64 ? std::numeric_limits<std::int64_t>::min()
                                          : -(std::int64_t{1} << (bits - 1)));
  }
  return ir::make_const(t, 0);
}

ir::Expr combine(ReduceOp op, ir::Expr a, ir::Expr b) {
  switch (op) {
    case ReduceOp::Add:
      return ir::add(a, b);
    case ReduceOp::Mul:
      return ir::mul(a, b);
    case ReduceOp::Or:
      return ir::bit_or(a, b);
    case ReduceOp::And:
      return ir::bit_and(a, b);
    case ReduceOp::Xor:
      return ir::bit_xor(a, b);
    case ReduceOp::Min:
      return ir::call(ir::MathFn::Min, {a, b});
    case ReduceOp::Max:
      return ir::call(ir::MathFn::Max, {a, b});
  }
  return a;
}

// The iteration count of one range dim, in i64: max(0, ceil((stop - start) / step)), 0 for a
// zero step.
ir::Expr range_count(const ir::ParallelDim& d) {
  const ir::ScalarType i64 = ir::ScalarType::i64;
  const ir::Expr start = ir::cast(i64, d.start), stop = ir::cast(i64, d.stop);
  const ir::Expr step = ir::cast(i64, d.step);
  const ir::Expr zero = ir::const_i64(0), one = ir::const_i64(1);
  const ir::Expr up =
      ir::select(ir::gt(stop, start),
                 ir::floordiv(ir::sub(ir::add(ir::sub(stop, start), step), one), step), zero);
  const ir::Expr down = ir::select(
      ir::gt(start, stop),
      ir::floordiv(ir::sub(ir::sub(ir::sub(start, stop), step), one), ir::neg(step)), zero);
  return ir::select(ir::gt(step, zero), up, ir::select(ir::lt(step, zero), down, zero));
}

// Lanes per block: iteration k of a block is folded into lane k % kLanes, so that the lanes'
// chains of operations are independent and the code vectorizes; a body of more than
// kLaneBodyLimit lets, assignments and stores (the loop variables' lets included) is folded in
// one lane (its copies would cost more to compile than they gain).
constexpr int kLanes = 8;
constexpr std::size_t kLaneBodyLimit = 64;

// The lets, assignments and stores in a statement: a measure of its size.
std::size_t statement_count(const ir::Stmt& s) {
  struct Count final : ir::Visitor {
    void visit(const ir::Let& n) override {
      ++count;
      Visitor::visit(n);
    }
    void visit(const ir::Assign& n) override {
      ++count;
      Visitor::visit(n);
    }
    void visit(const ir::ArrayStore& n) override {
      ++count;
      Visitor::visit(n);
    }
    std::size_t count = 0;
  } c;
  c.visit_stmt(s);
  return c.count;
}

// One lane's copy of an iteration: every name it binds renamed (the IR has no shadowing), the
// names in `renames` too (the iteration index, the reductions' partials), and a `continue` of
// the iteration itself an exit from the copy (it ends only this lane's iteration).
class LaneCopy final : public ir::Mutator {
 public:
  LaneCopy(std::map<std::string, std::string> renames, std::string exit)
      : renames_(std::move(renames)), exit_(std::move(exit)) {}

  ir::Expr mutate(const ir::Var& n, const ir::Expr& self) override {
    auto it = renames_.find(n.name);
    return it == renames_.end() ? self : ir::Var::make(n.type, it->second);
  }
  ir::Expr mutate(const ir::LocalArrayLoad& n, const ir::Expr&) override {
    std::vector<ir::Expr> idx;
    mutate_all(n.indices, idx);
    return ir::LocalArrayLoad::make(n.type, name(n.name), std::move(idx));
  }
  ir::Stmt mutate(const ir::Let& n, const ir::Stmt&) override {
    return ir::Let::make(name(n.name), mutate_expr(n.value));
  }
  ir::Stmt mutate(const ir::Assign& n, const ir::Stmt&) override {
    return ir::Assign::make(name(n.name), mutate_expr(n.value));
  }
  ir::Stmt mutate(const ir::LocalArrayDecl& n, const ir::Stmt&) override {
    return ir::LocalArrayDecl::make(name(n.name), n.elem, n.dims, n.shared);
  }
  ir::Stmt mutate(const ir::LocalArrayStore& n, const ir::Stmt&) override {
    ir::Expr v = mutate_expr(n.value);
    std::vector<ir::Expr> idx;
    mutate_all(n.indices, idx);
    return ir::LocalArrayStore::make(name(n.name), std::move(idx), std::move(v));
  }
  ir::Stmt mutate(const ir::LabeledBlock& n, const ir::Stmt&) override {
    return ir::LabeledBlock::make(name(n.label), mutate_stmt(n.body));
  }
  ir::Stmt mutate(const ir::ExitBlock& n, const ir::Stmt&) override {
    return ir::ExitBlock::make(name(n.label));
  }
  ir::Stmt mutate(const ir::For& n, const ir::Stmt&) override {
    ir::Expr a = mutate_expr(n.start), b = mutate_expr(n.stop), c = mutate_expr(n.step);
    ++depth_;
    ir::Stmt body = mutate_stmt(n.body);
    --depth_;
    return ir::For::make(name(n.name), std::move(a), std::move(b), std::move(c), std::move(body),
                         n.lanes);
  }
  ir::Stmt mutate(const ir::While& n, const ir::Stmt&) override {
    ir::Expr c = mutate_expr(n.cond);
    ++depth_;
    ir::Stmt body = mutate_stmt(n.body);
    --depth_;
    return ir::While::make(std::move(c), std::move(body));
  }
  ir::Stmt mutate(const ir::Continue&, const ir::Stmt& self) override {
    return depth_ == 0 ? ir::ExitBlock::make(exit_) : self;
  }

 private:
  std::string name(const std::string& n) const {
    auto it = renames_.find(n);
    return it == renames_.end() ? n : it->second;
  }
  std::map<std::string, std::string> renames_;
  std::string exit_;
  int depth_ = 0;
};

}  // namespace

std::vector<Reduction> Lowerer::find_reductions(const frontend::For& loop) {
  // Every name the loop assigns that is a scalar local of the prelude, and how.
  struct Use {
    std::optional<ReduceOp> op;
    bool other = false;  // assigned another way, or read outside its updates
    SourceLoc loc;
  };
  std::map<std::string, Use> uses;
  auto candidate = [&](const std::string& name) -> Use* {
    const Symbol* s = frame().scopes.lookup(name);
    if (!s || !s->prelude || s->kind != SymbolKind::Local) return nullptr;
    return &uses[name];
  };
  auto update = [&](const std::string& name, std::optional<ReduceOp> op, SourceLoc loc) {
    Use* u = candidate(name);
    if (!u) return;
    if (u->loc.line == 0) u->loc = loc;
    if (!op || (u->op && *u->op != *op)) u->other = true;
    u->op = op;
  };
  std::function<void(const frontend::Expr&, const frontend::Expr*)> reads =
      [&](const frontend::Expr& e, const frontend::Expr* skip) {
        if (&e == skip) return;
        if (const auto* n = e.as<frontend::Name>()) {
          if (Use* u = candidate(n->id)) u->other = true;
        }
        frontend::for_each_child(e, [&](const frontend::Expr& c) { reads(c, skip); });
      };
  std::function<void(const frontend::Stmt&)> walk = [&](const frontend::Stmt& s) {
    if (const auto* a = s.as<frontend::AugAssign>()) {
      if (const auto* n = a->target->as<frontend::Name>()) {
        update(n->id, reduce_op(a->op), a->loc);
        reads(*a->value, nullptr);
        return;
      }
    }
    if (const auto* a = s.as<frontend::Assign>()) {
      if (const auto* n = a->target->as<frontend::Name>()) {
        const std::optional<ReduceOp> op = assign_update(*a, n->id);
        update(n->id, op, a->loc);
        const frontend::Expr* self = nullptr;  // the update's own read of the name
        if (op) {
          const auto* b = a->value->as<frontend::Binary>();
          self = b ? b->lhs.get() : a->value->as<frontend::Call>()->args[0].get();
        }
        reads(*a->value, self);
        return;
      }
    }
    frontend::for_each_expr(s, [&](const frontend::Expr& e) { reads(e, nullptr); });
    frontend::for_each_block(s, [&](const frontend::Block& b) {
      for (const frontend::StmtPtr& st : b) walk(*st);
    });
  };
  for (const frontend::StmtPtr& s : loop.body) walk(*s);
  std::vector<Reduction> out;
  for (const auto& [name, u] : uses) {
    if (u.other || !u.op) continue;  // assign_name refuses it, pointing here
    Symbol* s = frame().scopes.lookup(name);
    if (ir::is_bool(s->type) ||
        ((*u.op == ReduceOp::Or || *u.op == ReduceOp::And || *u.op == ReduceOp::Xor) &&
         !ir::is_int(s->type))) {
      fail(u.loc, "'" + name + "' is " + type_name(s->type) + "; a reduction " +
                      op_spelling(*u.op) + " in the parallel loop needs " +
                      (ir::is_bool(s->type) ? "a number" : "an integer") +
                      " (give it that type before the loop)");
    }
    out.push_back(Reduction{name, s, *u.op, -1, {}});
  }
  return out;
}

void Lowerer::add_hidden_params(std::vector<Reduction>& reductions) {
  for (Reduction& r : reductions) {
    r.param = static_cast<int>(fn_.params.size());
    fn_.params.push_back(
        ir::ParamDecl::array("__partial_" + r.name, {r.symbol->type, 1, 0, false}));
    fn_.partials.push_back(r.symbol->type);
  }
}

void Lowerer::bind_partials(std::vector<Reduction>& reductions) {
  for (Reduction& r : reductions) {
    Symbol s;
    s.kind = SymbolKind::Local;
    s.name = r.name;
    s.ir_name = fresh(r.name + "_partial");
    s.type = r.symbol->type;
    s.loc = r.symbol->loc;
    r.accumulator = s.ir_name;
    frame().scopes.declare(new_symbol(std::move(s)));
  }
}

ir::Stmt Lowerer::blocked_loop(std::vector<ir::ParallelDim> dims, std::vector<ir::Stmt> body,
                               const std::vector<Reduction>& reductions,
                               std::vector<ir::Stmt>& prelude) {
  const ir::ScalarType i64 = ir::ScalarType::i64;
  // The iteration space, flattened row-major (the last dim innermost), in blocks.
  std::vector<std::string> counts;
  ir::Expr total = ir::const_i64(1);
  for (const ir::ParallelDim& d : dims) {
    counts.push_back(fresh("count_" + d.name));
    prelude.push_back(ir::let(counts.back(), range_count(d)));
    total = ir::mul(total, ir::var(i64, counts.back()));
  }
  const std::string n = fresh("iterations"), blocks = fresh("blocks");
  prelude.push_back(ir::let(n, total));
  const ir::Expr block_size = ir::const_i64(ir::kReductionBlock);
  prelude.push_back(ir::let(
      blocks,
      ir::floordiv(ir::add(ir::var(i64, n), ir::sub(block_size, ir::const_i64(1))), block_size)));
  const std::string blk = fresh("block"), t = fresh("flat"), first = fresh("first");
  std::vector<ir::Stmt> iteration;
  ir::Expr rest = ir::var(i64, t);
  for (size_t k = dims.size(); k-- > 0;) {
    const ir::ParallelDim& d = dims[k];
    const ir::Expr count = ir::var(i64, counts[k]);
    const ir::Expr index = k == 0 ? rest : ir::mod(rest, count);
    iteration.push_back(ir::let(
        d.name, ir::cast(d.type(),
                         ir::add(ir::cast(i64, d.start), ir::mul(index, ir::cast(i64, d.step))))));
    if (k > 0) rest = ir::floordiv(rest, count);
  }
  iteration.insert(iteration.end(), body.begin(), body.end());
  const ir::Stmt one = ir::block(std::move(iteration));
  const std::set<std::string> bound = ir::bound_names(one);
  const int lanes = statement_count(one) <= kLaneBodyLimit ? kLanes : 1;

  // Each lane: its partials at the identity, its copy of the iteration for iteration
  // first + j * lanes + lane.
  std::vector<ir::Stmt> per_block;
  per_block.push_back(ir::let(first, ir::mul(ir::var(i64, blk), block_size)));
  const std::string last = fresh("last");
  const ir::Expr end = ir::add(ir::var(i64, first), block_size);
  per_block.push_back(
      ir::let(last, ir::select(ir::lt(end, ir::var(i64, n)), end, ir::var(i64, n))));
  std::vector<std::vector<std::string>> lane_acc(reductions.size());
  for (size_t k = 0; k < reductions.size(); ++k) {
    for (int l = 0; l < lanes; ++l) {
      lane_acc[k].push_back(lanes == 1
                                ? reductions[k].accumulator
                                : fresh(reductions[k].accumulator + "_l" + std::to_string(l)));
      per_block.push_back(
          ir::let(lane_acc[k][l], identity(reductions[k].op, reductions[k].symbol->type)));
    }
  }
  auto lane_copies = [&](const std::string& j, bool guarded) {
    std::vector<ir::Stmt> copies;
    for (int l = 0; l < lanes; ++l) {
      std::map<std::string, std::string> renames;
      for (const std::string& b : bound) renames[b] = fresh(b);
      renames[t] = fresh(t);
      for (size_t k = 0; k < reductions.size(); ++k) {
        renames[reductions[k].accumulator] = lane_acc[k][l];
      }
      const std::string exit = fresh("lane");
      const ir::Expr index =
          ir::add(ir::var(i64, first),
                  ir::add(ir::mul(ir::var(i64, j), ir::const_i64(lanes)), ir::const_i64(l)));
      LaneCopy copy(renames, exit);
      ir::Stmt lane =
          ir::labeled(exit, ir::block({ir::let(renames[t], index), copy.mutate_stmt(one)}));
      if (guarded) lane = ir::if_then(ir::lt(index, ir::var(i64, last)), std::move(lane));
      copies.push_back(std::move(lane));
    }
    return ir::block(std::move(copies));
  };
  // A full block runs its lanes unguarded; the last, shorter one checks each index.
  const ir::Expr size = ir::sub(ir::var(i64, last), ir::var(i64, first));
  const ir::Expr steps =
      ir::floordiv(ir::add(size, ir::const_i64(lanes - 1)), ir::const_i64(lanes));
  const std::string full = fresh("step"), part = fresh("step");
  per_block.push_back(
      ir::if_then(ir::eq(size, block_size),
                  ir::for_range(full, ir::const_i64(0), ir::const_i64(ir::kReductionBlock / lanes),
                                ir::const_i64(1), lane_copies(full, false), lanes > 1),
                  ir::for_range(part, ir::const_i64(0), steps, ir::const_i64(1),
                                lane_copies(part, true), lanes > 1)));
  for (size_t k = 0; k < reductions.size(); ++k) {
    const Reduction& r = reductions[k];
    const ir::ScalarType type = r.symbol->type;
    ir::Expr folded = ir::var(type, lane_acc[k][0]);  // lanes in order
    for (int l = 1; l < lanes; ++l) folded = combine(r.op, folded, ir::var(type, lane_acc[k][l]));
    const ir::ArrayRef partial{r.param, {type, 1, 0, false}};
    per_block.push_back(ir::store(partial, {ir::var(i64, blk)}, folded));
  }
  return ir::ParallelFor::make(
      {ir::range_dim(blk, ir::const_i64(0), ir::var(i64, blocks), ir::const_i64(1))},
      ir::block(std::move(per_block)));
}

ir::Stmt Lowerer::epilogue(const frontend::For& loop, const std::vector<Reduction>& reductions) {
  std::vector<ir::Stmt> body;
  const std::string only = fresh("epilogue");
  {
    Redirect to_body(*this, body);
    ScopeGuard scope(*this);
    in_prelude_ = false;
    // The statements after the loop may assign the prelude's locals, as Python's would.
    std::vector<Symbol*> prelude_locals;
    for (Symbol& s : symbols_) {
      if (s.prelude && s.kind == SymbolKind::Local && s.typed) prelude_locals.push_back(&s);
    }
    for (Symbol* p : prelude_locals) {
      if (frame().scopes.lookup(p->name) != p) continue;  // shadowed
      Symbol copy = *p;
      copy.prelude = false;
      copy.ir_name = fresh(p->name);
      emit(ir::let(copy.ir_name, ir::var(p->type, p->ir_name)));
      for (const Reduction& r : reductions) {
        if (r.symbol != p) continue;
        // The initial value, then each block's partial in block order.
        const ir::ArrayRef partial{r.param, {p->type, 1, 0, false}};
        const std::string b = fresh("block");
        emit(ir::for_range(
            b, ir::const_i64(0), ir::shape(partial, 0), ir::const_i64(1),
            ir::assign(copy.ir_name,
                       combine(r.op, ir::var(p->type, copy.ir_name),
                               ir::load(partial, {ir::var(ir::ScalarType::i64, b)})))));
      }
      frame().scopes.declare(new_symbol(std::move(copy)));
    }
    bool after = false;
    for (const frontend::StmtPtr& s : kernel_.body) {
      if (s.get() == &loop) {
        after = true;
        continue;
      }
      if (!after) continue;
      if (const auto* r = s->as<frontend::Return>()) {
        lower_kernel_value(*r);
        break;
      }
      lower_stmt(*s);
    }
  }
  return ir::ParallelFor::make(
      {ir::range_dim(only, ir::const_i64(0), ir::const_i64(1), ir::const_i64(1))},
      ir::block(std::move(body)));
}

void Lowerer::lower_kernel_value(const frontend::Return& r) {
  const Value v = lower_expr(*r.value);
  if (v.array || v.is_tuple() || v.is_none()) {
    fail(r.value->loc, "a kernel returns a number, not " + describe(v) +
                           "; return one number (or write the rest to array arguments)");
  }
  ir::ScalarType t = type_of(v);
  if (kernel_.returns) {
    const std::optional<ir::ScalarType> declared = dtype_named(*kernel_.returns);
    if (!declared) {
      fail(kernel_.returns->loc,
           "a kernel's return annotation is a dtype (-> tack.f32, -> tack.i64, ...), not '" +
               frontend::dotted_name(*kernel_.returns) + "'");
    }
    t = *declared;
  }
  fn_.returns = true;
  fn_.result = t;
  const ir::ArrayRef result{static_cast<int>(fn_.params.size()), {t, 1, 0, false}};
  fn_.params.push_back(ir::ParamDecl::array("__result", result.type));
  emit(ir::store(result, {ir::const_i64(0)}, convert_store(v, t, r.value->loc, "the value")));
}

}  // namespace tack::lowering
