// Finding the cell that holds a point (docs/design/locators.md): CellLocator's uniform bins,
// built on the dataset's device (count, scan, fill, a stable sort by bin, the bins' starts) and
// queried in one launch; probe and resample_to_image on top of it.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/kernel_text.hpp"
#include "dataset/cells.hpp"
#include "dataset/locate.hpp"
#include "dataset/marching.hpp"
#include "dataset/prelude.hpp"
#include "tack/algorithms.hpp"
#include "tack/dataset.hpp"
#include "tack/error.hpp"

namespace tack::dataset {
namespace {

using detail::f64;
using detail::kSolve;
using detail::Prelude;

// The tolerance of "holds": parametric coordinates inside the cell's domain within kEps, and the
// cell's map at them within kEps of the cell's size from the point.
constexpr double kEps = 1e-9;
// The bins: about this many cells per bin, and at most this many bins.
constexpr double kCellsPerBin = 2.0;
constexpr double kMaxBins = 67108864.0;  // 2^26
// Bins of at most this many cells are filled by atomics and sorted one by one; longer ones by a
// global stable sort (an insertion sort's time grows as the square of a list's length).
constexpr std::int64_t kSortedBins = 256;

// Device functions of every linear cell type: shape functions, the point-in-cell test.
const char* const kCells = R"(
# Whether (r, s, u) lies in the parametric domain of cell type t, within e.
@tack.func
def loc_inside(t, r, s, u, e):
    ok = r >= -e and s >= -e
    if t == 5:
        ok = ok and r + s <= 1.0 + e
    elif t == 10:
        ok = ok and u >= -e and r + s + u <= 1.0 + e
    elif t == 13:
        ok = ok and r + s <= 1.0 + e and u >= -e and u <= 1.0 + e
    elif t == 8 or t == 9:
        ok = ok and r <= 1.0 + e and s <= 1.0 + e
    else:
        ok = ok and r <= 1.0 + e and s <= 1.0 + e and u >= -e and u <= 1.0 + e
    return ok

# (r, s) minimising |r a + s b - g| (the normal equations of the plane of a and b; zeros for
# parallel a and b).
@tack.func
def loc_solve2(ax, ay, az, bx, by, bz, gx, gy, gz):
    aa = ax * ax + ay * ay + az * az
    ab = ax * bx + ay * by + az * bz
    bb = bx * bx + by * by + bz * bz
    da = gx * ax + gy * ay + gz * az
    db = gx * bx + gy * by + gz * bz
    det = aa * bb - ab * ab
    r = tack.f64(0.0)
    s = tack.f64(0.0)
    if det != 0.0:
        r = (da * bb - db * ab) / det
        s = (db * aa - da * ab) / det
    return (r, s)

# The diagonal of the bounding box of the n points (px, py, pz).
@tack.func
def loc_size(n, px, py, pz):
    lx = px[0]
    ly = py[0]
    lz = pz[0]
    hx = lx
    hy = ly
    hz = lz
    for k in range(1, n):
        lx = min(lx, px[k])
        ly = min(ly, py[k])
        lz = min(lz, pz[k])
        hx = max(hx, px[k])
        hy = max(hy, py[k])
        hz = max(hz, pz[k])
    return math.sqrt((hx - lx) * (hx - lx) + (hy - ly) * (hy - ly) + (hz - lz) * (hz - lz))

# Whether cell c of the dataset holds (x, y, z), and the parametric coordinates there:
# simplices, pixels and voxels by their linear map, the others by Newton's method from the cell's
# centre; 2-D cells in the least-squares sense, so the point must also lie in the cell's plane
# (the map's residual within e of the cell's size).
@tack.func
def loc_holds({G}, c, x, y, z, e):
    t = {T}
    n = {N}
    px = tack.zeros(8, tack.f64)
    py = tack.zeros(8, tack.f64)
    pz = tack.zeros(8, tack.f64)
    for k in range(n):
        a, b, d = ds_point({G}, ds_cell_point({G}, c, k))
        px[k] = a
        py[k] = b
        pz[k] = d
    r = tack.f64(0.0)
    s = tack.f64(0.0)
    u = tack.f64(0.0)
    apex = False
    if t == 10:
        r, s, u = ds_solve3(px[1] - px[0], px[2] - px[0], px[3] - px[0],
                            py[1] - py[0], py[2] - py[0], py[3] - py[0],
                            pz[1] - pz[0], pz[2] - pz[0], pz[3] - pz[0],
                            x - px[0], y - py[0], z - pz[0])
    elif t == 11:
        r = (x - px[0]) / (px[7] - px[0])
        s = (y - py[0]) / (py[7] - py[0])
        u = (z - pz[0]) / (pz[7] - pz[0])
    elif t == 5 or t == 8:
        ax = px[1] - px[0]
        ay = py[1] - py[0]
        az = pz[1] - pz[0]
        bx = px[2] - px[0]
        by = py[2] - py[0]
        bz = pz[2] - pz[0]
        r, s = loc_solve2(ax, ay, az, bx, by, bz, x - px[0], y - py[0], z - pz[0])
    else:
        r = tack.f64(0.5)
        s = tack.f64(0.5)
        u = tack.f64(0.5 if t == 12 else 0.0)
        if t == 13:
            r = 1.0 / 3.0
            s = 1.0 / 3.0
            u = tack.f64(0.5)
        elif t == 14:
            u = tack.f64(0.2)
            ax = x - px[4]
            ay = y - py[4]
            az = z - pz[4]
            apex = math.sqrt(ax * ax + ay * ay + az * az) <= e * loc_size(n, px, py, pz)
        for it in range(20):
            fx = tack.f64(0.0)
            fy = tack.f64(0.0)
            fz = tack.f64(0.0)
            j00 = tack.f64(0.0)
            j01 = tack.f64(0.0)
            j02 = tack.f64(0.0)
            j10 = tack.f64(0.0)
            j11 = tack.f64(0.0)
            j12 = tack.f64(0.0)
            j20 = tack.f64(0.0)
            j21 = tack.f64(0.0)
            j22 = tack.f64(0.0)
            for k in range(n):
                w, dr, ds, du = ds_shape(t, k, r, s, u)
                fx += w * px[k]
                fy += w * py[k]
                fz += w * pz[k]
                j00 += dr * px[k]
                j01 += ds * px[k]
                j02 += du * px[k]
                j10 += dr * py[k]
                j11 += ds * py[k]
                j12 += du * py[k]
                j20 += dr * pz[k]
                j21 += ds * pz[k]
                j22 += du * pz[k]
            gx = x - fx
            gy = y - fy
            gz = z - fz
            d0 = tack.f64(0.0)
            d1 = tack.f64(0.0)
            d2 = tack.f64(0.0)
            if t == 9:
                # least squares in the quad's plane: (J^T J) d = J^T g
                d0, d1 = loc_solve2(j00, j10, j20, j01, j11, j21, gx, gy, gz)
            else:
                d0, d1, d2 = ds_solve3(j00, j01, j02, j10, j11, j12, j20, j21, j22, gx, gy, gz)
            r += d0
            s += d1
            u += d2
            if not (abs(d0) + abs(d1) + abs(d2) > 1e-13):
                break
    ok = loc_inside(t, r, s, u, e)
    if ok and t != 10 and t != 11:
        # the map at (r, s, u): the point, within e of the cell's size (a tetrahedron's and a
        # voxel's solves are exact; the others converge, and a 2-D cell's point may be off its
        # plane)
        fx = tack.f64(0.0)
        fy = tack.f64(0.0)
        fz = tack.f64(0.0)
        for k in range(n):
            w, dr, ds, du = ds_shape(t, k, r, s, u)
            fx += w * px[k]
            fy += w * py[k]
            fz += w * pz[k]
        gx = x - fx
        gy = y - fy
        gz = z - fz
        ok = math.sqrt(gx * gx + gy * gy + gz * gz) <= e * loc_size(n, px, py, pz)
    if apex:
        ok = True
        r = tack.f64(0.5)
        s = tack.f64(0.5)
        u = tack.f64(1.0)
    return (ok, r, s, u)
)";

// The bins: build and query.
const char* const kBins = R"(
# The bins [i0, i1] a coordinate range [a, b] meets (clamped to the n bins from lo, ih bins a
# unit length).
@tack.func
def loc_range(a, b, lo, ih, n):
    i0 = max(min(math.floor((a - lo) * ih), n - 1), 0)
    i1 = max(min(math.floor((b - lo) * ih), n - 1), 0)
    return (i0, i1)

# Cell c's bins (its bounding box grown by 1e-7 of its diagonal), or an empty range for cells
# that hold no point (vertices, lines).
@tack.func
def loc_cell_bins({G}, c, lx, ly, lz, ihx, ihy, ihz, nx, ny, nz):
    i0 = tack.i64(0)
    i1 = tack.i64(-1)
    j0 = tack.i64(0)
    j1 = tack.i64(-1)
    k0 = tack.i64(0)
    k1 = tack.i64(-1)
    if ds_dimension({T}) >= 2:
        n = {N}
        x0, y0, z0 = ds_point({G}, ds_cell_point({G}, c, 0))
        ax = tack.f64(x0)
        ay = tack.f64(y0)
        az = tack.f64(z0)
        bx = ax
        by = ay
        bz = az
        for k in range(1, n):
            x, y, z = ds_point({G}, ds_cell_point({G}, c, k))
            ax = min(ax, tack.f64(x))
            ay = min(ay, tack.f64(y))
            az = min(az, tack.f64(z))
            bx = max(bx, tack.f64(x))
            by = max(by, tack.f64(y))
            bz = max(bz, tack.f64(z))
        d = 1e-7 * math.sqrt((bx - ax) * (bx - ax) + (by - ay) * (by - ay) + (bz - az) * (bz - az))
        i0, i1 = loc_range(ax - d, bx + d, lx, ihx, nx)
        j0, j1 = loc_range(ay - d, by + d, ly, ihy, ny)
        k0, k1 = loc_range(az - d, bz + d, lz, ihz, nz)
    return (i0, i1, j0, j1, k0, k1)

# The first cell of (x, y, z)'s bin that holds it (-1: none, or outside the bounds) and the
# parametric coordinates there.
@tack.func
def loc_search({G}, x, y, z, lx, ly, lz, ihx, ihy, ihz, nx, ny, nz, ux, uy, uz, starts, cells, e):
    best = tack.i64(-1)
    r = tack.f64(0.0)
    s = tack.f64(0.0)
    u = tack.f64(0.0)
    if x >= lx and y >= ly and z >= lz and x <= ux and y <= uy and z <= uz:
        i = max(min(math.floor((x - lx) * ihx), nx - 1), 0)
        j = max(min(math.floor((y - ly) * ihy), ny - 1), 0)
        k = max(min(math.floor((z - lz) * ihz), nz - 1), 0)
        b = (k * ny + j) * nx + i
        for m in range(starts[b], starts[b + 1]):
            c = tack.i64(cells[m])
            ok, r1, s1, u1 = loc_holds({G}, c, x, y, z, e)
            if ok:
                best = c
                r = r1
                s = s1
                u = u1
                break
    return (best, r, s, u)

def loc_count({G}, lx, ly, lz, ihx, ihy, ihz, nx, ny, nz, counts):
    for c in range(counts.shape[0]):
        i0, i1, j0, j1, k0, k1 = loc_cell_bins({G}, c, lx, ly, lz, ihx, ihy, ihz, nx, ny, nz)
        counts[c] = (i1 - i0 + 1) * (j1 - j0 + 1) * (k1 - k0 + 1)

def loc_fill({G}, lx, ly, lz, ihx, ihy, ihz, nx, ny, nz, first, keys, cells):
    for c in range(first.shape[0]):
        i0, i1, j0, j1, k0, k1 = loc_cell_bins({G}, c, lx, ly, lz, ihx, ihy, ihz, nx, ny, nz)
        e = tack.i64(first[c])
        for k in range(k0, k1 + 1):
            for j in range(j0, j1 + 1):
                for i in range(i0, i1 + 1):
                    keys[e] = (k * ny + j) * nx + i
                    cells[e] = c
                    e += 1

# The bins' lists by atomics: each bin's count, then each cell into the next free place of each
# of its bins (in no fixed order), then each bin's list sorted (insertion: lists are short).
def loc_bin_count({G}, lx, ly, lz, ihx, ihy, ihz, nx, ny, nz, n, counts):
    for c in range(n):
        i0, i1, j0, j1, k0, k1 = loc_cell_bins({G}, c, lx, ly, lz, ihx, ihy, ihz, nx, ny, nz)
        for k in range(k0, k1 + 1):
            for j in range(j0, j1 + 1):
                for i in range(i0, i1 + 1):
                    tack.atomic_add(counts, (k * ny + j) * nx + i, 1)

def loc_bin_fill({G}, lx, ly, lz, ihx, ihy, ihz, nx, ny, nz, n, starts, cursor, cells):
    for c in range(n):
        i0, i1, j0, j1, k0, k1 = loc_cell_bins({G}, c, lx, ly, lz, ihx, ihy, ihz, nx, ny, nz)
        for k in range(k0, k1 + 1):
            for j in range(j0, j1 + 1):
                for i in range(i0, i1 + 1):
                    b = (k * ny + j) * nx + i
                    cells[starts[b] + tack.i64(tack.atomic_add(cursor, b, 1))] = c

# Each point's cell: its bin's cells in increasing id until one holds it (the lowest id wins).
# The points are taken in `order` (sorted by bin), so that neighbouring work items read the same
# cells.
def loc_find({G}, lx, ly, lz, ihx, ihy, ihz, nx, ny, nz, ux, uy, uz, starts, cells, pts, order,
             e, found, pc):
    for q0 in range(pts.shape[0]):
        q = order[q0]
        x = tack.f64(pts[q, 0])
        y = tack.f64(pts[q, 1])
        z = tack.f64(pts[q, 2])
        best, r, s, u = loc_search({G}, x, y, z, lx, ly, lz, ihx, ihy, ihz, nx, ny, nz, ux, uy, uz,
                                   starts, cells, e)
        found[q] = best
        pc[q, 0] = r
        pc[q, 1] = s
        pc[q, 2] = u
)";

