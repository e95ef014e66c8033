// The geometry preludes of the filter kernels: one per dataset kind (docs/design/dataset.md).
#include "dataset/prelude.hpp"

#include "algorithms/kernel_text.hpp"

namespace tack::dataset::detail {
namespace {

// Points computed from the dims: an image's from its origin and spacing, a rectilinear grid's
// from its coordinates; a structured grid's loaded.
const char* const kImagePoint = R"(
@tack.func
def ds_point({G}, p):
    return (g_ox + (p % g_nx) * g_sx, g_oy + ((p // g_nx) % g_ny) * g_sy,
            g_oz + (p // (g_nx * g_ny)) * g_sz)

@tack.func
def ds_point_ijk({G}, i, j, l, p):
    return (g_ox + i * g_sx, g_oy + j * g_sy, g_oz + l * g_sz)
)";
const char* const kRectilinearPoint = R"(
@tack.func
def ds_point({G}, p):
    return (g_x[p % g_nx], g_y[(p // g_nx) % g_ny], g_z[p // (g_nx * g_ny)])

@tack.func
def ds_point_ijk({G}, i, j, l, p):
    return (g_x[i], g_y[j], g_z[l])
)";
// A structured grid's points are loaded; ds_point_ijk takes the point's id too.
const char* const kStructuredPoint = R"(
@tack.func
def ds_point({G}, p):
    return (g_pts[p, 0], g_pts[p, 1], g_pts[p, 2])

@tack.func
def ds_point_ijk({G}, i, j, l, p):
    return (g_pts[p, 0], g_pts[p, 1], g_pts[p, 2])
)";
const char* const kLoadedPoint = R"(
@tack.func
def ds_point({G}, p):
    return (g_pts[p, 0], g_pts[p, 1], g_pts[p, 2])
)";

// Implicit cells: x fastest over max(n - 1, 1) cells per axis; a cell spans the axes with more
// than one point. The corner bits (b0, b1, b2) go to those axes in order: an image's and a
// rectilinear grid's cells (voxel, pixel) take them as they are, a structured grid's
// (hexahedron, quad) in its order, (0, 0), (1, 0), (1, 1), (0, 1) in each layer.
const char* const kImplicitCells = R"(
@tack.func
def ds_cell_size({G}, c):
    return 1 << ((g_nx > 1) + (g_ny > 1) + (g_nz > 1))

@tack.func
def ds_cell_type({G}, c):
    d = (g_nx > 1) + (g_ny > 1) + (g_nz > 1)
    t = 1
    if d == 1:
        t = 3
    elif d == 2:
        t = {TYPE2}
    elif d == 3:
        t = {TYPE3}
    return t

@tack.func
def ds_cell_corner({G}, i, j, l, k):
    b0 = tack.i32(k & 1)
    b1 = tack.i32((k >> 1) & 1)
    b2 = tack.i32((k >> 2) & 1)
    {HEXORDER}
    di = 0
    dj = 0
    dl = 0
    if g_nx > 1:
        di = b0
        b0 = b1
        b1 = b2
    if g_ny > 1:
        dj = b0
        b0 = b1
    if g_nz > 1:
        dl = b0
    return (i + di, j + dj, l + dl)

@tack.func
def ds_cell_point_ijk({G}, i, j, l, k):
    pi, pj, pl = ds_cell_corner({G}, i, j, l, k)
    return pi + g_nx * (pj + g_ny * pl)

@tack.func
def ds_cell_point({G}, c, k):
    cx = max(g_nx - 1, 1)
    cy = max(g_ny - 1, 1)
    return ds_cell_point_ijk({G}, c % cx, (c // cx) % cy, c // (cx * cy), k)
)";

const char* const kExplicitCells = R"(
@tack.func
def ds_cell_size({G}, c):
    return g_off[c + 1] - g_off[c]

@tack.func
def ds_cell_type({G}, c):
    return g_types[c]

@tack.func
def ds_cell_point({G}, c, k):
    return g_conn[g_off[c] + k]
)";

// What every kind's filters share: a cell type's dimension, the cross product.
const char* const kCommon = R"(
@tack.func
def ds_dimension(t):
    d = 3
    if t <= 2:
        d = 0
    elif t <= 4:
        d = 1
    elif t <= 9:
        d = 2
    return d

@tack.func
def ds_cross(ax, ay, az, bx, by, bz):
    return (ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx)
)";

}  // namespace

Prelude::Prelude(const DataSet& ds) {
  std::string cells;
  switch (ds.kind()) {
    case Kind::Image:
    case Kind::Rectilinear:
    case Kind::Structured: {
      const Dims& d = ds.dims();
      const bool image = ds.kind() == Kind::Image;
      const bool loaded = ds.kind() == Kind::Structured;
      params_ = "g_nx, g_ny, g_nz";
      for (std::int64_t n : d) args_.emplace_back(n);
      if (image) {
        params_ += ", g_ox, g_oy, g_oz, g_sx, g_sy, g_sz";
        for (double v : ds.origin()) args_.push_back(f64(v));
        for (double v : ds.spacing()) args_.push_back(f64(v));
        functions_ = kImagePoint;
      } else if (!loaded) {
        params_ += ", g_x, g_y, g_z";
        arrays_ = {ds.coordinates(0), ds.coordinates(1), ds.coordinates(2)};
        functions_ = kRectilinearPoint;
      } else {
        params_ += ", g_pts";
        arrays_ = {ds.points()};
        functions_ = kStructuredPoint;
      }
      cells = kImplicitCells;
      cells = algorithms::subst(cells, "TYPE2", loaded ? "9" : "8");
      cells = algorithms::subst(cells, "TYPE3", loaded ? "12" : "11");
      cells = algorithms::subst(cells, "HEXORDER", loaded ? "b0 = b0 ^ b1" : "pass");
      break;
    }
    case Kind::Unstructured:
    case Kind::Poly:
      params_ = "g_pts, g_off, g_conn, g_types";
      arrays_ = {ds.points(), ds.offsets(), ds.connectivity(), ds.types()};
      functions_ = kLoadedPoint;
      cells = kExplicitCells;
      break;
  }
  for (const Array& a : arrays_) args_.emplace_back(a);
  functions_ = algorithms::subst(functions_ + cells + kCommon, "G", params_);
  key_ = to_string(ds.kind());
}

std::string Prelude::source(const std::string& body) const {
  return functions_ + algorithms::subst(body, "G", params_);
}

std::optional<KernelValue> launch(const Kernel& k, const Prelude& g,
                                  const std::vector<KernelArg>& rest) {
  std::vector<KernelArg> all = g.args();
  all.insert(all.end(), rest.begin(), rest.end());
  return k.call(all);
}

}  // namespace tack::dataset::detail
