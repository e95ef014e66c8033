// unique, compaction (nonzero, compress), searchsorted and histogram (docs/algorithms.md), built
// on the sorts and scans: flags, an exclusive scan of them for each kept element's place, and a
// scatter. Every step is a Tack kernel through the normal dispatch.
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/kernel_text.hpp"
#include "tack/algorithms.hpp"
#include "tack/error.hpp"

namespace tack {
namespace {

using algorithms::cached_kernel;
using algorithms::cast_name;
using algorithms::subst;

std::int64_t last_i64(const Array& a) {
  return std::get<Scalar>(a.index({a.size() - 1})).i;
}

void check_numbers(const Array& a, const char* what) {
  if (a.dtype().is_vector()) {
    throw TypeError(std::string("tack.") + what + ": the elements of this array are " +
                    a.dtype().str() + "; pass a scalar array (a component of it)");
  }
}

}  // namespace

Unique unique(const Array& a, bool return_index, bool return_inverse, bool return_counts) {
  check_numbers(a, "unique");
  const std::int64_t n = a.size();
  const Array flat = a.reshape({n});
  Unique r{empty({0}, a.dtype(), a.device()), std::nullopt, std::nullopt, std::nullopt};
  if (n == 0) {
    if (return_index) r.index = empty({0}, i64, a.device());
    if (return_inverse) r.inverse = empty(a.shape(), i64, a.device());
    if (return_counts) r.counts = empty({0}, i64, a.device());
    return r;
  }
  // The sorted values, and where each came from when the index or inverse is asked for.
  const bool need_perm = return_index || return_inverse;
  Array perm = need_perm ? argsort(flat, std::nullopt) : empty({0}, i64, a.device());
  const Array sorted = need_perm ? gather(flat, perm) : sort(flat, std::nullopt);
  // head[i]: sorted[i] starts a run of equal values (NaNs equal each other, -0.0 equals 0.0).
  Array head = empty({n}, i64, a.device());
  cached_kernel(R"(@tack.kernel
def tack_unique_heads(s, head):
    for i in range(len(s)):
        same = False
        if i > 0:
            same = (s[i] == s[i - 1]) | ((s[i] != s[i]) & (s[i - 1] != s[i - 1]))
        head[i] = 0 if same else 1
)")(sorted, head);
  Array group = inclusive_scan(head, "add");  // group[i] - 1: the run of sorted[i]
  const std::int64_t groups = last_i64(group);
  r.values = empty({groups}, a.dtype(), a.device());
  Array starts = empty({groups + 1}, i64, a.device());
  cached_kernel(R"(@tack.kernel
def tack_unique_compact(s, head, group, values, starts, n):
    for i in range(len(s)):
        if head[i] != 0:
            values[group[i] - 1] = s[i]
            starts[group[i] - 1] = i
        if i == n - 1:
            starts[group[i]] = n
)")(sorted, head, group, r.values, starts, n);
  if (return_index) r.index = gather(perm, starts.slice(0, groups));
  if (return_counts) {
    r.counts = empty({groups}, i64, a.device());
    cached_kernel(R"(@tack.kernel
def tack_unique_counts(starts, counts):
    for g in range(len(counts)):
        counts[g] = starts[g + 1] - starts[g]
)")(starts, *r.counts);
  }
  if (return_inverse) {
    Array inv = empty({n}, i64, a.device());
    cached_kernel(R"(@tack.kernel
def tack_unique_inverse(perm, group, inv):
    for i in range(len(perm)):
        inv[perm[i]] = group[i] - 1
)")(perm, group, inv);
    r.inverse = inv.reshape(a.shape());
  }
  return r;
}

namespace {

// The positions (in [0, len(flags))) whose flag is set, in order, as i64.
Array flagged_positions(const Array& flags_source, const std::string& test, std::int64_t count) {
  const Device dev = flags_source.device();
  Array flags = empty({count}, i64, dev);
  cached_kernel(subst(R"(@tack.kernel
def tack_flags(x, flags):
    for i in range(len(flags)):
        flags[i] = 1 if {TEST} else 0
)",
                      "TEST", test))(flags_source, flags);
  Array place = inclusive_scan(flags, "add");
  const std::int64_t kept = count == 0 ? 0 : last_i64(place);
  Array out = empty({kept}, i64, dev);
  if (kept == 0) return out;
  cached_kernel(R"(@tack.kernel
def tack_compact_positions(flags, place, out):
    for i in range(len(flags)):
        if flags[i] != 0:
            out[place[i] - 1] = i
)")(flags, place, out);
  return out;
}

}  // namespace

