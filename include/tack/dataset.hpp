// tack::dataset: meshes and their fields as Tack arrays (docs/design/dataset.md). A DataSet is a
// value type (copies share arrays) of one of five kinds, VTK's: an image (origin, spacing and
// dims; implicit points), a rectilinear grid (three coordinate arrays), a structured grid (dims
// and points), an unstructured grid and poly data (points, and cells as VTK 9's offsets,
// connectivity and types). Point and cell fields are ordered maps of name to array. Python:
// tack.dataset.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tack/array.hpp"
#include "tack/device.hpp"

namespace tack::dataset {

enum class Kind : std::uint8_t { Image, Rectilinear, Structured, Unstructured, Poly };
// "image", "rectilinear", "structured", "unstructured", "poly"
const char* to_string(Kind k);

// VTK's cell type numbers, for the linear cells Tack handles.
enum class CellType : std::uint8_t {
  Vertex = 1,
  PolyVertex = 2,
  Line = 3,
  PolyLine = 4,
  Triangle = 5,
  TriangleStrip = 6,
  Polygon = 7,
  Pixel = 8,
  Quad = 9,
  Tetra = 10,
  Voxel = 11,
  Hexahedron = 12,
  Wedge = 13,
  Pyramid = 14,
};
// Whether VTK's cell type `t` is one of the above.
bool is_supported(int vtk_cell_type);
// "hexahedron"; for a type Tack does not handle "VTK cell type 24".
std::string cell_type_name(int vtk_cell_type);

using Dims = std::array<std::int64_t, 3>;
using Vec3 = std::array<double, 3>;

// Fields of one association: name -> array, in insertion order. Every array's first dimension
// is the association's count (points or cells) and it lives on the dataset's device.
class FieldMap {
 public:
  FieldMap(const char* association, std::int64_t count, Device device)
      : association_(association), count_(count), device_(std::move(device)) {}

  // Adds the field, or replaces the one of that name (keeping its place). ValueError naming the
  // field for a first dimension other than the count or another device.
  void set(const std::string& name, const Array& values);
  // A structure of arrays (1-D scalar components, one value per point or cell each): stored as
  // an (n, k) array of the components' common type (a copy), which the filters read as rows.
  void set(const std::string& name, const SoaArray& values);
  // KeyError naming the field and the names there are.
  const Array& at(const std::string& name) const;
  bool contains(const std::string& name) const;
  void erase(const std::string& name);  // KeyError when absent
  std::vector<std::string> names() const;
  std::size_t size() const { return fields_.size(); }
  const std::vector<std::pair<std::string, Array>>& items() const { return fields_; }
  std::int64_t count() const { return count_; }
  const char* association() const { return association_; }
  const Device& device() const { return device_; }

 private:
  const char* association_;
  std::int64_t count_;
  Device device_;
  std::vector<std::pair<std::string, Array>> fields_;
};

class DataSet;
namespace detail {
struct LocatorAccess;
// A filter's output of `kind` (Unstructured or Poly) made from arrays Tack's own kernels wrote:
// not validated again (it is in debug mode, tack::set_debug), so an output costs no pass over
// its cells. Not for user data: DataSet::unstructured and DataSet::poly check theirs.
DataSet trusted_explicit(Kind kind, const Array& points, const Array& offsets,
                         const Array& connectivity, const Array& types);
}  // namespace detail

class DataSet {
 public:
  // dims: points along x, y, z (0 anywhere: an empty image); the points are origin + (i, j, k) *
  // spacing.
  static DataSet image(const Dims& dims, const Vec3& origin = {0, 0, 0},
                       const Vec3& spacing = {1, 1, 1}, const Device& device = default_device());
  // Three 1-D coordinate arrays of one float dtype (f32/f64), as VTK's (not checked to increase).
  static DataSet rectilinear(const Array& x, const Array& y, const Array& z);
  // points: dims[0] * dims[1] * dims[2] of them, x fastest.
  static DataSet structured(const Dims& dims, const Array& points);
  // offsets (n_cells + 1) and connectivity, i32 or i64, one dtype; types u8 (CellType).
  static DataSet unstructured(const Array& points, const Array& offsets, const Array& connectivity,
                              const Array& types);
  // As unstructured, cells in VTK's poly data order: vertices, lines, polygons, strips.
  static DataSet poly(const Array& points, const Array& offsets, const Array& connectivity,
                      const Array& types);

