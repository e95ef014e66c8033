// contour: isosurfaces and isolines of a point field by marching cells (docs/design/contour.md).
// Per value and cell a case from the corners at or above the value, the case's triangles
// (3-D cells) or segments (2-D cells) from the generated tables (dataset/contour_tables.hpp),
// counted, numbered by an exclusive scan (so the output is in value order, then cell order, on
// every device and thread count) and written as the crossings of edges (value, lower point,
// higher point); the distinct crossings, in that order, are the output points (each edge's
// crossing made once, from its lower point id to its higher). Grids of 3-D cells take flying
// edges, which makes the same output without merging anything.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/kernel_text.hpp"
#include "dataset/cells.hpp"
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

// What a cell type's contour makes: 0 vertices (1-D cells, and vertices at the value), 1
// segments (2-D cells), 2 triangles (3-D cells).
std::vector<std::int64_t> categories() {
  std::vector<std::int64_t> c(15, 0);
  for (int t : {5, 6, 7, 8, 9}) c[t] = 1;
  for (int t = 10; t <= 14; ++t) c[t] = 2;
  return c;
}

const char* const kContour = R"(
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

# counts[v * n_cells + c]: the items (vertices, segments or triangles, as `cat`) of cell c for
# value v (over tack.ndrange: no division per cell).
def ds_contour_count({G}, s, values, kinds, corners, cases, cat, counts):
    n_cells = len(counts) // len(values)
    for v, c in tack.ndrange(len(values), n_cells):
        i = v * n_cells + c
        t = ds_cell_type({G}, c)
        n = tack.i64(0)
        if kinds[t] == cat and t == 7:
            n += ds_polygon_runs({G}, s, c, values[v])
        elif kinds[t] == cat:
            pt = ds_piece_type(t)
            for j in range(ds_piece_count(t, ds_cell_size({G}, c))):
                k = ds_contour_case({G}, s, corners, c, t, j, values[v])
                if k >= 0:
                    n += cases[pt, k, 0]
        counts[i] = n

# The crossing of edge (pa, pb) for value v as (v * np + lo, hi): (lo, hi) its points in
# increasing order, or the corner itself (lo == hi) when the crossing is at a corner. Sorted by
# that pair, the crossings come by value, then lower point, then higher.
@tack.func
def ds_edge_ends(s, v, value, pa, pb, np):
    lo = min(pa, pb)
    hi = max(pa, pb)
    if tack.f64(s[pa]) == value:
        lo = pa
        hi = pa
    elif tack.f64(s[pb]) == value:
        lo = pb
        hi = pb
    return (tack.i64(v) * np + lo, hi)

# counts as ds_contour_count's for a dataset of one cell type t (n corners) that has a table.
def ds_contour_count_one({G}, s, values, cases, t, n, counts):
    n_cells = len(counts) // len(values)
    for v, c in tack.ndrange(len(values), n_cells):
        value = values[v]
        case = tack.i64(0)
        nan = False
        for k in range(n):
            x = tack.f64(s[ds_cell_point({G}, c, k)])
            if x != x:
                nan = True
            elif x >= value:
                case |= tack.i64(1) << k
        counts[v * n_cells + c] = 0 if nan else cases[t, case, 0]

# One value on an explicit dataset of one cell type t (n corners): a byte per point (1 at or
# above the value, 2 NaN), then each cell's case from its points' bytes (four bytes read per
# tetrahedron instead of four f64), its points at conn[c * n + k].
def ds_contour_above(s, value, above):
    for p in range(len(above)):
        v = tack.f64(s[p])
        above[p] = 2 if v != v else (1 if v >= value else 0)

def ds_contour_count_bytes({G}, above, cases, t, n, counts):
    for c in range(len(counts)):
        case = tack.i64(0)
        nan = 0
        for k in range(n):
            a = above[g_conn[tack.i64(c) * n + k]]
            case |= tack.i64(a & 1) << k
            nan |= a >> 1
        counts[c] = 0 if nan != 0 else cases[t, case, 0]

