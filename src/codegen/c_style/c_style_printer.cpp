// CStylePrinter: statements, expressions and the kernel skeleton (helpers: c_style_helpers.cpp).
#include "codegen/c_style/c_style_printer.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "codegen/c_style/c_style_emitter.hpp"
#include "ir/effects.hpp"
#include "ir/printer.hpp"
#include "ir/visitor.hpp"
#include "support/error.hpp"

namespace tack::codegen {

namespace {

// A valid C identifier from an IR name: letters, digits and '_' stay; any other byte (Python
// allows Unicode identifiers, lowering may use '.') becomes _xHH.
std::string mangle(const std::string& name) {
  std::string out;
  for (unsigned char c : name) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_') {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "_x%02x", c);
      out += buf;
    }
  }
  return out;
}

// Whether C may print `exprs` (evaluated in this order by one statement) as plain expressions.
// C evaluates operands in an unspecified order. Loads alone may be reordered unobservably (no
// store happens inside an expression), but an atomic's position among other memory accesses is
// observable; and debug mode needs a statement per access for its check.
bool plain_c_is_exact(const std::vector<ir::Expr>& exprs, bool debug) {
  int loads = 0, atomics = 0;
  for (const ir::Expr& e : exprs) {
    const ir::Effects f = ir::effects_of(e);
    loads += f.array_loads + (debug ? f.local_loads : 0);  // checked in debug mode too
    atomics += f.atomics;
  }
  return !(debug && loads + atomics > 0) && !(atomics >= 1 && loads + atomics >= 2);
}

}  // namespace

std::string CStylePrinter::kernel_symbol(const ir::Function& fn) {
  return "tack_" + mangle(fn.name);
}

std::string CStylePrinter::param_type(ir::ScalarType t) const {
  return t == ir::ScalarType::boolean ? type_name(ir::ScalarType::u8) : type_name(t);
}

std::string CStylePrinter::math_name(ir::MathFn fn, ir::ScalarType) const {
  using ir::MathFn;
  switch (fn) {
    case MathFn::Abs:
      return "fabs";
    case MathFn::Round:
      return "rint";  // half to even, as Python's round
    default:
      return std::string(ir::fn_name(fn));
  }
}

std::string CStylePrinter::pow_name(ir::ScalarType) const {
  return "pow";
}

std::string CStylePrinter::print(const ir::Function& fn, const Options& options,
                                 CFeatures* needs) const {
  detail::Emitter emitter(*this, fn, options.debug, options.blocked);
  std::string source = emitter.run();
  if (needs) *needs = emitter.features();
  return source;
}

namespace detail {

using namespace ir;

// ---- names and spelling -------------------------------------------------------------------------

std::string Emitter::param_name(int p) const {
  return "p_" + mangle(fn_.params.at(p).name);
}
std::string Emitter::extent_name(int p, int dim) const {
  return "n" + std::to_string(dim) + "_" + mangle(fn_.params.at(p).name);
}
std::string Emitter::pitch_name(int p) const {
  return "pitch_" + mangle(fn_.params.at(p).name);
}
std::string Emitter::local_name(const std::string& n) {
  return "v_" + mangle(n);
}

std::string Emitter::ty(ScalarType t) {
  if (t == ScalarType::f64) features_.f64 = true;
  return d_.type_name(t);
}

std::string Emitter::wide_u(ScalarType t) {
  return ty(bits(t) == 64 ? ScalarType::u64 : ScalarType::u32);
}

std::string Emitter::same_u(ScalarType t) {
  return ty(*tack::int_type(itemsize(t), false));
}

std::string Emitter::int_literal(ScalarType t, std::int64_t v) {
  const bool small = v > INT32_MIN && v <= INT32_MAX;
  if (t == ScalarType::i32 && small) {
    return v < 0 ? "(-" + std::to_string(-v) + ")" : std::to_string(v);
  }
  if (small) return "((" + ty(t) + ")" + std::to_string(v) + ")";
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return "((" + ty(t) + ")" + buf + d_.u64_suffix() + ")";
}

std::string Emitter::float_literal(ScalarType t, double v) {
  const bool f32 = t == ScalarType::f32;
  if (std::isnan(v) || std::isinf(v)) {
    // No portable literal spells these; their bits do.
    const char* bits = std::isnan(v) ? (f32 ? "0x7fc00000u" : "0x7ff8000000000000")
                                     : (v > 0 ? (f32 ? "0x7f800000u" : "0x7ff0000000000000")
                                              : (f32 ? "0xff800000u" : "0xfff0000000000000"));
    std::string b = bits;
    if (!f32) b += d_.u64_suffix();
    return d_.bits_to_float(t, b);
  }
  char buf[64];
  auto r = f32 ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(v))
               : std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  if (f32)
    s += "f";
  else
    features_.f64 = true;
  return s[0] == '-' ? "(" + s + ")" : s;
}

