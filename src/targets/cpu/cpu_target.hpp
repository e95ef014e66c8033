// The CPU's target: LLVM through the disk cache, the launch policy of docs/design/threading.md
// (a timing probe, then a fan-out over the workers when it pays), the disjoint-arrays
// specialization and privatized atomics.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "targets/target.hpp"

namespace tack::detail {

const Target& cpu_target();

// The parallel loop's iteration count of a call of `fn`, computed on the host by the kernel's
// prelude and bounds compiled for the CPU (for devices that must size their launch: workgroup
// kernels, docs/design/workgroups.md).
using IterationCount = std::function<std::int64_t(const KernelArg* args, std::size_t count)>;
IterationCount host_iteration_count(const ir::Function& fn);

// The disjoint-arrays test of every CPU launch: true when no written array's byte range
// intersects any other array argument's. Arrays only read may overlap each other; empty arrays
// take part in nothing. (Exposed for its benchmark.)
bool arrays_disjoint(const std::vector<bool>& written, const KernelArg* args, std::size_t count);

}  // namespace tack::detail