  // A copy on `device`: every array and field copied there (on the same device too).
  DataSet to(const Device& device) const;

  Kind kind() const { return kind_; }
  bool is_structured() const { return kind_ <= Kind::Structured; }
  const Device& device() const { return device_; }
  std::int64_t n_points() const { return n_points_; }
  std::int64_t n_cells() const { return n_cells_; }

  // Structured kinds: points along each axis (ValueError for the other kinds).
  const Dims& dims() const;
  // Images: origin and spacing (ValueError for the other kinds).
  const Vec3& origin() const;
  const Vec3& spacing() const;
  // Rectilinear grids: the coordinates along axis 0, 1 or 2.
  const Array& coordinates(int axis) const;
  // The points as an (n_points, 3) array: the dataset's own for the explicit kinds, computed
  // (a new f64 array, or the coordinates' dtype for a rectilinear grid, x fastest) otherwise.
  Array points() const;
  // Explicit kinds (unstructured, poly): VTK 9's cell arrays (ValueError otherwise).
  const Array& offsets() const;
  const Array& connectivity() const;
  const Array& types() const;

  FieldMap& point_data() { return point_data_; }
  const FieldMap& point_data() const { return point_data_; }
  FieldMap& cell_data() { return cell_data_; }
  const FieldMap& cell_data() const { return cell_data_; }

 private:
  friend DataSet detail::trusted_explicit(Kind, const Array&, const Array&, const Array&,
                                          const Array&);
  DataSet(Kind kind, Device device, std::int64_t n_points, std::int64_t n_cells);
  void need(bool ok, const char* what) const;

