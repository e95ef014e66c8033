// The builtins of the kernel language as a table: one entry per builtin (its spellings, arity,
// how it is lowered and typed, what it needs of a device, and the line the docs and the Python
// stubs show), one file per family (python.cpp, math.cpp, casts.cpp, atomics.cpp,
// local_arrays.cpp, vectors.cpp, workgroups.cpp, random.cpp), the families listed once in
// table.cpp. A new builtin is one entry in one file. The call itself (names, arity, the
// element-wise mapping over vectors) is lowering/builtins.cpp's.
//
// tools/gen_builtins.py writes docs/language.md's index of builtins, python/tack/_builtins.py
// and python/tack/_math_builtins.py (the kernel-only names of the tack package) from this table
// (tack._tack._builtins()).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/ast.hpp"
#include "ir/ir.hpp"

namespace tack::lowering {

class Lowerer;
struct Value;
struct Builtin;

// How the call's arguments reach the entry's lowering.
enum class Form : std::uint8_t {
  Raw,          // the entry lowers its own arguments (arrays, shapes, dtypes, states)
  Operands,     // the arguments are lowered first, left to right: numbers, bools, vectors
  ElementWise,  // as Operands, and applied per component when vectors or matrices are given
};

// What a builtin needs of the device it runs on.
enum class Needs : std::uint8_t {
  Nothing,     // every device
  Workgroups,  // devices with workgroups (OpenCL, CUDA); the CPU refuses the kernel
};

// One call of a builtin, as its lowering sees it.
struct BuiltinCall {
  const Builtin& builtin;
  const std::string& name;  // the spelling called, canonical ("math.sqrt")
  const frontend::Call& call;
  std::vector<const frontend::Expr*> exprs;  // the argument expressions (their locations)
  frontend::SourceLoc loc() const { return call.loc; }
};

// Lowers one call. `args` holds the lowered arguments for Operands and ElementWise (for
// ElementWise, one component's: numbers and bools only); it is empty for Raw.
using LowerBuiltin = Value (*)(Lowerer& l, const BuiltinCall& c, std::vector<Value>& args);

struct Builtin {
  std::vector<std::string> names{};  // every spelling: "math.sqrt", "tack.sqrt", "sqrt"
  int min_args = 0, max_args = 0;    // max_args -1: no limit
  Form form = Form::Raw;
  LowerBuiltin lower = nullptr;
  std::string signature{};  // "math.sqrt(x)": how the docs show a call
  std::string doc{};        // one line: what it gives
  Needs needs = Needs::Nothing;
  // The spellings the tack package holds as kernel-only functions (python/tack/_builtins.py
  // and _math_builtins.py define them, raising TypeError outside kernels): "tack.select",
  // "tack.math.dot". Not a spelling the package gives a host meaning (tack.dot, tack.zeros).
  std::vector<std::string> stubs{};
  // Data some families share between entries.
  ir::MathFn fn = ir::MathFn::Sqrt;
  ir::ScalarType type = ir::ScalarType::f32;
  ir::AtomicOp atomic = ir::AtomicOp::Add;
  std::string family{};  // set by table.cpp: the family's name
};

// The names of the families the call driver asks about (table.cpp gives them to the entries).
inline constexpr std::string_view kCastsFamily = "casts";
inline constexpr std::string_view kRandomFamily = "random";

// The families (one function per file, listed in table.cpp).
std::vector<Builtin> python_builtins();
std::vector<Builtin> math_builtins();
std::vector<Builtin> cast_builtins();
std::vector<Builtin> atomic_builtins();
std::vector<Builtin> local_array_builtins();
std::vector<Builtin> vector_builtins();
std::vector<Builtin> workgroup_builtins();
std::vector<Builtin> random_builtins();

// The builtin spelled `name` (canonical: "math.sqrt", "tack.f32"), or nullptr.
const Builtin* find_builtin(std::string_view name);
// Every builtin, family by family in table.cpp's order.
const std::vector<Builtin>& all_builtins();

// Shared by the families (common.cpp).
// The type numbers merge into (min, max, clamp, tack.math's); a bool is the error naming the call.
ir::ScalarType merged_number_type(Lowerer& l, const BuiltinCall& c, const std::vector<Value>& args);
// A weak float made an integer as int() and math.floor do; Python raises on inf and nan.
Value int_literal(const Lowerer& l, double v, const BuiltinCall& c);
// The CompileError "<call> of a bool is not supported; <hint>" when `v` is a bool.
void refuse_bool(const Lowerer& l, const BuiltinCall& c, const Value& v, const char* hint);

// round(x) and math.floor/ceil/trunc (python.cpp): Python's int of the entry's `fn`.
Value lower_int_rounding(Lowerer& l, const BuiltinCall& c, std::vector<Value>& args);

// tack.zeros(...), tack.shared(...), ... called anywhere but as the whole right side of an
// assignment (local_arrays.cpp): the CompileError saying where a local array is made.
Value lower_local_array_call(Lowerer& l, const BuiltinCall& c, std::vector<Value>& args);

// "sqrt()": how messages name a call.
inline std::string call_name(const std::string& name) {
  return name + "()";
}

}  // namespace tack::lowering
