// Privatized atomics on the CPU: a fanned-out launch whose atomic targets qualify runs the
// variant's private code with one copy of each target per worker, merged at the end
// (docs/design/privatized_atomics.md).
#pragma once

#include <cstdint>

#include "dispatch/kernel_impl.hpp"

namespace tack::detail {

// Whether this call's arguments let `work` iterations privatize every target of `v`: each is at
// most kPrivateMaxBytes, the work is at least kPrivateMinWork iterations per element per worker,
// and its bytes overlap no other array argument.
bool privatize_worthwhile(const Variant& v, const KernelArg* args, std::int64_t work);

// Runs iterations [offset, offset + count) of `code` (the variant's private code) over the
// workers, in chunks of at least `grain`: each worker gets identity-filled copies of the targets
// in its argument slots, then merges them into the real arrays with atomic operations.
void run_privatized(const Variant& v, const CompiledCode& code, const std::uint64_t* slots,
                    std::int64_t offset, std::int64_t count, std::int64_t grain,
                    codegen::TackDebugStatus* status, const KernelArg* args);

// How many launches ran privatized in this process (for tests).
std::uint64_t privatized_launch_count();

inline constexpr std::size_t kPrivateMaxBytes = 64 * 1024;
inline constexpr std::int64_t kPrivateMinWork = 8;

}  // namespace tack::detail
