// Which array parameters a kernel uses as atomic targets, and the alignment each needs.
#pragma once

#include <vector>

#include "ir/ir.hpp"

namespace tack::analysis {

struct AtomicTarget {
  int param = -1;     // index into Function::params
  int alignment = 1;  // bytes: the element size (atomics need natural alignment)
  bool operator==(const AtomicTarget&) const = default;
};

// One entry per array parameter that is the target of at least one AtomicRMW, in parameter
// order. Dispatch checks address % alignment == 0 on every call (imported buffers may start at
// any byte, and an unaligned atomic is undefined on every backend).
std::vector<AtomicTarget> atomic_targets(const ir::Function& f);

}  // namespace tack::analysis
