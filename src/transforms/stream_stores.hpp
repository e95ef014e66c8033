#pragma once

#include <vector>

#include "ir/ir.hpp"

namespace tack::transforms {

// The kernel with every store to the flagged array parameters marked streaming (as
// tack.stream_store marks one): the CPU's code for a launch too large for the caches
// (analysis/streamed_outputs.hpp, docs/design/streaming_stores.md).
ir::Function stream_stores(const ir::Function& fn, const std::vector<bool>& streamed);

}  // namespace tack::transforms