// ---- statements ---------------------------------------------------------------------------------

void Emitter::line(const std::string& s) {
  out_.append(static_cast<std::size_t>(indent_) * 2, ' ');
  out_ += s;
  out_ += '\n';
}

void Emitter::body(const Stmt& s) {
  if (!s) return;
  if (const Block* b = s->as<Block>()) {
    for (const Stmt& st : b->stmts) stmt(st);
  } else {
    stmt(s);
  }
}

void Emitter::stmt(const Stmt& s) {
  switch (s->kind) {
    case NodeKind::Let: {
      const auto& n = *s->as<Let>();
      auto v = group({n.value});
      line(ty(n.value->type) + " " + local_name(n.name) + " = " + v[0] + ";");
      return;
    }
    case NodeKind::Assign: {
      const auto& n = *s->as<Assign>();
      auto v = group({n.value});
      line(local_name(n.name) + " = " + v[0] + ";");
      return;
    }
    case NodeKind::ArrayStore:
      array_store(*s->as<ArrayStore>());
      return;
    case NodeKind::LocalArrayDecl: {
      const auto& n = *s->as<LocalArrayDecl>();
      local_dims_[n.name] = n.dims;
      if (n.shared) return;  // declared at the kernel's scope (run()), as OpenCL requires
      std::string dims;
      for (auto d : n.dims) dims += "[" + std::to_string(d) + "]";
      line(ty(n.elem) + " " + local_name(n.name) + dims + " = {0};");  // zero-filled
      return;
    }
    case NodeKind::LocalArrayStore: {
      const auto& n = *s->as<LocalArrayStore>();
      std::vector<Expr> all = n.indices;
      all.push_back(n.value);
      auto v = group(all, debug_);
      std::vector<std::string> idx(v.begin(), v.end() - 1);
      std::string ref = local_name(n.name);
      for (const std::string& i : idx) ref += "[" + i + "]";
      if (debug_) {
        line("if (" + local_bounds_check(n.name, idx) + ") " + ref + " = " + v.back() + ";");
      } else {
        line(ref + " = " + v.back() + ";");
      }
      return;
    }
    case NodeKind::Block:
      line("{");
      ++indent_;
      body(s);
      --indent_;
      line("}");
      return;
    case NodeKind::LabeledBlock: {
      const auto& n = *s->as<LabeledBlock>();
      // C labels have function scope: each labeled block gets its own.
      const std::string label = "L" + std::to_string(labels_++) + "_" + mangle(n.label);
      label_stack_.emplace_back(n.label, label);
      line("{");
      ++indent_;
      body(n.body);
      --indent_;
      line("}");
      label_stack_.pop_back();
      line(label + ":;");
      return;
    }
    case NodeKind::ExitBlock: {
      const auto& n = *s->as<ExitBlock>();
      for (auto it = label_stack_.rbegin(); it != label_stack_.rend(); ++it) {
        if (it->first == n.label) {
          line("goto " + it->second + ";");
          return;
        }
      }
      TACK_INTERNAL_ASSERT(false, "ExitBlock of label '" + n.label + "' outside its block");
      return;
    }
    case NodeKind::If: {
      const auto& n = *s->as<If>();
      auto c = group({n.cond});
      line("if (" + c[0] + ") {");
      ++indent_;
      body(n.then_body);
      --indent_;
      if (n.else_body) {
        line("} else {");
        ++indent_;
        body(n.else_body);
        --indent_;
      }
      line("}");
      return;
    }
    case NodeKind::For:
      for_loop(*s->as<For>());
      return;
    case NodeKind::While:
      while_loop(*s->as<While>());
      return;
    case NodeKind::Break:
      line("break;");
      return;
    case NodeKind::Continue:
      line("continue;");
      return;
    case NodeKind::ExprStmt: {
      auto v = group({s->as<ExprStmt>()->expr});
      line("(void)" + v[0] + ";");
      return;
    }
    case NodeKind::Print:
      print(*s->as<Print>());
      return;
    case NodeKind::Barrier:
      line(d_.barrier());
      return;
    case NodeKind::Assert: {
      if (!debug_) return;  // asserts are checked in debug mode only
      const auto& a = *s->as<Assert>();
      line("{");  // the setup's locals are in scope for the condition
      ++indent_;
      body(a.setup);
      std::vector<Expr> exprs{a.cond};
      exprs.insert(exprs.end(), a.iteration.begin(), a.iteration.end());
      auto v = group(exprs);
      std::string call = assert_failed() + "(tack_status, " + std::to_string(a.site);
      for (std::size_t k = 0; k < 3; ++k) {
        call += ", " + (k + 1 < v.size() ? "(" + ty(ScalarType::i64) + ")" + v[k + 1]
                                         : int_literal(ScalarType::i64, 0));
      }
      line("if (!(" + v[0] + ")) " + call + ");");
      --indent_;
      line("}");
      return;
    }
    case NodeKind::ParallelFor:
      TACK_INTERNAL_ASSERT(false, "a ParallelFor that is not the kernel's last statement");
      return;
#define TACK_IR_EXPR(Name) case NodeKind::Name:
#include "ir/nodes.def"
      // No default: -Wswitch (an error) names a statement node added without a case here.
      TACK_INTERNAL_ASSERT(
          false, "C-style printer: unexpected statement " + std::string(kind_name(s->kind)));
  }
}

