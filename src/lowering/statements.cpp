// Lowering of statements: assignments and their typing, if/elif/else, sequential for and while
// loops, break/continue, expression statements; scoping and definite assignment of locals.
#include <algorithm>
#include <functional>

#include "lowering/lowerer.hpp"
#include "lowering/typing.hpp"

namespace tack::lowering {
namespace {

using frontend::SourceLoc;

// tack.zeros(...), tack.local_array(...), tack.local_array_like(...): a local array.
bool is_zeros_call(const frontend::Expr& e) {
  const auto* c = e.as<frontend::Call>();
  if (!c) return false;
  const std::string name = frontend::dotted_name(*c->func);
  return name == "tack.zeros" || name == "tack.local_array" || name == "tack.local_array_like" ||
         name == "tack.shared" || name == "tack.shared_like";
}

void collect(const frontend::Stmt& s, std::vector<AssignedName>& out,
             std::vector<std::string>& loop_vars, const std::set<std::string>* carried) {
  std::function<void(const frontend::Expr&)> add = [&](const frontend::Expr& target) {
    if (const auto* t = target.as<frontend::Tuple>()) {
      for (const frontend::ExprPtr& e : t->elements) add(*e);
      return;
    }
    const auto* n = target.as<frontend::Name>();
    if (!n) return;
    if (std::find(loop_vars.begin(), loop_vars.end(), n->id) != loop_vars.end()) return;
    for (const AssignedName& a : out) {
      if (a.name == n->id) return;
    }
    out.push_back({n->id, s.loc});
  };
  if (const auto* a = s.as<frontend::Assign>()) {
    if (!is_zeros_call(*a->value)) add(*a->target);
  } else if (const auto* a = s.as<frontend::AugAssign>()) {
    add(*a->target);
  }
  const auto* f = s.as<frontend::For>();
  size_t bound = loop_vars.size();
  if (f) {
    // A loop assigns its variable when that outlives the loop, as in Python.
    for (const frontend::Identifier& t : f->targets) {
      if (!carried || !carried->count(t.name)) continue;
      if (std::find(loop_vars.begin(), loop_vars.end(), t.name) != loop_vars.end()) continue;
      bool seen = false;
      for (const AssignedName& a : out) seen = seen || a.name == t.name;
      if (!seen) out.push_back({t.name, t.loc});
    }
    for (const frontend::Identifier& t : f->targets) loop_vars.push_back(t.name);
  }
  frontend::for_each_block(s, [&](const frontend::Block& b) {
    for (const frontend::StmtPtr& st : b) collect(*st, out, loop_vars, carried);
  });
  loop_vars.resize(bound);
}

std::string describe_conversion_fix(const std::string& name, ir::ScalarType local,
                                    ir::ScalarType value) {
  if (ir::is_bool(local)) {
    return "'" + name + "' holds a bool; assign a comparison such as (x != 0), or bool(...)";
  }
  if (tack::is_float(value) && ir::is_int(local)) {
    return "make '" + name + "' a float from its first assignment (e.g. " + name +
           " = 0.0), or convert explicitly: " + name + " = int(...) or " + cast_spelling(local);
  }
  return "give '" + name + "' the wider type at its first assignment (e.g. " + name + " = " +
         cast_spelling(value) + "), or convert explicitly with " + cast_spelling(local);
}

// Whether the scalar local `s` can be assigned `v` without a new type.
bool takes(const Symbol& s, const Value& v) {
  if (!s.typed) return true;
  if (v.is_tuple()) return false;
  if (v.is_weak()) {
    const Constant& c = *v.weak;
    return tack::is_float(s.type) || (!c.is_float && ir::is_int(s.type) && fits(c, s.type));
  }
  return v.expr && converts_implicitly(v.expr->type, s.type);
}

// Whether a range loop runs at least once whatever the arguments: constant bounds.
bool known_nonempty(const RangeBounds& b) {
  const auto* start = b.start->as<ir::IntConst>();
  const auto* stop = b.stop->as<ir::IntConst>();
  const auto* step = b.step->as<ir::IntConst>();
  if (!start || !stop || !step) return false;
  return step->value > 0 ? start->value < stop->value
                         : step->value < 0 && start->value > stop->value;
}

}  // namespace

void assigned_names(const frontend::Stmt& s, std::vector<AssignedName>& out,
                    const std::set<std::string>* carried) {
  std::vector<std::string> loop_vars;
  collect(s, out, loop_vars, carried);
}

bool falls_through(const frontend::Block& block) {
  if (block.empty()) return true;
  const frontend::Stmt& last = *block.back();
  if (last.is<frontend::Break>() || last.is<frontend::Continue>() || last.is<frontend::Return>()) {
    return false;
  }
  if (const auto* i = last.as<frontend::If>()) {
    if (!i->has_else || falls_through(i->else_body)) return true;
    for (const frontend::If::Branch& b : i->branches) {
      if (falls_through(b.body)) return true;
    }
    return false;
  }
  return true;
}

Lowerer::Snapshot Lowerer::snapshot() {
  Snapshot s;
  for (Symbol* sym : frame().tracked) s.emplace_back(sym, sym->assigned);
  return s;
}

void Lowerer::restore(const Snapshot& s) {
  for (const auto& [sym, assigned] : s) sym->assigned = assigned;
}

namespace {
// Definitely assigned after two paths: in both (only paths that reach the join count).
Lowerer::Snapshot meet(const Lowerer::Snapshot& a, bool a_falls, const Lowerer::Snapshot& b,
                       bool b_falls) {
  if (a_falls && !b_falls) return a;
  if (b_falls && !a_falls) return b;
  Lowerer::Snapshot m = a;
  for (auto& [sym, assigned] : m) {
    for (const auto& [other, other_assigned] : b) {
      if (other == sym) assigned = assigned && other_assigned;
    }
  }
  return m;
}
}  // namespace

void Lowerer::lower_stmts(const frontend::Block& block) {
  for (const frontend::StmtPtr& s : block) {
    if (!s->is<frontend::If>() && !s->is<frontend::For>() && !s->is<frontend::While>()) {
      lower_stmt(*s);
      continue;
    }
    // Python scopes locals to the function: a name first assigned inside this statement lives
    // on after it. Declare it here, typed by its first assignment, zero until then; reading it
    // where it may not have been assigned is an error (see Symbol::assigned).
    std::vector<AssignedName> assigned;
    assigned_names(*s, assigned, &carried_loop_vars(*frame().fn));
    std::vector<Symbol*> hoisted;
    for (const AssignedName& a : assigned) {
      if (frame().scopes.lookup(a.name) || a.name == "tack" || a.name == "math") continue;
      Symbol sym;
      sym.kind = SymbolKind::Local;
      sym.name = a.name;
      sym.ir_name = fresh(a.name);
      sym.loc = a.loc;
      sym.typed = false;
      sym.assigned = false;
      sym.prelude = in_prelude_;
      Symbol* p = new_symbol(std::move(sym));
      frame().scopes.declare(p);
      frame().tracked.push_back(p);
      hoisted.push_back(p);
    }
    size_t mark = out_->size();
    lower_stmt(*s);
    std::vector<ir::Stmt> lets;
    for (Symbol* h : hoisted) {
      if (h->kind == SymbolKind::Tuple) {
        lets.insert(lets.end(), h->hoisted_lets.begin(), h->hoisted_lets.end());
      } else if (h->typed) {
        lets.push_back(ir::let(h->ir_name, ir::make_const(h->type, 0)));
      }
    }
    out_->insert(out_->begin() + static_cast<std::ptrdiff_t>(mark), lets.begin(), lets.end());
  }
}

ir::Stmt Lowerer::lower_body(const frontend::Block& block) {
  std::vector<ir::Stmt> stmts;
  Redirect r(*this, stmts);
  ScopeGuard scope(*this);
  lower_stmts(block);
  return ir::block(std::move(stmts));
}

void Lowerer::assign_name(const std::string& name, SourceLoc loc, const Value& v,
                          SourceLoc value_loc) {
  if (v.array) {
    fail(value_loc, "an array cannot be assigned to a local ('" + name + "' = '" + v.array->name +
                        "'); index it, or use the array's own name");
  }
  if (v.is_none()) fail(value_loc, "this call returns no value; it cannot be assigned");
  Symbol* s = frame().scopes.lookup(name);
  if (s && s->kind == SymbolKind::Local && s->from_loop && !s->loop_var && !takes(*s, v)) {
    // A finished loop's variable given a value of another kind: in its own scope a new local
    // of that name, as Python rebinds it (every later read is textually after this point).
    if (!frame().scopes.innermost_declares(s)) {
      fail(loc, "'" + name + "' holds the integer of the loop on line " +
                    std::to_string(s->loc.line) + " here; it cannot be assigned " + describe(v) +
                    " inside a nested block: use a new name");
    }
    s = nullptr;
  }
  if (!s) {
    // A local may shadow a builtin or a function, as in Python, but not the modules every
    // kernel needs.
    if (name == "tack" || name == "math") {
      fail(loc, "'" + name + "' is the name of a module; choose another name for the local");
    }
    if (v.is_tuple()) {
      frame().scopes.declare(make_tuple(name, loc, v, /*init=*/true, nullptr));
      return;
    }
    Symbol sym;
    sym.kind = SymbolKind::Local;
    sym.name = name;
    sym.ir_name = fresh(name);
    sym.type = type_of(v);
    sym.loc = loc;
    sym.prelude = in_prelude_;
    sym.from_literal = v.is_weak();
    emit(ir::let(sym.ir_name, typed(v)));
    frame().scopes.declare(new_symbol(std::move(sym)));
    return;
  }
  switch (s->kind) {
    case SymbolKind::ArrayParam:
      fail(loc, "cannot assign to '" + name + "': it is an array" +
                    (s->param >= 0 && frames_.size() == 1 ? " parameter" : "") +
                    "; store into its elements (" + name + "[i] = ...)");
    case SymbolKind::LocalArray:
      fail(loc, "cannot assign to the local array '" + name +
                    "' as a whole; store into its "
                    "elements (" +
                    name + "[i] = ...)");
    case SymbolKind::Value:
      // Parameters that are assigned were made locals before lowering; nothing else is a Value.
      fail(loc, "cannot assign to '" + name + "'");
    case SymbolKind::Local:
    case SymbolKind::Tuple:
      break;
  }
  if (s->prelude && !in_prelude_) {
    fail(loc, "'" + name + "' was computed before the parallel loop (line " +
                  std::to_string(s->loc.line) +
                  ") and is shared by all iterations, so the loop cannot assign it. To fold values "
                  "into it (a reduction, its result there after the loop), update it only with " +
                  name + " += v (or " + name + " = " + name + " + v, *=, |=, &=, ^=, " + name +
                  " = min(" + name +
                  ", v), max), one fold, and read it nowhere else in the "
                  "loop; for a value per iteration, assign a new local (my_" +
                  name + " = " + name + ")");
  }
  if (s->kind == SymbolKind::Local && !s->typed && v.is_tuple()) {
    // A local first assigned inside an if or a loop, to a tuple: it becomes a tuple local whose
    // element locals lower_stmts declares (zero) before that statement.
    Symbol* t = make_tuple(name, loc, v, /*init=*/false, &s->hoisted_lets);
    s->kind = SymbolKind::Tuple;
    s->typed = true;
    s->loc = loc;
    s->elements = t->elements;
    s->rows = t->rows;
    s->cols = t->cols;
  }
  if (s->kind == SymbolKind::Tuple) {
    assign_tuple(*s, name, v, value_loc);
  } else {
    if (v.is_tuple()) {
      fail(value_loc, "'" + name + "' holds a number (" + type_name(s->type) +
                          ", from its first assignment on line " + std::to_string(s->loc.line) +
                          "); it cannot be assigned " + describe(v) +
                          "; unpack it (a, b = ...) or use a new name");
    }
    assign_scalar(s, name, loc, v, value_loc);
  }
  s->assigned = true;
}

void Lowerer::assign_scalar(Symbol* s, const std::string& name, SourceLoc loc, const Value& v,
                            SourceLoc value_loc) {
  if (!s->typed) {
    s->typed = true;
    s->type = type_of(v);
    s->loc = loc;
    s->from_literal = v.is_weak();
  }
  ir::Expr value;
  if (v.is_weak()) {
    const Constant& c = *v.weak;
    if (!takes(*s, v)) {
      std::string why = ir::is_bool(s->type) ? "assign True, False or a comparison"
                        : c.is_float ? describe_conversion_fix(name, s->type, default_float())
                                     : "convert the constant explicitly with " +
                                           cast_spelling(s->type) + " to wrap it";
      fail(value_loc, "'" + name + "' is " + type_name(s->type) +
                          " (from its first assignment on line " + std::to_string(s->loc.line) +
                          "); the constant " + c.text() + " does not fit: " + why);
    }
    value = make_constant(c, s->type);
  } else {
    ir::ScalarType vt = type_of(v);
    if (!takes(*s, v)) {
      fail(value_loc,
           "'" + name + "' is " + type_name(s->type) + " (from its first assignment on line " +
               std::to_string(s->loc.line) + (s->from_literal ? ", a literal" : "") +
               "); assigning a value of type " + type_name(vt) +
               " to it would lose information: " + describe_conversion_fix(name, s->type, vt));
    }
    value = ir::cast(s->type, v.expr);
  }
  emit(ir::assign(s->ir_name, value));
}

namespace {

void lower_if_chain(Lowerer& l, const frontend::If& s, size_t k, bool* falls);

}  // namespace

void Lowerer::lower_stmt(const frontend::Stmt& s) {
  using namespace frontend;
  NestingGuard nesting(*this, s.loc);
  switch (s.kind) {
    case StmtKind::Assign: {
      const auto& a = static_cast<const Assign&>(s);
      if (a.target->is<frontend::Tuple>()) {
        unpack(*a.target, *a.value);
        return;
      }
      if (const auto* n = a.target->as<Name>()) {
        if (is_zeros_call(*a.value)) {
          declare_local_array(n->id, n->loc, *a.value->as<Call>());
          return;
        }
        Value v = lower_expr(*a.value);
        assign_name(n->id, n->loc, v, a.value->loc);
        return;
      }
      if (a.target->is<Attribute>() || is_component_target(*a.target)) {
        Value v = operand(*a.value);
        assign_component(*a.target, v, a.value->loc, std::nullopt, a.value->loc);
        return;
      }
      const auto& target = *a.target->as<Subscript>();
      // Python evaluates the value first, then the target's indices.
      Sequence seq(*this);
      seq.add_operand(*a.value);
      Access acc = lower_access(target, seq, /*whole=*/true);
      if (acc.whole) {
        store_whole(acc, seq[0], a.value->loc);
        return;
      }
      if (seq[0].is_vecmat()) {
        fail(a.value->loc, "an element of '" + acc.array->name + "' is one number (" +
                               type_name(acc.array->type) + "); it cannot be assigned " +
                               describe(seq[0]));
      }
      ir::Expr v = convert_store(seq[0], acc.array->type, a.value->loc,
                                 "the array '" + acc.array->name + "'");
      // The IR evaluates indices before the value; only an atomic on either side can tell.
      bool index_atomic = false, index_reads = false;
      for (const ir::Expr& i : acc.indices) {
        index_atomic = index_atomic || contains_atomic(i);
        index_reads = index_reads || reads_memory(i);
      }
      if ((index_atomic && reads_memory(v)) || (contains_atomic(v) && index_reads)) v = spill(v);
      emit(store(acc, v));
      return;
    }
    case StmtKind::AugAssign: {
      const auto& a = static_cast<const AugAssign&>(s);
      if (const auto* n = a.target->as<Name>()) {
        Sequence seq(*this);
        seq.add_operand(*a.target);
        seq.add_operand(*a.value);
        Value r = binary(a.op, seq[0], seq[1], a.op_loc);
        assign_name(n->id, n->loc, r, a.value->loc);
        return;
      }
      if (a.target->is<Attribute>() || is_component_target(*a.target)) {
        Value v = operand(*a.value);
        assign_component(*a.target, v, a.value->loc, a.op, a.op_loc);
        return;
      }
      // a[i] op= v: the indices are evaluated once, then load, operate, store.
      Sequence seq(*this);
      Access acc = lower_access(*a.target->as<Subscript>(), seq, /*whole=*/true);
      for (ir::Expr& i : acc.indices) {
        if (reads_memory(i)) i = spill(i);
      }
      Sequence ops(*this);  // the indices are settled: only the load and the value remain
      ops.add([&] { return acc.whole ? load_whole(acc) : Value::typed(load(acc)); });
      ops.add_operand(*a.value);
      Value r = binary(a.op, ops[0], ops[1], a.op_loc);
      if (acc.whole) {
        store_whole(acc, r, a.value->loc);
        return;
      }
      if (r.is_vecmat()) {
        fail(a.value->loc, "an element of '" + acc.array->name + "' is one number (" +
                               type_name(acc.array->type) + "); it cannot be assigned " +
                               describe(r));
      }
      emit(store(acc, convert_store(r, acc.array->type, a.value->loc,
                                    "the array '" + acc.array->name + "'")));
      return;
    }
    case StmtKind::ExprStmt: {
      const auto& e = static_cast<const ExprStmt&>(s);
      Value v;
      if (const auto* c = e.value->as<Call>()) {
        v = lower_call(*c, /*discard=*/true);
      } else {
        v = lower_expr(*e.value);
      }
      // Only atomics have an effect; a pure value is dropped.
      std::function<void(const Value&)> keep_effects = [&](const Value& x) {
        for (const Value& e : x.tuple) keep_effects(e);
        if (x.expr && contains_atomic(x.expr)) emit(ir::eval(x.expr));
      };
      keep_effects(v);
      return;
    }
    case StmtKind::If: {
      bool falls = true;
      lower_if_chain(*this, static_cast<const If&>(s), 0, &falls);
      return;
    }
    case StmtKind::For: {
      const auto& f = static_cast<const For&>(s);
      // The front end allows tack.ndrange only as the parallel loop.
      Sequence seq(*this);
      std::vector<const frontend::Expr*> exprs;
      for (const ExprPtr& a : f.args) {
        seq.add_expr(*a);
        exprs.push_back(a.get());
      }
      RangeBounds b = range_bounds(seq.values(), exprs);
      const Identifier& target = f.targets[0];
      // A variable used outside its loop is a local of the function the loop assigns (it
      // outlives the loop, holding the last value taken, or its value before a loop that ran
      // no iteration); lower_stmts declared it (carried_loop_vars). Any other is the loop's own.
      Symbol* local = frame().scopes.lookup(target.name);
      if (local && (local->loop_var || local->kind != SymbolKind::Local)) {
        std::string where =
            local->loc.line > 0 ? " (line " + std::to_string(local->loc.line) + ")" : std::string();
        fail(target.loc, "the loop variable '" + target.name + "' reuses the name of " +
                             (local->loop_var                    ? "an enclosing loop's variable"
                              : local->kind == SymbolKind::Value ? "the parameter"
                                                                 : "the array or tuple") +
                             " '" + target.name + "'" + where + "; choose another name");
      }
      if (local && local->prelude && !in_prelude_) {
        fail(target.loc, "the loop variable '" + target.name +
                             "' is the local computed before "
                             "the parallel loop (line " +
                             std::to_string(local->loc.line) +
                             "), which every iteration shares, so this loop cannot assign it; "
                             "choose another name for the loop variable");
      }
      // Inside the body the name is the loop's counter, unless the body assigns it: then the
      // local, which each iteration sets anew (an assignment never changes the iteration).
      bool body_assigns = false;
      if (local) {
        std::vector<AssignedName> in_body;
        for (const StmtPtr& st : f.body) assigned_names(*st, in_body);
        for (const AssignedName& a : in_body) body_assigns = body_assigns || a.name == target.name;
      }
      Snapshot entry = snapshot();
      std::vector<ir::Stmt> body;
      std::string ir_name = fresh(target.name);
      {
        Redirect r(*this, body);
        ScopeGuard scope(*this);
        if (local) {
          if (!local->typed) local->from_loop = true;
          assign_scalar(local, target.name, target.loc,
                        Value::typed(ir::var(b.start->type, ir_name)), target.loc);
          local->assigned = true;
          local->loop_var = true;  // an active loop's variable until the loop ends
        }
        if (!body_assigns) {
          Symbol v;
          v.kind = SymbolKind::Local;
          v.name = target.name;
          v.ir_name = ir_name;
          v.type = b.start->type;
          v.loc = target.loc;
          v.loop_var = true;
          frame().scopes.declare(new_symbol(std::move(v)));
        }
        ++frame().loop_depth;
        lower_stmts(f.body);
        --frame().loop_depth;
        if (local) local->loop_var = false;
      }
      restore(entry);  // the body may run zero times
      if (local && known_nonempty(b)) local->assigned = true;
      emit(ir::for_range(ir_name, b.start, b.stop, b.step, ir::block(std::move(body))));
      return;
    }
    case StmtKind::While: {
      const auto& w = static_cast<const While&>(s);
      std::vector<ir::Stmt> cond_stmts;
      ir::Expr cond;
      {
        Redirect r(*this, cond_stmts);
        cond = lower_condition(*w.cond);
      }
      Snapshot entry = snapshot();
      std::vector<ir::Stmt> body;
      {
        Redirect r(*this, body);
        ScopeGuard scope(*this);
        ++frame().loop_depth;
        lower_stmts(w.body);
        --frame().loop_depth;
      }
      restore(entry);
      if (cond_stmts.empty()) {
        emit(ir::while_loop(cond, ir::block(std::move(body))));
        return;
      }
      // The condition needs statements: evaluate it at the top of every iteration.
      cond_stmts.push_back(ir::if_then(ir::logical_not(cond), ir::block({ir::break_stmt()})));
      cond_stmts.insert(cond_stmts.end(), body.begin(), body.end());
      emit(ir::while_loop(ir::const_bool(true), ir::block(std::move(cond_stmts))));
      return;
    }
    case StmtKind::Break:
      emit(ir::break_stmt());
      return;
    case StmtKind::Continue:
      emit(ir::continue_stmt());
      return;
    case StmtKind::Assert:
      lower_assert(static_cast<const frontend::Assert&>(s));
      return;
    case StmtKind::Pass:
      return;
    case StmtKind::Return:
      lower_return(static_cast<const Return&>(s));
      return;
  }
}

namespace {

// if / elif ... / else as nested IR Ifs; *falls: whether some branch reaches the end, with the
// definite-assignment state left as the meet of the branches that do.
void lower_if_chain(Lowerer& l, const frontend::If& s, size_t k, bool* falls) {
  const frontend::If::Branch& br = s.branches[k];
  ir::Expr cond = l.lower_condition(*br.cond);
  Lowerer::Snapshot entry = l.snapshot();
  ir::Stmt then_body = l.lower_body(br.body);
  bool then_falls = falls_through(br.body);
  Lowerer::Snapshot then_state = l.snapshot();
  l.restore(entry);
  ir::Stmt else_body;
  bool else_falls = true;
  if (k + 1 < s.branches.size()) {
    std::vector<ir::Stmt> stmts;
    {
      Redirect r(l, stmts);
      ScopeGuard scope(l);
      lower_if_chain(l, s, k + 1, &else_falls);
    }
    else_body = ir::block(std::move(stmts));
  } else if (s.has_else) {
    else_body = l.lower_body(s.else_body);
    else_falls = falls_through(s.else_body);
  }
  Lowerer::Snapshot else_state = l.snapshot();
  l.restore(meet(then_state, then_falls, else_state, else_falls));
  *falls = then_falls || else_falls;
  l.emit(ir::if_then(cond, then_body, else_body));
}

}  // namespace

}  // namespace tack::lowering
