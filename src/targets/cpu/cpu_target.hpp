// The CPU's target: LLVM through the disk cache, the launch policy of docs/design/threading.md
// (a timing probe, then a fan-out over the workers when it pays), the disjoint-arrays
// specialization and privatized atomics.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "targets/target.hpp"

namespace tack::detail {

const Target& cpu_target();

// The disjoint-arrays test of every CPU launch: true when no written array's byte range
// intersects any other array argument's. Arrays only read may overlap each other; empty arrays
// take part in nothing. (Exposed for its benchmark.)
bool arrays_disjoint(const std::vector<bool>& written, const KernelArg* args, std::size_t count);

// The size of the last-level cache in bytes (the default streaming threshold), read once.
std::uint64_t last_level_cache_bytes();

}  // namespace tack::detail
