// OpenClPrinter: the C-style printer in OpenCL C's spelling (__kernel, __global, get_global_id,
// atomic_add / atom_cmpxchg, as_float). All semantics live in CStylePrinter.
//
// The kernel ABI, parameter by parameter (what runtime/opencl's OpenClArgs builds):
//   array  `a` of rank r  -> `__global T* p_a`, then `long n0_a, ..., n{r-1}_a` (its shape),
//                            then `long n{r}_a` = n for a vec(n, T) array;
//   scalar `s`            -> `T p_s` by value; bool as `uchar`;
//   debug mode            -> `__global TackDebugStatus* tack_status` last
//                            ({failed, param, dim, index, extent}, codegen/kernel_abi.hpp;
//                            param -1 is a local array).
// The kernel is named CStylePrinter::kernel_symbol(fn) ("tack_" + name) and runs correctly for
// any global size (grid-stride); OpenClBackend::default_global_size() is a good one.
#pragma once

#include "codegen/c_style/c_style_printer.hpp"

namespace tack::codegen {

class OpenClPrinter final : public CStylePrinter {
 public:
  std::string kernel_prefix() const override { return "__kernel void"; }
  std::string global_qualifier() const override { return "__global "; }
  std::string helper_prefix() const override { return "static inline"; }
  std::string global_id() const override { return "(ulong)get_global_id(0)"; }
  std::string global_size() const override { return "(ulong)get_global_size(0)"; }
  std::string local_id() const override { return "((int)get_local_id(0))"; }
  std::string barrier() const override {
    return "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);";
  }
  std::string shared_qualifier() const override { return "__local "; }
  std::string workgroup_attribute(int size) const override {
    return "__attribute__((reqd_work_group_size(" + std::to_string(size) + ", 1, 1))) ";
  }
  std::string type_name(ir::ScalarType t) const override;
  std::string u64_suffix() const override { return "UL"; }
  std::string bits_to_float(ir::ScalarType t, const std::string& bits) const override;
  std::string float_to_bits(ir::ScalarType t, const std::string& value) const override;
  std::string atomic_cas(int bits, const std::string& word, const std::string& expected,
                         const std::string& desired) const override;
  std::string atomic_native(ir::AtomicOp op, ir::ScalarType t, const std::string& ptr,
                            const std::string& value) const override;
  std::string file_header(const CFeatures& features) const override;
};

}  // namespace tack::codegen
