// gradient (vtkGradientFilter's point gradients) (docs/design/dataset.md, "Gradient"). Grids:
// VTK's finite differences in index space (central inside, one-sided on the boundary, a
// dimension of one point the unit row of its axis) mapped to x, y, z by the inverse of the
// differences' Jacobian. Explicit kinds: the average over the point's cells of the highest
// dimension of each cell's derivative at the point (its shape functions' at the point's
// parametric corner), exact for a linear field on every cell type.
#include <string>

#include "algorithms/kernel_text.hpp"
#include "dataset/cells.hpp"
#include "dataset/marching.hpp"
#include "dataset/prelude.hpp"
#include "tack/algorithms.hpp"
#include "tack/dataset.hpp"
#include "tack/error.hpp"

namespace tack::dataset {
namespace {

using detail::Prelude;

const char* const kGrid = R"(
# The differences along index axis `axis` at point (i, j, l): of the coordinates and of the
# field's component m; VTK's: half the central difference inside, the one-sided one on the
# boundary, the axis's unit vector and 0 along an axis of one point.
@tack.func
def ds_differences({G}, src, m, i, j, l, axis):
    n = g_nx
    at = i
    if axis == 1:
        n = g_ny
        at = j
    elif axis == 2:
        n = g_nz
        at = l
    dx = tack.f64(1.0 if axis == 0 else 0.0)
    dy = tack.f64(1.0 if axis == 1 else 0.0)
    dz = tack.f64(1.0 if axis == 2 else 0.0)
    du = tack.f64(0.0)
    if n > 1:
        lo = max(at - 1, 0)
        hi = min(at + 1, n - 1)
        f = tack.f64(1.0) / (hi - lo)
        ai = i
        aj = j
        al = l
        bi = i
        bj = j
        bl = l
        if axis == 0:
            ai = lo
            bi = hi
        elif axis == 1:
            aj = lo
            bj = hi
        else:
            al = lo
            bl = hi
        pa = ai + g_nx * (aj + g_ny * al)
        pb = bi + g_nx * (bj + g_ny * bl)
        xa, ya, za = ds_point_ijk({G}, ai, aj, al, pa)
        xb, yb, zb = ds_point_ijk({G}, bi, bj, bl, pb)
        dx = f * (xb - xa)
        dy = f * (yb - ya)
        dz = f * (zb - za)
        du = f * (tack.f64(src[pb, m]) - tack.f64(src[pa, m]))
    return (dx, dy, dz, du)

def ds_gradient_grid({G}, src, out, nc):
    for l, j, i in tack.ndrange(g_nz, g_ny, g_nx):
        p = i + g_nx * (j + g_ny * l)
        for m in range(nc):
            x0, y0, z0, u0 = ds_differences({G}, src, m, i, j, l, 0)
            x1, y1, z1, u1 = ds_differences({G}, src, m, i, j, l, 1)
            x2, y2, z2, u2 = ds_differences({G}, src, m, i, j, l, 2)
            gx, gy, gz = ds_solve3(x0, y0, z0, x1, y1, z1, x2, y2, z2, u0, u1, u2)
            out[p, 3 * m] = gx
            out[p, 3 * m + 1] = gy
            out[p, 3 * m + 2] = gz
)";

const char* const kExplicit = R"(

# The parametric corner (r, s, u) of point k of a 3-D cell of type t, as VTK's tables.
@tack.func
def ds_corner3(t, k):
    r = tack.f64(0.0)
    s = tack.f64(0.0)
    u = tack.f64(0.0)
    if t == 10 or t == 13:
        q = k % 3 if t == 13 else k
        r = tack.f64(1.0 if q == 1 else 0.0)
        s = tack.f64(1.0 if q == 2 else 0.0)
        u = tack.f64(1.0 if (t == 10 and q == 3) or (t == 13 and k >= 3) else 0.0)
    elif t == 11:
        r = tack.f64(k & 1)
        s = tack.f64((k >> 1) & 1)
        u = tack.f64((k >> 2) & 1)
    else:
        # hexahedron and pyramid: (0, 0), (1, 0), (1, 1), (0, 1) in each layer; the apex (0, 0, 1)
        r = tack.f64((k & 1) ^ ((k >> 1) & 1))
        s = tack.f64((k >> 1) & 1)
        u = tack.f64((k >> 2) & 1)
    return (r, s, u)

# The gradient of component m of a 3-D cell's field at parametric (r, s, u).
@tack.func
def ds_derivative3({G}, src, m, c, t, n, r, s, u):
    j00 = tack.f64(0.0)
    j01 = tack.f64(0.0)
    j02 = tack.f64(0.0)
    j10 = tack.f64(0.0)
    j11 = tack.f64(0.0)
    j12 = tack.f64(0.0)
    j20 = tack.f64(0.0)
    j21 = tack.f64(0.0)
    j22 = tack.f64(0.0)
    d0 = tack.f64(0.0)
    d1 = tack.f64(0.0)
    d2 = tack.f64(0.0)
    for i in range(n):
        q = ds_cell_point({G}, c, i)
        x, y, z = ds_point({G}, q)
        v = tack.f64(src[q, m])
        w, a, b, e = ds_shape(t, i, r, s, u)
        j00 += a * x
        j01 += a * y
        j02 += a * z
        j10 += b * x
        j11 += b * y
        j12 += b * z
        j20 += e * x
        j21 += e * y
        j22 += e * z
        d0 += a * v
        d1 += b * v
        d2 += e * v
    return ds_solve3(j00, j01, j02, j10, j11, j12, j20, j21, j22, d0, d1, d2)

# The derivatives of shape function i of a 2-D cell (5 triangle, 9 quad, 8 pixel) at its corner
# k, and the gradient of component m at that corner, in the plane of the cell's points a, a + 1,
# a + 2 (the points of the cell from `first`, `n` of them, are the 2-D cell's).
@tack.func
def ds_shape2(t, i, k):
    r = tack.f64(1.0 if k == 1 or (k == 2 and t == 9) or (k == 3 and t == 8) else 0.0)
    s = tack.f64(1.0 if k >= 2 else 0.0)
    dr = tack.f64(0.0)
    ds = tack.f64(0.0)
    if t == 5:
        dr = tack.f64(-1.0 if i == 0 else (1.0 if i == 1 else 0.0))
        ds = tack.f64(-1.0 if i == 0 else (1.0 if i == 2 else 0.0))
    else:
        cr = 1.0 if i == 1 or (i == 2 and t == 9) or (i == 3 and t == 8) else 0.0
        cs = 1.0 if i >= 2 else 0.0
        fr = r if cr > 0.5 else 1.0 - r
        fs = s if cs > 0.5 else 1.0 - s
        dr = (1.0 if cr > 0.5 else -1.0) * fs
        ds = (1.0 if cs > 0.5 else -1.0) * fr
    return (dr, ds)

@tack.func
def ds_derivative2({G}, src, m, c, t, first, n, k):
    x0, y0, z0 = ds_point({G}, ds_cell_point({G}, c, first))
    x1, y1, z1 = ds_point({G}, ds_cell_point({G}, c, first + 1))
    x2, y2, z2 = ds_point({G}, ds_cell_point({G}, c, first + 2))
    ax = x1 - x0
    ay = y1 - y0
    az = z1 - z0
    bx = x2 - x0
    by = y2 - y0
    bz = z2 - z0
    nx, ny, nz = ds_cross(ax, ay, az, bx, by, bz)
    la = math.sqrt(ax * ax + ay * ay + az * az)
    ln = math.sqrt(nx * nx + ny * ny + nz * nz)
    gx = tack.f64(0.0)
    gy = tack.f64(0.0)
    gz = tack.f64(0.0)
    if la > 0.0 and ln > 0.0:
        ax /= la
        ay /= la
        az /= la
        nx /= ln
        ny /= ln
        nz /= ln
        vx = ny * az - nz * ay
        vy = nz * ax - nx * az
        vz = nx * ay - ny * ax
        j00 = tack.f64(0.0)
        j01 = tack.f64(0.0)
        j10 = tack.f64(0.0)
        j11 = tack.f64(0.0)
        d0 = tack.f64(0.0)
        d1 = tack.f64(0.0)
        for i in range(n):
            q = ds_cell_point({G}, c, first + i)
            x, y, z = ds_point({G}, q)
            lx = (x - x0) * ax + (y - y0) * ay + (z - z0) * az
            ly = (x - x0) * vx + (y - y0) * vy + (z - z0) * vz
            v = tack.f64(src[q, m])
            a, b = ds_shape2(t, i, k)
            j00 += a * lx
            j01 += a * ly
            j10 += b * lx
            j11 += b * ly
            d0 += a * v
            d1 += b * v
        det = j00 * j11 - j01 * j10
        if det != 0.0:
            g0 = (d0 * j11 - j01 * d1) / det
            g1 = (j00 * d1 - d0 * j10) / det
            gx = g0 * ax + g1 * vx
            gy = g0 * ay + g1 * vy
            gz = g0 * az + g1 * vz
    return (gx, gy, gz)

# The gradient of component m of cell c (type t, n points) at its point k.
@tack.func
def ds_cell_derivative({G}, src, m, c, t, n, k):
    gx = tack.f64(0.0)
    gy = tack.f64(0.0)
    gz = tack.f64(0.0)
    if t == 3 or t == 4:
        # a line's: the change along it over its length, along it
        e = max(k - 1, 0) if t == 4 else 0
        a = ds_cell_point({G}, c, e)
        b = ds_cell_point({G}, c, e + 1)
        xa, ya, za = ds_point({G}, a)
        xb, yb, zb = ds_point({G}, b)
        dx = xb - xa
        dy = yb - ya
        dz = zb - za
        l2 = dx * dx + dy * dy + dz * dz
        if l2 > 0.0:
            w = (tack.f64(src[b, m]) - tack.f64(src[a, m])) / l2
            gx = w * dx
            gy = w * dy
            gz = w * dz
    elif t == 5 or t == 8 or t == 9 or (t == 7 and n <= 4):
        gx, gy, gz = ds_derivative2({G}, src, m, c, 9 if t == 7 and n == 4 else (5 if t == 7 else t), 0, n, k)
    elif t == 6:
        # a strip's point k: the first of its triangles that has it
        e = min(max(k - 2, 0), n - 3)
        gx, gy, gz = ds_derivative2({G}, src, m, c, 5, e, 3, k - e)
    elif t == 7:
        # a polygon of five or more points: its fan's triangle gradients weighted by area
        sw = tack.f64(0.0)
        for e in range(n - 2):
            x0, y0, z0 = ds_point({G}, ds_cell_point({G}, c, 0))
            x1, y1, z1 = ds_point({G}, ds_cell_point({G}, c, e + 1))
            x2, y2, z2 = ds_point({G}, ds_cell_point({G}, c, e + 2))
            cx = (y1 - y0) * (z2 - z0) - (z1 - z0) * (y2 - y0)
            cy = (z1 - z0) * (x2 - x0) - (x1 - x0) * (z2 - z0)
            cz = (x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0)
            w = math.sqrt(cx * cx + cy * cy + cz * cz)
            tx, ty, tz = ds_fan_derivative({G}, src, m, c, e)
            gx += w * tx
            gy += w * ty
            gz += w * tz
            sw += w
        if sw > 0.0:
            gx /= sw
            gy /= sw
            gz /= sw
    elif t >= 10:
        r, s, u = ds_corner3(t, k)
        if t == 14 and k == 4:
            # VTK's rule at a pyramid's apex, where the map is singular: extrapolated along the
            # axis from just below it
            ax, ay, az = ds_derivative3({G}, src, m, c, t, n, 0.5, 0.5, 0.998)
            bx, by, bz = ds_derivative3({G}, src, m, c, t, n, 0.5, 0.5, 0.996)
            gx = 2.0 * ax - bx
            gy = 2.0 * ay - by
            gz = 2.0 * az - bz
        else:
            gx, gy, gz = ds_derivative3({G}, src, m, c, t, n, r, s, u)
    return (gx, gy, gz)

def ds_gradient_explicit({G}, starts, links, src, out, nc):
    for p in range(out.shape[0]):
        b = starts[p]
        e = starts[p + 1]
        top = 0
        for j in range(b, e):
            top = max(top, ds_dimension(ds_cell_type({G}, links[j])))
        for m in range(nc):
            sx = tack.f64(0.0)
            sy = tack.f64(0.0)
            sz = tack.f64(0.0)
            count = 0
            for j in range(b, e):
                c = links[j]
                t = ds_cell_type({G}, c)
                once = (j == b or links[j - 1] != c) and (j + 1 == e or links[j + 1] != c)
                if top > 0 and ds_dimension(t) == top and once:
                    n = ds_cell_size({G}, c)
                    k = n - n
                    for h in range(n):
                        if ds_cell_point({G}, c, h) == p:
                            k = h
                    gx, gy, gz = ds_cell_derivative({G}, src, m, c, t, n, k)
                    sx += gx
                    sy += gy
                    sz += gz
                    count += 1
            if count > 0:
                sx /= count
                sy /= count
                sz /= count
            out[p, 3 * m] = sx
            out[p, 3 * m + 1] = sy
            out[p, 3 * m + 2] = sz
)";

