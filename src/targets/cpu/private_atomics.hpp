// Privatized atomics on the CPU: a fanned-out launch whose atomic targets qualify runs the
// variant's private code with one copy of each target per worker, merged at the end
// (docs/design/privatized_atomics.md).
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/privatizable.hpp"
#include "codegen/kernel_abi.hpp"
#include "tack/kernel.hpp"

namespace tack::detail {

// Whether this call's arguments (`count` of them) let `work` iterations privatize every one of
// `targets`: each is at most kPrivateMaxBytes, the work is at least kPrivateMinWork iterations
// per element per worker, and its bytes overlap no other array argument.
bool privatize_worthwhile(const std::vector<analysis::PrivatizableTarget>& targets,
                          const KernelArg* args, std::size_t count, std::int64_t work);

// The argument slots a launch passes: `slots` (slot_count of them), with each parameter's first
// slot at slot_of[param].
struct SlotLayout {
  const std::uint64_t* slots;
  const std::vector<int>* slot_of;
  int slot_count;
};

// Runs iterations [offset, offset + count) of `chunk` (the variant's private code) over the
// workers, in chunks of at least `grain`: each worker gets identity-filled copies of the targets
// in its argument slots, then merges them into the real arrays with atomic operations.
void run_privatized(const std::vector<analysis::PrivatizableTarget>& targets,
                    codegen::ChunkFn chunk, const SlotLayout& layout, std::int64_t offset,
                    std::int64_t count, std::int64_t grain, codegen::TackDebugStatus* status,
                    const KernelArg* args);

// How many launches ran privatized in this process (for tests).
std::uint64_t privatized_launch_count();

inline constexpr std::size_t kPrivateMaxBytes = 64 * 1024;
inline constexpr std::int64_t kPrivateMinWork = 8;

}  // namespace tack::detail
