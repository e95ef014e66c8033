// CudaPrinter: the C-style printer in CUDA C++'s spelling (extern "C" __global__, blockIdx,
// atomicAdd / atomicCAS, __uint_as_float). Only the printer exists yet: the CUDA runtime
// (NVRTC and the driver API, loaded at run time) is a later backend. Its compile must pass
// --fmad=false: the IR's floats are IEEE operation by operation, and NVRTC contracts a*b+c into
// an FMA by default. Same ABI as OpenClPrinter (codegen/opencl/opencl_printer.hpp), with plain
// pointers and `long long` extents.
#pragma once

#include "codegen/c_style/c_style_printer.hpp"

namespace tack::codegen {

class CudaPrinter final : public CStylePrinter {
 public:
  std::string kernel_prefix() const override { return "extern \"C\" __global__ void"; }
  std::string global_qualifier() const override { return ""; }
  std::string helper_prefix() const override { return "static __device__ __forceinline__"; }
  std::string global_id() const override {
    return "((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x)";
  }
  std::string global_size() const override {
    return "((unsigned long long)gridDim.x * blockDim.x)";
  }
  std::string local_id() const override { return "((int)threadIdx.x)"; }
  std::string barrier() const override { return "__syncthreads();"; }
  std::string shared_qualifier() const override { return "__shared__ "; }
  std::string workgroup_attribute(int size) const override {
    return "__launch_bounds__(" + std::to_string(size) + ") ";
  }
  std::string type_name(ir::ScalarType t) const override;
  std::string u64_suffix() const override { return "ULL"; }
  std::string math_name(ir::MathFn fn, ir::ScalarType t) const override;
  std::string pow_name(ir::ScalarType t) const override;
  std::string bits_to_float(ir::ScalarType t, const std::string& bits) const override;
  std::string float_to_bits(ir::ScalarType t, const std::string& value) const override;
  std::string atomic_cas(int bits, const std::string& word, const std::string& expected,
                         const std::string& desired) const override;
  std::string atomic_native(ir::AtomicOp op, ir::ScalarType t, const std::string& ptr,
                            const std::string& value) const override;
  std::string file_header(const CFeatures& features) const override;
};

}  // namespace tack::codegen
