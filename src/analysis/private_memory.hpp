// How much private (per-iteration) memory a kernel's local arrays take.
#pragma once

#include <cstdint>

#include "ir/ir.hpp"

namespace tack::analysis {

// The bytes of every LocalArrayDecl in the function, summed over all of them whether or not
// their scopes overlap (an upper bound on what one iteration holds at once). Devices whose work
// items share a thread's stack size their work groups by it (OpenClBackend::launch).
std::int64_t private_array_bytes(const ir::Function& f);

}  // namespace tack::analysis
