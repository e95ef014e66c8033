// CStylePrinter: typed Tack IR -> C-family kernel source, shared by OpenCL C and CUDA C. It
// implements the whole semantics contract of ir/ir.hpp (wrapping integers, Python floor
// division and modulo, integer powers, masked shifts, saturating float->int casts, Python
// min/max, IEEE floats, left-to-right evaluation, debug bounds checks); subclasses only say how
// their dialect spells keywords, qualifiers, types and built-ins.
//
// The kernel it prints (see codegen/opencl/opencl_printer.hpp for the exact ABI):
//   * parameters: each array as a typed global pointer (never restrict: arrays may alias)
//     followed by one `long` extent per index; each scalar by value (bool as an unsigned
//     char); in debug mode a TackDebugStatus pointer last (codegen/kernel_abi.hpp);
//   * every work item evaluates the prelude, counts each dim's Python range exactly, and walks
//     the linearized iteration space with a grid-stride loop (index = global id, step = global
//     size), so any launch size is correct and the host need not know the iteration count;
//   * small helper functions, emitted only when used, carry the exact semantics (tack_floordiv_i32,
//     tack_cast_i32_f32, tack_atomic_add_f32, ...).
#pragma once

#include <memory>
#include <string>

#include "ir/ir.hpp"

namespace tack::codegen {

// What a printed kernel turned out to need, for the dialect's file header.
struct CFeatures {
  bool f64 = false;        // a double anywhere
  bool atomics64 = false;  // a 64-bit atomic (native or compare-and-swap)
  bool debug = false;      // the DebugStatus parameter
};

class CStylePrinter {
 public:
  virtual ~CStylePrinter() = default;

  struct Options {
    bool debug = false;  // bounds-check every array access against its own extents
    // How work items share the linearized iteration space. Interleaved (grid-stride: item g
    // takes g, g + size, ...) gives neighbouring items neighbouring elements, which GPUs need
    // to coalesce accesses. Blocked (item g takes one contiguous run of ceil(total / size)) is
    // for CPU devices, where a work item runs as a loop on one core and an interleaved walk
    // would stride through memory (measured on PoCL: STREAM triad 11 s instead of 0.1 s).
    bool blocked = false;
  };
  // The complete source of one variant: header, used helpers, one kernel; and in `needs`, when
  // given, what the source turned out to need (f64, 64-bit atomics), for a target to check
  // against its device.
  std::string print(const ir::Function& fn, const Options& options,
                    CFeatures* needs = nullptr) const;
  std::string print(const ir::Function& fn) const { return print(fn, Options{}); }
  // The kernel's symbol in the printed source ("tack_" + the function's name, made a valid C
  // identifier): the prefix keeps user names off the dialect's built-ins (min, dot, clamp...).
  static std::string kernel_symbol(const ir::Function& fn);

  // ---- hooks: only spelling differs between dialects ----

  // Text before the kernel's name: "__kernel void" or "extern \"C\" __global__ void".
  virtual std::string kernel_prefix() const = 0;
  // Qualifier of pointers to device memory, with a trailing space when not empty.
  virtual std::string global_qualifier() const = 0;
  // Qualifiers of helper functions: "static inline", "static __device__ __forceinline__".
  virtual std::string helper_prefix() const = 0;
  // The work item's linear id and the launch's total work items, as 64-bit unsigned values.
  virtual std::string global_id() const = 0;
  virtual std::string global_size() const = 0;
  // Workgroups (docs/design/workgroups.md): the work item's index in its group, a barrier over
  // shared and global memory, the qualifier of a shared array, and the kernel attribute that
  // fixes the group size.
  virtual std::string local_id() const = 0;
  virtual std::string barrier() const = 0;
  virtual std::string shared_qualifier() const = 0;
  virtual std::string workgroup_attribute(int size) const = 0;
  // C type of a value of type t (bool included).
  virtual std::string type_name(ir::ScalarType t) const = 0;
  // C type of a scalar kernel parameter (bool travels as an unsigned char).
  virtual std::string param_type(ir::ScalarType t) const;
  // Suffix of a 64-bit unsigned literal ("UL" where long is 64 bits, "ULL" in CUDA).
  virtual std::string u64_suffix() const = 0;
  // Built-in math: the function for fn on a float type (fabs, rint, pow included).
  virtual std::string math_name(ir::MathFn fn, ir::ScalarType t) const;
  virtual std::string pow_name(ir::ScalarType t) const;
  // Reinterpreting a float's bits: bits -> float and float -> bits (same width, unsigned).
  virtual std::string bits_to_float(ir::ScalarType float_type, const std::string& bits) const = 0;
  virtual std::string float_to_bits(ir::ScalarType float_type, const std::string& value) const = 0;
  // Atomic compare-and-swap on a 32- or 64-bit unsigned word; `word` is a pointer expression
  // of type global-unsigned-word*. Returns the old value.
  virtual std::string atomic_cas(int bits, const std::string& word, const std::string& expected,
                                 const std::string& desired) const = 0;
  // A native atomic read-modify-write returning the old value, or "" when the dialect has none
  // for this op and type (the printer then emits a compare-and-swap loop).
  virtual std::string atomic_native(ir::AtomicOp op, ir::ScalarType t, const std::string& ptr,
                                    const std::string& value) const = 0;
  // Lines before everything else (pragmas, extensions, includes).
  virtual std::string file_header(const CFeatures& features) const = 0;

 protected:
  CStylePrinter() = default;
};

}  // namespace tack::codegen