void Emitter::print(const Print& p) {
  // One printf per line: "%g" for floats, "%ld"/"%lu" for 64-bit integers (long is 64-bit in
  // OpenCL C and on the LP64 hosts CUDA runs on), True/False for bools.
  std::vector<Expr> values;
  for (const PrintPart& part : p.parts) {
    if (part.value) values.push_back(part.value);
  }
  auto v = group(values);
  std::string format, args;
  std::size_t k = 0;
  for (const PrintPart& part : p.parts) {
    if (!part.value) {
      for (char c : part.text) {
        if (c == '%') {
          format += "%%";
        } else if (c == '"' || c == '\\') {
          format += std::string("\\") + c;
        } else if (c == '\n') {
          format += "\\n";
        } else if (c == '\t') {
          format += "\\t";
        } else if (static_cast<unsigned char>(c) < 0x20) {
          format += '?';
        } else {
          format += c;
        }
      }
      continue;
    }
    const ScalarType t = part.value->type;
    const std::string& x = v[k++];
    if (t == ScalarType::boolean) {
      format += "%s";
      args += ", (" + x + ") ? \"True\" : \"False\"";
    } else if (tack::is_float(t)) {
      format += "%g";
      args += ", " + x;
    } else if (ir::is_signed_int(t)) {
      format += "%ld";
      args += ", (long)(" + x + ")";
    } else {
      format += "%lu";
      args += ", (unsigned long)(" + x + ")";
    }
  }
  line("printf(\"" + format + "\"" + args + ");");
}

void Emitter::for_loop(const For& f) {
  // Python's range: bounds evaluated once, in order; the trip count is exact; assigning the
  // loop variable in the body does not change the iteration (it is recomputed from k).
  const ScalarType t = f.type();
  line("{");
  ++indent_;
  auto v = group({f.start, f.stop, f.step});
  const std::string start = temp(), stop = temp(), step = temp(), count = temp(), k = temp();
  line(ty(t) + " " + start + " = " + v[0] + ";");
  line(ty(t) + " " + stop + " = " + v[1] + ";");
  line(ty(t) + " " + step + " = " + v[2] + ";");
  const std::string u64 = ty(ScalarType::u64), wu = wide_u(t);
  line(u64 + " " + count + " = " + range_count(t) + "(" + start + ", " + stop + ", " + step + ");");
  line("for (" + u64 + " " + k + " = 0; " + k + " < " + count + "; ++" + k + ") {");
  ++indent_;
  line(ty(t) + " " + local_name(f.name) + " = (" + ty(t) + ")((" + wu + ")" + start + " + (" + wu +
       ")" + k + " * (" + wu + ")" + step + ");");
  body(f.body);
  --indent_;
  line("}");
  --indent_;
  line("}");
}

void Emitter::while_loop(const While& w) {
  if (plain_c_is_exact({w.cond}, debug_)) {
    line("while (" + inl(w.cond) + ") {");
    ++indent_;
    body(w.body);
    --indent_;
    line("}");
    return;
  }
  // The condition is evaluated before every iteration, hoisted accesses included: a loop whose
  // first statements compute it and leave when it is false (continue re-enters at the top).
  line("for (;;) {");
  ++indent_;
  auto c = group({w.cond}, true);
  line("if (!" + c[0] + ") break;");
  body(w.body);
  --indent_;
  line("}");
}

