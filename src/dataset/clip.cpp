// clip: the part of a dataset where a point field (or an implicit function) is at or above a
// value, or below it (docs/design/contour.md, "Clip"). A cell whose corners are all kept is
// copied; a cut cell is replaced by the cells of its case in the generated tables
// (dataset/clip_tables.hpp), each vertex a corner or the crossing on an edge. Counts per cell,
// exclusive scans (so the output is in cell order on every device and thread count), a write
// pass naming corners by their point ids and crossings by their slot, then the crossings merged
// by edge (contour's merge) and every point renumbered: the kept points in the input's order,
// then the crossings in edge order.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/kernel_text.hpp"
#include "dataset/cells.hpp"
#include "dataset/clip_tables.hpp"
#include "dataset/contour_tables.hpp"
#include "dataset/marching.hpp"
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

const char* const kClip = R"(
# The points of a cell of VTK type t, by table row size.
@tack.func
def ds_clip_size(t):
    r = 8
    if t == 1:
        r = 1
    elif t == 3:
        r = 2
    elif t == 5:
        r = 3
    elif t == 9 or t == 10:
        r = 4
    elif t == 14:
        r = 5
    elif t == 13:
        r = 6
    return r

# Whether value v is on the kept side (side 0: at or above the value, 1: below it).
@tack.func
def ds_clip_kept(v, value, side):
    return (v >= value) != (side == 1)

# Piece j's case (bit k: corner k at or above the value).
@tack.func
def ds_clip_case({G}, s, corners, c, t, j, value):
    case = tack.i64(0)
    for k in range(corners[ds_piece_type(t)]):
        if tack.f64(s[ds_cell_point({G}, c, ds_piece_corner(t, j, k))]) >= value:
            case |= tack.i64(1) << k
    return case

# Cell c's corners on the kept side, -1 when one is NaN.
@tack.func
def ds_clip_kept_corners({G}, s, value, side, c, n):
    kept = n - n
    nan = False
    for k in range(n):
        v = tack.f64(s[ds_cell_point({G}, c, k)])
        if v != v:
            nan = True
        elif ds_clip_kept(v, value, side):
            kept += 1
    return -1 if nan else kept

# What each cell leaves: its cells, their points in all, the crossings among those and the
# centroids. A cell with every corner kept is itself; with none (or a NaN corner), nothing; a cut
# cell, its pieces' rows.
def ds_clip_count({G}, s, value, side, corners, cases, cells, points, crossings, centroids):
    for c in range(len(cells)):
        t = ds_cell_type({G}, c)
        n = ds_cell_size({G}, c)
        kept = ds_clip_kept_corners({G}, s, value, side, c, n)
        a = n - n
        b = n - n
        x = n - n
        m = n - n
        if kept == n:
            a = n - n + 1
            b = n
        elif kept > 0:
            row = side * 15 + ds_piece_type(t)
            for j in range(ds_piece_count(t, n)):
                k = ds_clip_case({G}, s, corners, c, t, j, value)
                a += cases[row, k, 0]
                b += cases[row, k, 1]
                x += cases[row, k, 2]
                m += cases[row, k, 3]
        cells[c] = a
        points[c] = b
        crossings[c] = x
        centroids[c] = m

