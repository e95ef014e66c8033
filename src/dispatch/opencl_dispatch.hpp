// Kernel dispatch on OpenCL devices: a variant printed as OpenCL C, built once, launched queued.
//
// KernelImpl (dispatch/kernel_impl.cpp) runs the signature, the variant lookup and the checks
// of every device, then hands an OpenCL variant here. Differences from the CPU path:
//   * one program per variant: no disjoint specialization (OpenCL C pointers are never
//     restrict, so aliasing arrays are always correct);
//   * the program is built through OpenClBackend::build_program (cached in memory by source
//     and on disk where the driver keeps no cache of its own) and kept on the Variant;
//   * a launch is queued and returns before the device finishes, except where a bound
//     allocation is shared outside Tack (the backend then waits) or in debug mode (the status
//     buffer is read back, which waits, and an out-of-bounds access raises IndexError).
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "dispatch/checks.hpp"
#include "tack/kernel.hpp"

namespace tack::detail {

class OpenClBackend;
class OpenClKernel;
struct Variant;

// A variant's compiled program on its device.
struct OpenClCode {
  std::shared_ptr<OpenClBackend> backend;
  std::string source;  // the OpenCL C handed to the driver
  std::shared_ptr<OpenClKernel> kernel;
  std::size_t global_size = 0;  // work items per launch
  std::size_t local_size = 0;   // work-group size, 0: the driver's choice (work_group_size)
};

// The variant's OpenCL C source (what `tack.inspect(..., mode="source")` returns).
std::string opencl_source(const Variant& v);
// The variant's program, built on first use under `compile_mutex` (one compile at a time per
// kernel). CompileError when the driver rejects the source; RuntimeError when the variant
// needs what the device lacks (f64, 64-bit atomics).
const OpenClCode& opencl_code(Variant& v, std::mutex& compile_mutex);
// Binds the arguments (arrays as SVM pointers and extents, scalars typed by the variant, bool
// as uchar, the debug status buffer last) and enqueues the launch; bumps the written arrays'
// versions. Debug mode reads the status back and raises the CPU path's IndexError.
void opencl_launch(Variant& v, const OpenClCode& code, const KernelArg* args,
                   const ParamFacts& facts);
// inspect "source" (the OpenCL C) and "optimized" (the same source behind a note: the driver
// optimizes it out of Tack's sight).
std::string opencl_inspect(const Variant& v, bool optimized);

}  // namespace tack::detail
