// What contour and clip share: cells cut into pieces with tables, and the merge of edge
// crossings into output points (dataset/marching.hpp, docs/design/contour.md).
#include "dataset/marching.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>

#include "algorithms/kernel_text.hpp"
#include "dataset/cells.hpp"
#include "runtime/backend.hpp"
#include "runtime/parallel.hpp"
#include "tack/algorithms.hpp"
#include "tack/error.hpp"

namespace tack::dataset::detail {

Array scalar_point_field(const DataSet& ds, const std::string& field, const std::string& filter,
                         const std::string& hint) {
  if (!ds.point_data().contains(field) && ds.cell_data().contains(field)) {
    throw ValueError("tack.dataset." + filter + ": '" + field + "' is a cell field; " + filter +
                     " needs a point field: make one with cell_to_point(ds, '" + field +
                     "') first" + hint);
  }
  const Array scalars = ds.point_data().at(field);  // a KeyError naming the fields otherwise
  if (components(scalars) != 1) {
    throw ValueError("tack.dataset." + filter + ": field '" + field + "' has " +
                     std::to_string(components(scalars)) + " components; " + filter +
                     " takes a scalar field: add one component of it (or its magnitude) as a "
                     "field of its own");
  }
  return scalars.reshape({scalars.shape()[0]});
}

const char* const kPieces = R"(
@tack.func
def ds_piece_type(t):
    r = t
    if t == 2:
        r = 1
    elif t == 4:
        r = 3
    elif t == 6 or t == 7:
        r = 5
    return r

@tack.func
def ds_piece_count(t, n):
    r = n - n + 1
    if t == 2:
        r = n
    elif t == 4:
        r = n - 1
    elif t == 6 or t == 7:
        r = n - 2
    return max(r, n - n)

@tack.func
def ds_piece_corner(t, j, r):
    k = tack.i64(r)
    if t == 2:
        k = j
    elif t == 4:
        k = j + r
    elif t == 6:
        k = j + r
        if j % 2 == 1 and r < 2:
            k = j + 1 - r
    elif t == 7:
        k = 0 if r == 0 else j + r
    return k
)";

const char* const kSolve = R"(
@tack.func
def ds_det3(a0, a1, a2, b0, b1, b2, c0, c1, c2):
    return a0 * (b1 * c2 - b2 * c1) - a1 * (b0 * c2 - b2 * c0) + a2 * (b0 * c1 - b1 * c0)

@tack.func
def ds_solve3(j00, j01, j02, j10, j11, j12, j20, j21, j22, d0, d1, d2):
    det = ds_det3(j00, j01, j02, j10, j11, j12, j20, j21, j22)
    gx = tack.f64(0.0)
    gy = tack.f64(0.0)
    gz = tack.f64(0.0)
    if det != 0.0:
        gx = ds_det3(d0, j01, j02, d1, j11, j12, d2, j21, j22) / det
        gy = ds_det3(j00, d0, j02, j10, d1, j12, j20, d2, j22) / det
        gz = ds_det3(j00, j01, d0, j10, j11, d1, j20, j21, d2) / det
    return (gx, gy, gz)
)";