// Each bin's list of cells sorted (insertion: lists are short).
const char* const kSortBins = R"(
def loc_bin_sort(starts, cells):
    for b in range(starts.shape[0] - 1):
        a = starts[b]
        for m in range(a + 1, starts[b + 1]):
            v = cells[m]
            p = m - 1
            while p >= a and cells[p] > v:
                cells[p + 1] = cells[p]
                p -= 1
            cells[p + 1] = v
)";

// Each point's bin (nx * ny * nz for a point outside the bounds, or NaN).
const char* const kKeys = R"(
def loc_keys(lx, ly, lz, ihx, ihy, ihz, nx, ny, nz, ux, uy, uz, pts, keys):
    for q in range(pts.shape[0]):
        x = tack.f64(pts[q, 0])
        y = tack.f64(pts[q, 1])
        z = tack.f64(pts[q, 2])
        b = tack.i64(nx) * ny * nz
        if x >= lx and y >= ly and z >= lz and x <= ux and y <= uy and z <= uz:
            i = max(min(math.floor((x - lx) * ihx), nx - 1), 0)
            j = max(min(math.floor((y - ly) * ihy), ny - 1), 0)
            k = max(min(math.floor((z - lz) * ihz), nz - 1), 0)
            b = (k * ny + j) * nx + i
        keys[q] = b
)";

