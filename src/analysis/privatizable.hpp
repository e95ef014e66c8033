// Which atomic targets a kernel lets the CPU privatize (docs/design/privatized_atomics.md).
#pragma once

#include <vector>

#include "ir/ir.hpp"

namespace tack::analysis {

struct PrivatizableTarget {
  int param = -1;  // index into Function::params
  ir::AtomicOp op = ir::AtomicOp::Add;
  bool operator==(const PrivatizableTarget&) const = default;
};

// Array parameters of an integer element type (scalar elements) whose every use is an atomic
// of one kind as a statement of the parallel loop's body, with its result unused: any grouping
// of such operations gives the result of some order of the single atomics. Shape reads are
// allowed; any load, store or atomic used as a value disqualifies, as does a use in the prelude.
// In parameter order.
std::vector<PrivatizableTarget> privatizable_atomic_targets(const ir::Function& f);

}  // namespace tack::analysis
