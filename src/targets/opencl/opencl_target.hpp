// The OpenCL target: a variant printed as OpenCL C, built once, launched queued.
//
// Differences from the CPU target:
//   * one program per variant: no disjoint specialization (OpenCL C pointers are never
//     restrict, so aliasing arrays are always correct);
//   * the program is built through OpenClBackend::build_program (cached in memory by source
//     and on disk where the driver keeps no cache of its own) at the variant's first launch;
//   * a launch is queued and returns before the device finishes, except where a bound
//     allocation is shared outside Tack (the backend then waits) or in debug mode (the status
//     buffer is read back, which waits).
#pragma once

#include "targets/target.hpp"

namespace tack::detail {

const Target& opencl_target();

}  // namespace tack::detail