# The cells: types, offsets and each cell's source cell; in conn a kept corner as its point id,
# a crossing as -1 - its slot (the slot's edge, lower point then higher, in lows and highs), a
# centroid as -1 - (n_cross + its number); each centroid as the points and weights it blends.
def ds_clip_write({G}, s, value, side, corners, cases, edges, cell_at, point_at, crossing_at, centroid_at, n_out, n_cross, types, offsets, conn, lows, highs, source, blend_ids, blend_weights):
    n_cells = len(cell_at)
    for c in range(n_cells):
        if c == 0:
            offsets[n_out] = len(conn)
        o = cell_at[c]
        if (cell_at[c + 1] if c + 1 < n_cells else n_out) > o:
            t = ds_cell_type({G}, c)
            n = ds_cell_size({G}, c)
            w = point_at[c]
            x = crossing_at[c]
            m = centroid_at[c]
            if ds_clip_kept_corners({G}, s, value, side, c, n) == n:
                # the cell itself (a voxel as a hexahedron, a pixel as a quad: VTK's order)
                reorder = t == 8 or t == 11
                types[o] = 12 if t == 11 else (9 if t == 8 else t)
                offsets[o] = w
                source[o] = c
                for k in range(n):
                    conn[w + k] = ds_cell_point({G}, c, (k ^ ((k >> 1) & 1)) if reorder else k)
            else:
                pt = ds_piece_type(t)
                row = side * 15 + pt
                for j in range(ds_piece_count(t, n)):
                    case = ds_clip_case({G}, s, corners, c, t, j, value)
                    at = 4
                    for q in range(cases[row, case, 0]):
                        kind = cases[row, case, at]
                        types[o] = kind
                        offsets[o] = w
                        source[o] = c
                        for r in range(ds_clip_size(kind)):
                            label = cases[row, case, at + 1 + r]
                            if label < 8:
                                conn[w] = ds_cell_point({G}, c, ds_piece_corner(t, j, label))
                            elif label < 20:
                                pa = tack.i64(ds_cell_point({G}, c, ds_piece_corner(t, j, edges[pt, label - 8, 0])))
                                pb = tack.i64(ds_cell_point({G}, c, ds_piece_corner(t, j, edges[pt, label - 8, 1])))
                                lows[x] = min(pa, pb)
                                highs[x] = max(pa, pb)
                                conn[w] = -1 - x
                                x += 1
                            else:
                                conn[w] = -1 - (n_cross + m + label - 20)
                            w += 1
                        o += 1
                        at += 1 + ds_clip_size(kind)
                    # the centroids: the mean of their labels, a crossing as its two ends
                    for q in range(cases[row, case, 3]):
                        count = cases[row, case, at]
                        share = 1.0 / count
                        for r in range(blend_ids.shape[1]):
                            blend_ids[m, r] = 0
                            blend_weights[m, r] = 0.0
                        for r in range(count):
                            label = cases[row, case, at + 1 + r]
                            if label < 8:
                                blend_ids[m, 2 * r] = ds_cell_point({G}, c, ds_piece_corner(t, j, label))
                                blend_weights[m, 2 * r] = share
                            else:
                                pa = tack.i64(ds_cell_point({G}, c, ds_piece_corner(t, j, edges[pt, label - 8, 0])))
                                pb = tack.i64(ds_cell_point({G}, c, ds_piece_corner(t, j, edges[pt, label - 8, 1])))
                                lo = min(pa, pb)
                                hi = max(pa, pb)
                                a = tack.f64(s[lo])
                                u = (value - a) / (tack.f64(s[hi]) - a)
                                blend_ids[m, 2 * r] = lo
                                blend_weights[m, 2 * r] = share * (1.0 - u)
                                blend_ids[m, 2 * r + 1] = hi
                                blend_weights[m, 2 * r + 1] = share * u
                        m += 1
                        at += 1 + count

# The centroids' places and fields: their points blended.
def ds_clip_blend_points({G}, ids, weights, out):
    for k in range(out.shape[0]):
        x = tack.f64(0.0)
        y = tack.f64(0.0)
        z = tack.f64(0.0)
        for r in range(ids.shape[1]):
            px, py, pz = ds_point({G}, ids[k, r])
            x += weights[k, r] * px
            y += weights[k, r] * py
            z += weights[k, r] * pz
        out[k, 0] = x
        out[k, 1] = y
        out[k, 2] = z

)";

// The renumbering (no geometry).
const char* const kClipNumber = R"(
def ds_clip_mark(conn, used):
    for k in range(len(conn)):
        p = conn[k]
        if p >= 0:
            used[p] = 1

def ds_clip_blend_field(ids, weights, src, out, nc):
    for k in range(out.shape[0]):
        for q in range(nc):
            v = tack.f64(0.0)
            for r in range(ids.shape[1]):
                v += weights[k, r] * tack.f64(src[ids[k, r], q])
            out[k, q] = v

# The output's numbering: the kept points in the input's order (number), then the crossings,
# then the centroids.
def ds_clip_number(conn, number, index, n_kept, n_cross, n_merged):
    for k in range(len(conn)):
        p = conn[k]
        q = -1 - p
        if p >= 0:
            conn[k] = number[p]
        elif q < n_cross:
            conn[k] = n_kept + index[q]
        else:
            conn[k] = n_kept + n_merged + q - n_cross
)";

