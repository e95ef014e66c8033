// The CUDA target: a variant printed as CUDA C++ (CudaPrinter), compiled to PTX by NVRTC
// (runtime/cuda/cuda_compile.hpp; cached on disk), loaded with cuModuleLoadData at its first
// launch, launched queued on the device's stream in blocks of 256 threads. Like OpenCL, one
// code per variant: no restrict, so aliasing arrays are always correct.
//
// The same printing and compile run without a GPU: its offline code is tack.inspect(...,
// device="cuda") for a stated architecture, and its variant observer (TACK_CUDA_CHECK=<folder>)
// writes every variant any device compiles as CUDA C++ into a folder for tests/cuda/cuda_check
// to compile and assemble (the CI's check that every test kernel is valid sm_90 code).
#pragma once

#include <string>

#include "targets/target.hpp"

namespace tack::detail {

const Target& cuda_target();

}  // namespace tack::detail