void Emitter::array_store(const ArrayStore& s) {
  std::vector<Expr> all = s.indices;
  all.push_back(s.value);
  // Operands, then indices, then the stored value: a group keeps that order where it matters.
  auto v = group(all, debug_);
  std::vector<std::string> idx(v.begin(), v.end() - 1);
  const std::string store = element(s.param, idx) + " = " + v.back() + ";";
  if (debug_) {
    line("if (" + bounds_check(s.param, idx) + ") " + store);
  } else {
    line(store);
  }
}

// ---- expressions
// ----------------------------------------------------------------------------------

bool Emitter::has_memory(const Expr& e) {
  auto it = memory_cache_.find(e.get());
  if (it != memory_cache_.end()) return it->second;
  const Effects f = effects_of(e);
  const bool found = f.array_loads + f.atomics + (debug_ ? f.local_loads : 0) > 0;
  memory_cache_[e.get()] = found;
  return found;
}

std::vector<std::string> Emitter::group(const std::vector<Expr>& exprs, bool force_linear) {
  const bool linear = force_linear || !plain_c_is_exact(exprs, debug_);
  std::vector<std::string> out;
  const bool saved = linear_;
  linear_ = linear;
  for (const Expr& e : exprs) out.push_back(linear ? lin(e) : inl(e));
  linear_ = saved;
  return out;
}

std::string Emitter::element(int param, const std::vector<std::string>& idx) {
  // Row-major over the array's own extents (the last is the vector width of a vec array).
  // A strided array's first index steps by its pitch (tack.arrays.Strided).
  const bool strided = fn_.params.at(param).array_type().strided;
  const std::size_t first = strided && idx.size() > 1 ? 1 : 0;
  std::string flat =
      idx.size() == 1 && !strided ? idx[0] : "(" + ty(ScalarType::i64) + ")" + idx[first];
  for (std::size_t k = first + 1; k < idx.size(); ++k) {
    flat = "(" + flat + " * " + extent_name(param, static_cast<int>(k)) + " + (" +
           ty(ScalarType::i64) + ")" + idx[k] + ")";
  }
  if (strided) {
    const std::string row = "(" + ty(ScalarType::i64) + ")" + idx[0] + " * " + pitch_name(param);
    flat = idx.size() > 1 ? "(" + row + " + " + flat + ")" : "(" + row + ")";
  }
  return param_name(param) + "[" + flat + "]";
}

std::string Emitter::bounds_check(int param, const std::vector<std::string>& idx) {
  std::string c;
  for (std::size_t k = 0; k < idx.size(); ++k) {
    if (!c.empty()) c += " && ";
    c += in_bounds() + "(tack_status, " + std::to_string(param) + ", " + std::to_string(k) + ", (" +
         ty(ScalarType::i64) + ")" + idx[k] + ", " + extent_name(param, static_cast<int>(k)) + ")";
  }
  return c;
}

std::string Emitter::local_bounds_check(const std::string& name,
                                        const std::vector<std::string>& idx) {
  // Local arrays are checked against their declared extents and reported as parameter -1.
  const auto& dims = local_dims_.at(name);
  std::string c;
  for (std::size_t k = 0; k < idx.size(); ++k) {
    if (!c.empty()) c += " && ";
    c += in_bounds() + "(tack_status, -1, " + std::to_string(k) + ", (" + ty(ScalarType::i64) +
         ")" + idx[k] + ", " + int_literal(ScalarType::i64, dims[k]) + ")";
  }
  return c;
}

std::string Emitter::atomic_call(const AtomicRMW& a, const std::vector<std::string>& idx,
                                 const std::string& value) {
  return atomic(a.op, a.type) + "(&" + element(a.param, idx) + ", " + value + ")";
}

