// clip: the part of a dataset where a point field (or an implicit function) is at or above a
// value, or below it (docs/design/contour.md, "Clip"). A cell whose corners are all kept is
// copied; a cut cell is replaced by the cells of its case in the generated tables
// (dataset/clip_tables.hpp), each vertex a corner, a centroid or the crossing on an edge. Counts
// per chunk of cells, exclusive scans (so the output is in cell order on every device and thread
// count), a write pass naming kept points by their numbers and crossings by their edge's slot,
// then the crossings merged by edge (contour's merge; a grid numbers its own) and numbered after
// the kept points and the centroids.
#include <cmath>
#include <cstdint>
#include <optional>
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

# Point k of cell c: {CORNER}
@tack.func
def ds_clip_point({G}, offs, c, base, k):
    return {POINT}

# The next cell's (i, j, l) on a grid of cx by cy cells per layer.
@tack.func
def ds_clip_next(i, j, l, cx, cy):
    ni = i + 1
    nj = j
    nl = l
    if ni == cx:
        ni = ni - cx
        nj += 1
        if nj == cy:
            nj = nj - cy
            nl += 1
    return (ni, nj, nl)

# Piece p's case (bit k: corner k at or above the value).
@tack.func
def ds_clip_case({G}, s, corners, offs, c, base, t, p, value):
    case = tack.i64(0)
    for k in range(corners[ds_piece_type(t)]):
        if tack.f64(s[ds_clip_point({G}, offs, c, base, ds_piece_corner(t, p, k))]) >= value:
            case |= tack.i64(1) << k
    return case

# Cell c's corners on the kept side, -1 when one is NaN.
@tack.func
def ds_clip_kept_corners({G}, s, value, side, offs, c, base, n):
    kept = n - n
    nan = False
    for k in range(n):
        v = tack.f64(s[ds_clip_point({G}, offs, c, base, k)])
        if v != v:
            nan = True
        elif ds_clip_kept(v, value, side):
            kept += 1
    return -1 if nan else kept

