// The first filters (docs/design/dataset.md, "Filters"): elevation, point_to_cell,
// cell_to_point and cell_centers. Each is one kernel over the geometry prelude
// (dataset/prelude.hpp), compiled once per dataset kind and argument types through the normal
// dispatch.
#include <cmath>
#include <string>
#include <vector>

#include "algorithms/kernel_text.hpp"
#include "dataset/cells.hpp"
#include "dataset/prelude.hpp"
#include "tack/algorithms.hpp"
#include "tack/dataset.hpp"
#include "tack/error.hpp"

namespace tack::dataset {
namespace {

using detail::as_rows;
using detail::components;
using detail::f64;
using detail::Prelude;

// The array of `n` averages of `src`'s rows: floats keep their dtype, integers give f64.
Array averages_of(const Array& src, std::int64_t n, const Device& device) {
  const DType t = is_float(src.dtype().scalar)
                      ? src.dtype()
                      : DType(ScalarType::f64, src.dtype().vector_n, src.dtype().matrix_cols);
  Shape shape = src.shape();
  shape[0] = n;
  return empty(shape, t, device);
}

}  // namespace

DataSet elevation(const DataSet& ds, const Vec3& low, const Vec3& high,
                  const std::array<double, 2>& range, const std::string& name) {
  const Prelude g(ds);
  // Structured kinds loop over (l, j, i): no divisions to find a point's coordinates.
  const std::string body = ds.is_structured() && ds.n_points() > 0 ? R"(
def ds_elevation({G}, out, lx, ly, lz, dx, dy, dz, inv_len2, r0, r1):
    for l, j, i in tack.ndrange(g_nz, g_ny, g_nx):
        p = i + g_nx * (j + g_ny * l)
        x, y, z = ds_point_ijk({G}, i, j, l, p)
        s = ((x - lx) * dx + (y - ly) * dy + (z - lz) * dz) * inv_len2
        s = min(max(s, 0.0), 1.0)
        out[p] = r0 + s * (r1 - r0)
)"
                                                                   : R"(
def ds_elevation({G}, out, lx, ly, lz, dx, dy, dz, inv_len2, r0, r1):
    for p in range(len(out)):
        x, y, z = ds_point({G}, p)
        s = ((x - lx) * dx + (y - ly) * dy + (z - lz) * dz) * inv_len2
        s = min(max(s, 0.0), 1.0)
        out[p] = r0 + s * (r1 - r0)
)";
  const Kernel& k = algorithms::cached_kernel(g.source(body), "ds_elevation");
  const double dx = high[0] - low[0], dy = high[1] - low[1], dz = high[2] - low[2];
  double len2 = dx * dx + dy * dy + dz * dz;
  if (len2 <= 0.0) len2 = 1.0;  // VTK's rule for a degenerate direction
  Array out = empty({ds.n_points()}, DType(ScalarType::f32), ds.device());
  detail::launch(k, g,
                 {out, f64(low[0]), f64(low[1]), f64(low[2]), f64(dx), f64(dy), f64(dz),
                  f64(1.0 / len2), f64(range[0]), f64(range[1])});
  DataSet r = ds;
  r.point_data().set(name, out);
  return r;
}

DataSet point_to_cell(const DataSet& ds, const std::string& name) {
  const Array src = ds.point_data().at(name);  // a copy: the map may change while this runs
  const Prelude g(ds);
  // Structured kinds loop over the cells' (l, j, i): no divisions to find their points.
  const std::string body = ds.is_structured() && ds.n_cells() > 0 ? R"(
def ds_point_to_cell({G}, src, out, nc):
    for cl, cj, ci in tack.ndrange(max(g_nz - 1, 1), max(g_ny - 1, 1), max(g_nx - 1, 1)):
        c = ci + max(g_nx - 1, 1) * (cj + max(g_ny - 1, 1) * cl)
        n = ds_cell_size({G}, c)
        for m in range(nc):
            s = tack.f64(0.0)
            for k in range(n):
                s += tack.f64(src[ds_cell_point_ijk({G}, ci, cj, cl, k), m])
            out[c, m] = s / n
)"
                                                                  : R"(
def ds_point_to_cell({G}, src, out, nc):
    for c in range(out.shape[0]):
        n = ds_cell_size({G}, c)
        for m in range(nc):
            s = tack.f64(0.0)
            for k in range(n):
                s += tack.f64(src[ds_cell_point({G}, c, k), m])
            out[c, m] = s / n
)";
  const Kernel& k = algorithms::cached_kernel(g.source(body), "ds_point_to_cell");
  Array out = averages_of(src, ds.n_cells(), ds.device());
  const Array rows = as_rows(src, name);
  const Array out_rows = as_rows(out, name);
  detail::launch(k, g, {rows, out_rows, components(src)});
  DataSet r = ds;
  r.cell_data().set(name, out);
  return r;
}

