// CUDA C++ to PTX through NVRTC: the one compile every CUDA path shares -- the CUDA device's
// kernels, tack.inspect(..., device="cuda", mode="ptx") without a GPU, and the CI check that
// compiles every test kernel (TACK_CUDA_CHECK, tests/cuda/cuda_check.cpp).
#pragma once

#include <string>
#include <vector>

namespace tack::detail {

// The NVRTC options of every Tack compile for `arch` ("sm_90" or "compute_90": the PTX is for
// the virtual architecture compute_90). IEEE arithmetic as on every other device: no
// flush-to-zero, correctly rounded division and square root, and no FMA contraction
// (--fmad=false: a*b + c rounds twice, as the IR's contract and the CPU and OpenCL code do; see
// docs/design/cuda.md for why this departs from the original's --fmad=true).
std::vector<std::string> nvrtc_options(const std::string& arch);

// "sm_90" / "compute_90" / "90" -> 90; ValueError naming the accepted forms otherwise.
int compute_capability_of(const std::string& arch);
// The compute capability NVRTC compiles `arch` for: itself where NVRTC lists it
// (nvrtcGetSupportedArchs). Otherwise, with `nearest_older` (a device's own architecture), the
// newest NVRTC knows below it -- PTX for an older architecture runs on newer devices -- or a
// RuntimeError when the device is older than every one; without it (an architecture the user
// named), a ValueError naming the range NVRTC supports.
int nvrtc_compute_capability(const std::string& arch, bool nearest_older);

// PTX for `source` (CudaPrinter's output; kernel `kernel_name` for messages), compiled for
// `arch` by NVRTC, or loaded from the disk cache ("cuda" folder; the key holds Tack's and NVRTC's
// versions, the options and the source). A compile error is a CompileError that quotes the
// generated line NVRTC's first error points to; no NVRTC is a RuntimeError that says how to get
// it. `device` names where the code is for, in messages ("cuda:0", "sm_90 (offline)").
// `from_disk`, when given, says whether the cache answered. `nearest_older`: see
// nvrtc_compute_capability (true for a device's own architecture).
std::string compile_ptx(const std::string& source, const std::string& kernel_name,
                        const std::string& arch, const std::string& device,
                        bool* from_disk = nullptr, bool nearest_older = false);

// Whether NVRTC can be loaded here, and why not.
bool nvrtc_available(std::string* why = nullptr);
// The file NVRTC was loaded from ("" when it is not loaded or the loader cannot say).
std::string nvrtc_library_path();

}  // namespace tack::detail