// PointLocator: each point in the bin holding it (counts by atomics, then places, then each
// bin's list sorted by kSortBins); nearest by rings of bins round the query's; within a radius by
// the bins the ball's box meets.
const char* const kPoints = R"(
@tack.func
def pl_index(v, lo, ih, n):
    return max(min(math.floor((v - lo) * ih), n - 1), 0)

@tack.func
def pl_bin(pts, p, lx, ly, lz, ihx, ihy, ihz, nx, ny, nz):
    i = pl_index(tack.f64(pts[p, 0]), lx, ihx, nx)
    j = pl_index(tack.f64(pts[p, 1]), ly, ihy, ny)
    k = pl_index(tack.f64(pts[p, 2]), lz, ihz, nz)
    return (k * ny + j) * nx + i

def pl_count(lx, ly, lz, ihx, ihy, ihz, nx, ny, nz, pts, counts):
    for p in range(pts.shape[0]):
        tack.atomic_add(counts, pl_bin(pts, p, lx, ly, lz, ihx, ihy, ihz, nx, ny, nz), 1)

def pl_keys(lx, ly, lz, ihx, ihy, ihz, nx, ny, nz, pts, keys):
    for p in range(pts.shape[0]):
        keys[p] = pl_bin(pts, p, lx, ly, lz, ihx, ihy, ihz, nx, ny, nz)

@tack.func
def pl_d2(pts, p, x, y, z):
    dx = tack.f64(pts[p, 0]) - x
    dy = tack.f64(pts[p, 1]) - y
    dz = tack.f64(pts[p, 2]) - z
    return dx * dx + dy * dy + dz * dz

# The least squared distance from coordinate v (bin b of n, from lo, ih bins a unit length) to a
# bin past the faces of a block reaching r bins either way, `off` the squared distance the point
# is off the grid on the other axes (infinity where both sides are the grid's ends).
@tack.func
def pl_gap(v, lo, ih, n, b, r, off):
    gap = math.inf
    if b - r > 0:
        g = v - (lo + tack.f64(b - r) / ih)
        gap = min(gap, g * g + off)
    if b + r < n - 1:
        g = lo + tack.f64(b + r + 1) / ih - v
        gap = min(gap, g * g + off)
    return gap

# The nearest point (the lowest id among equally near ones): the bins at Chebyshev distance r
# from the query's (clamped) bin, r = 0, 1, ..., until every unvisited bin is farther than the
# best point so far (not merely as far: a tie with a lower id may lie there), or none is left.
def pl_nearest(lx, ly, lz, ihx, ihy, ihz, nx, ny, nz, pts, starts, ids, q, out):
    for t in range(q.shape[0]):
        x = tack.f64(q[t, 0])
        y = tack.f64(q[t, 1])
        z = tack.f64(q[t, 2])
        best = tack.i64(-1)
        bd = math.inf
        if x == x and y == y and z == z and starts[nx * ny * nz] > 0:
            bi = pl_index(x, lx, ihx, nx)
            bj = pl_index(y, ly, ihy, ny)
            bk = pl_index(z, lz, ihz, nz)
            ox = max(lx - x, x - (lx + tack.f64(nx) / ihx), 0.0)  # how far off the grid
            oy = max(ly - y, y - (ly + tack.f64(ny) / ihy), 0.0)
            oz = max(lz - z, z - (lz + tack.f64(nz) / ihz), 0.0)
            r = 0
            going = True
            while going:
                for k in range(max(bk - r, 0), min(bk + r, nz - 1) + 1):
                    for j in range(max(bj - r, 0), min(bj + r, ny - 1) + 1):
                        # the shell only: a whole row where j or k is on it, else its two ends
                        side = abs(k - bk) == r or abs(j - bj) == r
                        for i in range(bi - r, bi + r + 1, 1 if side or r == 0 else 2 * r):
                            if i >= 0 and i < nx:
                                b = (k * ny + j) * nx + i
                                for m in range(starts[b], starts[b + 1]):
                                    p = tack.i64(ids[m])
                                    d = pl_d2(pts, p, x, y, z)
                                    if d < bd or (d == bd and p < best):
                                        bd = d
                                        best = p
                # the least squared distance to an unvisited bin: past an open face of the
                # visited block on one axis, and as far as the query is off the grid on the others
                gap = min(pl_gap(x, lx, ihx, nx, bi, r, oy * oy + oz * oz),
                          pl_gap(y, ly, ihy, ny, bj, r, ox * ox + oz * oz),
                          pl_gap(z, lz, ihz, nz, bk, r, ox * ox + oy * oy))
                going = gap < math.inf and not (best >= 0 and bd < gap)
                r += 1
        out[t] = best

