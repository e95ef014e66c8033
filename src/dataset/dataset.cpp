// tack::dataset::DataSet and FieldMap: construction, checks and the computed points
// (docs/design/dataset.md). The checks that read the cell arrays are kernels with a value
// (docs/language.md, "Reductions and the kernel's value"), run once per dataset.
#include "tack/dataset.hpp"

#include <algorithm>
#include <string>

#include "algorithms/kernel_text.hpp"
#include "tack/algorithms.hpp"
#include "tack/error.hpp"
#include "tack/kernel.hpp"

namespace tack::dataset {

const char* to_string(Kind k) {
  switch (k) {
    case Kind::Image:
      return "image";
    case Kind::Rectilinear:
      return "rectilinear";
    case Kind::Structured:
      return "structured";
    case Kind::Unstructured:
      return "unstructured";
    case Kind::Poly:
      return "poly";
  }
  return "?";
}

bool is_supported(int t) {
  return t >= static_cast<int>(CellType::Vertex) && t <= static_cast<int>(CellType::Pyramid);
}

std::string cell_type_name(int t) {
  static const char* const kNames[] = {
      "vertex", "poly-vertex", "line",  "poly-line", "triangle",   "triangle strip", "polygon",
      "pixel",  "quad",        "tetra", "voxel",     "hexahedron", "wedge",          "pyramid"};
  if (is_supported(t)) return kNames[t - 1];
  return "VTK cell type " + std::to_string(t);
}

namespace {

std::string describe(const Array& a) {
  return a.dtype().str() + " array of shape " + tack::detail::shape_str(a.shape());
}

bool is_float_points(const Array& p) {
  const ScalarType t = p.dtype().scalar;
  if (t != ScalarType::f32 && t != ScalarType::f64) return false;
  if (p.dtype().is_vector())
    return !p.dtype().is_matrix() && p.dtype().vector_n == 3 && p.ndim() == 1;
  return p.ndim() == 2 && p.shape()[1] == 3;
}

void check_points(const Array& points, const char* kind) {
  if (!is_float_points(points)) {
    throw TypeError(std::string("tack.dataset: the points of a ") + kind +
                    " dataset are an (n, 3) f32/f64 array or an array of vec(3, f32/f64), got "
                    "a " +
                    describe(points));
  }
}

void check_device(const Device& want, const Array& a, const std::string& what) {
  if (!(a.device() == want)) {
    throw ValueError("tack.dataset: " + what + " is on device '" + a.device().name() +
                     "' but the dataset is on '" + want.name() + "'; copy it with tack.array(x, " +
                     "device=\"" + want.name() + "\")");
  }
}

// The point ids each cell type needs, indexed by VTK's type number: n exactly, or -n for at
// least n; 0 for a type Tack does not handle.
constexpr int kNeeds[15] = {0, 1, -1, 2, -2, 3, -3, -3, 4, 4, 4, 8, 8, 6, 5};

int needs(std::int64_t t) {
  return t >= 1 && t <= 14 ? kNeeds[t] : 0;
}

// Offsets inside the connectivity and non-decreasing, point ids in range, every type supported
// and every cell's point count what its type needs: the index of the first cell that breaks a
// rule, or n_cells. The type rules are written into the kernel from kNeeds.
const Kernel& first_bad_cell() {
  static const Kernel k = [] {
    std::string rules;
    for (int t = 1; t <= 14; ++t) {
      rules += std::string(t == 1 ? "            if" : "            elif") +
               " t == " + std::to_string(t) +
               ":\n                need = " + std::to_string(kNeeds[t]) + "\n";
    }
    return kernel(algorithms::subst(R"(
def ds_first_bad_cell(offsets, connectivity, types, n_points):
    first = len(types)
    for c in range(len(types)):
        a = tack.i64(offsets[c])
        b = tack.i64(offsets[c + 1])
        t = tack.i64(types[c])
        bad = a < 0 or b < a or b > len(connectivity)
        if not bad:
            n = b - a
            need = 0
{RULES}            if need > 0:
                bad = n != need
            elif need < 0:
                bad = n < -need
            else:
                bad = True
        if not bad:
            for k in range(a, b):
                if connectivity[k] < 0 or connectivity[k] >= n_points:
                    bad = True
        if bad:
            first = min(first, c)
    return first
)",
                                    "RULES", rules));
  }();
  return k;
}

std::int64_t element(const Array& a, std::int64_t i) {
  return std::get<Scalar>(a.index({i})).i;
}

void check_cells(const Array& points, const Array& offsets, const Array& connectivity,
                 const Array& types, const char* kind) {
  const Device& dev = points.device();
  check_device(dev, offsets, "offsets");
  check_device(dev, connectivity, "connectivity");
  check_device(dev, types, "types");
  const ScalarType ot = offsets.dtype().scalar;
  if (offsets.ndim() != 1 || offsets.dtype().is_vector() ||
      (ot != ScalarType::i32 && ot != ScalarType::i64) ||
      !(offsets.dtype() == connectivity.dtype()) || connectivity.ndim() != 1) {
    throw TypeError(std::string("tack.dataset: a ") + kind +
                    " dataset's offsets and connectivity are 1-D arrays of one dtype, i32 or "
                    "i64 (VTK 9's cell arrays), got offsets: " +
                    describe(offsets) + ", connectivity: " + describe(connectivity));
  }
  if (types.ndim() != 1 || !(types.dtype() == DType(ScalarType::u8))) {
    throw TypeError(std::string("tack.dataset: a ") + kind +
                    " dataset's cell types are a 1-D u8 array (VTK's cell type numbers), got " +
                    describe(types));
  }
  const std::int64_t n_cells = types.shape()[0];
  if (offsets.shape()[0] != n_cells + 1) {
    throw ValueError("tack.dataset: " + std::to_string(n_cells) + " cell types need " +
                     std::to_string(n_cells + 1) + " offsets (one more than the cells), got " +
                     std::to_string(offsets.shape()[0]));
  }
  const std::int64_t first = element(offsets, 0), last = element(offsets, n_cells);
  if (first != 0 || last != connectivity.shape()[0]) {
    throw ValueError("tack.dataset: offsets run from " + std::to_string(first) + " to " +
                     std::to_string(last) + ", but must run from 0 to the connectivity's length " +
                     std::to_string(connectivity.shape()[0]));
  }
  const std::int64_t n_points = points.shape()[0];
  const auto bad = first_bad_cell()(offsets, connectivity, types, n_points);
  const std::int64_t c = bad ? bad->value.i : n_cells;
  if (c < n_cells) {
    const std::int64_t t = element(types, c);
    const std::int64_t a = element(offsets, c), b = element(offsets, c + 1);
    const std::int64_t n_conn = connectivity.shape()[0];
    std::string what = "cell " + std::to_string(c) + " of the " + kind + " dataset";
    if (a < 0 || b < a || b > n_conn) {
      throw ValueError("tack.dataset: " + what + " has offsets " + std::to_string(a) + " to " +
                       std::to_string(b) + ", outside the connectivity (" + std::to_string(n_conn) +
                       " ids) or decreasing; offsets must rise from 0 to the connectivity's "
                       "length");
    }
    std::string ids;
    for (std::int64_t k = a; k < b && k < a + 8; ++k)
      ids += (ids.empty() ? "" : ", ") + std::to_string(element(connectivity, k));
    what += " (a " + cell_type_name(static_cast<int>(t)) + " of " + std::to_string(b - a) +
            " point ids: " + ids + (b - a > 8 ? ", ..." : "") + ")";
    const int need = needs(t);
    if (need == 0) {
      throw ValueError("tack.dataset: " + what +
                       " has a type tack.dataset does not handle: it takes VTK's linear cells, "
                       "types 1 to 14; tessellate other cells first");
    }
    if ((need > 0 && b - a != need) || (need < 0 && b - a < -need)) {
      throw ValueError("tack.dataset: " + what + ": a " + cell_type_name(static_cast<int>(t)) +
                       " needs " + (need > 0 ? "" : "at least ") +
                       std::to_string(need > 0 ? need : -need) + " point ids");
    }
    throw ValueError("tack.dataset: " + what + " uses a point id outside [0, " +
                     std::to_string(n_points) + "), the points there are");
  }
}

std::string dims_str(const Dims& d) {
  return "(" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) +
         ")";
}

