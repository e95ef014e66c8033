// The CUDA target: a variant printed as CUDA C++ (CudaPrinter), compiled to PTX by NVRTC
// (runtime/cuda/cuda_compile.hpp; cached on disk), loaded with cuModuleLoadData at its first
// launch, launched queued on the device's stream in blocks of 256 threads. Like OpenCL, one
// code per variant: no restrict, so aliasing arrays are always correct.
//
// The same printing and compile run without a GPU: cuda_offline_code is tack.inspect(...,
// device="cuda") for a stated architecture, and cuda_check_record (TACK_CUDA_CHECK=<folder>)
// writes every variant any device compiles as CUDA C++ into a folder for tools/cuda_check to
// compile and assemble (the CI's check that every test kernel is valid sm_90 code).
#pragma once

#include <string>

#include "targets/target.hpp"

namespace tack::detail {

const Target& cuda_target();

// The pipeline options of CUDA variants (no privatized atomics).
compiler::PipelineOptions cuda_pipeline_options(bool debug);

// "source": the CUDA C++ of `kernel`; "ptx" (or "optimized"): its PTX for `arch` ("sm_90").
std::string cuda_offline_code(const compiler::KernelIr& kernel, bool debug, const std::string& mode,
                              const std::string& arch);

// Where TACK_CUDA_CHECK points (empty: the check is off). Read once.
const std::string& cuda_check_folder();
// Writes the CUDA C++ of `kernel` into cuda_check_folder() as <hash>.cu (once per text).
void cuda_check_record(const compiler::KernelIr& kernel, bool debug);

}  // namespace tack::detail
