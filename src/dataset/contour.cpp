// contour: isosurfaces and isolines of a point field by marching cells (docs/design/contour.md).
// Per value and cell a case from the corners at or above the value, the case's triangles
// (3-D cells) or segments (2-D cells) from the generated tables (dataset/contour_tables.hpp),
// counted, numbered by an exclusive scan (so the output is in value order, then cell order, on
// every device and thread count) and written as the crossings of edges (value, lower point,
// higher point); the distinct crossings, in that order, are the output points (each edge's
// crossing made once, from its lower point id to its higher). Grids of 3-D cells take flying
// edges, which makes the same output without merging anything.
#include <array>
#include <cmath>
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

// One value on an explicit dataset of one cell type {T} ({N} corners, its items {W} vertices
// each; the text is made per type, so the loops over corners and vertices have known lengths): a
// byte per point (1 at or above the value, 2 NaN), then each cell's case from its points' bytes
// (four bytes read per tetrahedron instead of four f64), its points at conn[c * {N} + k]. The
// cells go in chunks (marching.hpp's cell_chunk: on the CPU a few dozen per thread, on GPUs one
// cell each, 64 on an OpenCL CPU device): count keeps
// a bit per cell (it makes items) and a total per chunk, so only the chunks' totals are scanned;
// write visits each chunk's cells with items (the set bits) from the chunk's first item.
const char* const kContourBytes = R"(
def ds_contour_above(s, value, above):
    for p in range(len(above)):
        v = tack.f64(s[p])
        above[p] = 2 if v != v else (1 if v >= value else 0)

@tack.func
def ds_contour_byte_case({G}, above, c):
    case = tack.i64(0)
    nan = 0
    for k in range({N}):
        a = above[g_conn[c * {N} + k]]
        case |= tack.i64(a & 1) << k
        nan |= a >> 1
    return -1 if nan != 0 else case

def ds_contour_count_bytes({G}, above, cases, chunk, n_cells, active, totals):
    for q in range(len(totals)):
        c0 = q * chunk
        c1 = min(c0 + chunk, n_cells)
        m = tack.i64(0)
        for w in range(active.shape[1]):
            bits = tack.u64(0)
            for b in range(min(tack.i64(64), c1 - c0 - 64 * w)):
                case = ds_contour_byte_case({G}, above, c0 + 64 * w + b)
                x = 0 if case < 0 else cases[{T}, case, 0]
                m += x
                bits |= tack.u64(1 if x > 0 else 0) << tack.u64(b)
            active[q, w] = bits
        totals[q] = m

def ds_contour_write_bytes({G}, s, value, above, cases, edges, chunk, active, item_at, np, lows, highs, source):
    for q in range(len(item_at)):
        item = item_at[q]
        for w in range(active.shape[1]):
            bits = active[q, w]
            while bits != 0:
                c = q * chunk + 64 * w + ds_lowest(bits)
                bits &= bits - 1
                case = ds_contour_byte_case({G}, above, c)
                for j in range(cases[{T}, case, 0]):
                    source[item] = c
                    for r in range({W}):
                        e = cases[{T}, case, 1 + j * {W} + r]
                        pa = g_conn[c * {N} + edges[{T}, e, 0]]
                        pb = g_conn[c * {N} + edges[{T}, e, 1]]
                        lw, hg = ds_edge_ends(s, 0, value, tack.i64(pa), tack.i64(pb), np)
                        lows[item * {W} + r] = lw
                        highs[item * {W} + r] = hg
                    item += 1
)";

// Flying edges (Schroeder, Maynard and Geveci, 2015) on grids of 3-D cells, one value at a
// time: every grid point owns the edges to its +x, +y and +z neighbours, so a row of points
// (j, l) owns its points' crossings; a first pass classifies the points, a second counts each
// row's crossings and the triangles of its row of cells, scans give each row its first point and
// triangle, and a third walks each row again writing its points (edge, fraction, place) and its
// cells' triangles. No point is made twice and nothing is sorted; the numbering is the cell
// path's (points by owner, then x, y, z). The passes work on bits: a row's points at or above the
// value are a few 64-bit words (`above`), so a row's crossed edges along x, y and z are three
// words made by a shift and an exclusive or, the cells with a crossed edge one more word, and a
// crossing's number in its row a count of set bits. Only the cells with a crossed edge (a few
// in a hundred) are visited one by one (docs/design/contour.md, "Flying edges on bits").
const char* const kFlyingEdges = R"(
# above[r, w] bit b: point 64 w + b of row r = (j, l) at or above the value; bad[r]: a point of
# the row at the value exactly or NaN (then the cell path runs instead).
def ds_fe_classify(s, value, nx, nw, above, bad):
    for r in range(len(bad)):
        r00 = tack.i64(nx) * r
        odd = 0
        for w in range(nw):
            i0 = 64 * w
            word = tack.u64(0)
            for b in range(min(tack.i64(64), nx - i0)):
                v = tack.f64(s[r00 + i0 + b])
                word |= tack.u64(1 if v >= value else 0) << tack.u64(b)
                odd |= 1 if (v != v or v == value) else 0
            above[r, w] = word
        bad[r] = odd

# Point p's bit in row r.
@tack.func
def ds_fe_bit(above, r, p):
    return tack.i64((above[r, p >> 6] >> tack.u64(p & 63)) & 1)

# The crossed edges along x, y and z of row r = (j, l)'s points in word w.
@tack.func
def ds_fe_edges(above, r, w, j, l, nx, ny, nz, nw):
    a = above[r, w]
    nxt = tack.u64(0)
    if w + 1 < nw:
        nxt = above[r, w + 1] & 1
    x = (a ^ ((a >> 1) | (nxt << 63))) & ds_mask(nx - 1 - 64 * w)
    y = tack.u64(0)
    z = tack.u64(0)
    if j < ny - 1:
        y = a ^ above[r + 1, w]
    if l < nz - 1:
        z = a ^ above[r + ny, w]
    return (x, y, z)

