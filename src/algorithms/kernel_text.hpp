// What the algorithms share (src/algorithms/*.cpp): kernels made from source text once per
// process, the text's placeholders, and one pass of the blocked reduction (reduce.cpp) that the
// scans reuse for their block totals.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tack/array.hpp"
#include "tack/kernel.hpp"

namespace tack::algorithms {

// The fixed block: every algorithm cuts its input into runs of kBlock consecutive elements.
inline constexpr std::int64_t kBlock = 4096;

inline std::int64_t block_count(std::int64_t n) {
  return (n + kBlock - 1) / kBlock;
}

// `text` with every `{key}` replaced by `value`.
std::string subst(std::string text, const std::string& key, const std::string& value);

// The kernel `name` (default: the last one) of this source text, made on first use and kept for
// the process. The text writes the constants kernels share with C++ as placeholders, filled here:
// {BLOCK} (kBlock), {WG} (ir::kWorkgroupSize, the items of a workgroup) and {WG_LOG2} (its
// base-2 logarithm).
const Kernel& cached_kernel(const std::string& source, const std::string& name = {});

// "tack.f32": the kernel language's cast to `t`.
std::string cast_name(ScalarType t);

// TypeError unless `d` is a scalar array dtype; `what` names the call ("sum").
void check_scalar_dtype(DType d, const char* what);

// NumPy's sum accumulator: the platform integer for integers (i64, or u64 for unsigned ones),
// a float itself.
DType sum_accumulator(ScalarType t);

// The common type of two element types, as NumPy's result_type.
ScalarType promote(ScalarType a, ScalarType b);

enum class BlockOp { Sum, Min, Max };

// The operator of a scan's `op` ("add", "min", "max"); ValueError naming `what` otherwise.
BlockOp block_op(std::string_view op, const char* what);
// The body of the device function fold(a, b) for `op`; min and max let NaN win, as NumPy's.
std::string fold_text(BlockOp op);

// The operator's identity in `acc`, where a scan starts: 0 (-0.0 for a float inclusive sum, so
// that a lone -0.0 stays itself), for min the largest value (+inf), for max the smallest (-inf).
Scalar scan_identity(BlockOp op, DType acc, bool exclusive);

// totals[b] = the fold of x[b * kBlock : (b + 1) * kBlock] (x 1-D, n >= 1), in `acc`, in the
// reductions' lane order; min and max propagate NaN.
Array block_totals(const Array& x, BlockOp op, DType acc);

// tack::linspace computed in `compute`: f64 (NumPy's for Python numbers), or f32 (NumPy's for f32
// scalars, as histogram's autodetected edges of f32 data).
Array linspace_in(double start, double stop, std::int64_t num, bool endpoint,
                  std::optional<DType> dtype, const Device& device, ScalarType compute);

}  // namespace tack::algorithms