std::string Emitter::inl(const Expr& e) {
  switch (e->kind) {
    case NodeKind::IntConst:
      return int_literal(e->type, e->as<IntConst>()->value);
    case NodeKind::FloatConst:
      return float_literal(e->type, e->as<FloatConst>()->value);
    case NodeKind::BoolConst:
      return e->as<BoolConst>()->value ? "true" : "false";
    case NodeKind::Var:
      return local_name(e->as<Var>()->name);
    case NodeKind::ThreadId:
      return d_.local_id();
    case NodeKind::Param: {
      const int p = e->as<Param>()->index;
      return e->type == ScalarType::boolean ? "(" + param_name(p) + " != 0)" : param_name(p);
    }
    case NodeKind::ArrayShape: {
      const auto& n = *e->as<ArrayShape>();
      return extent_name(n.param, n.dim);
    }
    case NodeKind::ArrayLoad: {
      const auto& n = *e->as<ArrayLoad>();
      std::vector<std::string> idx;
      for (const Expr& i : n.indices) idx.push_back(inl(i));
      return element(n.param, idx);
    }
    case NodeKind::AtomicRMW: {
      const auto& n = *e->as<AtomicRMW>();
      std::vector<std::string> idx;
      for (const Expr& i : n.indices) idx.push_back(inl(i));
      return atomic_call(n, idx, inl(n.value));
    }
    case NodeKind::Logical: {
      const auto& n = *e->as<Logical>();
      return "(" + inl(n.a) + (n.op == LogicalOp::And ? " && " : " || ") + inl(n.b) + ")";
    }
    case NodeKind::Select: {
      const auto& n = *e->as<Select>();
      return "(" + inl(n.cond) + " ? " + inl(n.t) + " : " + inl(n.f) + ")";
    }
    case NodeKind::Binary: {
      const auto& n = *e->as<Binary>();
      return compose(*e, {inl(n.a), inl(n.b)});
    }
    case NodeKind::Compare: {
      const auto& n = *e->as<Compare>();
      return compose(*e, {inl(n.a), inl(n.b)});
    }
    case NodeKind::Unary:
      return compose(*e, {inl(e->as<Unary>()->a)});
    case NodeKind::Cast:
      return compose(*e, {inl(e->as<Cast>()->value)});
    case NodeKind::MathCall: {
      std::vector<std::string> ops;
      for (const Expr& a : e->as<MathCall>()->args) ops.push_back(inl(a));
      return compose(*e, ops);
    }
    case NodeKind::LocalArrayLoad: {
      std::vector<std::string> ops;
      for (const Expr& i : e->as<LocalArrayLoad>()->indices) ops.push_back(inl(i));
      return compose(*e, ops);
    }
#define TACK_IR_STMT(Name) case NodeKind::Name:
#include "ir/nodes.def"
      // No default: -Wswitch (an error) names an expression node added without a case here.
      TACK_INTERNAL_ASSERT(
          false, "C-style printer: unexpected expression " + std::string(kind_name(e->kind)));
  }
  return "";
}

// Linear form: statements for the loads and atomics (and the short-circuits around them) go
// out first, in evaluation order; the returned text reads only locals and temporaries.
std::string Emitter::lin(const Expr& e) {
  if (!has_memory(e)) return inl(e);
  switch (e->kind) {
    case NodeKind::ArrayLoad: {
      const auto& n = *e->as<ArrayLoad>();
      std::vector<std::string> idx;
      for (const Expr& i : n.indices) idx.push_back(lin(i));
      const std::string t = temp();
      if (debug_) {
        // Out of bounds: skipped, the load gives 0, the first violation is recorded.
        line(ty(n.type) + " " + t + " = 0;");
        line("if (" + bounds_check(n.param, idx) + ") " + t + " = " + element(n.param, idx) + ";");
      } else {
        line(ty(n.type) + " " + t + " = " + element(n.param, idx) + ";");
      }
      return t;
    }
    case NodeKind::AtomicRMW: {
      const auto& n = *e->as<AtomicRMW>();
      std::vector<std::string> idx;
      for (const Expr& i : n.indices) idx.push_back(lin(i));
      const std::string value = lin(n.value);
      const std::string t = temp();
      if (debug_) {
        line(ty(n.type) + " " + t + " = 0;");
        line("if (" + bounds_check(n.param, idx) + ") " + t + " = " + atomic_call(n, idx, value) +
             ";");
      } else {
        line(ty(n.type) + " " + t + " = " + atomic_call(n, idx, value) + ";");
      }
      return t;
    }
    case NodeKind::Logical: {
      const auto& n = *e->as<Logical>();
      const std::string a = lin(n.a);
      const std::string t = temp();
      line(ty(ScalarType::boolean) + " " + t + " = " + a + ";");
      line(std::string(n.op == LogicalOp::And ? "if (" : "if (!") + t + ") {");
      ++indent_;
      const std::string b = lin(n.b);  // evaluated only when needed
      line(t + " = " + b + ";");
      --indent_;
      line("}");
      return t;
    }
    case NodeKind::Select: {
      const auto& n = *e->as<Select>();
      const std::string c = lin(n.cond);
      const std::string t = temp();
      line(ty(n.type) + " " + t + ";");
      line("if (" + c + ") {");
      ++indent_;
      const std::string x = lin(n.t);
      line(t + " = " + x + ";");
      --indent_;
      line("} else {");
      ++indent_;
      const std::string y = lin(n.f);
      line(t + " = " + y + ";");
      --indent_;
      line("}");
      return t;
    }
    case NodeKind::Binary: {
      const auto& n = *e->as<Binary>();
      const std::string a = lin(n.a);
      return compose(*e, {a, lin(n.b)});
    }
    case NodeKind::Compare: {
      const auto& n = *e->as<Compare>();
      const std::string a = lin(n.a);
      return compose(*e, {a, lin(n.b)});
    }
    case NodeKind::Unary:
      return compose(*e, {lin(e->as<Unary>()->a)});
    case NodeKind::Cast:
      return compose(*e, {lin(e->as<Cast>()->value)});
    case NodeKind::MathCall: {
      std::vector<std::string> ops;
      for (const Expr& a : e->as<MathCall>()->args) ops.push_back(lin(a));
      return compose(*e, ops);
    }
    case NodeKind::LocalArrayLoad: {
      const auto& n = *e->as<LocalArrayLoad>();
      std::vector<std::string> ops;
      for (const Expr& i : n.indices) ops.push_back(lin(i));
      if (!debug_) return compose(*e, ops);
      const std::string t = temp();
      line(ty(n.type) + " " + t + " = 0;");
      line("if (" + local_bounds_check(n.name, ops) + ") " + t + " = " + compose(*e, ops) + ";");
      return t;
    }
    case NodeKind::IntConst:  // leaves read no memory: has_memory returned above
    case NodeKind::FloatConst:
    case NodeKind::BoolConst:
    case NodeKind::Var:
    case NodeKind::Param:
    case NodeKind::ArrayShape:
    case NodeKind::ThreadId:
      return inl(e);
#define TACK_IR_STMT(Name) case NodeKind::Name:
#include "ir/nodes.def"
      break;
  }
  TACK_INTERNAL_ASSERT(false, "C-style printer: a statement where an expression belongs");
  return "";
}