# The cells of the row of cells r (j < ny - 1, l < nz - 1) in word w with a crossed edge: those
# whose eight corners are not all on one side.
@tack.func
def ds_fe_cells(above, r, w, nx, ny, nw):
    a = above[r, w]
    d = (a ^ above[r + 1, w]) | (a ^ above[r + ny, w]) | (a ^ above[r + ny + 1, w])
    dn = tack.u64(0)
    an = tack.u64(0)
    if w + 1 < nw:
        b = above[r, w + 1]
        dn = ((b ^ above[r + 1, w + 1]) | (b ^ above[r + ny, w + 1]) | (b ^ above[r + ny + 1, w + 1])) & 1
        an = b & 1
    x = a ^ ((a >> 1) | (an << 63))
    return (d | (d >> 1) | (dn << 63) | x) & ds_mask(nx - 1 - 64 * w)

# The bits of point p of the four rows round a row of cells, bit dj + 2 dl.
@tack.func
def ds_fe_column(above, r, ny, p):
    return ds_fe_bit(above, r, p) | (ds_fe_bit(above, r + 1, p) << 1) | (ds_fe_bit(above, r + ny, p) << 2) | (ds_fe_bit(above, r + ny + 1, p) << 3)

# The case of the cell between columns a (at i) and b (at i + 1): a voxel's corner di + 2 dj +
# 4 dl, then the cell type's corner order (remap).
@tack.func
def ds_fe_case(remap, t, a, b):
    lo = (a & 1) | ((a & 2) << 1) | ((a & 4) << 2) | ((a & 8) << 3)
    hi = (b & 1) | ((b & 2) << 1) | ((b & 4) << 2) | ((b & 8) << 3)
    return remap[t, lo | (hi << 1)]

# Per row r: points[r] its crossings, before[r, w] those of its points before word w, and
# triangles[r] those of its row of cells.
def ds_fe_count(above, cases, remap, t, nx, ny, nz, nw, points, before, triangles):
    for l, j in tack.ndrange(nz, ny):
        r = j + tack.i64(ny) * l
        n = tack.i64(0)
        for w in range(nw):
            before[r, w] = n
            x, y, z = ds_fe_edges(above, r, w, j, l, nx, ny, nz, nw)
            n += ds_popcount(x) + ds_popcount(y) + ds_popcount(z)
        points[r] = n
        m = tack.i64(0)
        if j < ny - 1 and l < nz - 1:
            for w in range(nw):
                c = ds_fe_cells(above, r, w, nx, ny, nw)
                while c != 0:
                    i = 64 * w + ds_lowest(c)
                    c &= c - 1
                    m += cases[t, ds_fe_case(remap, t, ds_fe_column(above, r, ny, i), ds_fe_column(above, r, ny, i + 1)), 0]
        triangles[r] = m

# The points (their edges, fractions and places) and the triangles of each row, in two kernels
# (one took a third longer than the two: LLVM's registers go further in each). A row without
# any, as most are in a slice, is passed by.
def ds_fe_write_points({G}, s, value, above, nx, ny, nz, nw, point_at, n_points, ends, frac, pts):
    for l, j in tack.ndrange(nz, ny):
        r = j + tack.i64(ny) * l
        nxy = tack.i64(nx) * ny
        r00 = tack.i64(nx) * r
        q = point_at[r]
        for w in range(nw if (point_at[r + 1] if r + 1 < len(point_at) else n_points) > q else 0):
            x, y, z = ds_fe_edges(above, r, w, j, l, nx, ny, nz, nw)
            o = x | y | z
            while o != 0:
                b = ds_lowest(o)
                o &= o - 1
                i = 64 * w + b
                p = r00 + i
                sa = tack.f64(s[p])
                x0, y0, z0 = ds_point_ijk({G}, i, j, l, p)
                for along in range(3):
                    bits = x if along == 0 else (y if along == 1 else z)
                    if ((bits >> tack.u64(b)) & 1) != 0:
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

