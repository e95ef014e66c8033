// Structural checks of a kernel that need no types: one top-level parallel loop, effect-free
// statements before it, `return` only as the kernel's value, no recursion among device functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "frontend/ast.hpp"

namespace tack::frontend {

// Throws CompileError unless `kernel` (a function of `module`) has the shape docs/language.md
// ("The parallel loop") requires:
//  * exactly one top-level parallel loop, `for ... in range(...)` or `tack.ndrange(...)`; none
//    is an error at the def line, a second one an error at the second loop;
//  * before it only effect-free statements: assignments to names (plain or augmented) and
//    expressions whose calls are all pure (pure builtins and pure module functions), and
//    `name = tack.shared(...)`; after it any statement but a loop (the epilogue,
//    docs/design/kernel_values.md);
//  * `return v` only as the kernel's last statement, after the loop (its value); no `break`
//    that would leave the parallel loop, and
//    tack.ndrange only as the parallel loop;
//  * among the module functions the kernel reaches by calls, no recursion (direct or mutual;
//    the error is at the call that closes the cycle), no call to a @tack.kernel, and no
//    tack.ndrange loop inside a device function.
// Whether a called name exists is not decided here; the lowering knows the builtins.
void check_kernel_structure(const Module& module, const FunctionDef& kernel);

// The first top-level For of a kernel's body (its parallel loop), or null.
const For* parallel_loop(const FunctionDef& kernel);

// `name = tack.shared(...)` or `tack.shared_like(...)`: before the parallel loop (the original
// Tack's place for it) it declares the workgroup array at the top of the loop body.
bool is_shared_declaration(const Stmt& s);

struct CallSite {
  std::string callee;  // dotted_name(call->func)
  const Call* call;
};

// Every call in `function`'s body (loop bounds, conditions, nested calls included), in source
// order with outer calls before the calls in their arguments.
std::vector<CallSite> list_calls(const FunctionDef& function);

// Whether a call to this dotted name is known to have no effect: len, int, float, bool, abs,
// min, max, pow, the dtype casts (tack.f32, tack.int64, ...) and the math builtins (sqrt, exp,
// floor, ... spelled bare, as tack.X or as math.X). Atomics and unknown names are not pure.
bool is_pure_builtin(std::string_view dotted);

}  // namespace tack::frontend