const char* const kShape = R"(
# Shape function k of cell type t at parametric (r, s, u), and its derivatives (VTK's
# interpolation functions: barycentric for simplices, (bi, tri)linear for the others, a
# pyramid's base bilinear times (1 - u) and its apex u).
@tack.func
def ds_shape(t, k, r, s, u):
    w = tack.f64(0.0)
    dr = tack.f64(0.0)
    ds = tack.f64(0.0)
    du = tack.f64(0.0)
    if t == 5 or t == 10:
        if k == 0:
            w = 1.0 - r - s - u
            dr = -1.0
            ds = -1.0
            du = -1.0 if t == 10 else 0.0
        elif k == 1:
            w = r
            dr = 1.0
        elif k == 2:
            w = s
            ds = 1.0
        else:
            w = u
            du = 1.0
    elif t == 13:
        q = k % 3
        f = 1.0 - u if k < 3 else u
        g = -1.0 if k < 3 else 1.0
        b = 1.0 - r - s
        if q == 1:
            b = r
        elif q == 2:
            b = s
        w = b * f
        du = g * b
        if q == 0:
            dr = -f
            ds = -f
        elif q == 1:
            dr = f
        else:
            ds = f
    elif t == 14 and k == 4:
        w = u
        du = 1.0
    else:
        # pixel and voxel: corner bits (x, y, z); quad, hexahedron and pyramid: (0, 0), (1, 0),
        # (1, 1), (0, 1) in each layer
        cr = k & 1
        cs = (k >> 1) & 1
        cu = (k >> 2) & 1
        if t == 9 or t == 12 or t == 14:
            cr = cr ^ cs
        fr = r if cr == 1 else 1.0 - r
        fs = s if cs == 1 else 1.0 - s
        fu = tack.f64(1.0)
        su = tack.f64(0.0)
        if t == 11 or t == 12:
            fu = u if cu == 1 else 1.0 - u
            su = 1.0 if cu == 1 else -1.0
        elif t == 14:
            fu = 1.0 - u
            su = -1.0
        sr = 1.0 if cr == 1 else -1.0
        ss = 1.0 if cs == 1 else -1.0
        w = fr * fs * fu
        dr = sr * fs * fu
        ds = ss * fr * fu
        du = su * fr * fs
    return (w, dr, ds, du)
)";

const char* const kBits = R"(
@tack.func
def ds_popcount(x):
    y = x - ((x >> 1) & 0x5555555555555555)
    y = (y & 0x3333333333333333) + ((y >> 2) & 0x3333333333333333)
    y = (y + (y >> 4)) & 0x0F0F0F0F0F0F0F0F
    return tack.i64((y * 0x0101010101010101) >> 56)

@tack.func
def ds_lowest(x):
    return ds_popcount(x ^ (x - 1)) - 1

@tack.func
def ds_mask(n):
    m = tack.u64(0)
    if n >= 64:
        m = ~m
    elif n > 0:
        m = (tack.u64(1) << tack.u64(n)) - 1
    return m
)";

namespace {

const DType kI64(ScalarType::i64);

const char* const kMerge = R"(
# The crossing of key's edge: its ends and the fraction of the way from lo to hi.
@tack.func
def ds_crossing(s, values, key, np):
    n = tack.i64(np)  # a scalar argument that fits an i32 arrives as one
    hi = key % n
    lo = (key // n) % n
    v = key // (n * n)
    t = tack.f64(0.0)
    if lo != hi:
        a = tack.f64(s[lo])
        t = (values[v] - a) / (tack.f64(s[hi]) - a)
    return (lo, hi, t)

# The CPU's merge of crossings: (low, high) pairs put in buckets of 2^shift consecutive lows (a
# chunked counting sort, detail::chunk_counts; about as many buckets as pairs), each bucket sorted
# by (low, high) (insertion sort: buckets are short), its distinct pairs counted, then numbered:
# the order of the sorted pairs, as tack.unique's.
def ds_merge_count(lows, counts, chunk, shift):
    for t in range(counts.shape[0]):
        for k in range(t * chunk, min((t + 1) * chunk, len(lows))):
            counts[t, lows[k] >> shift] += 1

def ds_merge_fill(lows, highs, starts, counts, chunk, shift, los, his, orig):
    for t in range(counts.shape[0]):
        for k in range(t * chunk, min((t + 1) * chunk, len(lows))):
            b = lows[k] >> shift
            at = starts[b] + counts[t, b]
            los[at] = lows[k]
            his[at] = highs[k]
            orig[at] = k
            counts[t, b] += 1

def ds_merge_sort(starts, los, his, orig, distinct):
    for b in range(len(distinct)):
        s0 = starts[b]
        s1 = starts[b + 1]
        for i in range(s0 + 1, s1):
            lw = los[i]
            h = his[i]
            o = orig[i]
            j = i
            while j > s0 and (los[j - 1] > lw or (los[j - 1] == lw and his[j - 1] > h)):
                los[j] = los[j - 1]
                his[j] = his[j - 1]
                orig[j] = orig[j - 1]
                j -= 1
            los[j] = lw
            his[j] = h
            orig[j] = o
        n = s0 - s0
        for i in range(s0, s1):
            if i == s0 or his[i] != his[i - 1] or los[i] != los[i - 1]:
                n += 1
        distinct[b] = n

def ds_merge_assign(s, values, np, starts, los, his, orig, first, conn, ends, frac):
    for b in range(len(first)):
        id = first[b] - 1
        n = tack.i64(np)
        for i in range(starts[b], starts[b + 1]):
            if i == starts[b] or his[i] != his[i - 1] or los[i] != los[i - 1]:
                id += 1
                lo = los[i] % n
                value = values[los[i] // n]
                h = his[i]
                ends[id, 0] = lo
                ends[id, 1] = h
                u = tack.f64(0.0)
                if lo != h:
                    a = tack.f64(s[lo])
                    u = (value - a) / (tack.f64(s[h]) - a)
                frac[id] = u
            conn[orig[i]] = id

def ds_merge_longest(starts):
    m = starts[0] - starts[0]
    for b in range(len(starts) - 1):
        m = max(m, starts[b + 1] - starts[b])
    return m

def ds_merge_keys(lows, highs, np, keys):
    for k in range(len(keys)):
        keys[k] = lows[k] * np + highs[k]

# Each output point's edge (ends[i]: lo, hi) and the fraction frac[i] of the way from lo to hi.
def ds_contour_decode(s, values, keys, np, ends, frac):
    for i in range(len(keys)):
        lo, hi, t = ds_crossing(s, values, keys[i], np)
        ends[i, 0] = lo
        ends[i, 1] = hi
        frac[i] = t

def ds_contour_field(ends, frac, src, out, nc):
    for i in range(len(frac)):
        lo = ends[i, 0]
        hi = ends[i, 1]
        t = frac[i]
        for m in range(nc):
            a = tack.f64(src[lo, m])
            out[i, m] = a + t * (tack.f64(src[hi, m]) - a)
)";

const char* const kPoints = R"(
def ds_contour_points({G}, ends, frac, out):
    for i in range(len(frac)):
        t = frac[i]
        x0, y0, z0 = ds_point({G}, ends[i, 0])
        x1, y1, z1 = ds_point({G}, ends[i, 1])
        out[i, 0] = x0 + t * (x1 - x0)
        out[i, 1] = y0 + t * (y1 - y0)
        out[i, 2] = z0 + t * (z1 - z0)
)";

// The longest bucket of crossings round one point the CPU's merge sorts by insertion; past it
// (a fan of hundreds of cells round a point) the radix sort of tack::unique merges instead.
constexpr std::int64_t kLongestBucket = 2048;

}  // namespace

