// The IR verifier: checks the typing rules and the kernel's shape (see the contract in ir.hpp)
// between passes, so a broken pass is caught where it broke the IR, not in a backend.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ir/ir.hpp"

namespace tack::ir {

// Every problem found, each naming the offending node; empty when the function is well formed.
// Checks: operand and result types agree; names (locals, local arrays, labels) are defined
// before use and not shadowed; params are used as their kind (loads and stores only through
// array params, Param only for scalars); index counts match ranks; stores go only to array
// params, locals and local arrays; Break/Continue sit in a loop; the body is a prelude free of
// stores, atomics and local arrays followed by exactly one ParallelFor, and nothing else is a
// ParallelFor; prelude locals are not assigned inside the ParallelFor.
std::vector<std::string> verify(const Function& f);

// Throws tack::InternalError listing every problem and the IR, naming the pass that ran last.
void verify_or_throw(const Function& f, std::string_view after_pass);

}  // namespace tack::ir