def ds_fe_write_triangles(above, before, cases, remap, slot, t, nx, ny, nz, nw, point_at, tri_at, n_tris, conn, source):
    for l, j in tack.ndrange(nz, ny):
        r = j + tack.i64(ny) * l
        at = tri_at[r]
        if j < ny - 1 and l < nz - 1 and (tri_at[r + 1] if r + 1 < len(tri_at) else n_tris) > at:
            # Per word of cells, for the four rows of points round them (v = dj + 2 dl): their
            # bits at i (wa) and i + 1 (wa1), their crossed edges along x, y, z at i (wx, wy, wz)
            # and along x, y at i + 1 (wx1, wy1), and the number of their first crossing in the
            # word (wb); local arrays, which LLVM keeps in registers.
            wa = tack.zeros(4, tack.u64)
            wa1 = tack.zeros(4, tack.u64)
            wx = tack.zeros(4, tack.u64)
            wx1 = tack.zeros(4, tack.u64)
            wy = tack.zeros(4, tack.u64)
            wy1 = tack.zeros(4, tack.u64)
            wz = tack.zeros(4, tack.u64)
            wb = tack.zeros(4, tack.i64)
            # a cell's crossings' numbers, five per row round it (slot's order): its x-edge, its
            # y-edges at i and i + 1, its z-edges at i and i + 1
            ids = tack.zeros(20, tack.i64)
            for w in range(nw):
                c = ds_fe_cells(above, r, w, nx, ny, nw)
                if c != 0:
                    vx = ds_mask(nx - 1 - 64 * w)
                    vx1 = ds_mask(nx - 2 - 64 * w)
                    for v in range(4):
                        rw = r + (v & 1) + ny * (v >> 1)
                        a = above[rw, w]
                        an = tack.u64(0)
                        if w + 1 < nw:
                            an = above[rw, w + 1]
                        a1 = (a >> 1) | (an << 63)
                        a2 = (a >> 2) | (an << 62)
                        wa[v] = a
                        wa1[v] = a1
                        wx[v] = (a ^ a1) & vx
                        wx1[v] = (a1 ^ a2) & vx1
                        yw = tack.u64(0)
                        yw1 = tack.u64(0)
                        if j + (v & 1) < ny - 1:
                            up = above[rw + 1, w]
                            upn = tack.u64(0)
                            if w + 1 < nw:
                                upn = above[rw + 1, w + 1]
                            yw = a ^ up
                            yw1 = a1 ^ ((up >> 1) | (upn << 63))
                        wy[v] = yw
                        wy1[v] = yw1
                        zw = tack.u64(0)
                        if l + (v >> 1) < nz - 1:
                            zw = a ^ above[rw + ny, w]
                        wz[v] = zw
                        wb[v] = point_at[rw] + before[rw, w]
                while c != 0:
                    k = tack.u64(ds_lowest(c))
                    # (the bits up to k: a mask with bit 63 always clear would hide the count
                    # from LLVM)
                    upto = c ^ (c - 1)
                    c &= c - 1
                    i = 64 * w + tack.i64(k)
                    ca = tack.i64(0)
                    cb = tack.i64(0)
                    for v in range(4):
                        ca |= tack.i64((wa[v] >> k) & 1) << v
                        cb |= tack.i64((wa1[v] >> k) & 1) << v
                    case = ds_fe_case(remap, t, ca, cb)
                    n = cases[t, case, 0]
                    for v in range(4):
                        # the number of the crossing after point i's own (nb), and of i's first
                        nb = wb[v] + ds_popcount(wx[v] & upto) + ds_popcount(wy[v] & upto) + ds_popcount(wz[v] & upto)
                        x0 = tack.i64((wx[v] >> k) & 1)
                        y0 = tack.i64((wy[v] >> k) & 1)
                        base = nb - x0 - y0 - tack.i64((wz[v] >> k) & 1)
                        nb += tack.i64((wx1[v] >> k) & 1)
                        ids[5 * v] = base
                        ids[5 * v + 1] = base + x0
                        ids[5 * v + 2] = nb
                        ids[5 * v + 3] = base + x0 + y0
                        ids[5 * v + 4] = nb + tack.i64((wy1[v] >> k) & 1)
                    for q3 in range(3 * n):
                        conn[3 * at + q3] = ids[slot[t, cases[t, case, 1 + q3]]]
                    for q3 in range(n):
                        source[at + q3] = i + (nx - 1) * (j + (ny - 1) * tack.i64(l))
                    at += n
)";

// A plane across an image (docs/design/contour.md, "Slice of an image by a plane"). Along a row
// of points (j, l) the plane's value (evaluate's formula) is monotone in i: each rounding step
// of it is, so the points on one side of 0 are the row's points from a threshold on, and a row
// is its threshold t: side(i) = (i >= t), the point at or above 0 where side(i) != flip (flip 1
// where the value falls along rows). The crossings and triangles follow from four rows'
// thresholds with no bits stored, the crossing numbers by arithmetic: flying edges' output bit
// for bit (its order: rows, points in a row, x, y, z edges of a point).
const char* const kPlaneEdges = R"(
# The plane (through a with normal b) at grid point (i, j, l): evaluate's formula.
@tack.func
def ds_pe_value({G}, a0, a1, a2, b0, b1, b2, i, j, l):
    x, y, z = ds_point_ijk({G}, i, j, l, 0)
    dx = x - a0
    dy = y - a1
    dz = z - a2
    return b0 * dx + b1 * dy + b2 * dz

# Point i of row (j, l) at or above 0 (1 or 0; flip: the other side), and the plane's value.
@tack.func
def ds_pe_side({G}, a0, a1, a2, b0, b1, b2, flip, i, j, l):
    v = ds_pe_value({G}, a0, a1, a2, b0, b1, b2, i, j, l)
    up = 1 if v >= 0.0 else 0
    return (up ^ flip, v)

# t[r]: row r = (j, l)'s threshold (the first point of side 1; nx if none). The affine estimate
# c0 + i m + j cj + l cl is within `slack` of the plane's value, so a row whose estimate keeps
# farther from 0 than that is all on one side with nothing evaluated; the others evaluate the
# points round the estimate's root. flat: the value is the same along rows. bad[r]: a point of
# the row at 0 exactly (or NaN): the cell path's then.
def ds_pe_thresholds({G}, a0, a1, a2, b0, b1, b2, c0, cj, cl, m, slack, flip, flat, nx, ny, nz, t, bad):
    for l, j in tack.ndrange(nz, ny):
        r = j + tack.i64(ny) * l
        c = c0 + tack.f64(j) * cj + tack.f64(l) * cl
        g = tack.i64(0)
        odd = 0
        if flat != 0:
            if c < -slack:
                g = tack.i64(nx)
            elif not (c > slack):
                side, v = ds_pe_side({G}, a0, a1, a2, b0, b1, b2, flip, 0, j, l)
                g = tack.i64(0) if side == 1 else tack.i64(nx)
                odd = 1 if v == 0.0 or v != v else 0
        else:
            x = -c / m
            d = slack / abs(m) + 2.0
            if x - d > tack.f64(nx):
                g = tack.i64(nx)
            elif not (x + d < 0.0):
                if not (x > 0.0):
                    x = 0.0
                if x > tack.f64(nx):
                    x = tack.f64(nx)
                g = tack.i64(math.ceil(x))
                # the values at g - 1 and at g, once evaluated
                below = tack.f64(1.0)
                at = tack.f64(1.0)
                going = True
                while going and g > 0:
                    side, v = ds_pe_side({G}, a0, a1, a2, b0, b1, b2, flip, g - 1, j, l)
                    odd |= 1 if v != v else 0
                    going = side == 1
                    if going:
                        g -= 1
                        at = v
                    else:
                        below = v
                going = True
                while going and g < nx:
                    side, v = ds_pe_side({G}, a0, a1, a2, b0, b1, b2, flip, g, j, l)
                    odd |= 1 if v != v else 0
                    going = side == 0
                    if going:
                        g += 1
                        below = v
                    else:
                        at = v
                # the values at 0 lie together where the side changes: at t rising, at t - 1
                # falling
                if flip == 0 and g < nx:
                    odd |= 1 if at == 0.0 else 0
                if flip != 0 and g > 0:
                    odd |= 1 if below == 0.0 else 0
        t[r] = g
        bad[r] = odd