# The points within `radius` of each query (distance <= radius): counted, or written from
# offsets[t] (in bin order; sorted afterwards).
def pl_within(lx, ly, lz, ihx, ihy, ihz, nx, ny, nz, pts, starts, ids, q, radius, counting,
              offsets, out):
    for t in range(q.shape[0]):
        x = tack.f64(q[t, 0])
        y = tack.f64(q[t, 1])
        z = tack.f64(q[t, 2])
        c = tack.i64(0)
        r2 = radius * radius
        if x == x and y == y and z == z and radius >= 0.0:
            for k in range(pl_index(z - radius, lz, ihz, nz), pl_index(z + radius, lz, ihz, nz) + 1):
                for j in range(pl_index(y - radius, ly, ihy, ny), pl_index(y + radius, ly, ihy, ny) + 1):
                    for i in range(pl_index(x - radius, lx, ihx, nx), pl_index(x + radius, lx, ihx, nx) + 1):
                        b = (k * ny + j) * nx + i
                        for m in range(starts[b], starts[b + 1]):
                            p = tack.i64(ids[m])
                            if pl_d2(pts, p, x, y, z) <= r2:
                                if not counting:
                                    out[offsets[t] + c] = p
                                c += 1
        if counting:
            offsets[t] = c
)";

// Query t's ids as t * np + id (compose), or back (not compose).
const char* const kPairs = R"(
def pl_pairs(offsets, ids, np, compose):
    for t in range(offsets.shape[0] - 1):
        for m in range(offsets[t], offsets[t + 1]):
            if compose:
                ids[m] = t * np + ids[m]
            else:
                ids[m] = ids[m] - t * np
)";

// An image's cells by arithmetic: per axis of more than one point, the lowest cell whose span
// holds the coordinate within e (so a point on a shared face goes to the lower cell), and the
// fraction of the way across it; on an axis of one point, the coordinate within e of the cell's
// size of the plane. Images of fewer than two such axes (lines, vertices) hold no point.
const char* const kImageCell = R"(
@tack.func
def loc_axis(v, o, h, n, e):
    i = tack.i64(0)
    r = tack.f64(0.0)
    ok = True
    if n > 1:
        f = (v - o) / h
        i = max(min(math.ceil(f - e) - 1, n - 2), 0)
        r = f - tack.f64(i)
        ok = r >= -e and r <= 1.0 + e
    return (i, r, ok)

# The image cell holding (x, y, z) (-1: none) and the parametric coordinates there.
@tack.func
def loc_image_cell(x, y, z, ox, oy, oz, hx, hy, hz, nx, ny, nz, size, e):
    i, r, oki = loc_axis(x, ox, hx, nx, e)
    j, s, okj = loc_axis(y, oy, hy, ny, e)
    k, u, okk = loc_axis(z, oz, hz, nz, e)
    ok = oki and okj and okk and (nx > 1) + (ny > 1) + (nz > 1) >= 2
    ok = ok and (nx > 1 or abs(x - ox) <= e * size)
    ok = ok and (ny > 1 or abs(y - oy) <= e * size)
    ok = ok and (nz > 1 or abs(z - oz) <= e * size)
    best = tack.i64(-1)
    a = tack.f64(0.0)
    b = tack.f64(0.0)
    d = tack.f64(0.0)
    if ok:
        best = (k * max(ny - 1, 1) + j) * max(nx - 1, 1) + i
        if nx == 1:
            a = s
            b = u
        elif ny == 1:
            a = r
            b = u
        else:
            a = r
            b = s
            d = u if nz > 1 else 0.0
    return (best, a, b, d)
)";

const char* const kImage = R"(
def loc_find_image(ox, oy, oz, hx, hy, hz, nx, ny, nz, size, pts, e, found, pc):
    for q in range(pts.shape[0]):
        c, a, b, d = loc_image_cell(tack.f64(pts[q, 0]), tack.f64(pts[q, 1]), tack.f64(pts[q, 2]),
                                    ox, oy, oz, hx, hy, hz, nx, ny, nz, size, e)
        found[q] = c
        pc[q, 0] = a
        pc[q, 1] = b
        pc[q, 2] = d
)";
// Probing: point fields interpolated with the holding cell's shape functions (integers rounded
// to the nearest, halves away from zero), cell fields taken from it, 0 where no cell holds the
// point; the valid mask.
const char* const kProbe = R"(
def loc_interpolate({G}, found, pc, src, out, ncomp, rounded):
    for q in range(found.shape[0]):
        c = found[q]
        if c < 0:
            for m in range(ncomp):
                out[q, m] = 0
        else:
            t = {T}
            n = {N}
            r = pc[q, 0]
            s = pc[q, 1]
            u = pc[q, 2]
            for m in range(ncomp):
                v = tack.f64(0.0)
                for k in range(n):
                    w, dr, ds, du = ds_shape(t, k, r, s, u)
                    v += w * tack.f64(src[ds_cell_point({G}, c, k), m])
                if rounded:
                    v = tack.f64(math.floor(v + 0.5)) if v >= 0.0 else tack.f64(math.ceil(v - 0.5))
                out[q, m] = v
)";