// One operation over already printed operands; each operand appears once in the result, so
// inline printing never duplicates an access.
std::string Emitter::compose(const ExprNode& e, const std::vector<std::string>& ops) {
  const ScalarType t = e.type;
  switch (e.kind) {
    case NodeKind::Binary: {
      const auto& n = static_cast<const Binary&>(e);
      const std::string& a = ops[0];
      const std::string& b = ops[1];
      if (is_float(t)) {
        switch (n.op) {
          case BinaryOp::Add:
            return "(" + a + " + " + b + ")";
          case BinaryOp::Sub:
            return "(" + a + " - " + b + ")";
          case BinaryOp::Mul:
            return "(" + a + " * " + b + ")";
          case BinaryOp::TrueDiv:
            return "(" + a + " / " + b + ")";
          case BinaryOp::FloorDiv:
            return floordiv(t) + "(" + a + ", " + b + ")";
          case BinaryOp::Mod:
            return mod(t) + "(" + a + ", " + b + ")";
          case BinaryOp::Pow:
            return d_.pow_name(t) + "(" + a + ", " + b + ")";
          default:
            break;
        }
        TACK_INTERNAL_ASSERT(false,
                             "C-style printer: " + std::string(op_name(n.op)) + " on floats");
      }
      const std::string T = ty(t);
      switch (n.op) {
        // Integers wrap: add, subtract and multiply in the unsigned type (signed overflow is
        // undefined in C, and small types would promote to a signed int).
        case BinaryOp::Add:
        case BinaryOp::Sub:
        case BinaryOp::Mul: {
          const std::string u = wide_u(t);
          const char* op = n.op == BinaryOp::Add ? " + " : n.op == BinaryOp::Sub ? " - " : " * ";
          return "((" + T + ")((" + u + ")" + a + op + "(" + u + ")" + b + "))";
        }
        case BinaryOp::FloorDiv:
          return floordiv(t) + "(" + a + ", " + b + ")";
        case BinaryOp::Mod:
          return mod(t) + "(" + a + ", " + b + ")";
        case BinaryOp::Pow:
          return int_pow(t) + "(" + a + ", " + b + ")";
        case BinaryOp::Shl:
          return shift(true, t) + "(" + a + ", " + b + ")";
        case BinaryOp::Shr:
          return shift(false, t) + "(" + a + ", " + b + ")";
        case BinaryOp::BitAnd:
          return "((" + T + ")(" + a + " & " + b + "))";
        case BinaryOp::BitOr:
          return "((" + T + ")(" + a + " | " + b + "))";
        case BinaryOp::BitXor:
          return "((" + T + ")(" + a + " ^ " + b + "))";
        case BinaryOp::TrueDiv:
          break;
      }
      TACK_INTERNAL_ASSERT(false, "C-style printer: / on integers (lowering makes it a float)");
      return "";
    }
    case NodeKind::Compare: {
      static const char* names[] = {" < ", " <= ", " > ", " >= ", " == ", " != "};
      return "(" + ops[0] + names[static_cast<int>(static_cast<const Compare&>(e).op)] + ops[1] +
             ")";
    }
    case NodeKind::Unary: {
      const auto& n = static_cast<const Unary&>(e);
      if (n.op == UnaryOp::Not) return "(!" + ops[0] + ")";
      if (n.op == UnaryOp::Invert) return "((" + ty(t) + ")~" + ops[0] + ")";
      if (is_float(t)) return "(-" + ops[0] + ")";
      const std::string u = wide_u(t);
      return "((" + ty(t) + ")((" + u + ")0 - (" + u + ")" + ops[0] + "))";
    }
    case NodeKind::Cast: {
      const ScalarType from = static_cast<const Cast&>(e).value->type;
      if (from == t) return ops[0];
      if (t == ScalarType::boolean) return "(" + ops[0] + " != 0)";  // NaN -> true, as bool(nan)
      if (is_float(from) && is_int(t)) return float_to_int(t, from) + "(" + ops[0] + ")";
      return "((" + ty(t) + ")" + ops[0] + ")";
    }
    case NodeKind::MathCall: {
      const auto& n = static_cast<const MathCall&>(e);
      const ScalarType at = n.args[0]->type;
      switch (n.fn) {
        case MathFn::Min:
          return min_max(true, at) + "(" + ops[0] + ", " + ops[1] + ")";
        case MathFn::Max:
          return min_max(false, at) + "(" + ops[0] + ", " + ops[1] + ")";
        case MathFn::Abs:
          if (is_unsigned_int(at)) return ops[0];
          if (is_signed_int(at)) return int_abs(at) + "(" + ops[0] + ")";
          break;
        case MathFn::IsNan:
        case MathFn::IsInf:
        case MathFn::IsFinite:
          return "(" + d_.math_name(n.fn, at) + "(" + ops[0] + ") != 0)";
        default:
          break;
      }
      if (at == ScalarType::f64) features_.f64 = true;
      std::string call = d_.math_name(n.fn, at) + "(";
      for (std::size_t i = 0; i < ops.size(); ++i) call += (i ? ", " : "") + ops[i];
      return call + ")";
    }
    case NodeKind::LocalArrayLoad: {
      std::string ref = local_name(static_cast<const LocalArrayLoad&>(e).name);
      for (const std::string& i : ops) ref += "[" + i + "]";
      return ref;
    }
    // Leaves and the nodes lin and inl print themselves (their operands have an order to keep
    // or a side to skip) are not composed.
    case NodeKind::IntConst:
    case NodeKind::FloatConst:
    case NodeKind::BoolConst:
    case NodeKind::Var:
    case NodeKind::Param:
    case NodeKind::ArrayLoad:
    case NodeKind::ArrayShape:
    case NodeKind::ThreadId:
    case NodeKind::Logical:
    case NodeKind::Select:
    case NodeKind::AtomicRMW:
#define TACK_IR_STMT(Name) case NodeKind::Name:
#include "ir/nodes.def"
      break;
  }
  TACK_INTERNAL_ASSERT(false, "C-style printer: cannot compose " + std::string(kind_name(e.kind)));
  return "";
}