# Row r's crossings: its x-edge's point (-1: none), its y-edges' points [ylo, yhi) (to row
# r + 1) and z-edges' [zlo, zhi) (to row r + ny).
@tack.func
def ds_pe_row(t, r, j, l, nx, ny, nz):
    a = tack.i64(t[r])
    xi = a - 1 if a >= 1 and a <= nx - 1 else tack.i64(-1)
    ylo = tack.i64(0)
    yhi = tack.i64(0)
    zlo = tack.i64(0)
    zhi = tack.i64(0)
    if j < ny - 1:
        b = tack.i64(t[r + 1])
        ylo = min(a, b)
        yhi = max(a, b)
    if l < nz - 1:
        b = tack.i64(t[r + ny])
        zlo = min(a, b)
        zhi = max(a, b)
    return (xi, ylo, yhi, zlo, zhi)

# The crossings of a row's points before point i.
@tack.func
def ds_pe_before(xi, ylo, yhi, zlo, zhi, i):
    n = tack.i64(1 if xi >= 0 and xi < i else 0)
    return n + min(max(i - ylo, 0), yhi - ylo) + min(max(i - zlo, 0), zhi - zlo)

# The sides of point i of the four rows round a row of cells, thresholds t0..t3 (v = dj + 2 dl),
# as bit 2 v; a voxel's case (corner di + 2 dj + 4 dl) is those of i and, shifted by one, of i + 1.
@tack.func
def ds_pe_sides(flip, t0, t1, t2, t3, i):
    f = flip | (flip << 2) | (flip << 4) | (flip << 6)
    return (tack.i64(i >= t0) | (tack.i64(i >= t1) << 2) | (tack.i64(i >= t2) << 4) | (tack.i64(i >= t3) << 6)) ^ f

# The cells of row of cells r that may be crossed, [lo, hi]: those between the four rows' least
# and greatest thresholds.
@tack.func
def ds_pe_cells(t0, t1, t2, t3, nx):
    lo = max(min(min(t0, t1), min(t2, t3)) - 1, tack.i64(0))
    hi = min(max(max(t0, t1), max(t2, t3)) - 1, tack.i64(nx - 2))
    return (lo, hi)

def ds_pe_count(t, counts, flip, nx, ny, nz, points, triangles):
    for l, j in tack.ndrange(nz, ny):
        r = j + tack.i64(ny) * l
        xi, ylo, yhi, zlo, zhi = ds_pe_row(t, r, j, l, nx, ny, nz)
        points[r] = (1 if xi >= 0 else 0) + (yhi - ylo) + (zhi - zlo)
        m = tack.i64(0)
        if j < ny - 1 and l < nz - 1:
            t0 = tack.i64(t[r])
            t1 = tack.i64(t[r + 1])
            t2 = tack.i64(t[r + ny])
            t3 = tack.i64(t[r + ny + 1])
            lo, hi = ds_pe_cells(t0, t1, t2, t3, nx)
            sides = ds_pe_sides(flip, t0, t1, t2, t3, lo)
            for i in range(lo, hi + 1):
                nxt = ds_pe_sides(flip, t0, t1, t2, t3, i + 1)
                m += counts[sides | (nxt << 1)]
                sides = nxt
        triangles[r] = m

def ds_pe_write_points({G}, a0, a1, a2, b0, b1, b2, value, t, nx, ny, nz, point_at, keep, ends, frac, pts, sink{FIELD_ARGS}):
    for l, j in tack.ndrange(nz, ny):
        r = j + tack.i64(ny) * l{FIELD_TOUCH}
        nxy = tack.i64(nx) * ny
        r00 = tack.i64(nx) * r
        q = point_at[r]
        xi, ylo, yhi, zlo, zhi = ds_pe_row(t, r, j, l, nx, ny, nz)
        lo = tack.i64(nx)
        hi = tack.i64(0)
        if xi >= 0:
            lo = xi
            hi = xi + 1
        if yhi > ylo:
            lo = min(lo, ylo)
            hi = max(hi, yhi)
        if zhi > zlo:
            lo = min(lo, zlo)
            hi = max(hi, zhi)
        for i in range(lo, hi):
            cx = tack.i64(i == xi)
            cy = tack.i64(tack.u64(i - ylo) < tack.u64(yhi - ylo))
            cz = tack.i64(tack.u64(i - zlo) < tack.u64(zhi - zlo))
            if (cx | cy | cz) != 0:
                p = r00 + i
                sa = ds_pe_value({G}, a0, a1, a2, b0, b1, b2, i, j, l)
                x0, y0, z0 = ds_point_ijk({G}, i, j, l, p)
                for along in range(3):
                    if (cx if along == 0 else (cy if along == 1 else cz)) != 0:
                        di = 1 if along == 0 else 0
                        dj = 1 if along == 1 else 0
                        dl = 1 if along == 2 else 0
                        p1 = p + di + dj * tack.i64(nx) + dl * nxy
                        x1, y1, z1 = ds_point_ijk({G}, i + di, j + dj, l + dl, p1)
                        u = (value - sa) / (ds_pe_value({G}, a0, a1, a2, b0, b1, b2, i + di, j + dj, l + dl) - sa)
                        if keep != 0:
                            ends[q, 0] = p
                            ends[q, 1] = p1
                            frac[q] = u
                        pts[q, 0] = x0 + u * (x1 - x0)
                        pts[q, 1] = y0 + u * (y1 - y0)
                        pts[q, 2] = z0 + u * (z1 - z0){FIELD_BODY}
                        q += 1