const char* const kTake = R"(
def loc_take(found, src, out, ncomp):
    for q in range(found.shape[0]):
        c = found[q]
        for m in range(ncomp):
            if c < 0:
                out[q, m] = 0
            else:
                out[q, m] = src[c, m]

def loc_valid(found, out):
    for q in range(found.shape[0]):
        out[q] = 1 if found[q] >= 0 else 0
)";

// Uniform bins over the bounds of (n, 3) points, grown by 1e-7 of their diagonal (so points on
// the bounds are inside), about `items / per_bin` of them shaped by the extents (each axis's count
// in proportion to its length; one bin across a flat axis; at most kMaxBins).
struct Bins {
  std::array<double, 6> bounds{};  // xmin, xmax, ymin, ...
  std::array<std::int64_t, 3> n{1, 1, 1};
  std::array<double, 3> inv_h{};  // bins per unit length
};

Bins uniform_bins(const Array& points, double items, double per_bin, const char* what) {
  Bins b;
  const Array pts = astype(detail::point_rows(points), DType(ScalarType::f64));
  const std::vector<double> lo = min(pts, 0).to_vector<double>();
  const std::vector<double> hi = max(pts, 0).to_vector<double>();
  double diag = 0.0;
  for (std::size_t a = 0; a < 3; ++a) {
    if (!std::isfinite(lo[a]) || !std::isfinite(hi[a])) {
      throw ValueError(std::string(what) + " are not all finite (axis " + std::to_string(a) +
                       " runs from " + std::to_string(lo[a]) + " to " + std::to_string(hi[a]) +
                       "); give finite points");
    }
    diag += (hi[a] - lo[a]) * (hi[a] - lo[a]);
  }
  const double grow = 1e-7 * std::sqrt(diag) + 1e-300;
  std::array<double, 3> extent{};
  for (std::size_t a = 0; a < 3; ++a) {
    b.bounds[2 * a] = lo[a] - grow;
    b.bounds[2 * a + 1] = hi[a] + grow;
    extent[a] = b.bounds[2 * a + 1] - b.bounds[2 * a];
  }
  const double target = std::clamp(items / per_bin, 1.0, kMaxBins);
  const double widest = std::max({extent[0], extent[1], extent[2]});
  double volume = 1.0;
  int dims = 0;
  for (const double e : extent) {
    if (e > 1e-6 * widest) {
      volume *= e / widest;  // relative: no underflow for tiny bounds
      ++dims;
    }
  }
  const double side = std::pow(volume / target, 1.0 / std::max(dims, 1)) * widest;
  for (std::size_t a = 0; a < 3; ++a) {
    const double count = extent[a] / side;
    b.n[a] = extent[a] > 1e-6 * widest && std::isfinite(count)
                 ? std::clamp<std::int64_t>(std::llround(count), 1, 1 << 26)
                 : 1;
  }
  // Axes rounded up (or to one bin) can take the product past the cap: shrink all alike.
  for (double over = static_cast<double>(b.n[0]) * static_cast<double>(b.n[1]) *
                     static_cast<double>(b.n[2]) / kMaxBins;
       over > 1.0; over = static_cast<double>(b.n[0]) * static_cast<double>(b.n[1]) *
                          static_cast<double>(b.n[2]) / kMaxBins) {
    const double f = std::cbrt(over) * 1.01;
    for (std::int64_t& n : b.n) n = std::max<std::int64_t>(1, static_cast<std::int64_t>(n / f));
  }
  for (std::size_t a = 0; a < 3; ++a) b.inv_h[a] = static_cast<double>(b.n[a]) / extent[a];
  return b;
}

// The one cell type of every cell of ds (VTK's number) where that type is located, else 0.
int one_type(const DataSet& ds) {
  if (ds.kind() == Kind::Unstructured || ds.kind() == Kind::Poly) {
    if (ds.n_cells() == 0) return 0;
    const std::int64_t present = detail::types_present(ds.types());
    for (const int t : {5, 8, 9, 10, 11, 12, 13, 14})
      if (present == (std::int64_t{1} << t)) return t;
  }
  return 0;
}

// The (n, 3) points as the dataset's device holds them.
Array query_points(const Array& points, const Device& device, const char* what) {
  // (n, 3) scalars, or n vec(3)s (kernels read both as points[i, a])
  const bool rows = !points.dtype().is_vector() && !points.dtype().is_matrix() &&
                    points.ndim() == 2 && points.shape()[1] == 3;
  const bool vectors =
      points.dtype().is_vector() && points.dtype().components() == 3 && points.ndim() == 1;
  if (!rows && !vectors) {
    throw ValueError(std::string(what) + ": points of shape " +
                     tack::detail::shape_str(points.shape()) + " and dtype " +
                     points.dtype().str() +
                     "; give an (n, 3) array of floats (x, y, z per row) or n vec(3) floats");
  }
  if (!is_float(points.dtype().scalar)) {
    throw TypeError(std::string(what) + ": points of dtype " + points.dtype().str() +
                    "; give float points (f32 or f64)");
  }
  return points.device() == device ? points : to(points, device);
}

}  // namespace

void detail::check_locator(const DataSet& ds, const CellLocator& locator, const char* what) {
  const DataSet& l = locator.dataset();
  if (l.kind() != ds.kind() || l.n_points() != ds.n_points() || l.n_cells() != ds.n_cells() ||
      l.device() != ds.device()) {
    throw ValueError(std::string(what) + ": the locator was made from " + to_string(l.kind()) +
                     " of " + std::to_string(l.n_cells()) + " cells on " + l.device().name() +
                     ", ds is " + to_string(ds.kind()) + " of " + std::to_string(ds.n_cells()) +
                     " cells on " + ds.device().name() + "; give a locator made from ds");
  }
}

Array detail::points_of_query(const Array& points, const Device& device, const char* what) {
  return query_points(points, device, what);
}

namespace {}  // namespace