// ---- the kernel ---------------------------------------------------------------------------------

void Emitter::signature(std::string& out) {
  out += d_.kernel_prefix() + " " +
         (fn_.workgroups.line > 0 ? d_.workgroup_attribute(kWorkgroupSize) : "") +
         CStylePrinter::kernel_symbol(fn_) + "(";
  bool first = true;
  auto add = [&](const std::string& p) {
    out += (first ? "" : ", ") + p;
    first = false;
  };
  for (std::size_t i = 0; i < fn_.params.size(); ++i) {
    const ParamDecl& p = fn_.params[i];
    const int index = static_cast<int>(i);
    if (p.is_array()) {
      // A plain global pointer: no restrict, because arrays may alias (ir.hpp contract).
      add(global_ptr(ty(p.type)) + " " + param_name(index));
      for (int k = 0; k < p.array_type().index_count(); ++k)
        add(ty(ScalarType::i64) + " " + extent_name(index, k));
      if (p.array_type().strided) add(ty(ScalarType::i64) + " " + pitch_name(index));
    } else {
      if (p.type == ScalarType::f64) features_.f64 = true;
      add(d_.param_type(p.type) + " " + param_name(index));
    }
  }
  if (debug_) add(global_ptr(status_type()) + " tack_status");
  out += ")";
}