  Kind kind_;
  Device device_;
  std::int64_t n_points_ = 0;
  std::int64_t n_cells_ = 0;
  Dims dims_{};
  Vec3 origin_{}, spacing_{};
  std::vector<Array> arrays_;  // rectilinear: x, y, z; explicit: points, offsets, connectivity,
                               // types; structured: points
  FieldMap point_data_, cell_data_;
};

// Filters (docs/design/dataset.md). Each returns a new dataset sharing the input's geometry and
// fields (arrays are not copied) with its result added.

// A point field `name` (f32): where each point lies between low_point (range[0]) and
// high_point (range[1]), clamped, as vtkElevationFilter.
DataSet elevation(const DataSet& ds, const Vec3& low_point, const Vec3& high_point,
                  const std::array<double, 2>& range = {0.0, 1.0},
                  const std::string& name = "elevation");
// The point field `field` averaged over each cell's points, as a cell field of the same name
// (vtkPointDataToCellData); floats keep their dtype, integers average to f64.
DataSet point_to_cell(const DataSet& ds, const std::string& field);
// The cell field `field` averaged over the cells that use each point, as a point field of the
// same name (vtkCellDataToPointData, every cell contributing); a point no cell uses gets 0.
DataSet cell_to_point(const DataSet& ds, const std::string& field);
// Poly data of one vertex per cell at VTK's parametric center of the cell (vtkCellCenters
// with vertex cells), carrying the cell fields as point fields.
DataSet cell_centers(const DataSet& ds);
// The point gradients of the point field `field`, as vtkGradientFilter: a point field `name` of
// 3 * k components per point for a field of k (d(component)/dx, /dy, /dz, component by
// component), f64 for fields of 8-byte elements, f32 otherwise. Grids: finite differences in
// index space as VTK's; explicit kinds: the average over the point's cells of the highest
// dimension of each cell's derivative at the point, exact for a linear field on every cell type.
// A cell field is a ValueError (make it a point field with cell_to_point first).
DataSet gradient(const DataSet& ds, const std::string& field, const std::string& name = "gradient");
// The cells whose value of `field` lies in [lower, upper] (NaN never does), as vtkThreshold: a
// cell field's own value, or a point field's values at all the cell's points (any of them with
// all_points false); `component` of a field with several. association "point", "cell" or ""
// (whichever has the field; ValueError when both do). An unstructured grid of the kept cells in
// the input's order over the points they use (in the input's order), carrying every field.
DataSet threshold(const DataSet& ds, const std::string& field, double lower, double upper,
                  const std::string& association = "", std::int64_t component = 0,
                  bool all_points = true);
// The boundary of the dataset as poly data, as vtkDataSetSurfaceFilter: each 3-D cell's faces no
// other 3-D cell has (VTK's face order and orientation), strips as their triangles, other 2-D
// cells themselves (a pixel as a quad), lines and vertices themselves; in poly data's order
// (vertices, lines, polygons), each in the input's cell order (a grid of 3-D cells: its sides in
// turn, x-min, x-max, y-min, y-max, z-min, z-max, each in cell order); over the points they use
// (in the input's order), carrying the fields (a face its cell's). Poly data is its own surface.
DataSet external_faces(const DataSet& ds);

// contour's options: point normals (minus the field's gradient, unit length, as a point field
// "Normals"), the input's point fields interpolated onto the output (and its cell fields carried
// to each item from its cell; otherwise only `field` itself), and each edge's crossing made one
// point shared by the items around it (otherwise every item has points of its own).
struct ContourOptions {
  bool compute_normals = false;
  bool interpolate_fields = true;
  bool merge_points = true;
};
// Where the point field `field` (one component) crosses each of `values`: triangles in 3-D
// cells, segments in 2-D cells, as VTK's contour filters (its triangle count in every case of
// every linear cell type; a corner at the value counts as above it; a cell with a NaN corner
// gives nothing). Poly data: segments, then triangles; per value in turn, in cell order, each
// cell's items in its case's order, the same on every device and thread count; the points
// sorted by (value, edge). Items that name a point twice (a crossing at a corner) are dropped.
DataSet contour(const DataSet& ds, const std::string& field, const std::vector<double>& values,
                const ContourOptions& options = {});

// An implicit function, zero on a surface (VTK's vtkImplicitFunction family): a plane through
// `origin` with `normal` (normal . (x - origin), the normal as given, as VTK's), a sphere (|x -
// center|^2 - r^2), an infinite cylinder round the line through `center` along `axis` (its
// distance^2 from the axis - r^2), a box (VTK's vtkBox: inside, minus the distance to the nearest
// face; outside, the distance to the box). ValueError for a zero normal or axis, a negative radius,
// or bounds whose minimum passes their maximum.
struct ImplicitFunction {
  enum class Type : std::uint8_t { Plane, Sphere, Cylinder, Box };
  Type type = Type::Plane;
  Vec3 a{}, b{};  // plane: origin, normal; sphere/cylinder: center (and unit axis); box:
                  // minimum and maximum corners
  double radius = 0.0;
  static ImplicitFunction plane(const Vec3& origin, const Vec3& normal);
  static ImplicitFunction sphere(const Vec3& center, double radius);
  static ImplicitFunction cylinder(const Vec3& center, const Vec3& axis, double radius);
  static ImplicitFunction box(const std::array<double, 6>& bounds);  // xmin, xmax, ymin, ...
};
// The function at every point of ds (f64, on ds's device).
Array evaluate(const ImplicitFunction& f, const DataSet& ds);
// The surface where f is zero through ds (vtkCutter): the contour of f's values at 0, every
// other point field interpolated and cell field carried (contour's rules and order).
DataSet slice(const DataSet& ds, const ImplicitFunction& f, const ContourOptions& options = {});

// The part of ds where the point field `field` (one component) is at or above `value`
// (vtkTableBasedClipDataSet's default), or below it with `invert`: an unstructured grid of the
// cells wholly on that side (a voxel as a hexahedron, a pixel as a quad, as VTK writes them) and
// the kept parts of the cells the value cuts, as tetrahedra, pyramids, wedges and hexahedra (3-D
// cells), triangles and quads (2-D), lines and vertices, from generated tables whose cut faces
// are contour's triangles (parts no single cell fits are cut round a centroid of their own).
// Points: the kept points in ds's order, the centroids, then one per cut edge (by lower, then
// higher point id); point fields interpolated (integers become f64), cell fields carried; ids
// i32 where they fit. A cell with a NaN corner is dropped; the cells in ds's order, each cut cell's
// parts in its case's order, the same on every device and thread count.
DataSet clip(const DataSet& ds, const std::string& field, double value = 0.0, bool invert = false);
// The same with the values of the implicit function f at the points.
DataSet clip(const DataSet& ds, const ImplicitFunction& f, double value = 0.0, bool invert = false);
// The part inside the box (xmin, xmax, ymin, ymax, zmin, zmax), or outside it with `invert`.
DataSet clip_box(const DataSet& ds, const std::array<double, 6>& bounds, bool invert = false);

// Finds the cells holding points (docs/design/locators.md): uniform bins over the dataset's
// bounds, each listing the cells whose bounds meet it in increasing id, built on the dataset's
// device; an image's cells by arithmetic. A cell holds a point when the point's parametric
// coordinates lie in the cell's domain within 1e-9 and the cell's map there is the point within
// 1e-9 of the cell's size (2-D cells: the point in the cell's plane); of several cells holding a
// point (on a shared face, edge or vertex) the lowest id; vertices and lines hold none.
// ValueError for polygons and triangle strips (split them into triangles) and for points that
// are not finite. Queries take (n, 3) arrays or 1-D vec(3) arrays (ValueError for other shapes;
// TypeError for integers). A query may rebuild the locator: do not query one locator from two
// threads at once (PointLocator likewise).
class CellLocator {
 public:
  // About `cells_per_bin` cells per bin (0: the default, 2); fewer make queries test fewer
  // cells and the build list each cell in more bins.
  explicit CellLocator(const DataSet& ds, double cells_per_bin = 0.0);
  // For (n, 3) float points (copied to the dataset's device if elsewhere): the i64 id of the cell
  // holding each (-1 where none does, NaN included) and its f64 parametric coordinates (n, 3) in
  // that cell (VTK's, of the cell's type; 0 for -1). When the arrays of the dataset's geometry
  // were written since the locator was built (their versions moved), it is rebuilt first.
  std::pair<Array, Array> find_cells(const Array& points);
  const DataSet& dataset() const { return ds_; }
  // How many times the bins were built (1 after construction).
  std::int64_t builds() const { return builds_; }
  // The bins along x, y, z (1, 1, 1 for an image).
  std::array<std::int64_t, 3> bins() const { return bins_; }

