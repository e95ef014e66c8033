// contour: isosurfaces and isolines of a point field by marching cells (docs/design/contour.md).
// Per value and cell a case from the corners at or above the value, the case's triangles
// (3-D cells) or segments (2-D cells) from the generated tables (dataset/contour_tables.hpp),
// counted, numbered by an exclusive scan (so the output is in value order, then cell order, on
// every device and thread count) and written as edge keys; the keys' unique values are the
// output points (each edge's crossing made once, from its lower point id to its higher).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/kernel_text.hpp"
#include "dataset/cells.hpp"
#include "dataset/contour_tables.hpp"
#include "dataset/prelude.hpp"
#include "tack/algorithms.hpp"
#include "tack/dataset.hpp"
#include "tack/error.hpp"

namespace tack::dataset {
namespace {

using detail::f64;
using detail::Prelude;

const DType kI64(ScalarType::i64);
const DType kU8(ScalarType::u8);

// What a cell type's contour makes: 0 vertices (1-D cells, and vertices at the value), 1
// segments (2-D cells), 2 triangles (3-D cells).
std::vector<std::int64_t> categories() {
  std::vector<std::int64_t> c(15, 0);
  for (int t : {5, 6, 7, 8, 9}) c[t] = 1;
  for (int t = 10; t <= 14; ++t) c[t] = 2;
  return c;
}

const char* const kContour = R"(
# A cell is contoured as pieces that have tables: itself, or a poly-vertex's vertices, a
# poly-line's segments, a strip's triangles, a polygon's fan of triangles from its point 0.
@tack.func
def ds_piece_type(t):
    r = t
    if t == 2:
        r = 1
    elif t == 4:
        r = 3
    elif t == 6:
        r = 5
    return r

@tack.func
def ds_piece_count(t, n):
    r = n - n + 1
    if t == 2:
        r = n
    elif t == 4:
        r = n - 1
    elif t == 6:
        r = n - 2
    return max(r, n - n)

# Corner r of piece j, as a point of the cell (its local number).
@tack.func
def ds_piece_corner(t, j, r):
    k = tack.i64(r)
    if t == 2:
        k = j
    elif t == 4 or t == 6:
        k = j + r
    return k

# Piece j's case for `value` (bit k: corner k at or above it; a vertex: at it), -1 when a corner
# is NaN.
@tack.func
def ds_contour_case({G}, s, corners, c, t, j, value):
    case = tack.i64(0)
    nan = False
    pt = ds_piece_type(t)
    for k in range(corners[pt]):
        v = tack.f64(s[ds_cell_point({G}, c, ds_piece_corner(t, j, k))])
        if v != v:
            nan = True
        elif (v == value) if pt == 1 else (v >= value):
            case |= tack.i64(1) << k
    return -1 if nan else case

# A polygon's segments: one per run of its corners at or above the value (going round it), from
# the edge entering the run to the edge leaving it; 0 when a corner is NaN.
@tack.func
def ds_polygon_above({G}, s, c, k, value):
    return tack.f64(s[ds_cell_point({G}, c, k % ds_cell_size({G}, c))]) >= value

@tack.func
def ds_polygon_runs({G}, s, c, value):
    n = ds_cell_size({G}, c)
    runs = n - n
    nan = False
    for k in range(n):
        v = tack.f64(s[ds_cell_point({G}, c, k)])
        if v != v:
            nan = True
        runs += ds_polygon_above({G}, s, c, k, value) and not ds_polygon_above({G}, s, c, k + n - 1, value)
    return 0 if nan else runs

# counts[i]: the items (vertices, segments or triangles, as `cat`) of cell i % n_cells for value
# i // n_cells.
def ds_contour_count({G}, s, values, kinds, corners, cases, cat, counts):
    for i in range(len(counts)):
        n_cells = len(counts) // len(values)
        c = i % n_cells
        t = ds_cell_type({G}, c)
        n = tack.i64(0)
        if kinds[t] == cat and t == 7:
            n += ds_polygon_runs({G}, s, c, values[i // n_cells])
        elif kinds[t] == cat:
            pt = ds_piece_type(t)
            for j in range(ds_piece_count(t, ds_cell_size({G}, c))):
                k = ds_contour_case({G}, s, corners, c, t, j, values[i // n_cells])
                if k >= 0:
                    n += cases[pt, k, 0]
        counts[i] = n

# The key (v * np + lo) * np + hi of edge (pa, pb) crossed for value v: (lo, hi) its points in
# increasing order, or the corner itself (lo == hi) when the crossing is at a corner.
@tack.func
def ds_edge_key(s, v, value, pa, pb, np):
    lo = min(pa, pb)
    hi = max(pa, pb)
    if tack.f64(s[pa]) == value:
        lo = pa
        hi = pa
    elif tack.f64(s[pb]) == value:
        lo = pb
        hi = pb
    return (tack.i64(v) * np + lo) * np + hi

# Each item's vertices as the keys of the edges they cross, and the item's cell.
def ds_contour_write({G}, s, values, kinds, corners, cases, edges, cat, at, np, keys, source):
    for i in range(len(at)):
        n_cells = len(at) // len(values)
        c = i % n_cells
        v = i // n_cells
        t = ds_cell_type({G}, c)
        if kinds[t] == cat:
            value = values[v]
            pt = ds_piece_type(t)
            w = cat + 1
            item = at[i]
            if t == 7 and ds_polygon_runs({G}, s, c, value) > 0:
                n = ds_cell_size({G}, c)
                for b in range(n):
                    if ds_polygon_above({G}, s, c, b, value) and not ds_polygon_above({G}, s, c, b + n - 1, value):
                        m = b + 1
                        while ds_polygon_above({G}, s, c, m, value):
                            m += 1
                        source[item] = c
                        keys[2 * item] = ds_edge_key(s, v, value, tack.i64(ds_cell_point({G}, c, (b + n - 1) % n)), tack.i64(ds_cell_point({G}, c, b)), np)
                        keys[2 * item + 1] = ds_edge_key(s, v, value, tack.i64(ds_cell_point({G}, c, (m - 1) % n)), tack.i64(ds_cell_point({G}, c, m % n)), np)
                        item += 1
            for j in range(ds_piece_count(t, ds_cell_size({G}, c)) if t != 7 else 0):
                k = ds_contour_case({G}, s, corners, c, t, j, value)
                if k >= 0:
                    for q in range(cases[pt, k, 0]):
                        source[item] = c
                        for r in range(w):
                            e = cases[pt, k, 1 + q * w + r]
                            pa = tack.i64(ds_cell_point({G}, c, ds_piece_corner(t, j, edges[pt, e, 0])))
                            pb = tack.i64(ds_cell_point({G}, c, ds_piece_corner(t, j, edges[pt, e, 1])))
                            keys[item * w + r] = ds_edge_key(s, v, value, pa, pb, np)
                        item += 1

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

def ds_contour_points({G}, s, values, keys, np, out):
    for i in range(len(keys)):
        lo, hi, t = ds_crossing(s, values, keys[i], np)
        x0, y0, z0 = ds_point({G}, lo)
        x1, y1, z1 = ds_point({G}, hi)
        out[i, 0] = x0 + t * (x1 - x0)
        out[i, 1] = y0 + t * (y1 - y0)
        out[i, 2] = z0 + t * (z1 - z0)

def ds_contour_field(s, values, keys, np, src, out, nc):
    for i in range(len(keys)):
        lo, hi, t = ds_crossing(s, values, keys[i], np)
        for m in range(nc):
            a = tack.f64(src[lo, m])
            out[i, m] = a + t * (tack.f64(src[hi, m]) - a)

# Normals: minus the interpolated gradient, unit length (zero where the gradient is).
def ds_contour_normals(s, values, keys, np, grad, out):
    for i in range(len(keys)):
        lo, hi, t = ds_crossing(s, values, keys[i], np)
        gx = tack.f64(grad[lo, 0]) + t * (tack.f64(grad[hi, 0]) - tack.f64(grad[lo, 0]))
        gy = tack.f64(grad[lo, 1]) + t * (tack.f64(grad[hi, 1]) - tack.f64(grad[lo, 1]))
        gz = tack.f64(grad[lo, 2]) + t * (tack.f64(grad[hi, 2]) - tack.f64(grad[lo, 2]))
        ln = math.sqrt(gx * gx + gy * gy + gz * gz)
        inv = -1.0 / ln if ln > 0.0 else 0.0
        out[i, 0] = gx * inv
        out[i, 1] = gy * inv
        out[i, 2] = gz * inv

# The number of items (w points each) naming a point twice: a crossing at a corner that several
# of the item's edges share.
def ds_contour_degenerate(conn, w):
    bad = tack.i64(0)
    for q in range(len(conn) // w):
        a = conn[q * w]
        b = conn[q * w + 1]
        same = a == b
        if w == 3:
            e = conn[q * w + 2]
            same = same or a == e or b == e
        bad += same
    return bad

def ds_contour_mark(conn, used):
    for k in range(len(conn)):
        used[conn[k]] = 1

def ds_contour_layout(n_vert, n_seg, offsets, types):
    for i in range(len(types)):
        if i == 0:
            offsets[len(types)] = n_vert + 2 * n_seg + 3 * (len(types) - n_vert - n_seg)
        at = i
        t = 1
        if i >= n_vert + n_seg:
            at = n_vert + 2 * n_seg + 3 * (i - n_vert - n_seg)
            t = 5
        elif i >= n_vert:
            at = n_vert + 2 * (i - n_vert)
            t = 3
        offsets[i] = at
        types[i] = t

def ds_contour_keep(conn, w, keep):
    for q in range(len(keep)):
        a = conn[q * w]
        b = conn[q * w + 1]
        same = a == b
        if w == 3:
            e = conn[q * w + 2]
            same = same or a == e or b == e
        keep[q] = 0 if same else 1
)";

// The output points' dtype: f32 for images and rectilinear grids (VTK's contour filters on
// them make float points), the input's points' dtype otherwise.
DType points_dtype(const DataSet& ds) {
  if (ds.kind() == Kind::Image) return DType(ScalarType::f32);
  if (ds.kind() == Kind::Rectilinear) return DType(ScalarType::f32);
  return ds.points().dtype();
}

// Rows of `a` (rows of w ids) kept where keep is 1, by compress.
Array keep_rows(const Array& a, std::int64_t w, const Array& keep) {
  return compress(keep, a.reshape({a.size() / w, w}), 0).reshape({-1});
}

}  // namespace

DataSet contour(const DataSet& ds, const std::string& field, const std::vector<double>& values,
                const ContourOptions& options) {
  if (!ds.point_data().contains(field) && ds.cell_data().contains(field)) {
    throw ValueError("tack.dataset.contour: '" + field +
                     "' is a cell field; contour needs a point field: make one with "
                     "cell_to_point(ds, '" +
                     field + "') first");
  }
  const Array scalars = ds.point_data().at(field);  // a KeyError naming the fields otherwise
  if (detail::components(scalars) != 1) {
    throw ValueError("tack.dataset.contour: field '" + field + "' has " +
                     std::to_string(detail::components(scalars)) +
                     " components; contour takes a scalar field: add one component of it (or "
                     "its magnitude) as a field of its own");
  }
  if (values.empty()) {
    throw ValueError("tack.dataset.contour: no contour values; pass one value or a list of them");
  }
  const Device& device = ds.device();
  const Array s = scalars.reshape({scalars.shape()[0]});
  const Prelude g(ds);
  const std::string text = g.source(kContour);
  const std::int64_t n_cells = ds.n_cells(), n_values = static_cast<std::int64_t>(values.size());
  const std::int64_t np = std::max<std::int64_t>(ds.n_points(), 1);
  std::int64_t room = 0;
  if (__builtin_mul_overflow(np, np, &room) || __builtin_mul_overflow(room, n_values, &room)) {
    throw ValueError("tack.dataset.contour: " + std::to_string(ds.n_points()) + " points and " +
                     std::to_string(n_values) +
                     " values make edge keys past 64 bits; contour fewer values per call");
  }
  const Array value_array = array(values, {n_values}, device);
  const Array kinds = array(categories(), {15}, device);
  const Array corners =
      array(std::vector<std::int64_t>{0, 1, 0, 2, 0, 3, 0, 0, 4, 4, 4, 8, 8, 6, 5}, {15}, device);
  const std::int8_t* e0 = &detail::kContourEdges[0][0][0];
  const Array edges = array(std::vector<std::int8_t>(e0, e0 + 15 * 12 * 2), {15, 12, 2}, device);
  const std::int8_t* c0 = &detail::kContourCases[0][0][0];
  const Array cases = array(std::vector<std::int8_t>(c0, c0 + 15 * 256 * detail::kContourWidth),
                            {15, 256, detail::kContourWidth}, device);
  // The categories present: a grid's from its dimension, explicit kinds' from their types.
  bool present[3] = {false, false, false};
  if (ds.is_structured()) {
    const Dims& d = ds.dims();
    const int dimension = (d[0] > 1) + (d[1] > 1) + (d[2] > 1);
    if (dimension > 0) present[dimension - 1] = true;
  } else {
    const std::int64_t mask = detail::types_present(ds.types());
    const std::vector<std::int64_t> category = categories();
    for (int t = 1; t < 15; ++t)
      if ((mask >> t) & 1) present[category[t]] = true;
  }

  // Per category (poly data's order: vertices, segments, triangles): count each (value, cell),
  // number the items by an exclusive scan, write each item's vertices as edge keys.
  const Kernel& count = algorithms::cached_kernel(text, "ds_contour_count");
  const Kernel& write = algorithms::cached_kernel(text, "ds_contour_write");
  std::vector<Array> keys_of, source_of;
  std::int64_t items[3] = {0, 0, 0};
  for (std::int64_t cat = 0; cat < 3; ++cat) {
    if (!present[cat] || n_cells == 0) continue;
    Array at = empty({n_values * n_cells}, kI64, device);
    detail::launch(count, g, {s, value_array, kinds, corners, cases, cat, at});
    const std::int64_t n = detail::scan_total(at);
    items[cat] = n;
    if (n == 0) continue;
    Array keys = empty({n * (cat + 1)}, kI64, device), source = empty({n}, kI64, device);
    detail::launch(write, g,
                   {s, value_array, kinds, corners, cases, edges, cat, at, np, keys, source});
    keys_of.push_back(keys);
    source_of.push_back(source);
  }
  auto joined = [&](const std::vector<Array>& parts) {
    if (parts.empty()) return empty({0}, kI64, device);
    return parts.size() == 1 ? parts[0] : concat(parts);
  };
  const Array keys = joined(keys_of);
  Array source = joined(source_of);
  // The output points: one per distinct key (sorted: value, lower point, higher point), the
  // connectivity their numbers; without merging, one per item vertex.
  const bool merge = options.merge_points && keys.size() > 0;
  std::optional<Unique> merged;
  if (merge) merged = unique(keys, false, true);
  Array point_keys = merge ? merged->values : keys;
  Array conn = merge ? *merged->inverse : arange(keys.size(), kI64, device);
  // Items that name a point twice (crossings at a corner that several of their edges share) are
  // dropped, as VTK drops them, and the points only they named.
  if (merge) {
    const Kernel& degenerate = algorithms::cached_kernel(text, "ds_contour_degenerate");
    std::int64_t bad[3] = {0, 0, 0}, offset = 0;
    for (std::int64_t cat = 1; cat < 3; ++cat) {
      const std::int64_t w = cat + 1;
      offset += items[cat - 1] * cat;
      if (items[cat] == 0) continue;
      const auto v = degenerate(conn.slice(offset, offset + items[cat] * w), w);
      bad[cat] = v ? v->value.i : 0;
    }
    if (bad[1] + bad[2] > 0) {
      const Kernel& keep = algorithms::cached_kernel(text, "ds_contour_keep");
      std::vector<Array> kept_conn, kept_source;
      std::int64_t item = 0;
      offset = 0;
      for (std::int64_t cat = 0; cat < 3; ++cat) {
        const std::int64_t w = cat + 1, n = items[cat];
        if (n == 0) continue;
        const Array c = conn.slice(offset, offset + n * w), src = source.slice(item, item + n);
        if (bad[cat] == 0) {
          kept_conn.push_back(c);
          kept_source.push_back(src);
        } else {
          Array flags = empty({n}, kU8, device);
          keep(c, w, flags);
          kept_conn.push_back(keep_rows(c, w, flags));
          kept_source.push_back(compress(flags, src));
        }
        offset += n * w;
        item += n;
        items[cat] -= bad[cat];
      }
      conn = joined(kept_conn);
      source = joined(kept_source);
      Array used = zeros({point_keys.size()}, kU8, device);
      algorithms::cached_kernel(text, "ds_contour_mark")(conn, used);
      const Array number = exclusive_scan(used, "add", kI64);
      point_keys = compress(used, point_keys);
      conn = gather(number, conn);
    }
  }
  // Offsets and types: vertices (1), segments (3), triangles (5).
  const std::int64_t n_out = items[0] + items[1] + items[2];
  Array offsets = zeros({n_out + 1}, kI64, device), types = empty({n_out}, kU8, device);
  algorithms::cached_kernel(text, "ds_contour_layout")(items[0], items[1], offsets, types);
  // Points and fields, interpolated along each key's edge.
  Array points = empty({point_keys.size(), 3}, points_dtype(ds), device);
  if (point_keys.size() > 0) {
    detail::launch(algorithms::cached_kernel(text, "ds_contour_points"), g,
                   {s, value_array, point_keys, np, points});
  }
  DataSet r = detail::trusted_explicit(Kind::Poly, points, offsets, conn, types);
  const Kernel& interpolate = algorithms::cached_kernel(text, "ds_contour_field");
  auto interpolated = [&](const Array& a, const std::string& name) {
    Shape shape = a.shape();
    shape[0] = point_keys.size();
    const DType t = is_float(a.dtype().scalar)
                        ? a.dtype()
                        : DType(ScalarType::f64, a.dtype().vector_n, a.dtype().matrix_cols);
    Array out = empty(shape, t, device);
    if (point_keys.size() > 0) {
      interpolate(s, value_array, point_keys, np, detail::as_rows(a, name),
                  detail::as_rows(out, name), detail::components(a));
    }
    return out;
  };
  if (options.interpolate_fields) {
    for (const auto& [name, a] : ds.point_data().items())
      r.point_data().set(name, interpolated(a, name));
    for (const auto& [name, a] : ds.cell_data().items()) r.cell_data().set(name, gather(a, source));
  } else {
    r.point_data().set(field, interpolated(scalars, field));
  }
  if (options.compute_normals) {
    const Array grad = gradient(ds, field, "gradient").point_data().at("gradient");
    Array normals = empty({point_keys.size(), 3}, DType(ScalarType::f32), device);
    if (point_keys.size() > 0) {
      algorithms::cached_kernel(text, "ds_contour_normals")(s, value_array, point_keys, np, grad,
                                                            normals);
    }
    r.point_data().set("Normals", normals);
  }
  return r;
}

}  // namespace tack::dataset