// Dims of 0 make an empty dataset (VTK's empty image); a negative size, or more points than an
// i64 counts, is refused.
Dims checked_dims(const Dims& d) {
  if (d[0] < 0 || d[1] < 0 || d[2] < 0) {
    throw ValueError("tack.dataset: dims are the points along x, y and z (0 for none), got " +
                     dims_str(d));
  }
  std::int64_t n = 0;
  if (__builtin_mul_overflow(d[0], d[1], &n) || __builtin_mul_overflow(n, d[2], &n)) {
    throw ValueError("tack.dataset: dims " + dims_str(d) +
                     " make more points than a 64-bit count holds");
  }
  return d;
}

std::int64_t structured_points(const Dims& d) {
  return d[0] * d[1] * d[2];
}

std::int64_t structured_cells(const Dims& d) {
  if (structured_points(d) == 0) return 0;
  return std::max<std::int64_t>(d[0] - 1, 1) * std::max<std::int64_t>(d[1] - 1, 1) *
         std::max<std::int64_t>(d[2] - 1, 1);
}

}  // namespace

// FieldMap

void FieldMap::set(const std::string& name, const Array& values) {
  if (name.empty())
    throw ValueError(std::string("tack.dataset: a ") + association_ + " field needs a name");
  if (values.ndim() < 1 || values.shape()[0] != count_) {
    throw ValueError("tack.dataset: " + std::string(association_) + " field '" + name +
                     "' needs one value per " + association_ + " (" + std::to_string(count_) +
                     "), got a " + describe(values));
  }
  check_device(device_, values, std::string(association_) + " field '" + name + "'");
  for (auto& f : fields_) {
    if (f.first == name) {
      f.second = values;
      return;
    }
  }
  fields_.emplace_back(name, values);
}

