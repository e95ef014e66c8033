// The dispatch checks that run on every call, cached variant or not (seed "Memory and
// Aliasing", Summary of guarantees): arrays on the kernel's device, read-only arrays bound to
// written parameters, atomic alignment; and the CPU's disjointness test.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tack/kernel.hpp"

namespace tack::detail {

struct AtomicRequirement {
  int param = -1;
  int alignment = 1;  // bytes
};

// What a variant knows about its parameters that the checks need.
struct ParamFacts {
  const std::string* kernel_name = nullptr;
  const std::vector<std::string>* param_names = nullptr;
  const std::vector<bool>* written = nullptr;  // per parameter
  const std::vector<AtomicRequirement>* atomics = nullptr;
};

// RuntimeError naming each array's device when the arrays are not all on one device. The
// signature, which reads every array's device anyway, calls it only on a mismatch.
void check_same_device(const std::string& kernel, const std::vector<std::string>& names,
                       const KernelArg* args, std::size_t count);
// ValueError before launch when a read-only array is bound to a written parameter.
void check_writable_arrays(const ParamFacts& facts, const KernelArg* args);
// ValueError when an atomic target is not naturally aligned.
void check_atomic_alignment(const ParamFacts& facts, const KernelArg* args);
// ValueError when any array is not naturally aligned: devices whose code may assume it
// (OpenCL C; the CPU's loads and stores are unaligned-safe).
void check_element_alignment(const ParamFacts& facts, const KernelArg* args, std::size_t count,
                             const std::string& device);
// True when no written array's byte range intersects any other array argument's. Arrays only
// read may overlap each other. Empty arrays take part in nothing.
bool arrays_disjoint(const std::vector<bool>& written, const KernelArg* args, std::size_t count);

}  // namespace tack::detail