std::int64_t device_cell_chunk(bool coalescing, const char* setting, bool* bad) {
  if (bad) *bad = false;
  if (setting != nullptr && *setting != '\0') {
    char* end = nullptr;
    errno = 0;
    const long long n = std::strtoll(setting, &end, 10);
    if (errno == 0 && end != setting && *end == '\0' && n >= 1 && n <= kLongestDeviceChunk)
      return static_cast<std::int64_t>(n);
    if (bad) *bad = true;
  }
  // A GPU: neighbouring work items take neighbouring cells (coalesced reads). A device that
  // runs each work item as a loop on a CPU core (PoCL) gains from a run of cells per item:
  // one 64-bit word of a chunk's flags (measured: docs/performance.md).
  return coalescing ? 1 : 64;
}

std::int64_t cell_chunk(const Device& device, std::int64_t n_cells) {
  if (device.kind() == "cpu") {
    const std::int64_t per = 64 * tack::detail::num_threads();
    return std::max<std::int64_t>(512, (n_cells + per - 1) / per);
  }
  const char* setting = std::getenv("TACK_DEVICE_CELL_CHUNK");
  bool bad = false;
  const std::int64_t chunk =
      device_cell_chunk(device.backend()->capabilities().coalescing, setting, &bad);
  if (bad) {
    static std::once_flag warned;
    std::call_once(warned, [setting] {
      std::fprintf(stderr,
                   "tack: warning: TACK_DEVICE_CELL_CHUNK='%s' is not a number of cells from 1 "
                   "to 1048576; the dataset filters keep their own choice (1 on devices whose "
                   "work items coalesce, GPUs; 64 on others, OpenCL CPU devices).\n",
                   setting);
    });
  }
  return chunk;
}