void FieldMap::set(const std::string& name, const SoaArray& values) {
  const std::vector<Array>& parts = values.components();
  const std::string what = std::string(association_) + " field '" + name + "'";
  DType common = parts.front().dtype();
  for (const Array& a : parts) {
    if (a.ndim() != 1 || a.dtype().is_vector()) {
      throw TypeError("tack.dataset: the " + what +
                      " from a structure of arrays needs 1-D scalar components, got a " +
                      describe(a) + "; give its components as 1-D arrays");
    }
    check_device(device_, a, what);
    common = DType(algorithms::promote(common.scalar, a.dtype().scalar));
  }
  // Stored as (n, k) components of the components' common type: filters read rows.
  std::string params, body;
  for (std::size_t m = 0; m < parts.size(); ++m) {
    params += "c" + std::to_string(m) + ", ";
    body += "        out[i, " + std::to_string(m) + "] = c" + std::to_string(m) + "[i]\n";
  }
  const Kernel& stack = algorithms::cached_kernel(
      "def ds_stack(" + params + "out):\n    for i in range(out.shape[0]):\n" + body, "ds_stack");
  const std::int64_t n = parts.front().shape()[0];
  Array out = empty({n, static_cast<std::int64_t>(parts.size())}, common, device_);
  std::vector<KernelArg> args(parts.begin(), parts.end());
  args.emplace_back(out);
  if (n == count_) stack.call(args);
  set(name, out);  // the count's check and message
}

const Array& FieldMap::at(const std::string& name) const {
  for (const auto& f : fields_)
    if (f.first == name) return f.second;
  std::string names;
  for (const auto& f : fields_) names += (names.empty() ? "'" : ", '") + f.first + "'";
  throw KeyError("tack.dataset: no " + std::string(association_) + " field '" + name + "'" +
                 (names.empty() ? std::string(" (there are none)") : "; there are " + names));
}

bool FieldMap::contains(const std::string& name) const {
  return std::any_of(fields_.begin(), fields_.end(),
                     [&](const auto& f) { return f.first == name; });
}

void FieldMap::erase(const std::string& name) {
  at(name);  // KeyError when absent
  fields_.erase(std::remove_if(fields_.begin(), fields_.end(),
                               [&](const auto& f) { return f.first == name; }),
                fields_.end());
}

std::vector<std::string> FieldMap::names() const {
  std::vector<std::string> out;
  for (const auto& f : fields_) out.push_back(f.first);
  return out;
}

// DataSet

DataSet::DataSet(Kind kind, Device device, std::int64_t n_points, std::int64_t n_cells)
    : kind_(kind),
      device_(device),
      n_points_(n_points),
      n_cells_(n_cells),
      point_data_("point", n_points, device),
      cell_data_("cell", n_cells, device) {}

DataSet DataSet::image(const Dims& dims, const Vec3& origin, const Vec3& spacing,
                       const Device& device) {
  const Dims d = checked_dims(dims);
  DataSet ds(Kind::Image, device, structured_points(d), structured_cells(d));
  ds.dims_ = d;
  ds.origin_ = origin;
  ds.spacing_ = spacing;
  return ds;
}