 private:
  friend struct detail::LocatorAccess;
  void build();
  bool stale() const;
  DataSet ds_;
  double cells_per_bin_;
  int type_ = 0;  // every cell's type where there is one, else 0
  std::vector<Array> watched_;
  std::vector<std::uint64_t> versions_;
  std::int64_t builds_ = 0;
  std::array<std::int64_t, 3> bins_{1, 1, 1};
  std::array<double, 3> inv_h_{};
  std::array<double, 6> bounds_{};  // grown by 1e-7 of their diagonal
  std::optional<Array> starts_, cells_;
};

// Finds the points of an (n, 3) float array near others (vtkStaticPointLocator): uniform bins
// over their bounds, each listing the points in it in increasing id, built on the points'
// device; rebuilt when the points were written since (their version moved).
class PointLocator {
 public:
  // About `points_per_bin` points per bin (0: the default, 2).
  explicit PointLocator(const Array& points, double points_per_bin = 0.0);
  // The id of each query's nearest point (i64; of equally near ones the lowest id; -1 for a NaN
  // or infinite query, or no points).
  Array nearest(const Array& queries);
  // The points within `radius` (distance <= radius) of each query, ragged: query t's ids (i64,
  // increasing) are ids[offsets[t] : offsets[t + 1]]; (offsets, ids).
  std::pair<Array, Array> within(const Array& queries, double radius);
  const Array& points() const { return points_; }
  std::int64_t builds() const { return builds_; }
  std::array<std::int64_t, 3> bins() const { return bins_; }