# The cells go in chunks of `chunk` (x fastest on grids of cx by cy cells, nx by ny points: a
# chunk tracks its cells' (i, j, l) without dividing, and a cell's point k is its first point,
# base, plus offs[k]). Per chunk: its cells' output cells, their points, the crossings among
# those, the centroids and the crossed edges (a cut cell's own, once each); with `mark`,
# used[p] = 1 for every point a kept or cut cell keeps; state[c]: 1 kept whole, 2 cut, 0 neither
# (a cell with a NaN corner leaves nothing).
def ds_clip_count({G}, s, value, side, corners, cases, offs, chunk, n_cells, cx, cy, nx, ny, mark, grid, flags, cells, points, crossings, centroids, edges_at, used, state):
    for q in range(len(cells)):
        c0 = q * chunk
        i = c0 % cx
        j = (c0 // cx) % cy
        l = c0 // (cx * cy)
        a = tack.i64(0)
        b = tack.i64(0)
        x = tack.i64(0)
        m = tack.i64(0)
        y = tack.i64(0)
        for c in range(c0, min(c0 + chunk, n_cells)):
            t = {TYPE}
            n = {SIZE}
            base = i + tack.i64(nx) * (j + tack.i64(ny) * l)
            kept = n - n
            if grid != 0:
                # the points' kept flags (a grid without NaN)
                for k in range(n):
                    kept += used[base + offs[k]]
            else:
                # the points' flags: 1 kept, 2 NaN
                nan = False
                for k in range(n):
                    f = flags[ds_clip_point({G}, offs, c, base, k)]
                    kept += f & 1
                    nan = nan or f == 2
                if nan:
                    kept = -1
            state[c] = 1 if kept == n else (2 if kept > 0 else 0)
            if kept == n:
                a += 1
                b += n
                if mark != 0:
                    for k in range(n):
                        used[ds_clip_point({G}, offs, c, base, k)] = 1
            elif kept > 0:
                row = side * 15 + ds_piece_type(t)
                for p in range(ds_piece_count(t, n)):
                    case = ds_clip_case({G}, s, corners, offs, c, base, t, p, value)
                    a += cases[row, case, 0]
                    b += cases[row, case, 1]
                    x += cases[row, case, 2]
                    m += cases[row, case, 3]
                    y += cases[row, case, 4]
                for k in range(n if mark != 0 else 0):
                    pk = ds_clip_point({G}, offs, c, base, k)
                    if ds_clip_kept(tack.f64(s[pk]), value, side):
                        used[pk] = 1
            i, j, l = ds_clip_next(i, j, l, cx, cy)
        cells[q] = a
        points[q] = b
        crossings[q] = x
        centroids[q] = m
        edges_at[q] = y

# Each point's flag: 1 on the kept side, 2 NaN, 0 otherwise.
def ds_clip_flags(s, value, side, flags):
    for p in range(len(flags)):
        v = tack.f64(s[p])
        flags[p] = 2 if v != v else (1 if ds_clip_kept(v, value, side) else 0)

# On a grid, per row of points r = (j, l): used[p] (every point is in a cell: the kept points),
# crossed[p] (bit a: the edge from p along axis a crossed, its ends on either side of the value),
# counts[p] its crossed edges; nan[r] when the row has a NaN (the cells then mark the points,
# and crossings are merged, as on explicit kinds).
def ds_clip_grid_points(s, value, side, nx, ny, nz, used, crossed, counts, nan):
    for r in range(len(nan)):
        j = r % ny
        l = r // ny
        r00 = tack.i64(nx) * r
        nxy = tack.i64(nx) * ny
        bad = 0
        for i in range(nx):
            p = r00 + i
            v = tack.f64(s[p])
            up = v >= value
            used[p] = 1 if ds_clip_kept(v, value, side) and v == v else 0
            bits = 0
            if i + 1 < nx and up != (tack.f64(s[p + 1]) >= value):
                bits |= 1
            if j + 1 < ny and up != (tack.f64(s[p + nx]) >= value):
                bits |= 2
            if l + 1 < nz and up != (tack.f64(s[p + nxy]) >= value):
                bits |= 4
            crossed[p] = bits
            counts[p] = (bits & 1) + ((bits >> 1) & 1) + (bits >> 2)
            bad |= 1 if v != v else 0
        nan[r] = bad

# A grid's crossing on the edge (pa, pb): its number among the crossings, by lower point, then
# axis (the order of the sorted edges).
@tack.func
def ds_clip_grid_crossing(crossed, first, nx, ny, pa, pb):
    lo = min(pa, pb)
    d = max(pa, pb) - lo
    b = crossed[lo]
    rank = 0
    if not (d == 1 and nx > 1):
        rank = b & 1
        if not (d == nx and ny > 1):
            rank += (b >> 1) & 1
    return first[lo] + rank

# Each grid crossing's edge and fraction, at its number.
def ds_clip_grid_crossings(s, value, nx, ny, crossed, first, ends, frac):
    for p in range(len(crossed)):
        b = crossed[p]
        if b != 0:
            k = first[p]
            v0 = tack.f64(s[p])
            for axis in range(3):
                if ((b >> axis) & 1) != 0:
                    q = p + (1 if axis == 0 else (tack.i64(nx) if axis == 1 else tack.i64(nx) * ny))
                    ends[k, 0] = p
                    ends[k, 1] = q
                    frac[k] = (value - v0) / (tack.f64(s[q]) - v0)
                    k += 1

# The cells, from each chunk's first output cell (cell_at), point (point_at), crossing vertex
# (crossing_at), centroid (centroid_at) and crossed edge (edge_at): types, offsets, the source
# cells; in conn a kept point's number, centroid k as n_kept + k, a crossing as -1 - its edge's
# slot (the slot's ends, lower point first, in lows and highs; the vertex's place in
# positions); each centroid as the points and weights it blends (a crossing: its edge's ends).
def ds_clip_write({G}, s, value, side, corners, cases, edges, offs, chunk, n_cells, cx, cy, nx, ny, grid, crossed, first, cross0, state, cell_at, point_at, crossing_at, centroid_at, edge_at, n_out, number, n_kept, types, offsets, conn, positions, lows, highs, sourced, source, blend_ids, blend_weights):
    for q in range(len(cell_at)):
        if q == 0:
            offsets[n_out] = len(conn)
        o = cell_at[q]
        w = point_at[q]
        xo = crossing_at[q]
        m = centroid_at[q]
        xs = edge_at[q]
        c0 = q * chunk
        i = c0 % cx
        j = (c0 // cx) % cy
        l = c0 // (cx * cy)
        for c in range(c0, min(c0 + chunk, n_cells)):
            t = {TYPE}
            n = {SIZE}
            base = i + tack.i64(nx) * (j + tack.i64(ny) * l)
            kept = state[c]
            if kept == 1:
                # the cell itself (a voxel as a hexahedron, a pixel as a quad: VTK's order)
                reorder = t == 8 or t == 11
                types[o] = 12 if t == 11 else (9 if t == 8 else t)
                offsets[o] = w
                if sourced != 0:
                    source[o] = c
                for k in range(n):
                    conn[w + k] = number[ds_clip_point({G}, offs, c, base, (k ^ ((k >> 1) & 1)) if reorder else k)]
                o += 1
                w += n
            elif kept == 2:
                pt = ds_piece_type(t)
                row = side * 15 + pt
                for p in range(ds_piece_count(t, n)):
                    case = ds_clip_case({G}, s, corners, offs, c, base, t, p, value)
                    # where the row's distinct edges start: after its cells and centroids
                    eo = 5
                    for r1 in range(cases[row, case, 0]):
                        eo += 1 + ds_clip_size(cases[row, case, eo])
                    for r1 in range(cases[row, case, 3]):
                        eo += 1 + cases[row, case, eo]
                    at = 5
                    for r0 in range(cases[row, case, 0]):
                        kind = cases[row, case, at]
                        types[o] = kind
                        offsets[o] = w
                        if sourced != 0:
                            source[o] = c
                        for r in range(ds_clip_size(kind)):
                            label = cases[row, case, at + 1 + r]
                            if label < 8:
                                conn[w] = number[ds_clip_point({G}, offs, c, base, ds_piece_corner(t, p, label))]
                            elif label < 20 and grid != 0:
                                e = cases[row, case, eo + label - 8]
                                pa = tack.i64(ds_clip_point({G}, offs, c, base, ds_piece_corner(t, p, edges[pt, e, 0])))
                                pb = tack.i64(ds_clip_point({G}, offs, c, base, ds_piece_corner(t, p, edges[pt, e, 1])))
                                conn[w] = cross0 + ds_clip_grid_crossing(crossed, first, nx, ny, pa, pb)
                            elif label < 20:
                                conn[w] = -1 - (xs + label - 8)
                                positions[xo] = w
                                xo += 1
                            else:
                                conn[w] = n_kept + m + label - 20
                            w += 1
                        o += 1
                        at += 1 + ds_clip_size(kind)
                    # the centroids: the mean of their labels, a crossing as its edge's ends
                    for r0 in range(cases[row, case, 3]):
                        count = cases[row, case, at]
                        share = 1.0 / count
                        for r in range(blend_ids.shape[1]):
                            blend_ids[m, r] = 0
                            blend_weights[m, r] = 0.0
                        for r in range(count):
                            label = cases[row, case, at + 1 + r]
                            if label < 8:
                                blend_ids[m, 2 * r] = ds_clip_point({G}, offs, c, base, ds_piece_corner(t, p, label))
                                blend_weights[m, 2 * r] = share
                            else:
                                pa = tack.i64(ds_clip_point({G}, offs, c, base, ds_piece_corner(t, p, edges[pt, label - 8, 0])))
                                pb = tack.i64(ds_clip_point({G}, offs, c, base, ds_piece_corner(t, p, edges[pt, label - 8, 1])))
                                lo = min(pa, pb)
                                hi = max(pa, pb)
                                v0 = tack.f64(s[lo])
                                u = (value - v0) / (tack.f64(s[hi]) - v0)
                                blend_ids[m, 2 * r] = lo
                                blend_weights[m, 2 * r] = share * (1.0 - u)
                                blend_ids[m, 2 * r + 1] = hi
                                blend_weights[m, 2 * r + 1] = share * u
                        m += 1
                        at += 1 + count
                    # the crossed edges, each once (a grid numbers its crossings itself)
                    for r0 in range(cases[row, case, 4] if grid == 0 else 0):
                        e = cases[row, case, at]
                        pa = tack.i64(ds_clip_point({G}, offs, c, base, ds_piece_corner(t, p, edges[pt, e, 0])))
                        pb = tack.i64(ds_clip_point({G}, offs, c, base, ds_piece_corner(t, p, edges[pt, e, 1])))
                        lows[xs] = min(pa, pb)
                        highs[xs] = max(pa, pb)
                        xs += 1
                        at += 1
            i, j, l = ds_clip_next(i, j, l, cx, cy)

# The kept points' places, in their numbers' order.
# (by rows of nx points: on a grid its place from (i, j, l), without dividing)
def ds_clip_place_kept({G}, used, number, nx, ny, out):
    for r in range(len(used) // nx):
        j = r % ny
        l = r // ny
        for i in range(nx):
            p = tack.i64(nx) * r + i
            if used[p] != 0:
                x, y, z = {PLACE}
                out[number[p], 0] = x
                out[number[p], 1] = y
                out[number[p], 2] = z

# The centroids' places: their points blended.
def ds_clip_blend_points({G}, ids, weights, out):
    for k in range(out.shape[0]):
        x = tack.f64(0.0)
        y = tack.f64(0.0)
        z = tack.f64(0.0)
        for r in range(ids.shape[1]):
            wr = weights[k, r]
            if wr != 0.0:
                px, py, pz = ds_point({G}, ids[k, r])
                x += wr * px
                y += wr * py
                z += wr * pz
        out[k, 0] = x
        out[k, 1] = y
        out[k, 2] = z
)";

// What needs no geometry: the fields and the crossings' numbers.
const char* const kClipFields = R"(
def ds_clip_field_kept(used, number, src, out, nc):
    for p in range(len(used)):
        if used[p] != 0:
            for q in range(nc):
                out[number[p], q] = src[p, q]

def ds_clip_blend_field(ids, weights, src, out, nc):
    for k in range(out.shape[0]):
        for q in range(nc):
            v = tack.f64(0.0)
            for r in range(ids.shape[1]):
                if weights[k, r] != 0.0:
                    v += weights[k, r] * tack.f64(src[ids[k, r], q])
            out[k, q] = v

# The crossings' numbers: `first` (the kept points and centroids) + the merged edge's.
def ds_clip_number(conn, positions, index, first):
    for k in range(len(positions)):
        w = positions[k]
        conn[w] = first + index[-1 - conn[w]]
)";

// A value of the last element of an i64 array (its host copy).
std::int64_t last_of(const Array& a) {
  return astype(a.slice(a.size() - 1, a.size()), kI64).to_vector<std::int64_t>()[0];
}

// The clip of ds by the point values s (f64-comparable, one per point).
DataSet clip_values(const DataSet& ds, const Array& s, double value, bool invert) {
  if (!std::isfinite(value)) {
    throw ValueError("tack.dataset.clip: a value of " + std::to_string(value) +
                     "; clip at a finite value");
  }
  const Device& device = ds.device();
  const Prelude g(ds);
  const std::int64_t n_cells = ds.n_cells(), n_points = ds.n_points();
  const std::vector<std::int64_t> corner_count{0, 1, 0, 2, 0, 3, 0, 0, 4, 4, 4, 8, 8, 6, 5};
  std::string body = std::string(detail::kPieces) + kClip;
  body = algorithms::subst(body, "CORNER",
                           ds.is_structured() ? "on a grid, base + offs[k]" : "its k-th id");
  // A dataset of one cell type with a table: its type and size as constants, its points at c * n
  // (no offsets to read).
  std::int64_t one_type = 0;
  if (!ds.is_structured() && n_cells > 0) {
    const std::int64_t mask = detail::types_present(ds.types());
    for (int t : {3, 5, 8, 9, 10, 11, 12, 13, 14})
      if (mask == (std::int64_t{1} << t)) one_type = t;
  }
  const std::int64_t one_size = one_type > 0 ? corner_count[static_cast<std::size_t>(one_type)] : 0;
  body = algorithms::subst(body, "TYPE",
                           one_type > 0 ? "tack.i64(" + std::to_string(one_type) + ")"
                                        : std::string("ds_cell_type({G}, c)"));
  body = algorithms::subst(body, "SIZE",
                           one_type > 0 ? "tack.i64(" + std::to_string(one_size) + ")"
                                        : std::string("ds_cell_size({G}, c)"));
  body = algorithms::subst(
      body, "PLACE", ds.is_structured() ? "ds_point_ijk({G}, i, j, l, p)" : "ds_point({G}, p)");
  body = algorithms::subst(body, "POINT",
                           ds.is_structured()
                               ? std::string("base + offs[k]")
                               : (one_type > 0 ? "g_conn[c * " + std::to_string(one_size) + " + k]"
                                               : std::string("ds_cell_point({G}, c, k)")));
  const std::string text = g.source(body);
  const std::int64_t np = std::max<std::int64_t>(n_points, 1);
  const std::int64_t side = invert ? 1 : 0;
  // On a grid the cells' (i, j, l) come from cx by cy cells per layer.
  // Its point k is the cell's first point plus offs[k]: corner bits (b0, b1, b2) on the axes
  // with more than one point in turn (a structured grid's cells in the hexahedron's and quad's
  // order: (0, 0), (1, 0), (1, 1), (0, 1) in each layer).
  std::int64_t cx = 1, cy = 1, nx = 1, ny = 1;
  std::vector<std::int64_t> offs(8, 0);
  if (ds.is_structured()) {
    const Dims& d = ds.dims();
    cx = std::max<std::int64_t>(d[0] - 1, 1);
    cy = std::max<std::int64_t>(d[1] - 1, 1);
    nx = d[0];
    ny = d[1];
    const std::int64_t stride[3] = {1, d[0], d[0] * d[1]};
    for (int k = 0; k < 8; ++k) {
      int bits = ds.kind() == Kind::Structured ? (k ^ ((k >> 1) & 1)) : k;
      for (int axis = 0; axis < 3; ++axis) {
        if (d[axis] < 2) continue;
        offs[k] += (bits & 1) * stride[axis];
        bits >>= 1;
      }
    }
  }
  const Array offs_a = array(offs, {8}, device);
  const Array corners = array(corner_count, {15}, device);
  const std::int8_t* e0 = &detail::kContourEdges[0][0][0];
  const Array edges = array(std::vector<std::int8_t>(e0, e0 + 15 * 12 * 2), {15, 12, 2}, device);
  const std::int8_t* c0 = &detail::kClipCases[0][0][0][0];
  // rows side * 15 + type (kernel arrays have at most three dimensions)
  const Array cases = array(std::vector<std::int8_t>(c0, c0 + 2 * 15 * 256 * detail::kClipWidth),
                            {2 * 15, 256, detail::kClipWidth}, device);
  const KernelArg at = f64(value);

  // Chunks of cells (each walks its cells in order, so no per-cell counts are kept).
  const std::int64_t chunk = detail::cell_chunk(device, n_cells);
  const std::int64_t chunks = std::max<std::int64_t>(1, (n_cells + chunk - 1) / chunk);
  Array cell_at = zeros({chunks}, kI64, device), point_at = zeros({chunks}, kI64, device),
        crossing_at = zeros({chunks}, kI64, device), centroid_at = zeros({chunks}, kI64, device),
        edge_at = zeros({chunks}, kI64, device);
  Array used = zeros({n_points}, kU8, device), state = empty({n_cells}, kU8, device);
  // A grid without NaN numbers its crossings itself: crossed[p] its edges from p crossed, first[p]
  // the number of its first crossing (by point, then axis: the merge's order), n_grid of them.
  std::optional<Array> crossed, first;
  std::int64_t n_grid = 0;
  if (n_cells > 0 && ds.is_structured()) {
    // On a grid the used points are the kept ones, unless a NaN drops cells: then the cells
    // mark them, as on explicit kinds.
    const Dims& d = ds.dims();
    crossed = empty({n_points}, kU8, device);
    Array counts = empty({n_points}, kU8, device), nan = empty({d[1] * d[2]}, kU8, device);
    algorithms::cached_kernel(text, "ds_clip_grid_points")(s, at, side, d[0], d[1], d[2], used,
                                                           *crossed, counts, nan);
    if (tack::max(nan).as_double() == 0.0) {
      first = exclusive_scan(counts, "add", kI64);
      n_grid = last_of(*first) + counts.slice(n_points - 1, n_points).to_vector<std::uint8_t>()[0];
    } else {
      crossed.reset();
      used = zeros({n_points}, kU8, device);
    }
  }
  if (n_cells > 0) {
    // Explicit kinds (and grids with a NaN) read a byte per point and mark the used points.
    std::optional<Array> flags;
    if (!crossed) {
      flags = empty({n_points}, kU8, device);
      algorithms::cached_kernel(text, "ds_clip_flags")(s, at, side, *flags);
    }
    const std::int64_t mark = crossed ? 0 : 1, grid = crossed ? 1 : 0;
    detail::launch(algorithms::cached_kernel(text, "ds_clip_count"), g,
                   {s,       at,       side,        corners,     cases,
                    offs_a,  chunk,    n_cells,     cx,          cy,
                    nx,      ny,       mark,        grid,        flags ? *flags : used,
                    cell_at, point_at, crossing_at, centroid_at, edge_at,
                    used,    state});
  }
  const std::int64_t n_out = detail::scan_total(cell_at), n_conn = detail::scan_total(point_at),
                     n_cross = detail::scan_total(crossing_at),
                     n_centroids = detail::scan_total(centroid_at),
                     n_edges = detail::scan_total(edge_at);
  // The kept points' numbers, in the input's order.
  // Point ids and offsets as i32 where every one fits (half the bytes to write), else i64.
  const std::int64_t most = std::max(n_points + n_centroids + n_edges + n_grid, n_conn);
  const DType ids = most < (std::int64_t{1} << 31) ? DType(ScalarType::i32) : kI64;
  const Array number = exclusive_scan(used, "add", ids);
  const std::int64_t n_kept =
      n_points > 0
          ? last_of(number) + used.slice(n_points - 1, n_points).to_vector<std::uint8_t>()[0]
          : 0;
  // Each centroid blends up to two points per label (a crossing: its edge's ends).
  const std::int64_t blend = 2 * detail::kClipLongestCentroid;
  const bool sourced = !ds.cell_data().items().empty();
  Array types = empty({n_out}, kU8, device), offsets = empty({n_out + 1}, ids, device),
        conn = empty({n_conn}, ids, device), positions = empty({n_cross}, kI64, device),
        lows = empty({n_edges}, kI64, device), highs = empty({n_edges}, kI64, device),
        source = empty({sourced ? n_out : 0}, kI64, device),
        blend_ids = empty({n_centroids, blend}, kI64, device),
        blend_weights = empty({n_centroids, blend}, DType(ScalarType::f64), device);
  if (n_out > 0) {
    // a grid's crossings are numbered at once: by its crossed edges and their first numbers
    const std::int64_t grid = crossed ? 1 : 0, cross0 = n_kept + n_centroids;
    const Array& crossed_a = crossed ? *crossed : used;
    const Array& first_a = first ? *first : number;
    detail::launch(algorithms::cached_kernel(text, "ds_clip_write"), g,
                   {s,           at,        side,
                    corners,     cases,     edges,
                    offs_a,      chunk,     n_cells,
                    cx,          cy,        nx,
                    ny,          grid,      crossed_a,
                    first_a,     cross0,    state,
                    cell_at,     point_at,  crossing_at,
                    centroid_at, edge_at,   n_out,
                    number,      n_kept,    types,
                    offsets,     conn,      positions,
                    lows,        highs,     std::int64_t{sourced ? 1 : 0},
                    source,      blend_ids, blend_weights});
  } else {
    offsets = zeros({1}, ids, device);
  }
  // The crossings, one point per edge, numbered after the kept points and the centroids.
  auto numbered = [&]() {
    if (!crossed) {
      return detail::merge_crossings(s, array(std::vector<double>{value}, {1}, device), lows, highs,
                                     np, true);
    }
    detail::Crossings r{empty({n_grid, 2}, kI64, device),
                        empty({n_grid}, DType(ScalarType::f64), device), empty({0}, kI64, device)};
    if (n_grid > 0) {
      algorithms::cached_kernel(text, "ds_clip_grid_crossings")(s, at, ds.dims()[0], ds.dims()[1],
                                                                *crossed, *first, r.ends, r.frac);
    }
    return r;
  };
  const detail::Crossings crossings = numbered();
  if (n_cross > 0 && !crossed) {
    algorithms::cached_kernel(kClipFields, "ds_clip_number")(conn, positions, crossings.index,
                                                             n_kept + n_centroids);
  }
  // Points: the kept ones, the centroids, the crossings.
  const std::int64_t n_total = n_kept + n_centroids + crossings.frac.size();
  const DType point_type = detail::points_of(ds, empty({0}, kI64, device)).dtype();
  Array points = empty({n_total, 3}, point_type, device);
  const Array kept_rows = points.slice(0, n_kept),
              centroid_rows = points.slice(n_kept, n_kept + n_centroids),
              crossing_rows = points.slice(n_kept + n_centroids, n_total);
  if (n_kept > 0) {
    detail::launch(algorithms::cached_kernel(text, "ds_clip_place_kept"), g,
                   {used, number, nx, ny, kept_rows});
  }
  if (n_centroids > 0) {
    detail::launch(algorithms::cached_kernel(text, "ds_clip_blend_points"), g,
                   {blend_ids, blend_weights, centroid_rows});
  }
  detail::place_crossings(g, crossings.ends, crossings.frac, crossing_rows);
  DataSet r = detail::trusted_explicit(Kind::Unstructured, points, offsets, conn, types);
  for (const auto& [name, a] : ds.point_data().items()) {
    Shape shape = a.shape();
    shape[0] = n_total;
    Array out = empty(shape, detail::interpolated_dtype(a), device);
    const Array src = detail::as_rows(a, name);
    const std::int64_t nc = detail::components(a);
    if (n_kept > 0) {
      algorithms::cached_kernel(kClipFields, "ds_clip_field_kept")(
          used, number, src, detail::as_rows(out.slice(0, n_kept), name), nc);
    }
    if (n_centroids > 0) {
      algorithms::cached_kernel(kClipFields, "ds_clip_blend_field")(
          blend_ids, blend_weights, src,
          detail::as_rows(out.slice(n_kept, n_kept + n_centroids), name), nc);
    }
    detail::interpolate_crossings(crossings.ends, crossings.frac, a, name,
                                  out.slice(n_kept + n_centroids, n_total));
    r.point_data().set(name, out);
  }
  for (const auto& [name, a] : ds.cell_data().items()) r.cell_data().set(name, gather(a, source));
  return r;
}

}  // namespace

DataSet clip(const DataSet& ds, const std::string& field, double value, bool invert) {
  return clip_values(
      ds, detail::scalar_point_field(ds, field, "clip", ", or keep whole cells with threshold"),
      value, invert);
}

DataSet clip(const DataSet& ds, const ImplicitFunction& f, double value, bool invert) {
  return clip_values(ds, evaluate(f, ds), value, invert);
}

DataSet clip_box(const DataSet& ds, const std::array<double, 6>& bounds, bool invert) {
  // vtkBox is negative inside: the inside is the side below 0
  return clip(ds, ImplicitFunction::box(bounds), 0.0, !invert);
}

}  // namespace tack::dataset