namespace detail {

// The cell functions' text and `body`; {T} and {N}, the cell's type and size, are constants where
// every cell of the dataset has one type (`type`, VTK's number; 0: several), so the compiler keeps
// only that type's code.
std::string locate_text(int type, const char* body) {
  std::string text = std::string(kSolve) + detail::kShape + kImageCell + kCells + kBins + body;
  if (type == 0) {
    text = algorithms::subst(text, "T", "ds_cell_type({G}, c)");
    return algorithms::subst(text, "N", "ds_cell_size({G}, c)");
  }
  static const std::map<int, int> sizes = {{5, 3},  {8, 4},  {9, 4},  {10, 4},
                                           {11, 8}, {12, 8}, {13, 6}, {14, 5}};
  text = algorithms::subst(text, "T", std::to_string(type));
  return algorithms::subst(text, "N", std::to_string(sizes.at(type)));
}

std::vector<KernelArg> LocatorAccess::search(const CellLocator& l) {
  std::vector<KernelArg> args;
  if (l.ds_.kind() == Kind::Image) {  // loc_find_image's geometry in the same places
    const Vec3& o = l.ds_.origin();
    const Vec3& h = l.ds_.spacing();
    const Dims& d = l.ds_.dims();
    double size = 0.0;
    for (std::size_t a = 0; a < 3; ++a) size += d[a] > 1 ? h[a] * h[a] : 0.0;
    args = {f64(o[0]), f64(o[1]), f64(o[2]), f64(h[0]), f64(h[1]),
            f64(h[2]), d[0],      d[1],      d[2],      f64(std::sqrt(size)),
            f64(0.0),  f64(0.0)};
  } else {
    args = {f64(l.bounds_[0]), f64(l.bounds_[2]), f64(l.bounds_[4]), f64(l.inv_h_[0]),
            f64(l.inv_h_[1]),  f64(l.inv_h_[2]),  l.bins_[0],        l.bins_[1],
            l.bins_[2],        f64(l.bounds_[1]), f64(l.bounds_[3]), f64(l.bounds_[5])};
  }
  args.emplace_back(*l.starts_);
  args.emplace_back(*l.cells_);
  args.push_back(f64(kEps));
  return args;
}

int LocatorAccess::type(const CellLocator& l) {
  return l.type_;
}

void LocatorAccess::refresh(CellLocator& l) {
  if (l.stale()) l.build();
}

}  // namespace detail

CellLocator::CellLocator(const DataSet& ds, double cells_per_bin)
    : ds_(ds), cells_per_bin_(cells_per_bin == 0.0 ? kCellsPerBin : cells_per_bin) {
  if (!(cells_per_bin_ > 0.0) || !std::isfinite(cells_per_bin_)) {
    throw ValueError("tack.dataset.CellLocator: cells_per_bin " + std::to_string(cells_per_bin) +
                     "; give a positive number (0: the default, " + std::to_string(kCellsPerBin) +
                     ")");
  }
  build();
}

void CellLocator::build() {
  if (ds_.kind() == Kind::Unstructured || ds_.kind() == Kind::Poly) {  // also after a write
    const std::int64_t present = ds_.n_cells() ? detail::types_present(ds_.types()) : 0;
    for (const int t : {6, 7}) {
      if (present & (std::int64_t{1} << t)) {
        throw ValueError("tack.dataset.CellLocator: the dataset has " + cell_type_name(t) +
                         " cells, which the locator does not search; split them into triangles "
                         "first (VTK's vtkTriangleFilter)");
      }
    }
  }
  const Prelude g(ds_);
  watched_ = g.arrays();
  versions_.clear();
  for (const Array& a : watched_) versions_.push_back(a.version());
  ++builds_;
  type_ = one_type(ds_);
  if (ds_.kind() == Kind::Image || ds_.n_cells() == 0) {  // arithmetic, or nothing
    starts_ = zeros({2}, DType(ScalarType::i64), ds_.device());
    cells_ = zeros({1}, DType(ScalarType::i32), ds_.device());
    return;
  }
  const Bins grid = uniform_bins(ds_.points(), static_cast<double>(ds_.n_cells()), cells_per_bin_,
                                 "tack.dataset.CellLocator: the dataset's points");
  bounds_ = grid.bounds;
  bins_ = grid.n;
  inv_h_ = grid.inv_h;
  const std::int64_t n_bins = bins_[0] * bins_[1] * bins_[2];
  const std::string source = g.source(detail::locate_text(type_, ""));
  std::vector<KernelArg> where = {f64(bounds_[0]), f64(bounds_[2]), f64(bounds_[4]),
                                  f64(inv_h_[0]),  f64(inv_h_[1]),  f64(inv_h_[2]),
                                  bins_[0],        bins_[1],        bins_[2]};
  const std::int64_t n = ds_.n_cells();
  const DType id_type(n < (std::int64_t{1} << 31) ? ScalarType::i32 : ScalarType::i64);
  const DType i64(ScalarType::i64);
  // Each bin's count (and one more, 0, so the scan's last value is the total), then each bin's
  // start.
  Array starts = zeros({n_bins + 1}, i64, ds_.device());
  std::vector<KernelArg> args = where;
  args.emplace_back(n);
  args.emplace_back(starts);
  detail::launch(algorithms::cached_kernel(source, "loc_bin_count"), g, args);
  const auto longest = static_cast<std::int64_t>(max(starts).as_double());
  const std::int64_t entries = detail::scan_total(starts);
  Array cells = empty({entries}, id_type, ds_.device());
  if (longest <= kSortedBins) {
    // Atomics put each cell in its bins; each bin's short list is then sorted.
    const Array cursor = zeros({n_bins}, DType(ScalarType::i32), ds_.device());
    args = where;
    for (const KernelArg& a :
         {KernelArg(n), KernelArg(starts), KernelArg(cursor), KernelArg(cells)})
      args.push_back(a);
    detail::launch(algorithms::cached_kernel(source, "loc_bin_fill"), g, args);
    algorithms::cached_kernel(kSortBins, "loc_bin_sort")(starts, cells);
    starts_ = starts;
    cells_ = cells;
    return;
  }
  // Long lists (cells of very different sizes): every (bin, cell) entry in cell order, and a
  // stable sort by bin.
  Array first = empty({n}, i64, ds_.device());
  args = where;
  args.emplace_back(first);
  detail::launch(algorithms::cached_kernel(source, "loc_count"), g, args);
  detail::scan_total(first);
  const Array keys = empty({entries}, DType(ScalarType::i32), ds_.device());
  args = where;
  for (const KernelArg& a : {KernelArg(first), KernelArg(keys), KernelArg(cells)})
    args.push_back(a);
  detail::launch(algorithms::cached_kernel(source, "loc_fill"), g, args);
  auto [sorted_keys, sorted_cells] = sort_by_key(keys, cells);
  starts_ = searchsorted(sorted_keys, arange(n_bins + 1, DType(ScalarType::i32), ds_.device()));
  cells_ = sorted_cells;
}