 private:
  void build();
  Array points_;
  double points_per_bin_;
  std::uint64_t version_ = 0;
  std::int64_t builds_ = 0;
  std::array<std::int64_t, 3> bins_{1, 1, 1};
  std::array<double, 3> inv_h_{1.0, 1.0, 1.0};
  std::array<double, 6> bounds_{};
  std::optional<Array> starts_, ids_;
};

// How streamlines integrates (docs/design/locators.md, "streamlines"): `step` a length in the
// dataset's coordinates (0: half the mean cell's side), each step's time step step / |v|;
// `RK4` fixed steps, `RK45` Cash-Karp steps adapted to keep |error| / step below `tolerance`
// (within step / 100 and step * 10); a line ends after `max_steps` steps, `max_length` run, at a
// speed of `terminal_speed` or less, or out of the dataset.
enum class StreamMethod : std::uint8_t { RK4, RK45 };
enum class StreamDirection : std::uint8_t { Forward, Backward, Both };
struct StreamlineOptions {
  double step = 0.0;
  std::int64_t max_steps = 2000;
  StreamMethod method = StreamMethod::RK4;
  StreamDirection direction = StreamDirection::Forward;
  double terminal_speed = 1e-12;
  double max_length = std::numeric_limits<double>::infinity();
  double tolerance = 1e-6;
};
// The lines through the vector field `vectors` (a point field of 3 components, interpolated in
// each cell; or a cell field) from each of the (n, 3) `seeds` (vtkStreamTracer): poly data of a
// poly-line per line of two or more points (per seed forward, then backward), with point fields
// "IntegrationTime" (negative backward) and every field of ds there (as probe gives them), and
// cell fields "SeedIds" and "ReasonForTermination" (VTK's: 1 out of the domain, 4 out of length,
// 5 out of steps, 6 stagnation). One work item per line; `locator`: one made from ds, reused.
DataSet streamlines(const DataSet& ds, const std::string& vectors, const Array& seeds,
                    const StreamlineOptions& options = {}, CellLocator* locator = nullptr);

// Poly data of a vertex at each of the (n, 3) points carrying every field of ds there, as
// vtkProbeFilter: point fields interpolated with the holding cell's shape functions (integer
// fields rounded to the nearest, halves away from zero), cell fields the holding cell's value
// (named "name (cell)" where a point field has the name), 0 where no cell holds the point; and
// a u8 point field "valid", 1 where a cell does. `locator`: one made from ds, reused.
DataSet probe(const DataSet& ds, const Array& points, CellLocator* locator = nullptr);
// An image of `dims` points over `bounds` (xmin, xmax, ymin, ...; default ds's) with ds probed at
// its points (vtkResampleToImage).
DataSet resample_to_image(const DataSet& ds, const Dims& dims,
                          const std::optional<std::array<double, 6>>& bounds = std::nullopt);

// What integrate() finds: the highest cell dimension (0 to 3) and the measure of the cells of
// that dimension (the other two measures 0), and each field's integral over them, a value per
// component, in the fields' order.
struct Integrals {
  int dimension = 0;
  double length = 0.0, area = 0.0, volume = 0.0;
  std::vector<std::pair<std::string, std::vector<double>>> point_fields, cell_fields;
};
// The integrals of vtkIntegrateAttributes: only cells of the dataset's highest dimension count
// (vertices never); lines by segments, polygons by their fan from point 0, quads by the
// triangles (0, 1, 2) and (0, 3, 2), strips by their triangles, pixels and voxels whole,
// hexahedra, wedges and pyramids by VTK's tetrahedra (signed volumes, as VTK's); a point field
// integrates as each piece's measure times the mean of its points' values, a cell field as its
// value times the cell's measure. Sums in tack::sum's fixed order.
Integrals integrate(const DataSet& ds);

}  // namespace tack::dataset