# Each item's vertices as the crossings of the edges they cross, and the item's cell.
def ds_contour_write({G}, s, values, kinds, corners, cases, edges, cat, at, total, np, lows, highs, source):
    n_cells = len(at) // len(values)
    for v, c in tack.ndrange(len(values), n_cells):
        i = v * n_cells + c
        # cells without items (most) are known from the scan: their points are not read
        if (at[i + 1] if i + 1 < len(at) else total) > at[i] and kinds[ds_cell_type({G}, c)] == cat:
            t = ds_cell_type({G}, c)
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
                        l0, h0 = ds_edge_ends(s, v, value, tack.i64(ds_cell_point({G}, c, (b + n - 1) % n)), tack.i64(ds_cell_point({G}, c, b)), np)
                        l1, h1 = ds_edge_ends(s, v, value, tack.i64(ds_cell_point({G}, c, (m - 1) % n)), tack.i64(ds_cell_point({G}, c, m % n)), np)
                        lows[2 * item] = l0
                        highs[2 * item] = h0
                        lows[2 * item + 1] = l1
                        highs[2 * item + 1] = h1
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
                            lw, hg = ds_edge_ends(s, v, value, pa, pb, np)
                            lows[item * w + r] = lw
                            highs[item * w + r] = hg
                        item += 1

# Normals: minus the interpolated gradient, unit length (zero where the gradient is).
def ds_contour_normals(ends, frac, grad, out):
    for i in range(len(frac)):
        lo = ends[i, 0]
        hi = ends[i, 1]
        t = frac[i]
        gx = tack.f64(grad[lo, 0]) + t * (tack.f64(grad[hi, 0]) - tack.f64(grad[lo, 0]))
        gy = tack.f64(grad[lo, 1]) + t * (tack.f64(grad[hi, 1]) - tack.f64(grad[lo, 1]))
        gz = tack.f64(grad[lo, 2]) + t * (tack.f64(grad[hi, 2]) - tack.f64(grad[lo, 2]))
        ln = math.sqrt(gx * gx + gy * gy + gz * gz)
        inv = -1.0 / ln if ln > 0.0 else 0.0
        out[i, 0] = gx * inv
        out[i, 1] = gy * inv
        out[i, 2] = gz * inv

# Whether item q (w points) names a point twice: a crossing at a corner that several of its
# edges share.
@tack.func
def ds_names_twice(conn, w, q):
    a = conn[q * w]
    b = conn[q * w + 1]
    same = a == b
    if w == 3:
        e = conn[q * w + 2]
        same = same or a == e or b == e
    return same

def ds_contour_degenerate(conn, w):
    bad = tack.i64(0)
    for q in range(len(conn) // w):
        bad += ds_names_twice(conn, w, q)
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
        keep[q] = 0 if ds_names_twice(conn, w, q) else 1
)";

// Flying edges (Schroeder, Maynard and Geveci, 2015) on grids of 3-D cells, one value at a
// time: every grid point owns the edges to its +x, +y and +z neighbours, so a row of points
// (j, l) owns its points' crossings; a first pass counts each row's crossings and the triangles
// of its row of cells, scans give each row its first point and triangle, and a second pass walks
// each row again writing its points (edge, fraction, place) and its cells' triangles, naming a
// crossing by the running count of crossings along the row that owns it. No point is made twice
// and nothing is sorted; the numbering is the cell path's (points by owner, then x, y, z).
const char* const kFlyingEdges = R"(
# Per row of points r = (j, l): flags[p] of its points (bit 0 point p at or above the value,
# bits 1, 2, 3 its +x, +y, +z edges crossed) and [first[r], last[r]), the points that own a
# crossing (empty: first = nx, last = 0). The kernel's value: the points at the value exactly or
# NaN (then the cell path runs instead).
def ds_fe_classify(s, value, nx, ny, nz, flags, first, last):
    bad = tack.i64(0)
    for r in range(len(first)):
        j = r % ny
        l = r // ny
        r00 = tack.i64(nx) * r
        nxy = tack.i64(nx) * ny
        ly = j < ny - 1
        lz = l < nz - 1
        odd = tack.i64(0)
        for i in range(nx):
            p = r00 + i
            v = tack.f64(s[p])
            a = 1 if v >= value else 0
            xb = 0
            if i + 1 < nx:
                xb = a ^ (1 if tack.f64(s[p + 1]) >= value else 0)
            yb = 0
            if ly:
                yb = a ^ (1 if tack.f64(s[p + nx]) >= value else 0)
            zb = 0
            if lz:
                zb = a ^ (1 if tack.f64(s[p + nxy]) >= value else 0)
            flags[p] = a | (xb << 1) | (yb << 2) | (zb << 3)
            odd += v != v or v == value
        lo = tack.i64(nx)
        hi = tack.i64(0)
        for i in range(nx):
            if flags[r00 + i] > 1:
                lo = min(lo, tack.i64(i))
                hi = tack.i64(i) + 1
        first[r] = lo
        last[r] = hi
        bad += odd
    return bad