// The fan triangle (0, e + 1, e + 2) of a polygon: its constant gradient.
const char* const kFan = R"(
@tack.func
def ds_fan_derivative({G}, src, m, c, e):
    x0, y0, z0 = ds_point({G}, ds_cell_point({G}, c, 0))
    x1, y1, z1 = ds_point({G}, ds_cell_point({G}, c, e + 1))
    x2, y2, z2 = ds_point({G}, ds_cell_point({G}, c, e + 2))
    u0 = tack.f64(src[ds_cell_point({G}, c, 0), m])
    u1 = tack.f64(src[ds_cell_point({G}, c, e + 1), m])
    u2 = tack.f64(src[ds_cell_point({G}, c, e + 2), m])
    ax = x1 - x0
    ay = y1 - y0
    az = z1 - z0
    bx = x2 - x0
    by = y2 - y0
    bz = z2 - z0
    nx, ny, nz = ds_cross(ax, ay, az, bx, by, bz)
    # the plane gradient g with g . a = u1 - u0, g . b = u2 - u0, g . n = 0
    return ds_solve3(ax, ay, az, bx, by, bz, nx, ny, nz, u1 - u0, u2 - u0, tack.f64(0.0))
)";

}  // namespace

DataSet gradient(const DataSet& ds, const std::string& field, const std::string& name) {
  if (!ds.point_data().contains(field) && ds.cell_data().contains(field)) {
    throw ValueError("tack.dataset: gradient takes a point field and '" + field +
                     "' is a cell field; make it a point field first with cell_to_point(ds, '" +
                     field + "')");
  }
  const Array src = ds.point_data().at(field);  // a copy: the map may change while this runs
  const Array rows = detail::as_rows(src, field);
  const std::int64_t nc = detail::components(src);
  // VTK's result type: f64 for fields of 8-byte elements, f32 otherwise.
  const DType out_type(itemsize(src.dtype().scalar) >= 8 ? ScalarType::f64 : ScalarType::f32);
  Array out = empty({ds.n_points(), 3 * nc}, out_type, ds.device());
  if (ds.n_points() > 0) {
    const Prelude g(ds);
    if (ds.is_structured()) {
      const Kernel& k = algorithms::cached_kernel(g.source(std::string(detail::kSolve) + kGrid),
                                                  "ds_gradient_grid");
      detail::launch(k, g, {rows, out, nc});
    } else {
      const Kernel& k = algorithms::cached_kernel(
          g.source(std::string(detail::kSolve) + detail::kShape + kFan + kExplicit),
          "ds_gradient_explicit");
      const detail::CellLinks links = detail::cell_links(ds);
      detail::launch(k, g, {links.starts, links.cells, rows, out, nc});
    }
  }
  DataSet r = ds;
  r.point_data().set(name, out);
  return r;
}

}  // namespace tack::dataset
