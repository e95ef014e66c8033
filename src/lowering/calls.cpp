// Device functions (@tack.func): inlined at every call. Parameters take the types of the call's
// arguments (arrays pass through as the caller's array), `return` becomes an assignment of a
// result local plus an exit from the inlined body's LabeledBlock, and the result type is the
// merge of every returned value's type.
#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "ir/visitor.hpp"
#include "lowering/lowerer.hpp"
#include "lowering/typing.hpp"

namespace tack::lowering {
namespace {

using frontend::SourceLoc;

// Replaces the placeholder Assigns of `return` once the result type is known.
class ReplaceStmts final : public ir::Mutator {
 public:
  std::map<const ir::StmtNode*, ir::Stmt> replace;

  ir::Stmt mutate(const ir::Assign& n, const ir::Stmt& self) override {
    auto it = replace.find(&n);
    return it == replace.end() ? self : it->second;
  }
};

std::string describe_args(const Lowerer& l, const std::vector<Value>& args) {
  std::string s;
  for (const Value& v : args) {
    s += s.empty() ? "" : ", ";
    s += v.array ? (v.array->kind == SymbolKind::LocalArray
                        ? "local array of " + type_name(v.array->type)
                        : ir::to_string(v.array->array))
                 : l.describe(v);
  }
  return s;
}

// The scalars of a value, in order (a tuple's elements depth first; a scalar is itself).
void flatten(const Value& v, std::vector<const Value*>& out) {
  if (!v.is_tuple()) {
    out.push_back(&v);
    return;
  }
  for (const Value& e : v.tuple) flatten(e, out);
}

// "_" for a scalar, "(_, (_, _))" for a tuple: returns must agree on it.
std::string shape_of(const Value& v) {
  if (!v.is_tuple()) return "_";
  if (v.is_vecmat()) return "vec" + std::to_string(v.rows) + "x" + std::to_string(v.cols);
  std::string s = "(";
  for (size_t k = 0; k < v.tuple.size(); ++k) s += (k ? ", " : "") + shape_of(v.tuple[k]);
  return s + ")";
}

// A value shaped like `shape` whose scalars are `leaves`, taken from `next` on.
Value rebuild(const Value& shape, const std::vector<Value>& leaves, size_t& next) {
  if (!shape.is_tuple()) return leaves[next++];
  std::vector<Value> out;
  for (const Value& e : shape.tuple) out.push_back(rebuild(e, leaves, next));
  return Value::like(shape, std::move(out));
}

// Weak literals of a returned value take their default types (the function's result is typed).
Value typed_value(const Lowerer& l, const Value& v) {
  if (!v.is_tuple()) return Value::typed(l.typed(v));
  std::vector<Value> out;
  for (const Value& e : v.tuple) out.push_back(typed_value(l, e));
  return Value::like(v, std::move(out));
}

std::string lines_of(const std::vector<Frame::Return>& returns) {
  std::string s;
  for (const Frame::Return& r : returns) {
    s += (s.empty() ? "" : ", ") + std::to_string(r.stmt->loc.line);
  }
  return s;
}

// The body of `f` in the current (callee) frame; the result, or a none Value.
Value inline_body(Lowerer& l, const frontend::FunctionDef& f) {
  // A function that is one `return expr` is an expression: no block, no result local.
  if (f.body.size() == 1 && f.body[0]->is<frontend::Return>()) {
    const auto& r = *f.body[0]->as<frontend::Return>();
    if (r.value) {
      Value v = l.lower_expr(*r.value);
      if (v.array) {
        l.fail(r.value->loc, "a device function returns a number or a tuple, not an array ('" +
                                 v.array->name + "')");
      }
      if (v.is_none()) l.fail(r.value->loc, "this call returns no value; it cannot be returned");
      return typed_value(l, v);
    }
  }
  Frame& fr = l.frame();
  fr.label = l.fresh(f.name + "_body");
  fr.result_base = f.name + "_result";
  if (!f.body.empty() && f.body.back()->is<frontend::Return>()) {
    fr.final_return = f.body.back().get();
  }
  std::vector<ir::Stmt> body;
  {
    Redirect r(l, body);
    l.lower_stmts(f.body);
  }
  const auto valued = [](const Frame::Return& r) { return r.value.has_value(); };
  auto first = std::find_if(fr.returns.begin(), fr.returns.end(), valued);
  ir::Stmt block = ir::block(std::move(body));
  if (first == fr.returns.end()) {
    l.emit(fr.used_label ? ir::labeled(fr.label, block) : block);
    return Value{};
  }
  for (const Frame::Return& r : fr.returns) {
    if (!r.value) {
      l.fail(r.stmt->loc, "'" + f.name + "' returns a value on line " +
                              std::to_string(first->stmt->loc.line) +
                              ", but this 'return' gives none; return a value on every path");
    }
  }
  if (falls_through(f.body)) {
    const frontend::Stmt& last = *f.body.back();
    l.fail(last.loc, "'" + f.name + "' returns a value on line " +
                         std::to_string(first->stmt->loc.line) +
                         " but can also reach its end without a return; add a return at the "
                         "end");
  }
  const Value& shape = *fr.returns[0].value;
  for (const Frame::Return& r : fr.returns) {
    if (shape_of(*r.value) != shape_of(shape)) {
      l.fail(r.stmt->loc, "'" + f.name + "' returns " + l.describe(shape) + " on line " +
                              std::to_string(fr.returns[0].stmt->loc.line) + " but " +
                              l.describe(*r.value) +
                              " here; every return of a function must give the same number "
                              "of values");
    }
  }
  std::vector<std::vector<const Value*>> scalars(fr.returns.size());
  for (size_t r = 0; r < fr.returns.size(); ++r) flatten(*fr.returns[r].value, scalars[r]);
  const size_t count = scalars[0].size();
  std::vector<ir::ScalarType> types(count);
  for (size_t k = 0; k < count; ++k) {
    Value acc = *scalars[0][k];
    for (size_t r = 1; r < fr.returns.size(); ++r) {
      ir::ScalarType t =
          l.merge_types(acc, *scalars[r][k], fr.returns[r].stmt->loc,
                        "the values '" + f.name + "' returns (lines " + lines_of(fr.returns) + ")");
      acc = Value::typed(ir::make_const(t, 0));
    }
    types[k] = l.type_of(acc);
  }
  ReplaceStmts replace;
  for (size_t r = 0; r < fr.returns.size(); ++r) {
    for (size_t k = 0; k < count; ++k) {
      const Value& v = *scalars[r][k];
      if (!v.is_weak() && v.expr->type == types[k]) continue;
      replace.replace[fr.returns[r].placeholders[k].get()] =
          ir::assign(fr.result_names[k],
                     l.coerce(v, types[k], fr.returns[r].stmt->loc, "the other returned values"));
    }
  }
  if (!replace.replace.empty()) block = replace.mutate_stmt(block);
  std::vector<Value> results;
  for (size_t k = 0; k < count; ++k) {
    l.emit(ir::let(fr.result_names[k], ir::make_const(types[k], 0)));
    results.push_back(Value::typed(ir::var(types[k], fr.result_names[k])));
  }
  l.emit(fr.used_label ? ir::labeled(fr.label, block) : block);
  size_t next = 0;
  return rebuild(shape, results, next);
}

}  // namespace

// What the inlining keeps while a kernel is lowered (Lowerer::calls_).
struct CallState {
  std::map<const frontend::FunctionDef*, std::set<std::string>> assigned_in;
  std::map<const frontend::FunctionDef*, std::set<std::string>> carried_loop_vars;
  int inlined_calls = 0;
};

Owned<CallState> make_call_state() {
  return {new CallState, [](CallState* s) { delete s; }};
}

const std::set<std::string>& Lowerer::assigned_in(const frontend::FunctionDef& f) {
  auto& assigned_in_ = calls_->assigned_in;
  auto it = assigned_in_.find(&f);
  if (it != assigned_in_.end()) return it->second;
  std::vector<AssignedName> names;
  for (const frontend::StmtPtr& s : f.body) assigned_names(*s, names);
  std::set<std::string>& set = assigned_in_[&f];
  for (const AssignedName& a : names) set.insert(a.name);
  return set;
}

const std::set<std::string>& Lowerer::carried_loop_vars(const frontend::FunctionDef& f) {
  auto& carried_loop_vars_ = calls_->carried_loop_vars;
  auto it = carried_loop_vars_.find(&f);
  if (it != carried_loop_vars_.end()) return it->second;
  std::set<std::string> targets, outside;
  std::vector<std::string> active;  // the variables of the loops around the statement
  std::function<void(const frontend::Expr&)> names = [&](const frontend::Expr& e) {
    if (const auto* n = e.as<frontend::Name>()) {
      if (std::find(active.begin(), active.end(), n->id) == active.end()) outside.insert(n->id);
    }
    frontend::for_each_child(e, names);
  };
  std::function<void(const frontend::Stmt&)> walk = [&](const frontend::Stmt& s) {
    frontend::for_each_expr(s, names);  // a loop's range: evaluated before its variable is set
    const auto* loop = s.as<frontend::For>();
    const size_t depth = active.size();
    if (loop) {
      for (const frontend::Identifier& t : loop->targets) {
        targets.insert(t.name);
        active.push_back(t.name);
      }
    }
    frontend::for_each_block(s, [&](const frontend::Block& b) {
      for (const frontend::StmtPtr& st : b) walk(*st);
    });
    active.resize(depth);
  };
  for (const frontend::StmtPtr& s : f.body) walk(*s);
  std::set<std::string>& carried = carried_loop_vars_[&f];
  for (const std::string& t : targets) {
    if (outside.count(t)) carried.insert(t);
  }
  return carried;
}

Value Lowerer::inline_call(const frontend::FunctionDef& f, const frontend::Call& c, bool discard) {
  if (c.args.size() != f.params.size()) {
    std::string params;
    for (const frontend::Param& p : f.params) params += (params.empty() ? "" : ", ") + p.name;
    fail(c.loc, "'" + f.name + "' takes " + std::to_string(f.params.size()) + " argument" +
                    (f.params.size() == 1 ? "" : "s") + " (" + params + "), got " +
                    std::to_string(c.args.size()));
  }
  if (static_cast<int>(frames_.size()) > kMaxInlineDepth) {
    fail(c.loc, "device functions call each other more than " + std::to_string(kMaxInlineDepth) +
                    " levels deep here; every call is inlined, so flatten the chain of calls");
  }
  if (++calls_->inlined_calls > kMaxInlinedCalls) {
    fail(c.loc, "the kernel inlines more than " + std::to_string(kMaxInlinedCalls) +
                    " device-function calls (every call is inlined, and functions that call "
                    "others several times multiply); call them in a loop instead");
  }
  Sequence seq(*this);
  for (const frontend::ExprPtr& a : c.args) {
    seq.add([&] {
      Value v = lower_expr(*a);
      if (v.is_none()) fail(a->loc, "this call returns no value; it cannot be an argument");
      return v;
    });
  }
  std::string note = " (in '" + f.name + "', inlined from line " + std::to_string(c.loc.line) +
                     " with arguments (" + describe_args(*this, seq.values()) + "))";

  frames_.push_back(std::make_unique<Frame>());
  Frame& fr = frame();
  fr.fn = &f;
  fr.scopes.push();
  Value result;
  try {
    const std::set<std::string>& assigned = assigned_in(f);
    for (size_t k = 0; k < f.params.size(); ++k) {
      const frontend::Param& p = f.params[k];
      const Value& a = seq[k];
      if (a.is_tuple()) {  // a tuple local of the function, its elements the argument's values
        fr.scopes.declare(make_tuple(p.name, p.loc, a, /*init=*/true, nullptr));
        continue;
      }
      Symbol s;
      if (a.array) {
        s = *a.array;  // the caller's array, under the parameter's name
      } else {
        ir::Expr e = typed(a);
        s.type = e->type;
        // A parameter the function never assigns reads a leaf argument (a constant, a local,
        // a parameter) directly; anything else is evaluated once into a local, which keeps the
        // evaluation order and keeps nested calls (sq(sq(sq(x)))) from repeating work.
        if (!assigned.count(p.name) && cheap_to_repeat(e)) {
          s.kind = SymbolKind::Value;
          s.value = e;
        } else {
          s.kind = SymbolKind::Local;
          s.ir_name = fresh(p.name);
          emit(ir::let(s.ir_name, e));
        }
      }
      s.name = p.name;
      s.loc = p.loc;
      fr.scopes.declare(new_symbol(std::move(s)));
    }
    result = inline_body(*this, f);
  } catch (const CompileError& e) {
    frames_.pop_back();
    std::string line = module_.source.line(e.line());
    std::replace(line.begin(), line.end(), '\t', ' ');
    throw CompileError(e.kernel(), e.line(), e.column(), e.message() + note, line);
  } catch (...) {
    frames_.pop_back();
    throw;
  }
  frames_.pop_back();
  if (result.is_none() && !discard) {
    fail(c.loc, "'" + f.name + "' returns no value, so its call cannot be used as a value");
  }
  return result;
}

void Lowerer::lower_return(const frontend::Return& r) {
  if (frames_.size() == 1) fail(r.loc, "'return' is not allowed in a kernel");
  Frame& fr = frame();
  if (r.value) {
    Value v = lower_expr(*r.value);
    if (v.array) {
      fail(r.value->loc,
           "a device function returns a number or a tuple, not an array ('" + v.array->name + "')");
    }
    if (v.is_none()) fail(r.value->loc, "this call returns no value; it cannot be returned");
    // The result's types are known once every return is lowered; inline_body retypes these.
    std::vector<const Value*> scalars;
    flatten(v, scalars);
    std::vector<ir::Stmt> placeholders;
    for (size_t k = 0; k < scalars.size(); ++k) {
      if (fr.result_names.size() <= k) fr.result_names.push_back(fresh(fr.result_base));
      placeholders.push_back(ir::Assign::make(fr.result_names[k], typed(*scalars[k])));
      emit(placeholders.back());
    }
    fr.returns.push_back({&r, v, std::move(placeholders)});
  } else {
    fr.returns.push_back({&r, std::nullopt, {}});
  }
  if (&r != fr.final_return) {
    emit(ir::exit_block(fr.label));
    fr.used_label = true;
  }
}

}  // namespace tack::lowering
