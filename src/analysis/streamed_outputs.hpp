// Which array parameters a kernel only writes, each element once from its parallel loop: the
// outputs whose stores may go around the caches (non-temporal stores) on a launch too large for
// them (docs/design/streaming_stores.md).
#pragma once

#include <vector>

#include "ir/ir.hpp"

namespace tack::analysis {

// One flag per parameter, true for an array parameter
//  * of 4- or 8-byte scalar elements (no vectors, not strided: the stores a CPU can make
//    non-temporal one element at a time), that
//  * is never loaded nor used atomically, and
//  * is stored to only inside the parallel loop, at indices that are exactly the loop's
//    variables in order (every dimension, each a range of step 1), and not inside an inner
//    loop: each iteration writes its own element, so every element of the launch's range is
//    written once and nothing reads it back in this kernel.
// All false for a kernel without its parallel loop.
std::vector<bool> streamed_outputs(const ir::Function& f);

}  // namespace tack::analysis