DataSet cell_to_point(const DataSet& ds, const std::string& name) {
  const Array src = ds.cell_data().at(name);  // a copy: the map may change while this runs
  Array out = averages_of(src, ds.n_points(), ds.device());
  const Array rows = as_rows(src, name), out_rows = as_rows(out, name);
  const std::int64_t nc = components(src);
  if (ds.is_structured()) {
    // The cells around a point follow from its (i, j, k): up to two along each axis with more
    // than one point, in increasing cell id.
    const Kernel& k = algorithms::cached_kernel(R"(
def ds_cell_to_point_structured(g_nx, g_ny, g_nz, src, out, nc):
    for p in range(out.shape[0]):
        i = p % g_nx
        j = (p // g_nx) % g_ny
        l = p // (g_nx * g_ny)
        cx = max(g_nx - 1, 1)
        cy = max(g_ny - 1, 1)
        for m in range(nc):
            s = tack.f64(0.0)
            count = 0
            for a in range(2):
                cl = l - 1 + a
                if cl >= 0 and cl <= max(g_nz - 2, 0):
                    for b in range(2):
                        cj = j - 1 + b
                        if cj >= 0 and cj <= max(g_ny - 2, 0):
                            for d in range(2):
                                ci = i - 1 + d
                                if ci >= 0 and ci <= max(g_nx - 2, 0):
                                    s += tack.f64(src[ci + cx * (cj + cy * cl), m])
                                    count += 1
            out[p, m] = s / count
)",
                                                "ds_cell_to_point_structured");
    const Dims& d = ds.dims();
    k(d[0], d[1], d[2], rows, out_rows, nc);
  } else {
    // Each point's cells in increasing cell id (dataset/cells.hpp).
    const Kernel& average = algorithms::cached_kernel(R"(
def ds_cell_to_point_explicit(starts, cells, src, out, nc):
    for p in range(out.shape[0]):
        n = starts[p + 1] - starts[p]
        for m in range(nc):
            s = tack.f64(0.0)
            for j in range(starts[p], starts[p + 1]):
                s += tack.f64(src[cells[j], m])
            out[p, m] = s / n if n > 0 else tack.f64(0.0)
)",
                                                      "ds_cell_to_point_explicit");
    const detail::CellLinks links = detail::cell_links(ds);
    average(links.starts, links.cells, rows, out_rows, nc);
  }
  DataSet r = ds;
  r.point_data().set(name, out);
  return r;
}

