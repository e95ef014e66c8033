// The dispatch checks that run on every call, cached variant or not, on every device (seed
// "Memory and Aliasing", Summary of guarantees): arrays on the kernel's device, read-only arrays
// bound to written parameters, atomic alignment. A device's own rules (element alignment, a
// disjointness test) are its target's (targets/).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tack/kernel.hpp"
#include "targets/target.hpp"

namespace tack::detail {

// RuntimeError naming each array's device when the arrays are not all on one device. The
// signature, which reads every array's device anyway, calls it only on a mismatch.
void check_same_device(const std::string& kernel, const std::vector<std::string>& names,
                       const KernelArg* args, std::size_t count);
// ValueError before launch when a read-only array is bound to a written parameter.
void check_writable_arrays(const ParamFacts& facts, const KernelArg* args);
// ValueError when an atomic target is not naturally aligned.
void check_atomic_alignment(const ParamFacts& facts, const KernelArg* args);
}  // namespace tack::detail