# The numbers of a row's crossings round cell i into ids[at:at + 5]: its x-edge, its y-edges at
# i and i + 1, its z-edges at i and i + 1 (slot's order), from c, the number of the row's first
# crossing at i; returns the number of its first crossing at i + 1.
@tack.func
def ds_pe_ids(ids, at, c, i, xi, ylo, yhi, zlo, zhi):
    # (a range test as one unsigned comparison: no branch)
    x0 = tack.i64(i == xi)
    y0 = tack.i64(tack.u64(i - ylo) < tack.u64(yhi - ylo))
    z0 = tack.i64(tack.u64(i - zlo) < tack.u64(zhi - zlo))
    x1 = tack.i64(i + 1 == xi)
    y1 = tack.i64(tack.u64(i + 1 - ylo) < tack.u64(yhi - ylo))
    c1 = c + x0 + y0 + z0
    ids[at] = c
    ids[at + 1] = c + x0
    ids[at + 2] = c1 + x1
    ids[at + 3] = c + x0 + y0
    ids[at + 4] = c1 + x1 + y1
    return c1

# counts[case]: a voxel case's triangles; shown[case, q]: the crossing (slot) of its q-th
# triangle corner.
def ds_pe_write_triangles(t, counts, shown, flip, nx, ny, nz, point_at, tri_at, n_tris, conn, offsets, types, cells, source):
    for l, j in tack.ndrange(nz, ny):
        r = j + tack.i64(ny) * l
        if r == 0:
            offsets[n_tris] = 3 * n_tris
        at = tri_at[r]
        if j < ny - 1 and l < nz - 1 and (tri_at[r + 1] if r + 1 < len(tri_at) else n_tris) > at:
            t0 = tack.i64(t[r])
            t1 = tack.i64(t[r + 1])
            t2 = tack.i64(t[r + ny])
            t3 = tack.i64(t[r + ny + 1])
            lo, hi = ds_pe_cells(t0, t1, t2, t3, nx)
            # the four rows round the cells (v = dj + 2 dl): their crossings, and the number of
            # their first crossing at point lo
            ax, ay0, ay1, az0, az1 = ds_pe_row(t, r, j, l, nx, ny, nz)
            bx, by0, by1, bz0, bz1 = ds_pe_row(t, r + 1, j + 1, l, nx, ny, nz)
            cx, cy0, cy1, cz0, cz1 = ds_pe_row(t, r + ny, j, l + 1, nx, ny, nz)
            dx, dy0, dy1, dz0, dz1 = ds_pe_row(t, r + ny + 1, j + 1, l + 1, nx, ny, nz)
            ca = point_at[r] + ds_pe_before(ax, ay0, ay1, az0, az1, lo)
            cb = point_at[r + 1] + ds_pe_before(bx, by0, by1, bz0, bz1, lo)
            cc = point_at[r + ny] + ds_pe_before(cx, cy0, cy1, cz0, cz1, lo)
            cd = point_at[r + ny + 1] + ds_pe_before(dx, dy0, dy1, dz0, dz1, lo)
            ids = tack.zeros(20, tack.i64)
            sides = ds_pe_sides(flip, t0, t1, t2, t3, lo)
            for i in range(lo, hi + 1):
                # (every cell in [lo, hi] is crossed)
                nxt = ds_pe_sides(flip, t0, t1, t2, t3, i + 1)
                case = sides | (nxt << 1)
                sides = nxt
                n = counts[case]
                ca = ds_pe_ids(ids, 0, ca, i, ax, ay0, ay1, az0, az1)
                cb = ds_pe_ids(ids, 5, cb, i, bx, by0, by1, bz0, bz1)
                cc = ds_pe_ids(ids, 10, cc, i, cx, cy0, cy1, cz0, cz1)
                cd = ds_pe_ids(ids, 15, cd, i, dx, dy0, dy1, dz0, dz1)
                for q3 in range(3 * n):
                    conn[3 * at + q3] = ids[shown[case, q3]]
                for q3 in range(n):
                    offsets[at + q3] = 3 * (at + q3)
                    types[at + q3] = 5
                if cells != 0:
                    for q3 in range(n):
                        source[at + q3] = i + (nx - 1) * (j + (ny - 1) * tack.i64(l))
                at += n
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

// What flying edges leaves: each output point's edge (ends), fraction along it and place, the
// triangles' connectivity and their cells.
struct Pieces {
  Array ends, frac, points, conn, source;
  std::int64_t triangles = 0;
  // point fields already interpolated (name, values); then ends and frac are empty
  std::vector<std::pair<std::string, Array>> fields;
  // the triangles' offsets and types, where the write made them
  std::optional<Array> offsets, types;
};