# A plane (through a with normal b) across an image, per row of points r = (j, l): only the
# points near the plane are looked at. Along a row the plane's value is c + m i, the same slope
# m on every row; where the rows two round this one (itself included: the rows whose crossings
# decide which of this row's flags the count and write passes read) do not all have one sign
# (between -max c / m and -min c / m, two points more each way) its points get the plane's value
# (evaluate's formula) in s, their flags and first/last as ds_fe_classify's. The kernel's value
# counts the points at 0 exactly (the cell path's then).
@tack.func
def ds_fe_plane({G}, a0, a1, a2, b0, b1, b2, i, j, l):
    x, y, z = ds_point_ijk({G}, i, j, l, 0)
    dx = x - a0
    dy = y - a1
    dz = z - a2
    return b0 * dx + b1 * dy + b2 * dz

def ds_fe_plane_classify({G}, a0, a1, a2, b0, b1, b2, nx, ny, nz, s, flags, first, last):
    bad = tack.i64(0)
    for r in range(len(first)):
        j = r % ny
        l = r // ny
        cmin = 1.0e308
        cmax = -1.0e308
        # (the value is affine in y and z: its extremes are at the corners of those rows)
        for d in range(4):
            jj = min(max(j + 4 * (d % 2) - 2, 0), ny - 1)
            ll = min(max(l + 4 * (d // 2) - 2, 0), nz - 1)
            c = ds_fe_plane({G}, a0, a1, a2, b0, b1, b2, 0, jj, ll)
            cmin = min(cmin, c)
            cmax = max(cmax, c)
        m = ds_fe_plane({G}, a0, a1, a2, b0, b1, b2, 1, j, l) - ds_fe_plane({G}, a0, a1, a2, b0, b1, b2, 0, j, l)
        lo = tack.i64(0)
        hi = tack.i64(0)
        if m == 0.0:
            if cmin <= 0.0 and cmax >= 0.0:
                hi = tack.i64(nx)
        else:
            t1 = -cmax / m
            t2 = -cmin / m
            lo = max(tack.i64(math.floor(min(t1, t2))) - 2, tack.i64(0))
            hi = min(tack.i64(math.ceil(max(t1, t2))) + 3, tack.i64(nx))
            lo = min(lo, hi)
        r00 = tack.i64(nx) * r
        fst = tack.i64(nx)
        lst = tack.i64(0)
        for i in range(lo, hi):
            p = r00 + i
            v = ds_fe_plane({G}, a0, a1, a2, b0, b1, b2, i, j, l)
            s[p] = v
            a = 1 if v >= 0.0 else 0
            xb = 0
            if i + 1 < nx:
                xb = a ^ (1 if ds_fe_plane({G}, a0, a1, a2, b0, b1, b2, i + 1, j, l) >= 0.0 else 0)
            yb = 0
            if j < ny - 1:
                yb = a ^ (1 if ds_fe_plane({G}, a0, a1, a2, b0, b1, b2, i, j + 1, l) >= 0.0 else 0)
            zb = 0
            if l < nz - 1:
                zb = a ^ (1 if ds_fe_plane({G}, a0, a1, a2, b0, b1, b2, i, j, l + 1) >= 0.0 else 0)
            f = a | (xb << 1) | (yb << 2) | (zb << 3)
            flags[p] = f
            bad += v == 0.0 or v != v
            if f > 1:
                fst = min(fst, tack.i64(i))
                lst = tack.i64(i) + 1
        first[r] = fst
        last[r] = lst
    return bad

@tack.func
def ds_fe_owned(f):
    return ((f >> 1) & 1) + ((f >> 2) & 1) + ((f >> 3) & 1)

# The above-bits of point i of the four rows round a row of cells, bit dj + 2 dl.
@tack.func
def ds_fe_column(flags, r00, r10, r01, r11, i):
    return (flags[r00 + i] & 1) | ((flags[r10 + i] & 1) << 1) | ((flags[r01 + i] & 1) << 2) | ((flags[r11 + i] & 1) << 3)

# The case of the cell between columns a (at i) and b (at i + 1): a voxel's corner di + 2 dj +
# 4 dl, then the cell type's corner order (remap).
@tack.func
def ds_fe_case(remap, t, a, b):
    lo = (a & 1) | ((a & 2) << 1) | ((a & 4) << 2) | ((a & 8) << 3)
    hi = (b & 1) | ((b & 2) << 1) | ((b & 4) << 2) | ((b & 8) << 3)
    return remap[t, lo | (hi << 1)]

# The cells of row r whose edges may cross: those next to a point that owns a crossing in one of
# the four rows round them (no other cell has a crossed edge).
@tack.func
def ds_fe_cells(first, last, nx, ny, j, l):
    c0 = tack.i64(nx)
    c1 = tack.i64(0)
    for d in range(4):
        q = (j + d % 2) + ny * (l + d // 2)
        c0 = min(c0, first[q])
        c1 = max(c1, last[q])
    return (max(c0 - 1, 0), min(c1, tack.i64(nx) - 1))

def ds_fe_count(flags, first, last, cases, remap, t, nx, ny, nz, points, triangles):
    for r in range(len(points)):
        j = r % ny
        l = r // ny
        r00 = tack.i64(nx) * r
        n = tack.i64(0)
        for i in range(first[r], last[r]):
            n += ds_fe_owned(flags[r00 + i])
        points[r] = n
        m = tack.i64(0)
        if j < ny - 1 and l < nz - 1:
            i0, i1 = ds_fe_cells(first, last, nx, ny, j, l)
            r10 = r00 + nx
            r01 = r00 + tack.i64(nx) * ny
            r11 = r01 + nx
            a = ds_fe_column(flags, r00, r10, r01, r11, i0)
            for i in range(i0, i1):
                b = ds_fe_column(flags, r00, r10, r01, r11, i + 1)
                if a != b or (a != 0 and a != 15):
                    m += cases[t, ds_fe_case(remap, t, a, b), 0]
                a = b
        triangles[r] = m

def ds_fe_write({G}, s, value, flags, first, last, cases, remap, info, t, nx, ny, nz, point_at, tri_at, ends, frac, pts, conn, source):
    for r in range(len(point_at)):
        j = r % ny
        l = r // ny
        nxy = tack.i64(nx) * ny
        r00 = tack.i64(nx) * r
        # the row's own points, in order: their edges, fractions and places
        q = point_at[r]
        for i in range(first[r], last[r]):
            p = r00 + i
            f = flags[p]
            if f > 1:
                sa = tack.f64(s[p])
                x0, y0, z0 = ds_point_ijk({G}, i, j, l, p)
                for along in range(3):
                    if ((f >> (along + 1)) & 1) != 0:
                        di = 1 if along == 0 else 0
                        dj = 1 if along == 1 else 0
                        dl = 1 if along == 2 else 0
                        p1 = p + di + dj * tack.i64(nx) + dl * nxy
                        x1, y1, z1 = ds_point_ijk({G}, i + di, j + dj, l + dl, p1)
                        u = (value - sa) / (tack.f64(s[p1]) - sa)
                        ends[q, 0] = p
                        ends[q, 1] = p1
                        frac[q] = u
                        pts[q, 0] = x0 + u * (x1 - x0)
                        pts[q, 1] = y0 + u * (y1 - y0)
                        pts[q, 2] = z0 + u * (z1 - z0)
                        q += 1
        if j < ny - 1 and l < nz - 1:
            i0, i1 = ds_fe_cells(first, last, nx, ny, j, l)
            # rw, bw (w = dj + 2 dl): the first point of row (j + dj, l + dl) and the first
            # crossing of its point i (none of its points before i0 owns one); scalars, not a
            # local array, so they stay in registers
            r10 = r00 + nx
            r01 = r00 + nxy
            r11 = r01 + nx
            b0 = point_at[r]
            b1 = point_at[r + 1]
            b2 = point_at[r + ny]
            b3 = point_at[r + ny + 1]
            at = tri_at[r]
            a = ds_fe_column(flags, r00, r10, r01, r11, i0)
            for i in range(i0, i1):
                b = ds_fe_column(flags, r00, r10, r01, r11, i + 1)
                if a != b or (a != 0 and a != 15):
                    case = ds_fe_case(remap, t, a, b)
                    n = cases[t, case, 0]
                    for q3 in range(3 * n):
                        e = cases[t, case, 1 + q3]
                        w = info[t, e, 1] + 2 * info[t, e, 2]
                        rw = r00
                        id = b0
                        if w == 1:
                            rw = r10
                            id = b1
                        elif w == 2:
                            rw = r01
                            id = b2
                        elif w == 3:
                            rw = r11
                            id = b3
                        f = flags[rw + i + info[t, e, 0]]
                        if info[t, e, 0] != 0:
                            id += ds_fe_owned(flags[rw + i])
                        axis = info[t, e, 3]
                        if axis >= 1:
                            id += (f >> 1) & 1
                        if axis == 2:
                            id += (f >> 2) & 1
                        conn[3 * at + q3] = id
                    for q3 in range(n):
                        source[at + q3] = i + (nx - 1) * (j + (ny - 1) * tack.i64(l))
                    at += n
                b0 += ds_fe_owned(flags[r00 + i])
                b1 += ds_fe_owned(flags[r10 + i])
                b2 += ds_fe_owned(flags[r01 + i])
                b3 += ds_fe_owned(flags[r11 + i])
                a = b
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

// What a contour pass leaves: each output point's key, the items' connectivity and their
// cells.
struct Pieces {
  Array ends, frac, points, conn, source;
  std::int64_t triangles = 0;
};

// Flying edges over a grid of 3-D cells (every dims > 1), or nothing where it does not apply:
// a NaN or a point exactly at a value (whose crossings the cell path merges into the corner)
// leaves the grid to the cell path, which gives the same output otherwise.
std::optional<Pieces> flying_edges(const DataSet& ds, const Prelude& g, const Array& s,
                                   const Array& values, const Array& cases,
                                   const ImplicitFunction* plane) {
  if (!ds.is_structured()) return std::nullopt;
  const Dims& d = ds.dims();
  if (d[0] < 2 || d[1] < 2 || d[2] < 2) return std::nullopt;
  const Device& device = ds.device();
  // For each edge of the voxel's (11) and hexahedron's (12) tables, the owning corner's offsets
  // and the edge's axis; and each voxel-order case as the type's case (remap).
  const int hex[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                         {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
  std::vector<std::int64_t> info(15 * 12 * 4, 0), remap(15 * 256, 0);
  for (int t : {11, 12}) {
    auto offset = [&](int k, int a) { return t == 11 ? (k >> a) & 1 : hex[k][a]; };
    for (int e = 0; e < 12; ++e) {
      const int a = detail::kContourEdges[t][e][0], b = detail::kContourEdges[t][e][1];
      int axis = 0;
      for (int x = 0; x < 3; ++x)
        if (offset(a, x) != offset(b, x)) axis = x;
      const int low = offset(a, axis) < offset(b, axis) ? a : b;
      for (int x = 0; x < 3; ++x) info[(t * 12 + e) * 4 + x] = offset(low, x);
      info[(t * 12 + e) * 4 + 3] = axis;
    }
    for (int c = 0; c < 256; ++c) {
      int out = 0;
      for (int k = 0; k < 8; ++k)
        if ((c >> (offset(k, 0) + 2 * offset(k, 1) + 4 * offset(k, 2))) & 1) out |= 1 << k;
      remap[t * 256 + c] = out;
    }
  }
  const Array info_a = array(info, {15, 12, 4}, device);
  const Array remap_a = array(remap, {15, 256}, device);
  const std::int64_t t = ds.kind() == Kind::Structured ? 12 : 11;
  const std::int64_t rows = d[1] * d[2];
  const std::string text = g.source(kFlyingEdges);
  const Kernel& classify = algorithms::cached_kernel(text, "ds_fe_classify");
  const Kernel& count = algorithms::cached_kernel(text, "ds_fe_count");
  const Kernel& write = algorithms::cached_kernel(text, "ds_fe_write");
  const std::vector<double> host_values = values.to_vector<double>();
  std::vector<Array> ends, frac, points, conn, source;
  std::int64_t n_points = 0, n_tris = 0;
  Array flags = empty({ds.n_points()}, kU8, device);
  Array first = empty({rows}, kI64, device), last = empty({rows}, kI64, device);
  for (std::int64_t v = 0; v < values.size(); ++v) {
    const KernelArg value = f64(host_values[static_cast<std::size_t>(v)]);
    const auto bad =
        plane ? detail::launch(
                    algorithms::cached_kernel(text, "ds_fe_plane_classify"), g,
                    {f64(plane->a[0]), f64(plane->a[1]), f64(plane->a[2]), f64(plane->b[0]),
                     f64(plane->b[1]), f64(plane->b[2]), d[0], d[1], d[2], s, flags, first, last})
              : classify(s, value, d[0], d[1], d[2], flags, first, last);
    if (!bad || bad->value.i != 0) return std::nullopt;
    Array point_at = empty({rows}, kI64, device), tri_at = empty({rows}, kI64, device);
    count(flags, first, last, cases, remap_a, t, d[0], d[1], d[2], point_at, tri_at);
    const std::int64_t np_v = detail::scan_total(point_at), nt_v = detail::scan_total(tri_at);
    if (nt_v == 0 && np_v == 0) continue;
    Array e = empty({np_v, 2}, kI64, device), u = empty({np_v}, DType(ScalarType::f64), device),
          pts = empty({np_v, 3}, points_dtype(ds), device), c = empty({3 * nt_v}, kI64, device),
          src = empty({nt_v}, kI64, device);
    detail::launch(write, g,
                   {s, value, flags, first, last, cases, remap_a, info_a, t, d[0], d[1], d[2],
                    point_at, tri_at, e, u, pts, c, src});
    if (n_points > 0) {
      // this value's ids follow the earlier values' points
      algorithms::cached_kernel(R"(
def ds_fe_shift(conn, by):
    for q in range(len(conn)):
        conn[q] += by
)",
                                "ds_fe_shift")(c, n_points);
    }
    ends.push_back(e);
    frac.push_back(u);
    points.push_back(pts);
    conn.push_back(c);
    source.push_back(src);
    n_points += np_v;
    n_tris += nt_v;
  }
  auto joined = [&](const std::vector<Array>& parts) {
    if (parts.empty()) return empty({0}, kI64, device);
    return parts.size() == 1 ? parts[0] : concat(parts);
  };
  if (n_points == 0)
    return Pieces{empty({0, 2}, kI64, device),
                  empty({0}, DType(ScalarType::f64), device),
                  empty({0, 3}, points_dtype(ds), device),
                  joined(conn),
                  joined(source),
                  0};
  return Pieces{joined(ends), joined(frac), joined(points), joined(conn), joined(source), n_tris};
}

}  // namespace

namespace {

// contour, or with `plane` (an image's slice, `field` the plane's values where it has written
// them) its flying edges over the points near the plane only; nothing when that finds a point on
// the plane (then the caller evaluates the plane everywhere and contours).
std::optional<DataSet> contour_impl(const DataSet& ds, const std::string& field,
                                    const std::vector<double>& values,
                                    const ContourOptions& options, const ImplicitFunction* plane) {
  const Array s = detail::scalar_point_field(ds, field, "contour", "");
  const Array scalars = ds.point_data().at(field);
  if (values.empty()) {
    throw ValueError("tack.dataset.contour: no contour values; pass one value or a list of them");
  }
  const Device& device = ds.device();
  const Prelude g(ds);
  const std::string text = g.source(std::string(detail::kPieces) + kContour);
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
  // The corners of each type that has a table (the pieces' types included).
  const std::vector<std::int64_t> corner_count{0, 1, 0, 2, 0, 3, 0, 0, 4, 4, 4, 8, 8, 6, 5};
  const Array corners = array(corner_count, {15}, device);
  const std::int8_t* e0 = &detail::kContourEdges[0][0][0];
  const Array edges = array(std::vector<std::int8_t>(e0, e0 + 15 * 12 * 2), {15, 12, 2}, device);
  const std::int8_t* c0 = &detail::kContourCases[0][0][0];
  const Array cases = array(std::vector<std::int8_t>(c0, c0 + 15 * 256 * detail::kContourWidth),
                            {15, 256, detail::kContourWidth}, device);
  // The categories present: a grid's from its dimension, explicit kinds' from their types; and
  // the one cell type with a table when there is one alone.
  bool present[3] = {false, false, false};
  std::int64_t one_type = 0;
  if (ds.is_structured()) {
    const Dims& d = ds.dims();
    const int dimension = (d[0] > 1) + (d[1] > 1) + (d[2] > 1);
    if (dimension > 0) present[dimension - 1] = true;
  } else {
    const std::int64_t mask = detail::types_present(ds.types());
    const std::vector<std::int64_t> category = categories();
    for (int t = 1; t < 15; ++t)
      if ((mask >> t) & 1) present[category[t]] = true;
    for (int t : {5, 8, 9, 10, 11, 12, 13, 14})
      if (mask == (std::int64_t{1} << t)) one_type = t;
  }

  std::int64_t items[3] = {0, 0, 0};
  // Each output point's edge and fraction along it (and its place, from flying edges).
  Array ends = empty({0, 2}, kI64, device), frac = empty({0}, DType(ScalarType::f64), device),
        conn = empty({0}, kI64, device), source = empty({0}, kI64, device);
  std::optional<Array> placed;
  auto fe = flying_edges(ds, g, s, value_array, cases, plane);
  if (plane && !fe) return std::nullopt;
  if (fe) {
    // Every point made once by the row that owns its edge: nothing to merge or drop.
    items[2] = fe->triangles;
    ends = fe->ends;
    frac = fe->frac;
    placed = fe->points;
    conn = fe->conn;
    source = fe->source;
    if (!options.merge_points && conn.size() > 0) {
      ends = gather(ends, conn);
      frac = gather(frac, conn);
      placed = gather(*placed, conn);
      conn = arange(conn.size(), kI64, device);
    }
  } else {
    // Per category (poly data's order: vertices, segments, triangles): count each (value, cell),
    // number the items by an exclusive scan, write each item's vertices as edge crossings.
    const Kernel& count = algorithms::cached_kernel(text, "ds_contour_count");
    const Kernel& write = algorithms::cached_kernel(text, "ds_contour_write");
    std::vector<Array> lows_of, highs_of, source_of;
    for (std::int64_t cat = 0; cat < 3; ++cat) {
      if (!present[cat] || n_cells == 0) continue;
      // i32 counts where every item's vertex index fits one: half the bytes to scan and read
      const bool narrow =
          n_values * n_cells * detail::kContourMaxItems * 3 < (std::int64_t{1} << 31);
      Array at = empty({n_values * n_cells}, narrow ? DType(ScalarType::i32) : kI64, device);
      if (one_type > 0 && categories()[static_cast<std::size_t>(one_type)] == cat &&
          n_values == 1 && !ds.is_structured()) {
        // one value, one cell type: the points' bytes
        Array above = empty({ds.n_points()}, kU8, device);
        algorithms::cached_kernel(text, "ds_contour_above")(s, f64(values[0]), above);
        detail::launch(
            algorithms::cached_kernel(text, "ds_contour_count_bytes"), g,
            {above, cases, one_type, corner_count[static_cast<std::size_t>(one_type)], at});
      } else if (one_type > 0 && categories()[static_cast<std::size_t>(one_type)] == cat) {
        // one cell type with a table: no type, piece or category per cell
        detail::launch(algorithms::cached_kernel(text, "ds_contour_count_one"), g,
                       {s, value_array, cases, one_type,
                        corner_count[static_cast<std::size_t>(one_type)], at});
      } else {
        detail::launch(count, g, {s, value_array, kinds, corners, cases, cat, at});
      }
      const std::int64_t n = detail::scan_total(at);
      items[cat] = n;
      if (n == 0) continue;
      Array lows = empty({n * (cat + 1)}, kI64, device),
            highs = empty({n * (cat + 1)}, kI64, device), source = empty({n}, kI64, device);
      detail::launch(
          write, g,
          {s, value_array, kinds, corners, cases, edges, cat, at, n, np, lows, highs, source});
      lows_of.push_back(lows);
      highs_of.push_back(highs);
      source_of.push_back(source);
    }
    auto joined = [&](const std::vector<Array>& parts) {
      if (parts.empty()) return empty({0}, kI64, device);
      return parts.size() == 1 ? parts[0] : concat(parts);
    };
    const Array lows = joined(lows_of), highs = joined(highs_of);
    source = joined(source_of);
    const std::int64_t n_vertices = lows.size();
    // The output points: one per distinct crossing (sorted: value, lower point, higher point), the
    // connectivity their numbers; without merging, one per item vertex.
    const bool merge = options.merge_points && n_vertices > 0;
    const detail::Crossings crossings =
        detail::merge_crossings(s, value_array, lows, highs, np, options.merge_points);
    ends = crossings.ends;
    frac = crossings.frac;
    conn = crossings.index;
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
        Array used = zeros({frac.size()}, kU8, device);
        algorithms::cached_kernel(text, "ds_contour_mark")(conn, used);
        const Array number = exclusive_scan(used, "add", kI64);
        ends = compress(used, ends, 0);
        frac = compress(used, frac);
        conn = gather(number, conn);
      }
    }
  }
  const std::int64_t n_points = frac.size();
  // Offsets and types: vertices (1), segments (3), triangles (5).
  const std::int64_t n_out = items[0] + items[1] + items[2];
  Array offsets = zeros({n_out + 1}, kI64, device), types = empty({n_out}, kU8, device);
  algorithms::cached_kernel(text, "ds_contour_layout")(items[0], items[1], offsets, types);
  // Points and fields, interpolated along each point's edge.
  const Array points =
      placed ? *placed : detail::crossing_points(g, ends, frac, points_dtype(ds), device);
  DataSet r = detail::trusted_explicit(Kind::Poly, points, offsets, conn, types);
  auto interpolated = [&](const Array& a, const std::string& name) {
    return detail::crossing_field(ends, frac, a, name);
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
    Array normals = empty({n_points, 3}, DType(ScalarType::f32), device);
    if (n_points > 0)
      algorithms::cached_kernel(text, "ds_contour_normals")(ends, frac, grad, normals);
    r.point_data().set("Normals", normals);
  }
  return r;
}

}  // namespace

DataSet contour(const DataSet& ds, const std::string& field, const std::vector<double>& values,
                const ContourOptions& options) {
  return *contour_impl(ds, field, values, options, nullptr);
}

namespace detail {

std::optional<DataSet> slice_image_by_plane(const DataSet& ds, const std::string& field,
                                            const ImplicitFunction& plane,
                                            const ContourOptions& options) {
  return contour_impl(ds, field, {0.0}, options, &plane);
}

}  // namespace detail

}  // namespace tack::dataset