bool CellLocator::stale() const {
  for (std::size_t i = 0; i < watched_.size(); ++i)
    if (watched_[i].version() != versions_[i]) return true;
  return false;
}

std::pair<Array, Array> CellLocator::find_cells(const Array& points) {
  const Array pts = query_points(points, ds_.device(), "tack.dataset.CellLocator.find_cells");
  if (stale()) build();
  const std::int64_t n = pts.shape()[0];
  Array found = empty({n}, DType(ScalarType::i64), ds_.device());
  Array pc = empty({n, 3}, DType(ScalarType::f64), ds_.device());
  if (n == 0) return {found, pc};
  if (ds_.kind() == Kind::Image) {
    const Dims& d = ds_.dims();
    double size = 0.0;
    for (std::size_t a = 0; a < 3; ++a) {
      const double h = d[a] > 1 ? ds_.spacing()[a] : 0.0;
      size += h * h;
    }
    const Kernel& k = algorithms::cached_kernel(std::string(kImageCell) + kImage, "loc_find_image");
    const Vec3& o = ds_.origin();
    const Vec3& h = ds_.spacing();
    k(f64(o[0]), f64(o[1]), f64(o[2]), f64(h[0]), f64(h[1]), f64(h[2]), d[0], d[1], d[2],
      f64(std::sqrt(size)), pts, f64(kEps), found, pc);
    return {found, pc};
  }
  if (ds_.n_cells() == 0) {
    found.fill(Scalar::from(std::int64_t{-1}));
    pc.fill(Scalar::from(0.0));
    return {found, pc};
  }
  // The points in the order of their bins (the answer does not depend on it), so that
  // consecutive points test the same cells from the cache rather than memory.
  const std::vector<KernelArg> where = {f64(bounds_[0]), f64(bounds_[2]), f64(bounds_[4]),
                                        f64(inv_h_[0]),  f64(inv_h_[1]),  f64(inv_h_[2]),
                                        bins_[0],        bins_[1],        bins_[2],
                                        f64(bounds_[1]), f64(bounds_[3]), f64(bounds_[5])};
  const Array keys = empty({n}, DType(ScalarType::i32), ds_.device());
  std::vector<KernelArg> args = where;
  args.emplace_back(pts);
  args.emplace_back(keys);
  algorithms::cached_kernel(kKeys, "loc_keys").call(args);
  const Array order = argsort(keys);
  const Prelude g(ds_);
  args = where;
  args.emplace_back(*starts_);
  args.emplace_back(*cells_);
  args.emplace_back(pts);
  args.emplace_back(order);
  args.push_back(f64(kEps));
  args.emplace_back(found);
  args.emplace_back(pc);
  detail::launch(algorithms::cached_kernel(g.source(detail::locate_text(type_, "")), "loc_find"), g,
                 args);
  return {found, pc};
}

PointLocator::PointLocator(const Array& points, double points_per_bin)
    : points_(query_points(points, points.device(), "tack.dataset.PointLocator")),
      points_per_bin_(points_per_bin == 0.0 ? kCellsPerBin : points_per_bin) {
  if (!(points_per_bin_ > 0.0) || !std::isfinite(points_per_bin_)) {
    throw ValueError("tack.dataset.PointLocator: points_per_bin " + std::to_string(points_per_bin) +
                     "; give a positive number (0: the default, " + std::to_string(kCellsPerBin) +
                     ")");
  }
  build();
}

namespace {

std::vector<KernelArg> bin_args(const std::array<double, 6>& bounds,
                                const std::array<double, 3>& inv_h,
                                const std::array<std::int64_t, 3>& n) {
  return {f64(bounds[0]), f64(bounds[2]), f64(bounds[4]), f64(inv_h[0]), f64(inv_h[1]),
          f64(inv_h[2]),  n[0],           n[1],           n[2]};
}

}  // namespace

void PointLocator::build() {
  version_ = points_.version();
  ++builds_;
  const Device device = points_.device();
  const std::int64_t n = points_.shape()[0];
  if (n > 0) {
    const Bins grid = uniform_bins(points_, static_cast<double>(n), points_per_bin_,
                                   "tack.dataset.PointLocator: the points");
    bounds_ = grid.bounds;
    bins_ = grid.n;
    inv_h_ = grid.inv_h;
  }
  const std::int64_t n_bins = bins_[0] * bins_[1] * bins_[2];
  starts_ = zeros({n_bins + 1}, DType(ScalarType::i64), device);
  ids_ = empty({n}, DType(n < (std::int64_t{1} << 31) ? ScalarType::i32 : ScalarType::i64), device);
  if (n == 0) return;
  std::vector<KernelArg> args = bin_args(bounds_, inv_h_, bins_);
  args.emplace_back(points_);
  args.emplace_back(*starts_);
  algorithms::cached_kernel(kPoints, "pl_count").call(args);
  detail::scan_total(*starts_);
  // Each bin's points in increasing id: a stable sort of the points by bin (a bin may hold any
  // number of them: duplicates, a tight cluster).
  const Array keys = empty({n}, DType(ScalarType::i64), device);
  args = bin_args(bounds_, inv_h_, bins_);
  args.emplace_back(points_);
  args.emplace_back(keys);
  algorithms::cached_kernel(kPoints, "pl_keys").call(args);
  ids_ = argsort(keys);
}

Array PointLocator::nearest(const Array& queries) {
  const Array q = query_points(queries, points_.device(), "tack.dataset.PointLocator.nearest");
  if (points_.version() != version_) build();
  Array out = empty({q.shape()[0]}, DType(ScalarType::i64), points_.device());
  if (q.shape()[0] == 0) return out;
  std::vector<KernelArg> args = bin_args(bounds_, inv_h_, bins_);
  for (const KernelArg& a :
       {KernelArg(points_), KernelArg(*starts_), KernelArg(*ids_), KernelArg(q), KernelArg(out)})
    args.push_back(a);
  algorithms::cached_kernel(kPoints, "pl_nearest").call(args);
  return out;
}

