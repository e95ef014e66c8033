// print(...) and assert (docs/language.md, "print and assert"): a print is one IR Print whose
// parts are the arguments' text, separated by spaces as Python's print separates them; an
// assert is an IR Assert that only a debug-mode variant checks.
#include "lowering/lowerer.hpp"
#include "lowering/typing.hpp"

namespace tack::lowering {
namespace {

// The parts of one printed value: a number, or a vector/matrix/tuple as NumPy and Python show
// them ([1, 2, 3], [[1, 2], [3, 4]], (1, 2)).
void print_parts(Lowerer& l, const Value& v, std::vector<ir::PrintPart>& out) {
  if (!v.is_tuple()) {
    out.push_back(ir::PrintPart{"", l.typed(v)});
    return;
  }
  const bool matrix = v.is_matrix();
  const char* open = v.is_vecmat() ? "[" : "(";
  const char* close = v.is_vecmat() ? "]" : ")";
  out.push_back(ir::PrintPart{open, nullptr});
  for (size_t k = 0; k < v.tuple.size(); ++k) {
    if (matrix && k % static_cast<size_t>(v.cols) == 0) {
      out.push_back(ir::PrintPart{k ? "], [" : "[", nullptr});
    } else if (k) {
      out.push_back(ir::PrintPart{", ", nullptr});
    }
    print_parts(l, v.tuple[k], out);
  }
  if (v.is_plain_tuple() && v.tuple.size() == 1) out.push_back(ir::PrintPart{",", nullptr});
  out.push_back(ir::PrintPart{matrix ? "]]" : close, nullptr});
}

}  // namespace

void Lowerer::lower_print(const frontend::Call& c) {
  std::vector<ir::PrintPart> parts;
  Sequence seq(*this);
  for (const frontend::ExprPtr& a : c.args) {
    if (a->is<frontend::String>()) {
      seq.add([&] { return Value{}; });
      continue;
    }
    seq.add([&] {
      Value v = lower_expr(*a);
      if (v.array) {
        fail(a->loc, "print() shows numbers, bools, vectors and tuples, not arrays ('" +
                         v.array->name + "'); print an element (" + v.array->name + "[i])");
      }
      if (v.is_none()) fail(a->loc, "this call returns no value; there is nothing to print");
      return v;
    });
  }
  for (size_t k = 0; k < c.args.size(); ++k) {
    if (k) parts.push_back(ir::PrintPart{" ", nullptr});
    if (const auto* s = c.args[k]->as<frontend::String>()) {
      parts.push_back(ir::PrintPart{s->value, nullptr});
    } else {
      print_parts(*this, seq[k], parts);
    }
  }
  parts.push_back(ir::PrintPart{"\n", nullptr});
  // Adjacent text parts as one.
  std::vector<ir::PrintPart> merged;
  for (ir::PrintPart& p : parts) {
    if (!p.value && !merged.empty() && !merged.back().value) {
      merged.back().text += p.text;
    } else {
      merged.push_back(std::move(p));
    }
  }
  emit(ir::Print::make(std::move(merged)));
}

void Lowerer::lower_assert(const frontend::Assert& a) {
  // The statements the test needs (an inlined device function) run only when it is checked.
  std::vector<ir::Stmt> setup;
  ir::Expr cond;
  {
    Redirect r(*this, setup);
    cond = lower_condition(*a.test);
  }
  fn_.asserts.push_back(ir::AssertSite{a.loc.line, a.text, a.message});
  emit(ir::Assert::make(ir::block(std::move(setup)), cond, static_cast<int>(fn_.asserts.size() - 1),
                        iteration_));
}

}  // namespace tack::lowering
