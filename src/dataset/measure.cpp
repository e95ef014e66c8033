// integrate (vtkIntegrateAttributes) (docs/design/dataset.md, "Integrals"): the cells of the
// dataset's highest dimension, each cut into the pieces VTK's linear strategy cuts it into
// (segments, triangles, tetrahedra; pixels and voxels whole), a field integrated over a piece as
// its measure times the mean of the piece's point values. Per-cell results are summed by
// tack::sum, in its fixed order.
#include <optional>
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

using detail::Prelude;

const DType kF64(ScalarType::f64);

// The tetrahedra VTK cuts a hexahedron (type 12: its TriangulateIds(1)), a wedge (13) and a
// pyramid (14, the cut along its base's diagonal 0-2; row 15 the cut along 1-3) into.
std::vector<std::int32_t> tetra_table() {
  std::vector<std::int32_t> t(16 * 5 * 4, 0);
  auto set = [&](int type, std::initializer_list<std::initializer_list<int>> tets) {
    int k = 0;
    for (const auto& tet : tets) {
      int m = 0;
      for (int id : tet) t[(static_cast<std::size_t>(type) * 5 + k) * 4 + m++] = id;
      ++k;
    }
  };
  set(12, {{0, 1, 3, 4}, {1, 4, 5, 6}, {1, 4, 6, 3}, {1, 3, 6, 2}, {3, 6, 7, 4}});
  set(13, {{0, 1, 2, 3}, {1, 4, 5, 3}, {1, 3, 5, 2}});
  set(14, {{0, 1, 2, 4}, {0, 2, 3, 4}});
  set(15, {{0, 1, 3, 4}, {1, 2, 3, 4}});
  return t;
}

const char* const kIntegrate = R"(

def ds_highest_dimension({G}, n):
    d = 0
    for c in range(n):
        d = max(d, ds_dimension(ds_cell_type({G}, c)))
    return d

@tack.func
def ds_length({G}, a, b):
    ax, ay, az = ds_point({G}, a)
    bx, by, bz = ds_point({G}, b)
    return math.sqrt((bx - ax) * (bx - ax) + (by - ay) * (by - ay) + (bz - az) * (bz - az))

# (b - a) x (c - a) of points a, b, c
@tack.func
def ds_normal({G}, a, b, c):
    ax, ay, az = ds_point({G}, a)
    bx, by, bz = ds_point({G}, b)
    cx, cy, cz = ds_point({G}, c)
    return ds_cross(bx - ax, by - ay, bz - az, cx - ax, cy - ay, cz - az)

@tack.func
def ds_area({G}, a, b, c):
    nx, ny, nz = ds_normal({G}, a, b, c)
    return 0.5 * math.sqrt(nx * nx + ny * ny + nz * nz)

@tack.func
def ds_volume({G}, a, b, c, d):
    ax, ay, az = ds_point({G}, a)
    dx, dy, dz = ds_point({G}, d)
    nx, ny, nz = ds_normal({G}, a, b, c)
    return (nx * (dx - ax) + ny * (dy - ay) + nz * (dz - az)) / 6.0

