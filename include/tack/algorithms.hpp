// tack.algorithms (docs/algorithms.md; docs/design/algorithms.md): reductions over a whole array
// (a view too) or along one axis, in one defined order, so the result is the same bits on every
// device and thread count. Python mirrors each name: tack.sum(a, axis=1), a.sum(), ...
//
// Each reduction comes twice: over every element (a Scalar, or the C++ type NumPy's result
// has), and along one `axis` of a 1-3-D array (negative counts from the end; IndexError
// outside), giving an Array of the shape without that axis (`keepdims`: the axis kept with
// length 1) on the input's device. The reduced axis of a 1-D array leaves a 0-d array.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "tack/array.hpp"
#include "tack/dtype.hpp"

namespace tack {

// The types the reductions compute and answer in, as NumPy chooses them (the binding's NumPy
// scalars take them from here): sum, prod and dot `dtype`, else the platform integer for
// integers (i64 signed, u64 unsigned) or the float itself; mean, var, std and norm `dtype`,
// else the float itself, f64 for integers. TypeError for a `dtype` that is not a scalar dtype.
DType sum_result_type(DType a, std::optional<DType> dtype = std::nullopt);
DType mean_result_type(DType a, std::optional<DType> dtype = std::nullopt);

// The sum of the elements, in the accumulator type NumPy uses (i64 for signed integers, u64
// for unsigned ones, the float's own type) or `dtype`; 0 for no elements.
Scalar sum(const Array& a, std::optional<DType> dtype = std::nullopt);
Array sum(const Array& a, int axis, std::optional<DType> dtype = std::nullopt,
          bool keepdims = false);
// The product, likewise; 1 for no elements.
Scalar prod(const Array& a, std::optional<DType> dtype = std::nullopt);
Array prod(const Array& a, int axis, std::optional<DType> dtype = std::nullopt,
           bool keepdims = false);
// The smallest / largest element, in the array's dtype; NaN if any element is NaN (NumPy's
// rule). ValueError for no elements (no identity).
Scalar min(const Array& a);
Array min(const Array& a, int axis, bool keepdims = false);
Scalar max(const Array& a);
Array max(const Array& a, int axis, bool keepdims = false);
// The largest absolute value (NumPy's abs(a).max(), so the most negative integer stays itself).
Scalar absmax(const Array& a);
Array absmax(const Array& a, int axis, bool keepdims = false);

// The arithmetic mean: the sum in `dtype` (default f64 for integers, the float itself) divided
// by the count; NaN for no elements (NumPy warns and gives NaN).
Scalar mean(const Array& a, std::optional<DType> dtype = std::nullopt);
Array mean(const Array& a, int axis, std::optional<DType> dtype = std::nullopt,
           bool keepdims = false);
// The variance, two passes (the mean, then the sum of squared deviations) divided by
// max(count - ddof, 0), as NumPy; std is its square root.
Scalar var(const Array& a, std::optional<DType> dtype = std::nullopt, int ddof = 0);
Array var(const Array& a, int axis, std::optional<DType> dtype = std::nullopt, int ddof = 0,
          bool keepdims = false);
Scalar std(const Array& a, std::optional<DType> dtype = std::nullopt, int ddof = 0);
Array std(const Array& a, int axis, std::optional<DType> dtype = std::nullopt, int ddof = 0,
          bool keepdims = false);

// The sum of a * b over arrays of one shape (NumPy's vdot: every element; a 1-D dot), in the
// two dtypes' common type or `dtype`. ValueError for different shapes.
Scalar dot(const Array& a, const Array& b, std::optional<DType> dtype = std::nullopt);
Array dot(const Array& a, const Array& b, int axis, std::optional<DType> dtype = std::nullopt,
          bool keepdims = false);
// NumPy's vector norm (linalg.norm of the flattened array), in the float type (f64 for
// integers): ord 2 (default) sqrt(sum(a * a)), 1 sum(|a|), inf max(|a|), -inf min(|a|), 0 the
// count of nonzero elements, any other p sum(|a|**p)**(1/p). ValueError for a NaN ord.
Scalar norm(const Array& a, double ord = 2.0);
Array norm(const Array& a, int axis, bool keepdims = false, double ord = 2.0);

// How many elements are not zero (NaN counts), as i64.
std::int64_t count_nonzero(const Array& a);
Array count_nonzero(const Array& a, int axis, bool keepdims = false);
// Whether any / every element is not zero; along an axis a u8 array of 0 and 1 (Tack arrays
// have no bool dtype). any() of nothing is false, all() of nothing true.
bool any(const Array& a);
Array any(const Array& a, int axis, bool keepdims = false);
bool all(const Array& a);
Array all(const Array& a, int axis, bool keepdims = false);

// The index of the first smallest / largest element (of the flattened array; along an axis,
// the index along it, as i64); a NaN is the first extreme, as NumPy's. ValueError for no
// elements.
std::int64_t argmin(const Array& a);
Array argmin(const Array& a, int axis, bool keepdims = false);
std::int64_t argmax(const Array& a);
Array argmax(const Array& a, int axis, bool keepdims = false);

// Scans of every element in C order (a 1-D result, as NumPy's cumsum without an axis), in one
// defined order. `op` is "add", "min" or "max" (ValueError otherwise); the output dtype is
// NumPy's cumsum accumulator for "add" (i64/u64 for integers, a float itself), the input's for
// min and max, or `dtype`. An exclusive scan starts from the identity (0, the dtype's largest
// value or +inf for min, its smallest or -inf for max). min and max propagate NaN.
Array inclusive_scan(const Array& a, std::string_view op = "add",
                     std::optional<DType> dtype = std::nullopt);
Array exclusive_scan(const Array& a, std::string_view op = "add",
                     std::optional<DType> dtype = std::nullopt);
// Into `out` (n scalar elements, writable, on a's device; its dtype is the accumulator): `a`
// itself scans in place; an `out` that overlaps `a` otherwise is a ValueError.
void inclusive_scan(const Array& a, const Array& out, std::string_view op = "add");
void exclusive_scan(const Array& a, const Array& out, std::string_view op = "add");
// NumPy's cumsum: inclusive_scan(a, "add", dtype).
Array cumsum(const Array& a, std::optional<DType> dtype = std::nullopt);

// ---- By key: runs of equal consecutive keys are segments ----

// The scan of values restarting at every run of equal consecutive keys (keys and values of one
// size, any shapes, flattened; a NaN key is a run of its own). `op` "add", "min" or "max"; the
// dtype as tack.sum's accumulator for add (i64/u64 for integers), the values' for min and max,
// or `dtype`. Exclusive: a run's first element is the identity (as exclusive_scan's).
Array inclusive_scan_by_key(const Array& keys, const Array& values, std::string_view op = "add",
                            std::optional<DType> dtype = std::nullopt);
Array exclusive_scan_by_key(const Array& keys, const Array& values, std::string_view op = "add",
                            std::optional<DType> dtype = std::nullopt);
// One (key, reduction) per run of equal consecutive keys, in order: sort by key first to reduce
// every equal key together.
std::pair<Array, Array> reduce_by_key(const Array& keys, const Array& values,
                                      std::string_view op = "add",
                                      std::optional<DType> dtype = std::nullopt);
// The runs of equal consecutive elements of `keys` (flattened, C order): (each run's value, its
// length as i64), in order (Warp's runlength_encode, the original Tack's unique on sorted keys).
// Equal as ==: -0.0 and 0.0 are one run (its first element's value), each NaN a run of its own.
std::pair<Array, Array> run_length_encode(const Array& keys);
// out[s] = the sum of the values whose segment id is s, for s in [0, num_segments) (0 where
// none is): as reduce_by_key of the values sorted stably by id, so each segment adds its values
// in their order and the bits are the same on every device. Ids are integers in
// [0, num_segments) (IndexError otherwise), in any order; the dtype as tack.sum's.
Array segmented_sum(const Array& values, const Array& segment_ids, std::int64_t num_segments,
                    std::optional<DType> dtype = std::nullopt);

// ---- Sorts (a stable radix sort; floats in NumPy's order, NaN last) ----

// The elements sorted along the last axis (each row on its own), or every element flattened
// (axis nullopt, a 1-D result). Another axis is a ValueError; vector arrays a TypeError. -0.0
// and 0.0 tie (as NumPy's), and values come back bit for bit.
Array sort(const Array& a, std::optional<int> axis = -1);
// The i64 indices that sort a stably (ties keep their order): along the last axis each row's
// positions, or flat positions for axis nullopt.
Array argsort(const Array& a, std::optional<int> axis = -1);
// keys sorted stably (flattened) and values permuted alike; values has one row per key
// (values.shape[0] == keys.size, ValueError otherwise; any dtype, vectors too).
std::pair<Array, Array> sort_by_key(const Array& keys, const Array& values);
// values[indices] along the first axis (NumPy's take): the result's shape is indices' shape
// followed by values' other dimensions. Negative indices count from the end; one outside
// [-n, n) is an IndexError.
Array gather(const Array& values, const Array& indices);
// out[indices] = values along out's first axis. With a repeated index, which value lands is
// unspecified.
void scatter(const Array& values, const Array& indices, const Array& out);

// ---- unique, compaction, searchsorted, histogram ----

// NumPy's unique of every element: the sorted distinct values (NaNs one value, -0.0 and 0.0
// one), and on request the first index of each in the flattened input, the inverse (a's shape:
// values[inverse] rebuilds a) and the counts, all i64.
struct Unique {
  Array values;
  std::optional<Array> index, inverse, counts;
};
Unique unique(const Array& a, bool return_index = false, bool return_inverse = false,
              bool return_counts = false);
// One i64 index array per dimension of a's nonzero elements (NaN is nonzero), in C order.
std::vector<Array> nonzero(const Array& a);
// The rows (axis 0) or elements (axis nullopt: a flattened) whose condition is nonzero; a
// condition shorter than the axis is false past its end, a longer one a ValueError.
Array compress(const Array& condition, const Array& a, std::optional<int> axis = std::nullopt);
// Where each value would go in the sorted 1-D array to keep it sorted: side "left" the first
// such place, "right" the last (NumPy's order: NaN after every number). i64, values' shape.
Array searchsorted(const Array& sorted, const Array& values, std::string_view side = "left");
// NumPy's histogram: `bins` equal bins over `range` (default the data's min and max, widened by
// 0.5 each way when equal); returns (i64 counts, bins + 1 edges in the data's float type, f64
// for integers). Values outside the range are not counted (out_of_range "drop", NumPy's), or
// counted in the first bin (below) and the last (above) with "clamp" (the original Tack's); NaN
// is never counted. The last bin includes its right edge. ValueError for bins <= 0, a reversed
// or non-finite range, NaN/inf data without one, or another out_of_range.
std::pair<Array, Array> histogram(const Array& a, std::int64_t bins = 10,
                                  std::optional<std::pair<double, double>> range = std::nullopt,
                                  std::string_view out_of_range = "drop");

// ---- Array utilities (NumPy's names and formulas) ----

// [start, stop) by step: NumPy's length ceil((stop - start) / step) and values (out[i] = start +
// i * delta, delta = (start + step) - start in the dtype). The dtype is i64 when all three are
// integers, f64 otherwise, or `dtype`. ValueError for a zero or NaN step.
Array arange(const Scalar& start, const Scalar& stop, const Scalar& step,
             std::optional<DType> dtype = std::nullopt, const Device& device = default_device());
Array arange(std::int64_t stop, std::optional<DType> dtype = std::nullopt,
             const Device& device = default_device());
// `num` evenly spaced samples of [start, stop] (or [start, stop) without endpoint), NumPy's
// formula in f64 (integers floored), then cast to `dtype` (f64 by default).
Array linspace(double start, double stop, std::int64_t num = 50, bool endpoint = true,
               std::optional<DType> dtype = std::nullopt, const Device& device = default_device());
// The arrays joined along `axis`: one dtype and one device (TypeError / ValueError otherwise),
// every other dimension equal.
Array concat(const std::vector<Array>& arrays, int axis = 0);
// Copies: converted to `dtype` (the conversion rules of tack::copyto), as they are, or to
// another device.
Array astype(const Array& a, DType dtype);
Array copy(const Array& a);
Array to(const Array& a, const Device& device);
// New arrays of a's shape, in a's dtype and on a's device unless given.
Array empty_like(const Array& a, std::optional<DType> dtype,
                 std::optional<Device> device = std::nullopt);
Array zeros_like(const Array& a, std::optional<DType> dtype,
                 std::optional<Device> device = std::nullopt);
Array ones_like(const Array& a, std::optional<DType> dtype = std::nullopt,
                std::optional<Device> device = std::nullopt);
Array full_like(const Array& a, const Scalar& value, std::optional<DType> dtype = std::nullopt,
                std::optional<Device> device = std::nullopt);

}  // namespace tack