DataSet DataSet::rectilinear(const Array& x, const Array& y, const Array& z) {
  const Array* c[3] = {&x, &y, &z};
  for (int k = 0; k < 3; ++k) {
    const Array& a = *c[k];
    const ScalarType t = a.dtype().scalar;
    if (a.ndim() != 1 || a.dtype().is_vector() || (t != ScalarType::f32 && t != ScalarType::f64) ||
        !(a.dtype() == x.dtype())) {
      throw TypeError(
          "tack.dataset: a rectilinear grid's coordinates are three 1-D arrays of one "
          "float dtype (f32 or f64), got " +
          describe(x) + ", " + describe(y) + ", " + describe(z));
    }
    check_device(x.device(), a, std::string("the ") + "xyz"[k] + " coordinates");
  }
  const Dims d = checked_dims({x.shape()[0], y.shape()[0], z.shape()[0]});
  DataSet ds(Kind::Rectilinear, x.device(), structured_points(d), structured_cells(d));
  ds.dims_ = d;
  ds.arrays_ = {x, y, z};
  return ds;
}

DataSet DataSet::structured(const Dims& dims, const Array& points) {
  check_points(points, "structured");
  const Dims d = checked_dims(dims);
  if (points.shape()[0] != structured_points(d)) {
    throw ValueError("tack.dataset: dims " + dims_str(d) + " need " +
                     std::to_string(structured_points(d)) + " points, got " +
                     std::to_string(points.shape()[0]));
  }
  DataSet ds(Kind::Structured, points.device(), points.shape()[0], structured_cells(d));
  ds.dims_ = d;
  ds.arrays_ = {points};
  return ds;
}

DataSet DataSet::unstructured(const Array& points, const Array& offsets, const Array& connectivity,
                              const Array& types) {
  check_points(points, "unstructured");
  check_cells(points, offsets, connectivity, types, "unstructured");
  DataSet ds(Kind::Unstructured, points.device(), points.shape()[0], types.shape()[0]);
  ds.arrays_ = {points, offsets, connectivity, types};
  return ds;
}

DataSet DataSet::to(const Device& device) const {
  auto move = [&](const Array& a) { return tack::to(a, device); };
  DataSet r = *this;
  r.device_ = device;
  for (Array& a : r.arrays_) a = move(a);
  r.point_data_ = FieldMap(point_data_.association(), n_points_, device);
  r.cell_data_ = FieldMap(cell_data_.association(), n_cells_, device);
  for (const auto& [name, a] : point_data_.items()) r.point_data_.set(name, move(a));
  for (const auto& [name, a] : cell_data_.items()) r.cell_data_.set(name, move(a));
  return r;
}

DataSet DataSet::poly(const Array& points, const Array& offsets, const Array& connectivity,
                      const Array& types) {
  check_points(points, "poly");
  check_cells(points, offsets, connectivity, types, "poly");
  // VTK's groups, in its order: vertices (1, 2), lines (3, 4), polygons (5, 7, 9), strips (6);
  // and the types VTK infers from the point counts of poly data's cells (a polygon of 3 or 4
  // points is a triangle or a quad there, a poly-vertex of 1 a vertex, a poly-line of 2 a line).
  static const Kernel first_unordered = kernel(R"(
def ds_first_unordered_poly_cell(offsets, types):
    first = len(types)
    for c in range(len(types)):
        t = types[c]
        n = offsets[c + 1] - offsets[c]
        g = 0 if t <= 2 else (1 if t <= 4 else (3 if t == 6 else (2 if t == 5 or t == 7 or t == 9 else -1)))
        p = 0
        if c > 0:
            u = types[c - 1]
            p = 0 if u <= 2 else (1 if u <= 4 else (3 if u == 6 else 2))
        inferred = (t == 7 and n <= 4) or (t == 2 and n == 1) or (t == 4 and n == 2)
        if g < p or inferred:
            first = min(first, c)
    return first
)");
  const auto bad = first_unordered(offsets, types);
  const std::int64_t c = bad ? bad->value.i : types.shape()[0];
  if (c < types.shape()[0]) {
    const int t = static_cast<int>(element(types, c));
    const std::int64_t n = element(offsets, c + 1) - element(offsets, c);
    std::string why;
    if (t == 8 || t >= 10) {
      why =
          ", which poly data does not hold (its cells are vertices, lines, polygons and "
          "strips)";
    } else if ((t == 7 && n <= 4) || (t == 2 && n == 1) || (t == 4 && n == 2)) {
      const int as = t == 7 ? (n == 3 ? 5 : 9) : (t == 2 ? 1 : 3);
      why = " of " + std::to_string(n) + " points, which VTK's poly data reads as a " +
            cell_type_name(as) + ": give it type " + std::to_string(as);
    } else {
      why =
          ", out of VTK's order (vertices, lines, polygons, strips); sort the cells by that "
          "order first";
    }
    throw ValueError("tack.dataset: cell " + std::to_string(c) + " of the poly data is a " +
                     cell_type_name(t) + why);
  }
  DataSet ds(Kind::Poly, points.device(), points.shape()[0], types.shape()[0]);
  ds.arrays_ = {points, offsets, connectivity, types};
  return ds;
}