std::pair<Array, Array> PointLocator::within(const Array& queries, double radius) {
  const Array q = query_points(queries, points_.device(), "tack.dataset.PointLocator.within");
  if (!(radius >= 0.0) || !std::isfinite(radius)) {
    throw ValueError("tack.dataset.PointLocator.within: a radius of " + std::to_string(radius) +
                     "; give a finite radius of 0 or more");
  }
  if (points_.version() != version_) build();
  const std::int64_t n = q.shape()[0];
  const Device device = points_.device();
  Array offsets = zeros({n + 1}, DType(ScalarType::i64), device);
  const Kernel& k = algorithms::cached_kernel(kPoints, "pl_within");
  auto run = [&](bool counting, const Array& out) {
    std::vector<KernelArg> args = bin_args(bounds_, inv_h_, bins_);
    for (const KernelArg& a :
         {KernelArg(points_), KernelArg(*starts_), KernelArg(*ids_), KernelArg(q), f64(radius),
          KernelArg(counting), KernelArg(offsets), KernelArg(out)})
      args.push_back(a);
    k.call(args);
  };
  const Array none = empty({1}, DType(ScalarType::i64), device);
  if (n > 0 && points_.shape()[0] > 0) run(true, none);
  const auto longest = static_cast<std::int64_t>(max(offsets).as_double());
  const std::int64_t total = detail::scan_total(offsets);
  Array ids = empty({total}, DType(ScalarType::i64), device);
  if (total > 0) {
    run(false, ids);
    if (longest <= kSortedBins) {
      algorithms::cached_kernel(kSortBins, "loc_bin_sort")(offsets, ids);
    } else {  // long lists: one sort of (query, id) pairs as query * n + id
      const std::int64_t np = points_.shape()[0];
      const Kernel& pairs = algorithms::cached_kernel(kPairs, "pl_pairs");
      pairs(offsets, ids, np, true);
      ids = sort(ids);
      pairs(offsets, ids, np, false);
    }
  }
  return {offsets, ids};
}

DataSet probe(const DataSet& ds, const Array& points, CellLocator* locator) {
  std::optional<CellLocator> own;
  if (locator == nullptr) {
    own.emplace(ds);
    locator = &*own;
  } else {
    detail::check_locator(ds, *locator, "tack.dataset.probe");
  }
  const Array pts = query_points(points, ds.device(), "tack.dataset.probe");
  const auto [found, pc] = locator->find_cells(pts);
  const std::int64_t n = pts.shape()[0];
  const Device& device = ds.device();
  DataSet out = detail::trusted_explicit(
      Kind::Poly, pts, arange(n + 1, DType(ScalarType::i64), device),
      arange(n, DType(ScalarType::i64), device),
      full({n}, Scalar::from(std::int64_t{1}), DType(ScalarType::u8), device));
  detail::carry_fields(ds, found, pc, out.point_data());
  Array valid = empty({n}, DType(ScalarType::u8), device);
  algorithms::cached_kernel(kTake, "loc_valid")(found, valid);
  out.point_data().set("valid", valid);
  return out;
}

void detail::carry_fields(const DataSet& ds, const Array& found, const Array& pc, FieldMap& out) {
  const std::int64_t n = found.shape()[0];
  const Device& device = ds.device();
  const Prelude g(ds);
  const Kernel& interpolate = algorithms::cached_kernel(
      g.source(detail::locate_text(one_type(ds), kProbe)), "loc_interpolate");
  // A field's values at the points: the field's shape with n rows, and those as a kernel
  // writes them (rows of its components; a vec array is itself).
  auto made = [&](const Array& src) {
    Shape shape = src.shape();
    shape[0] = n;
    Array values = empty(shape, src.dtype(), device);
    Array rows =
        src.dtype().components() > 1 ? values : values.reshape({n, detail::components(src)});
    return std::make_pair(values, rows);
  };
  for (const auto& [name, src] : ds.point_data().items()) {
    const auto [values, rows] = made(src);
    const bool rounded = !is_float(src.dtype().scalar);
    detail::launch(interpolate, g,
                   {found, pc, detail::as_rows(src, name), rows, detail::components(src), rounded});
    out.set(name, values);
  }
  const Kernel& take = algorithms::cached_kernel(kTake, "loc_take");
  for (const auto& [name, src] : ds.cell_data().items()) {
    const auto [values, rows] = made(src);
    take(found, detail::as_rows(src, name), rows, detail::components(src));
    out.set(ds.point_data().contains(name) ? name + " (cell)" : name, values);
  }
}

DataSet resample_to_image(const DataSet& ds, const Dims& dims,
                          const std::optional<std::array<double, 6>>& bounds) {
  for (const std::int64_t d : dims) {
    if (d < 1) {
      throw ValueError("tack.dataset.resample_to_image: dims (" + std::to_string(dims[0]) + ", " +
                       std::to_string(dims[1]) + ", " + std::to_string(dims[2]) +
                       "); give at least one point along each axis");
    }
  }
  std::array<double, 6> b{};
  if (bounds) {
    b = *bounds;
  } else if (ds.n_points() > 0) {
    const Array pts = astype(detail::point_rows(ds.points()), DType(ScalarType::f64));
    const std::vector<double> lo = min(pts, 0).to_vector<double>();
    const std::vector<double> hi = max(pts, 0).to_vector<double>();
    for (std::size_t a = 0; a < 3; ++a) {
      b[2 * a] = lo[a];
      b[2 * a + 1] = hi[a];
    }
  }
  Vec3 origin{}, spacing{};
  for (std::size_t a = 0; a < 3; ++a) {
    if (!(b[2 * a] <= b[2 * a + 1])) {
      throw ValueError("tack.dataset.resample_to_image: bounds run from " +
                       std::to_string(b[2 * a]) + " to " + std::to_string(b[2 * a + 1]) +
                       " along axis " + std::to_string(a) + "; give (xmin, xmax, ymin, ...)");
    }
    if (dims[a] > 1 && !(b[2 * a] < b[2 * a + 1])) {
      throw ValueError("tack.dataset.resample_to_image: " + std::to_string(dims[a]) +
                       " points along axis " + std::to_string(a) + " over bounds of no extent (" +
                       std::to_string(b[2 * a]) + " to " + std::to_string(b[2 * a + 1]) +
                       "); give one point along a flat axis, or wider bounds");
    }
    origin[a] = b[2 * a];
    spacing[a] = dims[a] > 1 ? (b[2 * a + 1] - b[2 * a]) / static_cast<double>(dims[a] - 1) : 1.0;
  }
  DataSet image = DataSet::image(dims, origin, spacing, ds.device());
  const DataSet probed = probe(ds, image.points());
  for (const auto& [name, values] : probed.point_data().items())
    image.point_data().set(name, values);
  return image;
}

}  // namespace tack::dataset