std::vector<Array> nonzero(const Array& a) {
  check_numbers(a, "nonzero");
  if (a.ndim() == 0) {
    throw ValueError(
        "tack.nonzero: a 0-d array has no positions; reshape it to (1,) (NumPy "
        "refuses 0-d nonzero too)");
  }
  const std::int64_t n = a.size();
  const Array flat = flagged_positions(a.reshape({n}), "x[i] != 0", n);
  if (a.ndim() == 1) return {flat};
  // Unravel the flat positions into one index array per dimension.
  std::vector<Array> out;
  std::int64_t inner = a.size();
  for (int d = 0; d < a.ndim(); ++d) {
    const std::int64_t extent = a.shape()[d];
    inner = extent == 0 ? 0 : inner / extent;
    Array idx = empty({flat.size()}, i64, a.device());
    if (flat.size() > 0) {
      cached_kernel(R"(@tack.kernel
def tack_unravel(flat, idx, inner, extent):
    for i in range(len(flat)):
        idx[i] = (flat[i] // inner) % extent
)")(flat, idx, inner, extent);
    }
    out.push_back(idx);
  }
  return out;
}

Array compress(const Array& condition, const Array& a, std::optional<int> axis) {
  check_numbers(condition, "compress");
  if (condition.ndim() != 1) {
    throw ValueError("tack.compress: condition must be 1-D, got shape " +
                     detail::shape_str(condition.shape()) + "; flatten it (reshape(-1))");
  }
  if (!(condition.device() == a.device())) {
    throw ValueError("tack.compress: the condition lives on " + condition.device().name() +
                     " and the array on " + a.device().name() + "; move one");
  }
  int k = 0;
  Array src = a;
  if (!axis) {
    src = a.reshape({a.size()});
  } else {
    const int nd = a.ndim();
    k = *axis;
    if (k < -nd || k >= nd) {
      throw IndexError("tack.compress: axis " + std::to_string(k) +
                       " is out of bounds for an array of " + std::to_string(nd) +
                       " dimensions; use an axis in [" + std::to_string(-nd) + ", " +
                       std::to_string(nd - 1) + "]");
    }
    if (k < 0) k += nd;
    if (k != 0) {
      throw ValueError(
          "tack.compress: Tack selects along axis 0 (rows) or every element "
          "(axis=None), got axis " +
          std::to_string(*axis));
    }
  }
  const std::int64_t len = src.ndim() == 0 ? 1 : src.shape()[0];
  const std::int64_t m = condition.size();
  if (m > len) {
    throw ValueError("tack.compress: the condition has " + std::to_string(m) +
                     " entries for an axis of " + std::to_string(len) +
                     " (NumPy's 'out of bounds'); pass at most as many as the axis has");
  }
  // NumPy: a shorter condition is False past its end.
  const Array rows = flagged_positions(condition, "x[i] != 0", m);
  return gather(src, rows);
}

Array searchsorted(const Array& sorted, const Array& values, std::string_view side) {
  check_numbers(sorted, "searchsorted");
  check_numbers(values, "searchsorted");
  if (side != "left" && side != "right") {
    throw ValueError("tack.searchsorted: side must be 'left' or 'right', got '" +
                     std::string(side) + "'");
  }
  if (sorted.ndim() != 1) {
    throw ValueError("tack.searchsorted: the sorted array must be 1-D, got shape " +
                     detail::shape_str(sorted.shape()));
  }
  if (!(sorted.device() == values.device())) {
    throw ValueError("tack.searchsorted: the sorted array lives on " + sorted.device().name() +
                     " and the values on " + values.device().name() + "; move one");
  }
  Array out = empty(values.shape(), i64, values.device());
  if (values.size() == 0) return out;
  // NumPy's order: NaN after every number. left: the first i with not (a[i] < v); right: the
  // first with v < a[i].
  const std::string lt = R"(@tack.func
def less(x, y):
    return (x < y) | ((y != y) & (x == x))

@tack.kernel
def tack_searchsorted(a, v, out, n):
    for i in range(len(v)):
        q = {C}(v[i])
        lo = tack.i64(0)
        hi = tack.i64(n)
        while lo < hi:
            mid = (lo + hi) // 2
            if {GO}:
                lo = mid + 1
            else:
                hi = mid
        out[i] = lo
)";
  // Compared in the common type, as NumPy's (an i64 array against f32 values in f64).
  const std::string C =
      cast_name(algorithms::promote(sorted.dtype().scalar, values.dtype().scalar));
  const std::string go =
      side == "left" ? "less(" + C + "(a[mid]), q)" : "not less(q, " + C + "(a[mid]))";
  cached_kernel(subst(subst(lt, "GO", go), "C", C))(sorted, values.reshape({values.size()}),
                                                    out.reshape({values.size()}), sorted.size());
  return out;
}