// A plane across an image (kPlaneEdges): the rows' thresholds, then flying edges' counts, scans
// and writes from them; nothing when a point is on the plane.
std::optional<Pieces> plane_edges(const DataSet& ds, const Prelude& g,
                                  const std::vector<std::int64_t>& slot,
                                  const ImplicitFunction& plane, bool cells,
                                  const std::vector<std::pair<std::string, Array>>* fields) {
  const Device& device = ds.device();
  const Dims& d = ds.dims();
  const std::string text = g.source(algorithms::subst(
      algorithms::subst(algorithms::subst(kPlaneEdges, "FIELD_ARGS", ""), "FIELD_BODY", ""),
      "FIELD_TOUCH", ""));
  const std::array<double, 3> o = ds.origin(), h = ds.spacing();
  const std::int64_t rows = d[1] * d[2];
  // Per voxel case its triangles and the crossing (slot) of each of their corners.
  std::vector<std::int64_t> counts(256), shown(256 * 15, 0);
  for (int c = 0; c < 256; ++c) {
    const std::int8_t* row = detail::kContourCases[11][c];
    counts[static_cast<std::size_t>(c)] = row[0];
    for (int q = 0; q < 3 * row[0]; ++q)
      shown[static_cast<std::size_t>(c * 15 + q)] =
          slot[static_cast<std::size_t>(11 * 12 + row[1 + q])];
  }
  const Array counts_a = array(counts, {256}, device), shown_a = array(shown, {256, 15}, device);
  // The plane's value at grid point (i, j, l) is about c0 + i m + j cj + l cl; along rows it
  // rises (flip 0), falls (flip 1) or stays (flat).
  // (slack: far above how far evaluate's formula and the estimate can round apart)
  double c0 = 0.0, size = 0.0;
  for (int k = 0; k < 3; ++k) {
    c0 += plane.b[k] * (o[k] - plane.a[k]);
    size += std::abs(plane.b[k]) *
            (std::abs(o[k] - plane.a[k]) + std::abs(h[k]) * static_cast<double>(d[k]));
  }
  const double slack = 1e-12 * size;
  const double m = plane.b[0] * h[0];
  const bool flat = plane.b[0] == 0.0 || h[0] == 0.0;
  const std::int64_t flip = !flat && ((plane.b[0] > 0.0) != (h[0] > 0.0)) ? 1 : 0;
  const std::vector<KernelArg> at{f64(plane.a[0]), f64(plane.a[1]), f64(plane.a[2]),
                                  f64(plane.b[0]), f64(plane.b[1]), f64(plane.b[2])};
  Array t = empty({rows}, DType(ScalarType::i32), device), bad = empty({rows}, kU8, device);
  std::vector<KernelArg> args = at;
  args.insert(args.end(), {f64(c0), f64(plane.b[1] * h[1]), f64(plane.b[2] * h[2]), f64(m),
                           f64(slack), flip, std::int64_t{flat ? 1 : 0}, d[0], d[1], d[2], t, bad});
  detail::launch(algorithms::cached_kernel(text, "ds_pe_thresholds"), g, args);
  if (any(bad)) return std::nullopt;
  Array point_at = empty({rows}, kI64, device), tri_at = empty({rows}, kI64, device);
  algorithms::cached_kernel(text, "ds_pe_count")(t, counts_a, flip, d[0], d[1], d[2], point_at,
                                                 tri_at);
  const std::int64_t n_points = detail::scan_total(point_at), n_tris = detail::scan_total(tri_at);
  // point ids i32 where they fit; the triangles' cells only for cell fields
  const DType ids =
      std::max(n_points, 3 * n_tris) < (std::int64_t{1} << 31) ? DType(ScalarType::i32) : kI64;
  // With `fields`, the points' edges are not kept: the write interpolates the fields itself (the
  // crossings' field values as detail::crossing_field makes them, from the values at the edge's
  // ends read where the point is made).
  const std::int64_t kept = fields ? 0 : n_points;
  Array ends = empty({kept, 2}, kI64, device), frac = empty({kept}, DType(ScalarType::f64), device),
        pts = empty({n_points, 3}, points_dtype(ds), device),
        conn = empty({3 * n_tris}, ids, device), source = empty({cells ? n_tris : 0}, kI64, device);
  std::vector<std::pair<std::string, Array>> made;
  std::string field_args, field_body;
  std::vector<Array> rows_in, rows_out;
  if (fields) {
    for (const auto& [name, a] : *fields) {
      Shape shape = a.shape();
      shape[0] = n_points;
      made.emplace_back(name, empty(shape, detail::interpolated_dtype(a), device));
      rows_in.push_back(detail::as_rows(a, name));
      rows_out.push_back(detail::as_rows(made.back().second, name));
      const std::string k = std::to_string(made.size() - 1);
      field_args += ", src" + k + ", out" + k + ", nc" + k;
      field_body += "\n                        for m in range(nc" + k + "):\n" +
                    "                            fa = tack.f64(src" + k + "[p, m])\n" +
                    "                            out" + k + "[q, m] = fa + u * (tack.f64(src" + k +
                    "[p1, m]) - fa)";
    }
  }
  Array sink = empty({rows_in.empty() ? 0 : (rows + 7) / 8}, DType(ScalarType::f64), device);
  if (n_points > 0) {
    args = at;
    args.insert(args.end(), {f64(0.0), t, d[0], d[1], d[2], point_at, std::int64_t{fields ? 0 : 1},
                             ends, frac, pts, sink});
    for (std::size_t f = 0; f < rows_in.size(); ++f) {
      args.insert(args.end(), {rows_in[f], rows_out[f], detail::components((*fields)[f].second)});
    }
    // The field's values a row reads first are its (l + 1)-neighbour's, whose line of the field
    // no earlier row read: every 8 rows, the next 8 rows' lines are read at once (their misses
    // overlap, where one by one each row waited for its own) into `sink`.
    const std::string touch = rows_in.empty() ? "" : R"(
        if (r & 7) == 0:
            touch = tack.f64(0.0)
            for k in range(8):
                rr = r + ny + 8 + k
                if rr < len(t) and t[rr] != t[rr - ny]:
                    tt = min(max(tack.i64(t[rr]), 0), nx - 1)
                    touch += tack.f64(src0[tack.i64(nx) * rr + tt, 0])
            sink[r >> 3] = touch)";
    const std::string points_text = g.source(algorithms::subst(
        algorithms::subst(algorithms::subst(kPlaneEdges, "FIELD_ARGS", field_args), "FIELD_BODY",
                          field_body),
        "FIELD_TOUCH", touch));
    detail::launch(algorithms::cached_kernel(points_text, "ds_pe_write_points"), g, args);
  }
  Array offsets = n_tris > 0 ? empty({n_tris + 1}, ids, device) : zeros({1}, ids, device);
  Array types = empty({n_tris}, kU8, device);
  if (n_tris > 0) {
    algorithms::cached_kernel(text, "ds_pe_write_triangles")(
        t, counts_a, shown_a, flip, d[0], d[1], d[2], point_at, tri_at, n_tris, conn, offsets,
        types, std::int64_t{cells ? 1 : 0}, source);
  }
  return Pieces{ends, frac, pts, conn, source, n_tris, made, offsets, types};
}