# out[c, 0]: the measure of cell c when its dimension is `dim` (else 0); out[c, 1 + m]: the
# integral of component m of the point field src over it.
def ds_integrate({G}, dim, tets, src, out):
    for c in range(out.shape[0]):
        nc = out.shape[1] - 1
        for m in range(nc + 1):
            out[c, m] = 0.0
        t = ds_cell_type({G}, c)
        n = ds_cell_size({G}, c)
        if ds_dimension(t) == dim and dim > 0:
            if t == 3 or t == 4:
                for k in range(n - 1):
                    a = ds_cell_point({G}, c, k)
                    b = ds_cell_point({G}, c, k + 1)
                    w = ds_length({G}, a, b)
                    out[c, 0] += w
                    for m in range(nc):
                        out[c, 1 + m] += w * (tack.f64(src[a, m]) + tack.f64(src[b, m])) / 2.0
            elif t == 8 or t == 11:
                # pixels and voxels whole: VTK's products of coordinate differences
                x0, y0, z0 = ds_point({G}, ds_cell_point({G}, c, 0))
                x1, y1, z1 = ds_point({G}, ds_cell_point({G}, c, 1))
                x2, y2, z2 = ds_point({G}, ds_cell_point({G}, c, 2))
                w = abs(((x0 - x1) + (y0 - y1) + (z0 - z1)) * ((x0 - x2) + (y0 - y2) + (z0 - z2)))
                if t == 11:
                    x4, y4, z4 = ds_point({G}, ds_cell_point({G}, c, 4))
                    w = abs((x1 - x0) * (y2 - y0) * (z4 - z0))
                out[c, 0] = w
                for m in range(nc):
                    s = tack.f64(0.0)
                    for k in range(n):
                        s += tack.f64(src[ds_cell_point({G}, c, k), m])
                    out[c, 1 + m] = w * s / n
            elif dim == 2:
                # triangles: a polygon's fan from its point 0, a strip's (k, k + 1, k + 2), a
                # quad's (0, 1, 2) and (0, 3, 2)
                for k in range(n - 2):
                    i0 = k if t == 6 else 0
                    i1 = k + 1
                    if t == 9 and k == 1:
                        i1 = 3
                    i2 = k + 2 if t != 9 else 2
                    a = ds_cell_point({G}, c, i0)
                    b = ds_cell_point({G}, c, i1)
                    q = ds_cell_point({G}, c, i2)
                    w = ds_area({G}, a, b, q)
                    out[c, 0] += w
                    for m in range(nc):
                        out[c, 1 + m] += w * (tack.f64(src[a, m]) + tack.f64(src[b, m]) +
                                              tack.f64(src[q, m])) / 3.0
            else:
                row = t
                pieces = 1
                if t == 12:
                    pieces = 5
                elif t == 13:
                    pieces = 3
                elif t == 14:
                    pieces = 2
                    x0, y0, z0 = ds_point({G}, ds_cell_point({G}, c, 0))
                    x1, y1, z1 = ds_point({G}, ds_cell_point({G}, c, 1))
                    x2, y2, z2 = ds_point({G}, ds_cell_point({G}, c, 2))
                    x3, y3, z3 = ds_point({G}, ds_cell_point({G}, c, 3))
                    d02 = (x2 - x0) * (x2 - x0) + (y2 - y0) * (y2 - y0) + (z2 - z0) * (z2 - z0)
                    d13 = (x3 - x1) * (x3 - x1) + (y3 - y1) * (y3 - y1) + (z3 - z1) * (z3 - z1)
                    if not (d02 < d13):
                        row = 15
                for k in range(pieces):
                    a = ds_cell_point({G}, c, tets[row, k, 0] if t != 10 else 0)
                    b = ds_cell_point({G}, c, tets[row, k, 1] if t != 10 else 1)
                    q = ds_cell_point({G}, c, tets[row, k, 2] if t != 10 else 2)
                    e = ds_cell_point({G}, c, tets[row, k, 3] if t != 10 else 3)
                    w = ds_volume({G}, a, b, q, e)
                    out[c, 0] += w
                    for m in range(nc):
                        out[c, 1 + m] += w * (tack.f64(src[a, m]) + tack.f64(src[b, m]) +
                                              tack.f64(src[q, m]) + tack.f64(src[e, m])) / 4.0
)";

// The sums over the cells of `per_cell`'s columns.
std::vector<double> column_sums(const Array& per_cell) {
  const Array s = sum(per_cell, 0);
  std::vector<double> v(static_cast<std::size_t>(s.shape()[0]));
  copy_to_host(s, v.data(), ScalarType::f64, v.size() * sizeof(double));
  return v;
}

}  // namespace

Integrals integrate(const DataSet& ds) {
  Integrals r;
  if (ds.n_cells() == 0) {
    for (const auto& [name, a] : ds.point_data().items())
      r.point_fields.emplace_back(name, std::vector<double>(detail::components(a), 0.0));
    for (const auto& [name, a] : ds.cell_data().items())
      r.cell_fields.emplace_back(name, std::vector<double>(detail::components(a), 0.0));
    return r;
  }
  const Prelude g(ds);
  const std::string text = g.source(kIntegrate);
  const Kernel& highest = algorithms::cached_kernel(text, "ds_highest_dimension");
  const Kernel& per_cell = algorithms::cached_kernel(text, "ds_integrate");
  const Device& device = ds.device();
  const std::int64_t n = ds.n_cells();
  r.dimension = static_cast<int>(detail::launch(highest, g, {n})->value.as_double());
  const Array tets = array(tetra_table(), {16, 5, 4}, device);
  // The measure with each point field's components; with no point field, the measure alone.
  auto run = [&](const Array& src) {
    Array out = empty({n, 1 + src.shape()[1]}, kF64, device);
    detail::launch(per_cell, g, {std::int64_t{r.dimension}, tets, src, out});
    return out;
  };
  std::optional<Array> measures;  // the first run's: column 0 is each cell's measure
  for (const auto& [name, a] : ds.point_data().items()) {
    const Array out = run(detail::as_rows(a, name));
    const std::vector<double> sums = column_sums(out);
    if (!measures) measures = out;
    r.point_fields.emplace_back(name, std::vector<double>(sums.begin() + 1, sums.end()));
  }
  if (!measures) measures = run(empty({ds.n_points(), 0}, kF64, device));
  const double measure = column_sums(*measures)[0];
  if (r.dimension == 1) r.length = measure;
  if (r.dimension == 2) r.area = measure;
  if (r.dimension == 3) r.volume = measure;
  // A cell field integrates to the sum of its values times its cells' measures.
  const Kernel& weigh = algorithms::cached_kernel(R"(
def ds_weigh_cells(measures, src, out):
    for c in range(out.shape[0]):
        for m in range(out.shape[1]):
            out[c, m] = measures[c, 0] * tack.f64(src[c, m])
)",
                                                  "ds_weigh_cells");
  for (const auto& [name, a] : ds.cell_data().items()) {
    const Array rows = detail::as_rows(a, name);
    Array out = empty({n, detail::components(a)}, kF64, device);
    weigh(*measures, rows, out);
    r.cell_fields.emplace_back(name, column_sums(out));
  }
  return r;
}

}  // namespace tack::dataset