DataSet detail::trusted_explicit(Kind kind, const Array& points, const Array& offsets,
                                 const Array& connectivity, const Array& types) {
  if (debug()) {
    return kind == Kind::Poly ? DataSet::poly(points, offsets, connectivity, types)
                              : DataSet::unstructured(points, offsets, connectivity, types);
  }
  DataSet ds(kind, points.device(), points.shape()[0], types.shape()[0]);
  ds.arrays_ = {points, offsets, connectivity, types};
  return ds;
}

void DataSet::need(bool ok, const char* what) const {
  if (!ok) {
    const bool vowel = kind_ == Kind::Image || kind_ == Kind::Unstructured;
    throw ValueError(std::string("tack.dataset: ") + what + " of " + (vowel ? "an " : "a ") +
                     to_string(kind_) + " dataset does not exist");
  }
}

const Dims& DataSet::dims() const {
  need(is_structured(), "dims");
  return dims_;
}
const Vec3& DataSet::origin() const {
  need(kind_ == Kind::Image, "the origin (an image's)");
  return origin_;
}
const Vec3& DataSet::spacing() const {
  need(kind_ == Kind::Image, "the spacing (an image's)");
  return spacing_;
}
const Array& DataSet::coordinates(int axis) const {
  need(kind_ == Kind::Rectilinear, "coordinates (a rectilinear grid's)");
  if (axis < 0 || axis > 2) throw IndexError("tack.dataset: coordinates(axis) takes 0, 1 or 2");
  return arrays_[static_cast<std::size_t>(axis)];
}
const Array& DataSet::offsets() const {
  need(kind_ == Kind::Unstructured || kind_ == Kind::Poly, "offsets (explicit cells)");
  return arrays_[1];
}
const Array& DataSet::connectivity() const {
  need(kind_ == Kind::Unstructured || kind_ == Kind::Poly, "connectivity (explicit cells)");
  return arrays_[2];
}
const Array& DataSet::types() const {
  need(kind_ == Kind::Unstructured || kind_ == Kind::Poly, "cell types (explicit cells)");
  return arrays_[3];
}

Array DataSet::points() const {
  if (kind_ == Kind::Structured || kind_ == Kind::Unstructured || kind_ == Kind::Poly)
    return arrays_[0];
  static const Kernel image_points = kernel(R"(
def ds_image_points(out, nx, ny, ox, oy, oz, sx, sy, sz):
    for p in range(out.shape[0]):
        out[p, 0] = ox + (p % nx) * sx
        out[p, 1] = oy + ((p // nx) % ny) * sy
        out[p, 2] = oz + (p // (nx * ny)) * sz
)");
  static const Kernel rectilinear_points = kernel(R"(
def ds_rectilinear_points(out, x, y, z):
    for p in range(out.shape[0]):
        out[p, 0] = x[p % len(x)]
        out[p, 1] = y[(p // len(x)) % len(y)]
        out[p, 2] = z[p // (len(x) * len(y))]
)");
  if (kind_ == Kind::Image) {
    Array out = empty({n_points_, 3}, DType(ScalarType::f64), device_);
    auto f64 = [](double v) { return KernelArg(Scalar::from(v), ScalarType::f64); };
    image_points(out, dims_[0], dims_[1], f64(origin_[0]), f64(origin_[1]), f64(origin_[2]),
                 f64(spacing_[0]), f64(spacing_[1]), f64(spacing_[2]));
    return out;
  }
  Array out = empty({n_points_, 3}, arrays_[0].dtype(), device_);
  rectilinear_points(out, arrays_[0], arrays_[1], arrays_[2]);
  return out;
}

}  // namespace tack::dataset