// Flying edges over a grid of 3-D cells (every dims > 1), or nothing where it does not apply:
// a NaN or a point exactly at a value (whose crossings the cell path merges into the corner)
// leaves the grid to the cell path, which gives the same output otherwise.
std::optional<Pieces> flying_edges(const DataSet& ds, const Prelude& g, const Array& s,
                                   const Array& values, const Array& cases,
                                   const ImplicitFunction* plane, bool cells,
                                   const std::vector<std::pair<std::string, Array>>* fields) {
  if (!ds.is_structured()) return std::nullopt;
  const Dims& d = ds.dims();
  if (d[0] < 2 || d[1] < 2 || d[2] < 2) return std::nullopt;
  const Device& device = ds.device();
  // For each edge of the voxel's (11) and hexahedron's (12) tables, its place among the twenty
  // crossings ds_fe_write_triangles numbers for a cell (slot: five per row of points round the
  // cell, its x-edge, y-edges at i and i + 1, z-edges at i and i + 1); and each voxel-order case as
  // the type's case (remap).
  const int hex[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                         {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
  std::vector<std::int64_t> slot(15 * 12, 0), remap(15 * 256, 0);
  for (int t : {11, 12}) {
    auto offset = [&](int k, int a) { return t == 11 ? (k >> a) & 1 : hex[k][a]; };
    for (int e = 0; e < 12; ++e) {
      const int a = detail::kContourEdges[t][e][0], b = detail::kContourEdges[t][e][1];
      int axis = 0;
      for (int x = 0; x < 3; ++x)
        if (offset(a, x) != offset(b, x)) axis = x;
      const int low = offset(a, axis) < offset(b, axis) ? a : b;
      const int di = offset(low, 0), row = offset(low, 1) + 2 * offset(low, 2);
      slot[static_cast<std::size_t>(t * 12 + e)] = 5 * row + (axis == 0 ? 0 : 2 * axis - 1 + di);
    }
    for (int c = 0; c < 256; ++c) {
      int out = 0;
      for (int k = 0; k < 8; ++k)
        if ((c >> (offset(k, 0) + 2 * offset(k, 1) + 4 * offset(k, 2))) & 1) out |= 1 << k;
      remap[static_cast<std::size_t>(t * 256 + c)] = out;
    }
  }
  const Array slot_a = array(slot, {15, 12}, device);
  const Array remap_a = array(remap, {15, 256}, device);
  const std::int64_t t = ds.kind() == Kind::Structured ? 12 : 11;
  const std::int64_t rows = d[1] * d[2], words = (d[0] + 63) / 64;
  if (plane) return plane_edges(ds, g, slot, *plane, cells, fields);
  const std::string text = g.source(std::string(detail::kBits) + kFlyingEdges);
  const Kernel& classify = algorithms::cached_kernel(text, "ds_fe_classify");
  const Kernel& count = algorithms::cached_kernel(text, "ds_fe_count");
  const Kernel& write_points = algorithms::cached_kernel(text, "ds_fe_write_points");
  const Kernel& write_triangles = algorithms::cached_kernel(text, "ds_fe_write_triangles");
  const std::vector<double> host_values = values.to_vector<double>();
  std::vector<Array> ends, frac, points, conn, source;
  std::int64_t n_points = 0, n_tris = 0;
  const DType u64(ScalarType::u64);
  Array above = empty({rows, words}, u64, device), bad = empty({rows}, kU8, device);
  Array before = empty({rows, words}, kI64, device);
  for (std::int64_t v = 0; v < values.size(); ++v) {
    const KernelArg value = f64(host_values[static_cast<std::size_t>(v)]);
    classify(s, value, d[0], words, above, bad);
    if (any(bad)) return std::nullopt;
    Array point_at = empty({rows}, kI64, device), tri_at = empty({rows}, kI64, device);
    count(above, cases, remap_a, t, d[0], d[1], d[2], words, point_at, before, tri_at);
    const std::int64_t np_v = detail::scan_total(point_at), nt_v = detail::scan_total(tri_at);
    if (nt_v == 0 && np_v == 0) continue;
    Array e = empty({np_v, 2}, kI64, device), u = empty({np_v}, DType(ScalarType::f64), device),
          pts = empty({np_v, 3}, points_dtype(ds), device), c = empty({3 * nt_v}, kI64, device),
          src = empty({nt_v}, kI64, device);
    detail::launch(write_points, g,
                   {s, value, above, d[0], d[1], d[2], words, point_at, np_v, e, u, pts});
    write_triangles(above, before, cases, remap_a, slot_a, t, d[0], d[1], d[2], words, point_at,
                    tri_at, nt_v, c, src);
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
                  0,
                  {},
                  std::nullopt,
                  std::nullopt};
  return Pieces{joined(ends), joined(frac), joined(points), joined(conn), joined(source),
                n_tris,       {},           std::nullopt,   std::nullopt};
}

}  // namespace

namespace {

// contour, or with `plane` (an image's slice, no field) its flying edges over the points near
// the plane only, without the plane's values; nothing when that finds a point on the plane (then
// the caller evaluates the plane everywhere and contours). Without `field_out` the output leaves
// `field` out (a slice's function values, zero on the surface).
std::optional<DataSet> contour_impl(const DataSet& ds, const std::string& field,
                                    const std::vector<double>& values,
                                    const ContourOptions& options, const ImplicitFunction* plane,
                                    bool field_out) {
  const Array s = plane ? empty({1}, DType(ScalarType::f64), ds.device())
                        : detail::scalar_point_field(ds, field, "contour", "");
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
  // A plane across an image with merged points interpolates the point fields as it writes the
  // points (no edges kept).
  std::vector<std::pair<std::string, Array>> fused;
  if (plane && options.merge_points && options.interpolate_fields) {
    for (const auto& [name, a] : ds.point_data().items()) fused.emplace_back(name, a);
  }
  auto fe = flying_edges(ds, g, s, value_array, cases, plane,
                         options.interpolate_fields && !ds.cell_data().names().empty(),
                         plane && options.merge_points ? &fused : nullptr);
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
      conn = arange(conn.size(), conn.dtype(), device);
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
      if (one_type > 0 && categories()[static_cast<std::size_t>(one_type)] == cat &&
          n_values == 1 && !ds.is_structured()) {
        // one value, one cell type: the points' bytes, chunks of cells
        const std::int64_t w = cat + 1;
        const std::string bytes_text =
            g.source(std::string(detail::kPieces) + detail::kBits + kContour +
                     algorithms::subst(
                         algorithms::subst(
                             algorithms::subst(kContourBytes, "T", std::to_string(one_type)), "N",
                             std::to_string(corner_count[static_cast<std::size_t>(one_type)])),
                         "W", std::to_string(w)));
        const std::int64_t chunk = detail::cell_chunk(device, n_cells);
        const std::int64_t chunks = (n_cells + chunk - 1) / chunk;
        Array above = empty({ds.n_points()}, kU8, device),
              active = empty({chunks, (chunk + 63) / 64}, DType(ScalarType::u64), device);
        Array item_at = empty({chunks}, narrow ? DType(ScalarType::i32) : kI64, device);
        algorithms::cached_kernel(bytes_text, "ds_contour_above")(s, f64(values[0]), above);
        detail::launch(algorithms::cached_kernel(bytes_text, "ds_contour_count_bytes"), g,
                       {above, cases, chunk, n_cells, active, item_at});
        const std::int64_t n = detail::scan_total(item_at);
        items[cat] = n;
        if (n == 0) continue;
        Array lows = empty({n * w}, kI64, device), highs = empty({n * w}, kI64, device),
              source = empty({n}, kI64, device);
        detail::launch(algorithms::cached_kernel(bytes_text, "ds_contour_write_bytes"), g,
                       {s, f64(values[0]), above, cases, edges, chunk, active, item_at, np, lows,
                        highs, source});
        lows_of.push_back(lows);
        highs_of.push_back(highs);
        source_of.push_back(source);
        continue;
      }
      Array at = empty({n_values * n_cells}, narrow ? DType(ScalarType::i32) : kI64, device);
      if (one_type > 0 && categories()[static_cast<std::size_t>(one_type)] == cat) {
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
  Array offsets = n_out > 0 ? empty({n_out + 1}, conn.dtype(), device)
                            : zeros({n_out + 1}, conn.dtype(), device);
  Array types = empty({n_out}, kU8, device);
  if (fe && fe->offsets) {
    offsets = *fe->offsets;
    types = *fe->types;
  } else {
    algorithms::cached_kernel(text, "ds_contour_layout")(items[0], items[1], offsets, types);
  }
  // Points and fields, interpolated along each point's edge.
  const Array points =
      placed ? *placed : detail::crossing_points(g, ends, frac, points_dtype(ds), device);
  DataSet r = detail::trusted_explicit(Kind::Poly, points, offsets, conn, types);
  auto interpolated = [&](const Array& a, const std::string& name) {
    return detail::crossing_field(ends, frac, a, name);
  };
  if (fe && !fe->fields.empty()) {
    for (const auto& [name, a] : fe->fields) r.point_data().set(name, a);
    for (const auto& [name, a] : ds.cell_data().items()) r.cell_data().set(name, gather(a, source));
  } else if (options.interpolate_fields) {
    for (const auto& [name, a] : ds.point_data().items())
      if (field_out || name != field) r.point_data().set(name, interpolated(a, name));
    for (const auto& [name, a] : ds.cell_data().items()) r.cell_data().set(name, gather(a, source));
  } else if (field_out) {
    r.point_data().set(field, interpolated(ds.point_data().at(field), field));
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
  return *contour_impl(ds, field, values, options, nullptr, true);
}

namespace detail {

std::optional<DataSet> slice_contour(const DataSet& ds, const std::string& field,
                                     const ContourOptions& options, const ImplicitFunction* plane) {
  return contour_impl(ds, field, {0.0}, options, plane, false);
}

}  // namespace detail

}  // namespace tack::dataset