// The clip of ds by the point values s (f64-comparable, one per point).
DataSet clip_values(const DataSet& ds, const Array& s, double value, bool invert) {
  if (!std::isfinite(value)) {
    throw ValueError("tack.dataset.clip: a value of " + std::to_string(value) +
                     "; clip at a finite value");
  }
  const Device& device = ds.device();
  const Prelude g(ds);
  const std::string text = g.source(std::string(detail::kPieces) + kClip);
  const std::int64_t n_cells = ds.n_cells(), np = std::max<std::int64_t>(ds.n_points(), 1);
  const std::int64_t side = invert ? 1 : 0;
  const std::vector<std::int64_t> corner_count{0, 1, 0, 2, 0, 3, 0, 0, 4, 4, 4, 8, 8, 6, 5};
  const Array corners = array(corner_count, {15}, device);
  const std::int8_t* e0 = &detail::kContourEdges[0][0][0];
  const Array edges = array(std::vector<std::int8_t>(e0, e0 + 15 * 12 * 2), {15, 12, 2}, device);
  const std::int8_t* c0 = &detail::kClipCases[0][0][0][0];
  // rows side * 15 + type (kernel arrays have at most three dimensions)
  const Array cases = array(std::vector<std::int8_t>(c0, c0 + 2 * 15 * 256 * detail::kClipWidth),
                            {2 * 15, 256, detail::kClipWidth}, device);
  const KernelArg at = f64(value);

  Array cell_at = empty({n_cells}, kI64, device), point_at = empty({n_cells}, kI64, device),
        crossing_at = empty({n_cells}, kI64, device), centroid_at = empty({n_cells}, kI64, device);
  std::int64_t n_out = 0, n_conn = 0, n_cross = 0, n_centroids = 0;
  if (n_cells > 0) {
    detail::launch(algorithms::cached_kernel(text, "ds_clip_count"), g,
                   {s, at, side, corners, cases, cell_at, point_at, crossing_at, centroid_at});
    n_out = detail::scan_total(cell_at);
    n_conn = detail::scan_total(point_at);
    n_cross = detail::scan_total(crossing_at);
    n_centroids = detail::scan_total(centroid_at);
  }
  // Each centroid blends up to two points per label (a crossing: its edge's ends).
  const std::int64_t blend = 2 * detail::kClipLongestCentroid;
  Array types = empty({n_out}, kU8, device), offsets = empty({n_out + 1}, kI64, device),
        conn = empty({n_conn}, kI64, device), lows = empty({n_cross}, kI64, device),
        highs = empty({n_cross}, kI64, device), source = empty({n_out}, kI64, device),
        blend_ids = empty({n_centroids, blend}, kI64, device),
        blend_weights = empty({n_centroids, blend}, DType(ScalarType::f64), device);
  if (n_out > 0) {
    detail::launch(algorithms::cached_kernel(text, "ds_clip_write"), g,
                   {s,        at,          side,        corners, cases,     edges,        cell_at,
                    point_at, crossing_at, centroid_at, n_out,   n_cross,   types,        offsets,
                    conn,     lows,        highs,       source,  blend_ids, blend_weights});
  } else {
    offsets = zeros({1}, kI64, device);
  }
  // The crossings, one point per edge; the kept points the cells name, in the input's order.
  const Array value_array = array(std::vector<double>{value}, {1}, device);
  const detail::Crossings crossings =
      detail::merge_crossings(s, value_array, lows, highs, np, true);
  Array used = zeros({ds.n_points()}, kU8, device);
  if (n_conn > 0) algorithms::cached_kernel(kClipNumber, "ds_clip_mark")(conn, used);
  const Array ids = compress(used, arange(ds.n_points(), kI64, device));
  const std::int64_t n_kept = ids.size();
  if (n_conn > 0) {
    const Array number = exclusive_scan(used, "add", kI64);
    algorithms::cached_kernel(kClipNumber, "ds_clip_number")(conn, number, crossings.index, n_kept,
                                                             n_cross, crossings.frac.size());
  }
  const Array kept_points = detail::points_of(ds, ids);
  Array centroid_points = empty({n_centroids, 3}, kept_points.dtype(), device);
  if (n_centroids > 0) {
    detail::launch(algorithms::cached_kernel(text, "ds_clip_blend_points"), g,
                   {blend_ids, blend_weights, centroid_points});
  }
  const Array points = concat(
      {kept_points,
       detail::crossing_points(g, crossings.ends, crossings.frac, kept_points.dtype(), device),
       centroid_points});
  DataSet r = detail::trusted_explicit(Kind::Unstructured, points, offsets, conn, types);
  for (const auto& [name, a] : ds.point_data().items()) {
    const Array cut = detail::crossing_field(crossings.ends, crossings.frac, a, name);
    Shape shape = cut.shape();
    shape[0] = n_centroids;
    Array mean = empty(shape, cut.dtype(), device);
    if (n_centroids > 0) {
      algorithms::cached_kernel(kClipNumber, "ds_clip_blend_field")(
          blend_ids, blend_weights, detail::as_rows(a, name), detail::as_rows(mean, name),
          detail::components(a));
    }
    r.point_data().set(name, concat({astype(gather(a, ids), cut.dtype()), cut, mean}));
  }
  for (const auto& [name, a] : ds.cell_data().items()) r.cell_data().set(name, gather(a, source));
  return r;
}

}  // namespace

DataSet clip(const DataSet& ds, const std::string& field, double value, bool invert) {
  if (!ds.point_data().contains(field) && ds.cell_data().contains(field)) {
    throw ValueError("tack.dataset.clip: '" + field +
                     "' is a cell field; clip needs a point field: make one with "
                     "cell_to_point(ds, '" +
                     field + "') first, or keep whole cells with threshold");
  }
  const Array scalars = ds.point_data().at(field);  // a KeyError naming the fields otherwise
  if (detail::components(scalars) != 1) {
    throw ValueError("tack.dataset.clip: field '" + field + "' has " +
                     std::to_string(detail::components(scalars)) +
                     " components; clip takes a scalar field: add one component of it (or its "
                     "magnitude) as a field of its own");
  }
  return clip_values(ds, scalars.reshape({scalars.shape()[0]}), value, invert);
}

DataSet clip(const DataSet& ds, const ImplicitFunction& f, double value, bool invert) {
  return clip_values(ds, evaluate(f, ds), value, invert);
}

DataSet clip_box(const DataSet& ds, const std::array<double, 6>& bounds, bool invert) {
  // vtkBox is negative inside: the inside is the side below 0
  return clip(ds, ImplicitFunction::box(bounds), 0.0, !invert);
}

}  // namespace tack::dataset
