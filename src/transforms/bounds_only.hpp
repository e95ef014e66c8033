// The kernel without its loop body: the prelude and the parallel loop's bounds, for a
// launch sized on the host (a workgroup kernel's groups, a reduction's blocks;
// docs/design/workgroups.md, kernel_values.md).
#pragma once

#include "ir/ir.hpp"

namespace tack::transforms {

// `fn` with an empty parallel loop after its prelude, no asserts and no workgroups; its
// parameters are fn's, so a call's packed arguments fit it.
ir::Function bounds_only(const ir::Function& fn);

}  // namespace tack::transforms
