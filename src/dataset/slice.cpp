// slice: the zero surface of an implicit function through a dataset, as a contour of the
// function's values at the points (docs/design/contour.md, "Slice").
#include <cmath>
#include <string>

#include "algorithms/kernel_text.hpp"
#include "dataset/marching.hpp"
#include "dataset/prelude.hpp"
#include "tack/dataset.hpp"
#include "tack/error.hpp"

namespace tack::dataset {
namespace {

using detail::f64;

Vec3 unit(const Vec3& v, const char* what) {
  const double n = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (!(n > 0.0) || !std::isfinite(n)) {
    throw ValueError(std::string("tack.dataset: the ") + what + " (" + std::to_string(v[0]) + ", " +
                     std::to_string(v[1]) + ", " + std::to_string(v[2]) +
                     ") has no direction; give a nonzero, finite vector");
  }
  return {v[0] / n, v[1] / n, v[2] / n};
}

double radius_of(double r) {
  if (!(r >= 0.0) || !std::isfinite(r)) {
    throw ValueError("tack.dataset: a radius of " + std::to_string(r) +
                     "; give a finite radius of 0 or more");
  }
  return r;
}

// The name the function's values take while the contour runs (removed after).
const char* const kSliceField = "__tack_slice__";

}  // namespace

ImplicitFunction ImplicitFunction::plane(const Vec3& origin, const Vec3& normal) {
  unit(normal, "plane's normal");  // refuses a zero normal; VTK's plane keeps its length
  return {Type::Plane, origin, normal, 0.0};
}

ImplicitFunction ImplicitFunction::sphere(const Vec3& center, double radius) {
  return {Type::Sphere, center, {}, radius_of(radius)};
}

ImplicitFunction ImplicitFunction::cylinder(const Vec3& center, const Vec3& axis, double radius) {
  return {Type::Cylinder, center, unit(axis, "cylinder's axis"), radius_of(radius)};
}

ImplicitFunction ImplicitFunction::box(const std::array<double, 6>& bounds) {
  for (int i = 0; i < 3; ++i) {
    if (!(bounds[2 * i] <= bounds[2 * i + 1])) {
      throw ValueError("tack.dataset: box bounds run from " + std::to_string(bounds[2 * i]) +
                       " to " + std::to_string(bounds[2 * i + 1]) + " along axis " +
                       std::to_string(i) +
                       "; give (xmin, xmax, ymin, ymax, zmin, zmax) with each minimum at most its "
                       "maximum");
    }
  }
  return {Type::Box, {bounds[0], bounds[2], bounds[4]}, {bounds[1], bounds[3], bounds[5]}, 0.0};
}

Array evaluate(const ImplicitFunction& f, const DataSet& ds) {
  const detail::Prelude g(ds);
  const Kernel& k = algorithms::cached_kernel(g.source(R"(
def ds_implicit({G}, kind, a0, a1, a2, b0, b1, b2, r, out):
    for p in range(len(out)):
        x, y, z = ds_point({G}, p)
        dx = x - a0
        dy = y - a1
        dz = z - a2
        v = tack.f64(0.0)
        if kind == 0:
            v = b0 * dx + b1 * dy + b2 * dz
        elif kind == 1:
            v = dx * dx + dy * dy + dz * dz - r * r
        elif kind == 2:
            t = b0 * dx + b1 * dy + b2 * dz
            v = dx * dx + dy * dy + dz * dz - t * t - r * r
        else:
            # VTK's box: inside, the greatest (negative) distance to a face along an axis;
            # outside, the distance to the box
            inside = True
            nearest = -1.0e308
            far = tack.f64(0.0)
            for axis in range(3):
                c = x
                lo = a0
                hi = b0
                if axis == 1:
                    c = y
                    lo = a1
                    hi = b1
                elif axis == 2:
                    c = z
                    lo = a2
                    hi = b2
                d = tack.f64(0.0)
                if hi != lo:
                    t = (c - lo) / (hi - lo)
                    if t < 0.0:
                        inside = False
                        d = lo - c
                    elif t > 1.0:
                        inside = False
                        d = c - hi
                    else:
                        d = lo - c if t <= 0.5 else c - hi
                        nearest = max(nearest, d)
                else:
                    d = abs(c - lo)
                    if d > 0.0:
                        inside = False
                if d > 0.0:
                    far += d * d
            v = nearest if inside else math.sqrt(far)
        out[p] = v
)"),
                                              "ds_implicit");
  Array out = empty({ds.n_points()}, DType(ScalarType::f64), ds.device());
  detail::launch(k, g,
                 {static_cast<std::int64_t>(f.type), f64(f.a[0]), f64(f.a[1]), f64(f.a[2]),
                  f64(f.b[0]), f64(f.b[1]), f64(f.b[2]), f64(f.radius), out});
  return out;
}

DataSet slice(const DataSet& ds, const ImplicitFunction& f, const ContourOptions& options) {
  if (f.type == ImplicitFunction::Type::Plane && ds.kind() == Kind::Image && ds.dims()[0] > 1 &&
      ds.dims()[1] > 1 && ds.dims()[2] > 1 && !options.compute_normals) {
    // the plane's values only near it, where the kernels evaluate it (normals take the
    // function's gradient: the values everywhere)
    if (auto r = detail::slice_contour(ds, "", options, &f)) return *r;
  }
  DataSet with = ds;
  with.point_data().set(kSliceField, evaluate(f, ds));
  return *detail::slice_contour(with, kSliceField, options);
}

}  // namespace tack::dataset