void Emitter::parallel_for(const ParallelFor& pf) {
  const std::string u64 = ty(ScalarType::u64);
  const std::size_t n = pf.dims.size();
  std::string total;
  for (std::size_t k = 0; k < n; ++k) {
    const ParallelDim& d = pf.dims[k];
    const ScalarType t = d.type();
    const std::string ks = std::to_string(k);
    line("// " + d.name + " in range(" + to_string(d.start, &fn_) + ", " + to_string(d.stop, &fn_) +
         ", " + to_string(d.step, &fn_) + ")");
    auto v = group({d.start, d.stop, d.step});
    line(ty(t) + " tack_start" + ks + " = " + v[0] + ";");
    line(ty(t) + " tack_stop" + ks + " = " + v[1] + ";");
    line(ty(t) + " tack_step" + ks + " = " + v[2] + ";");
    line(u64 + " tack_count" + ks + " = " + range_count(t) + "(tack_start" + ks + ", tack_stop" +
         ks + ", tack_step" + ks + ");");
    total += (total.empty() ? "" : " * ") + std::string("tack_count") + ks;
  }
  line(u64 + " tack_total = " + total + ";");
  // Any number of work items covers the space, so the host need not count it: a grid-stride
  // walk, or one contiguous run per work item (Options::blocked).
  if (blocked_) {
    line(u64 + " tack_items = " + d_.global_size() + ";");
    line(u64 + " tack_per = tack_total / tack_items + (tack_total % tack_items != 0);");
    line(u64 + " tack_g = " + d_.global_id() + ";");
    // g * per stays within total (no overflow) exactly when g <= total / per.
    line(u64 +
         " tack_begin = (tack_per == 0 || tack_g > tack_total / tack_per) ? tack_total : "
         "tack_g * tack_per;");
    line(u64 +
         " tack_end = tack_total - tack_begin < tack_per ? tack_total : tack_begin + "
         "tack_per;");
    line("for (" + u64 + " tack_i = tack_begin; tack_i < tack_end; ++tack_i) {");
  } else {
    line("for (" + u64 + " tack_i = " + d_.global_id() +
         "; tack_i < tack_total; tack_i += " + d_.global_size() + ") {");
  }
  ++indent_;
  if (n > 1) {
    line(u64 + " tack_rest = tack_i;");
    for (std::size_t k = n - 1; k >= 1; --k) {
      const std::string ks = std::to_string(k);
      line(u64 + " tack_k" + ks + " = tack_rest % tack_count" + ks + ";");
      line("tack_rest /= tack_count" + ks + ";");
    }
    line(u64 + " tack_k0 = tack_rest;");
  } else {
    line(u64 + " tack_k0 = tack_i;");
  }
  for (std::size_t k = 0; k < n; ++k) {
    const ParallelDim& d = pf.dims[k];
    const std::string ks = std::to_string(k), T = ty(d.type()), wu = wide_u(d.type());
    line(T + " " + local_name(d.name) + " = (" + T + ")((" + wu + ")tack_start" + ks + " + (" + wu +
         ")tack_k" + ks + " * (" + wu + ")tack_step" + ks + ");");
  }
  body(pf.body);
  --indent_;
  line("}");
}

std::string Emitter::run() {
  const ParallelFor* pf = fn_.parallel_for();
  TACK_INTERNAL_ASSERT(pf != nullptr, "C-style printer: kernel '" + fn_.name +
                                          "' has no top-level parallel loop last");
  std::string sig;
  signature(sig);
  // Shared arrays live at the kernel's scope (OpenCL allows __local variables nowhere else): one
  // per workgroup, whatever block declared it.
  struct Shared : Visitor {
    std::vector<const LocalArrayDecl*> found;
    void visit(const LocalArrayDecl& n) override {
      if (n.shared) found.push_back(&n);
    }
  } shared;
  shared.visit_function(fn_);
  for (const LocalArrayDecl* n : shared.found) {
    std::string dims;
    for (auto d : n->dims) dims += "[" + std::to_string(d) + "]";
    line(d_.shared_qualifier() + ty(n->elem) + " " + local_name(n->name) + dims + ";");
  }
  for (const Stmt& s : fn_.prelude()) stmt(s);  // effect-free: every work item evaluates it
  parallel_for(*pf);
  std::string text = d_.file_header(features_);
  if (!helpers_.empty()) text += "\n" + helpers_;
  text += "\n" + sig + " {\n" + out_ + "}\n";
  return text;
}

void Emitter::define(const std::string& name, const std::string& code) {
  helper_names_.insert(name);
  helpers_ += code;
  helpers_ += "\n";
}

}  // namespace detail
}  // namespace tack::codegen