Crossings merge_crossings(const Array& s, const Array& values, const Array& lows,
                          const Array& highs, std::int64_t np, bool merge) {
  const Device& device = s.device();
  const std::int64_t n_vertices = lows.size();
  merge = merge && n_vertices > 0;
  // On the CPU, buckets by (value, lower point), each sorted by its higher points, unless a
  // point has so many crossings round it that sorting its bucket would be quadratic.
  bool bucketed = false;
  // 2^shift lows per bucket: about as many buckets as pairs (a fraction of the points' count
  // when few edges cross)
  int shift = 0;
  while (shift < 62 && (values.size() * np >> (shift + 1)) >= std::max<std::int64_t>(n_vertices, 1))
    ++shift;
  const std::int64_t buckets = ((values.size() * np - 1) >> shift) + 1,
                     chunk = chunk_size(n_vertices);
  std::optional<Array> counts, starts;
  if (merge && device.kind() == "cpu") {
    counts = chunk_counts(n_vertices, buckets, n_vertices, device);
    algorithms::cached_kernel(kMerge, "ds_merge_count")(lows, *counts, chunk, shift);
    starts = chunk_starts(*counts);
    const auto longest = algorithms::cached_kernel(kMerge, "ds_merge_longest")(*starts);
    bucketed = longest && longest->value.i <= kLongestBucket;
  }
  if (bucketed) {
    Array los = empty({n_vertices}, kI64, device), his = empty({n_vertices}, kI64, device),
          orig = empty({n_vertices}, kI64, device);
    algorithms::cached_kernel(kMerge, "ds_merge_fill")(lows, highs, *starts, *counts, chunk, shift,
                                                       los, his, orig);
    Array first = empty({buckets}, kI64, device);
    algorithms::cached_kernel(kMerge, "ds_merge_sort")(*starts, los, his, orig, first);
    const std::int64_t n_merged = scan_total(first);
    Crossings r{empty({n_merged, 2}, kI64, device),
                empty({n_merged}, DType(ScalarType::f64), device),
                empty({n_vertices}, kI64, device)};
    algorithms::cached_kernel(kMerge, "ds_merge_assign")(s, values, np, *starts, los, his, orig,
                                                         first, r.index, r.ends, r.frac);
    return r;
  }
  Array keys = empty({n_vertices}, kI64, device);
  if (n_vertices > 0) algorithms::cached_kernel(kMerge, "ds_merge_keys")(lows, highs, np, keys);
  std::optional<Unique> merged;
  if (merge) merged = unique(keys, false, true);
  const Array point_keys = merge ? merged->values : keys;
  Crossings r{empty({point_keys.size(), 2}, kI64, device),
              empty({point_keys.size()}, DType(ScalarType::f64), device),
              merge ? *merged->inverse : arange(n_vertices, kI64, device)};
  if (point_keys.size() > 0) {
    algorithms::cached_kernel(kMerge, "ds_contour_decode")(s, values, point_keys, np, r.ends,
                                                           r.frac);
  }
  return r;
}

void place_crossings(const Prelude& g, const Array& ends, const Array& frac, const Array& out) {
  if (frac.size() > 0) {
    launch(algorithms::cached_kernel(g.source(kPoints), "ds_contour_points"), g, {ends, frac, out});
  }
}

Array crossing_points(const Prelude& g, const Array& ends, const Array& frac, DType dtype,
                      const Device& device) {
  Array points = empty({frac.size(), 3}, dtype, device);
  place_crossings(g, ends, frac, points);
  return points;
}

DType interpolated_dtype(const Array& a) {
  return is_float(a.dtype().scalar)
             ? a.dtype()
             : DType(ScalarType::f64, a.dtype().vector_n, a.dtype().matrix_cols);
}

void interpolate_crossings(const Array& ends, const Array& frac, const Array& a,
                           const std::string& name, const Array& out) {
  if (frac.size() > 0) {
    algorithms::cached_kernel(kMerge, "ds_contour_field")(ends, frac, as_rows(a, name),
                                                          as_rows(out, name), components(a));
  }
}

Array crossing_field(const Array& ends, const Array& frac, const Array& a,
                     const std::string& name) {
  Shape shape = a.shape();
  shape[0] = frac.size();
  Array out = empty(shape, interpolated_dtype(a), a.device());
  interpolate_crossings(ends, frac, a, name, out);
  return out;
}

}  // namespace tack::dataset::detail