DataSet cell_centers(const DataSet& ds) {
  const Prelude g(ds);
  // VTK's parametric centers (vtkCellCenters): the points' average for the linear cells whose
  // parametric center is symmetric; a pyramid's at (0.4, 0.4, 0.2); a poly-vertex's middle
  // vertex, a poly-line's middle segment's midpoint, a strip's middle triangle's centroid (its
  // sub-cell (n - 1) // 2, n // 2, (n - 2) // 2); a polygon's the centre of its bounds in the
  // frame of its first edge and its (Newell) normal.
  const std::string body = R"(
@tack.func
def ds_mean({G}, c, first, count):
    x = tack.f64(0.0)
    y = tack.f64(0.0)
    z = tack.f64(0.0)
    for k in range(first, first + count):
        px, py, pz = ds_point({G}, ds_cell_point({G}, c, k))
        x += px
        y += py
        z += pz
    return (x / count, y / count, z / count)

@tack.func
def ds_polygon_center({G}, c, n):
    ax, ay, az = ds_point({G}, ds_cell_point({G}, c, 0))
    nx = tack.f64(0.0)
    ny = tack.f64(0.0)
    nz = tack.f64(0.0)
    for k in range(n):
        px, py, pz = ds_point({G}, ds_cell_point({G}, c, k))
        qx, qy, qz = ds_point({G}, ds_cell_point({G}, c, (k + 1) % n))
        nx += (py - qy) * (pz + qz)
        ny += (pz - qz) * (px + qx)
        nz += (px - qx) * (py + qy)
    ln = math.sqrt(nx * nx + ny * ny + nz * nz)
    bx, by, bz = ds_point({G}, ds_cell_point({G}, c, 1))
    ux = bx - ax
    uy = by - ay
    uz = bz - az
    lu = math.sqrt(ux * ux + uy * uy + uz * uz)
    c_x = tack.f64(0.0)
    c_y = tack.f64(0.0)
    c_z = tack.f64(0.0)
    if ln > 0.0 and lu > 0.0:
        nx /= ln
        ny /= ln
        nz /= ln
        ux /= lu
        uy /= lu
        uz /= lu
        vx = ny * uz - nz * uy
        vy = nz * ux - nx * uz
        vz = nx * uy - ny * ux
        s0 = tack.f64(0.0)
        s1 = tack.f64(0.0)
        t0 = tack.f64(0.0)
        t1 = tack.f64(0.0)
        for k in range(n):
            px, py, pz = ds_point({G}, ds_cell_point({G}, c, k))
            s = (px - ax) * ux + (py - ay) * uy + (pz - az) * uz
            t = (px - ax) * vx + (py - ay) * vy + (pz - az) * vz
            s0 = min(s0, s)
            s1 = max(s1, s)
            t0 = min(t0, t)
            t1 = max(t1, t)
        sm = 0.5 * (s0 + s1)
        tm = 0.5 * (t0 + t1)
        c_x = ax + sm * ux + tm * vx
        c_y = ay + sm * uy + tm * vy
        c_z = az + sm * uz + tm * vz
    else:
        c_x, c_y, c_z = ds_mean({G}, c, 0, n)
    return (c_x, c_y, c_z)

def ds_cell_centers({G}, out):
    for c in range(out.shape[0]):
        t = ds_cell_type({G}, c)
        n = ds_cell_size({G}, c)
        x = tack.f64(0.0)
        y = tack.f64(0.0)
        z = tack.f64(0.0)
        if t == 14:
            for k in range(5):
                # the pyramid's shape functions at (r, s, t) = (0.4, 0.4, 0.2)
                w = tack.f64(0.2) if k == 4 else tack.f64(0.288 if k == 0 else (0.128 if k == 2 else 0.192))
                px, py, pz = ds_point({G}, ds_cell_point({G}, c, k))
                x += w * px
                y += w * py
                z += w * pz
        elif t == 2:
            x, y, z = ds_mean({G}, c, n // 2, 1)
        elif t == 4:
            x, y, z = ds_mean({G}, c, (n - 1) // 2, 2)
        elif t == 6:
            x, y, z = ds_mean({G}, c, (n - 2) // 2, 3)
        elif t == 7:
            x, y, z = ds_polygon_center({G}, c, n)
        else:
            x, y, z = ds_mean({G}, c, 0, n)
        out[c, 0] = x
        out[c, 1] = y
        out[c, 2] = z
)";
  // Structured kinds' cells (voxels, pixels, hexahedra, quads, lines, vertices) are centred at
  // their points' average; their loop runs over (l, j, i), without divisions.
  const std::string structured_body = R"(
def ds_cell_centers({G}, out):
    for cl, cj, ci in tack.ndrange(max(g_nz - 1, 1), max(g_ny - 1, 1), max(g_nx - 1, 1)):
        c = ci + max(g_nx - 1, 1) * (cj + max(g_ny - 1, 1) * cl)
        n = ds_cell_size({G}, c)
        x = tack.f64(0.0)
        y = tack.f64(0.0)
        z = tack.f64(0.0)
        for k in range(n):
            pi, pj, pl = ds_cell_corner({G}, ci, cj, cl, k)
            px, py, pz = ds_point_ijk({G}, pi, pj, pl, pi + g_nx * (pj + g_ny * pl))
            x += px
            y += py
            z += pz
        out[c, 0] = x / n
        out[c, 1] = y / n
        out[c, 2] = z / n
)";
  const bool grid = ds.is_structured() && ds.n_cells() > 0;
  const Kernel& k =
      algorithms::cached_kernel(g.source(grid ? structured_body : body), "ds_cell_centers");
  const ScalarType pt = ds.kind() == Kind::Image         ? ScalarType::f64
                        : ds.kind() == Kind::Rectilinear ? ds.coordinates(0).dtype().scalar
                                                         : ds.points().dtype().scalar;
  const std::int64_t n = ds.n_cells();
  Array centers = empty({n, 3}, DType(pt), ds.device());
  detail::launch(k, g, {centers});
  const DType id = DType(ScalarType::i64);
  Array offsets = arange(Scalar::from(std::int64_t{0}), Scalar::from(n + 1),
                         Scalar::from(std::int64_t{1}), id, ds.device());
  Array connectivity = arange(Scalar::from(std::int64_t{0}), Scalar::from(n),
                              Scalar::from(std::int64_t{1}), id, ds.device());
  Array types = full({n}, Scalar::from(std::int64_t{1}), DType(ScalarType::u8), ds.device());
  DataSet r = detail::trusted_explicit(Kind::Poly, centers, offsets, connectivity, types);
  for (const auto& [name, a] : ds.cell_data().items()) r.point_data().set(name, a);
  return r;
}

}  // namespace tack::dataset