std::pair<Array, Array> histogram(const Array& a, std::int64_t bins,
                                  std::optional<std::pair<double, double>> range,
                                  std::string_view out_of_range) {
  check_numbers(a, "histogram");
  if (out_of_range != "drop" && out_of_range != "clamp") {
    throw ValueError("tack.histogram: out_of_range is '" + std::string(out_of_range) +
                     "'; give 'drop' (NumPy's: values outside the range are not counted) or "
                     "'clamp' (they count in the first or last bin)");
  }
  if (bins <= 0 || bins > (std::int64_t{1} << 40)) {
    throw ValueError("tack.histogram: bins is " + std::to_string(bins) +
                     "; give a positive number of bins (at most 2**40)");
  }
  // NumPy's edges: the range or the data's (min, max), widened by 0.5 when they are equal; the
  // edges in the data's float type (f64 for integers).
  const ScalarType et = is_float(a.dtype().scalar) ? a.dtype().scalar : ScalarType::f64;
  double first = 0, last = 1;
  if (range) {
    first = range->first;
    last = range->second;
    if (first > last) {
      throw ValueError("tack.histogram: max must be larger than min in range, got (" +
                       std::to_string(first) + ", " + std::to_string(last) + ")");
    }
    if (!std::isfinite(first) || !std::isfinite(last)) {
      throw ValueError("tack.histogram: the range (" + std::to_string(first) + ", " +
                       std::to_string(last) + ") is not finite; give finite edges");
    }
  } else if (a.size() > 0) {
    first = min(a).as_double();
    last = max(a).as_double();
    if (!std::isfinite(first) || !std::isfinite(last)) {
      throw ValueError("tack.histogram: the autodetected range of [" + std::to_string(first) +
                       ", " + std::to_string(last) +
                       "] is not finite (NaN or inf in the data); give range=(lo, hi)");
    }
  }
  // NumPy computes autodetected edges of f32 data in f32 (its min and max are f32 scalars), a
  // given range in f64.
  const ScalarType compute = (!range && et == ScalarType::f32) ? ScalarType::f32 : ScalarType::f64;
  if (first == last) {
    first -= 0.5;
    last += 0.5;
    if (compute == ScalarType::f32) {
      first = static_cast<float>(first);
      last = static_cast<float>(last);
    }
  }
  Array edges =
      algorithms::linspace_in(first, last, bins + 1, true, DType(et), a.device(), compute);
  Array counts = zeros({bins}, i64, a.device());
  if (a.size() == 0) return {counts, edges};
  // NumPy's binning: index = int((x - first) / (last - first) * bins), then corrected against the
  // edges so that an edge value falls in the bin it starts; the last bin is closed. Computed in the
  // edges' type, as NumPy does.
  const std::vector<double> p = {first, last, last - first};
  std::string src = R"(@tack.kernel
def tack_histogram(x, edges, params, counts, bins):
    first = {E}(params[0])
    last = {E}(params[1])
    denom = {E}(params[2])
    for i in range(len(x)):
        v = {E}(x[i])
        if (v >= first) & (v <= last):
            j = tack.i64((v - first) / denom * {E}(bins))
            j = bins - 1 if j >= bins else j
            j = j - 1 if v < edges[j] else j
            j = j + 1 if (j != bins - 1) & (v >= edges[j + 1]) else j
            tack.atomic_add(counts, j, 1)
{CLAMP})";
  const Array params = array(p, {3}, a.device());
  // "clamp": below the range counts in the first bin, above it in the last; NaN in none.
  src = subst(src, "CLAMP",
              out_of_range == "clamp" ? "        elif v < first:\n"
                                        "            tack.atomic_add(counts, 0, 1)\n"
                                        "        elif v > last:\n"
                                        "            tack.atomic_add(counts, bins - 1, 1)\n"
                                      : "");
  cached_kernel(subst(src, "E", cast_name(et)))(a.reshape({a.size()}), edges, params, counts, bins);
  return {counts, edges};
}

}  // namespace tack
