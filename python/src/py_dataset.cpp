// tack.dataset's core (tack/dataset.hpp): tack._tack.DataSet and its factories. VTK interop is
// Python (tack/dataset.py); the rules and checks are the C++ class's.
#include <array>
#include <string>

#include <nanobind/stl/array.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "py_convert.hpp"
#include "tack/dataset.hpp"

namespace tack::python {
namespace {

using dataset::DataSet;
using dataset::FieldMap;

// ds.point_data / ds.cell_data: a live mapping onto the dataset's FieldMap (the dataset object
// is kept alive by nanobind's keep_alive on the property).
void init_field_map(nb::module_& m) {
  nb::class_<FieldMap>(m, "FieldMap",
                       "A dataset's point or cell fields: name -> tack.Array, in insertion "
                       "order; each array has one row per point (cell), on the dataset's "
                       "device.")
      .def("__getitem__", [](const FieldMap& f, const std::string& name) { return f.at(name); })
      .def("__setitem__",
           [](FieldMap& f, const std::string& name, nb::handle values) {
             Array* a = nullptr;
             if (nb::try_cast<Array*>(values, a) && a != nullptr) return f.set(name, *a);
             SoaArray* soa = nullptr;
             if (nb::try_cast<SoaArray*>(values, soa) && soa != nullptr) return f.set(name, *soa);
             // Host data (a NumPy array, a list): copied to the dataset's device.
             const nb::object copy =
                 nb::module_::import_("tack").attr("array")(values, nb::arg("device") = f.device());
             f.set(name, nb::cast<const Array&>(copy));
           })
      .def("__delitem__", &FieldMap::erase)
      .def("__contains__", &FieldMap::contains)
      .def("__len__", &FieldMap::size)
      .def("__iter__", [](const FieldMap& f) { return nb::iter(nb::cast(f.names())); })
      .def("keys", &FieldMap::names)
      .def("items",
           [](const FieldMap& f) {
             nb::list l;
             for (const auto& [name, a] : f.items()) l.append(nb::make_tuple(name, a));
             return l;
           })
      .def_prop_ro("association", [](const FieldMap& f) { return std::string(f.association()); })
      .def("__repr__", [](const FieldMap& f) {
        std::string s;
        for (const auto& [name, a] : f.items())
          s += (s.empty() ? "" : ", ") +
               ("'" + name + "': " + a.dtype().str() + detail::shape_str(a.shape()));
        return std::string(f.association()) + "_data({" + s + "})";
      });
}

}  // namespace

void init_dataset(nb::module_& m) {
  init_field_map(m);
  nb::class_<DataSet>(m, "DataSet",
                      "A mesh and its fields (docs/design/dataset.md): an image, rectilinear "
                      "grid, structured grid, unstructured grid or poly data. Made by "
                      "tack.dataset's functions.")
      .def_static("image", &DataSet::image, nb::arg("dims"), nb::arg("origin"), nb::arg("spacing"),
                  nb::arg("device"))
      .def_static("rectilinear", &DataSet::rectilinear, nb::arg("x"), nb::arg("y"), nb::arg("z"))
      .def_static("structured", &DataSet::structured, nb::arg("dims"), nb::arg("points"))
      .def_static("unstructured", &DataSet::unstructured, nb::arg("points"), nb::arg("offsets"),
                  nb::arg("connectivity"), nb::arg("types"))
      .def_static("poly", &DataSet::poly, nb::arg("points"), nb::arg("offsets"),
                  nb::arg("connectivity"), nb::arg("types"))
      .def(
          "to",
          [](const DataSet& d, const DeviceArg& device) {
            const Device target = to_device(device);
            GilRelease release;
            return d.to(target);
          },
          nb::arg("device"), "a copy of the dataset, every array and field, on `device`")
      .def_prop_ro("kind",
                   [](const DataSet& d) { return std::string(dataset::to_string(d.kind())); })
      .def_prop_ro("device", &DataSet::device)
      .def_prop_ro("n_points", &DataSet::n_points)
      .def_prop_ro("n_cells", &DataSet::n_cells)
      .def_prop_ro("dims",
                   [](const DataSet& d) {
                     const auto& v = d.dims();
                     return nb::make_tuple(v[0], v[1], v[2]);
                   })
      .def_prop_ro("origin",
                   [](const DataSet& d) {
                     const auto& v = d.origin();
                     return nb::make_tuple(v[0], v[1], v[2]);
                   })
      .def_prop_ro("spacing",
                   [](const DataSet& d) {
                     const auto& v = d.spacing();
                     return nb::make_tuple(v[0], v[1], v[2]);
                   })
      .def(
          "coordinates", [](const DataSet& d, int axis) { return d.coordinates(axis); },
          nb::arg("axis"))
      .def_prop_ro("points", &DataSet::points)
      .def_prop_ro("offsets", [](const DataSet& d) { return d.offsets(); })
      .def_prop_ro("connectivity", [](const DataSet& d) { return d.connectivity(); })
      .def_prop_ro("types", [](const DataSet& d) { return d.types(); })
      .def_prop_ro(
          "point_data", [](DataSet& d) -> FieldMap& { return d.point_data(); },
          nb::rv_policy::reference_internal)
      .def_prop_ro(
          "cell_data", [](DataSet& d) -> FieldMap& { return d.cell_data(); },
          nb::rv_policy::reference_internal);

  // The filters (tack.dataset wraps them with their Python defaults).
  m.def(
      "dataset_elevation",
      [](const DataSet& ds, const dataset::Vec3& low, const dataset::Vec3& high,
         const std::array<double, 2>& range, const std::string& name) {
        GilRelease release;
        return dataset::elevation(ds, low, high, range, name);
      },
      nb::arg("ds"), nb::arg("low_point"), nb::arg("high_point"), nb::arg("scalar_range"),
      nb::arg("name"));
  m.def(
      "dataset_point_to_cell",
      [](const DataSet& ds, const std::string& field) {
        GilRelease release;
        return dataset::point_to_cell(ds, field);
      },
      nb::arg("ds"), nb::arg("field"));
  m.def(
      "dataset_cell_to_point",
      [](const DataSet& ds, const std::string& field) {
        GilRelease release;
        return dataset::cell_to_point(ds, field);
      },
      nb::arg("ds"), nb::arg("field"));
  m.def(
      "dataset_cell_centers",
      [](const DataSet& ds) {
        GilRelease release;
        return dataset::cell_centers(ds);
      },
      nb::arg("ds"));
  m.def(
      "dataset_threshold",
      [](const DataSet& ds, const std::string& field, double lower, double upper,
         const std::string& association, std::int64_t component, bool all_points) {
        GilRelease release;
        return dataset::threshold(ds, field, lower, upper, association, component, all_points);
      },
      nb::arg("ds"), nb::arg("field"), nb::arg("lower"), nb::arg("upper"), nb::arg("association"),
      nb::arg("component"), nb::arg("all_points"));
  // (dimension, length, area, volume, [(name, values)] of point fields, of cell fields);
  // tack.dataset.integrate makes its dict.
  m.def(
      "dataset_integrate",
      [](const DataSet& ds) {
        dataset::Integrals r;
        {
          GilRelease release;
          r = dataset::integrate(ds);
        }
        // Each field's integral as a float, or a NumPy-shaped list of its row's shape.
        auto fields = [](const FieldMap& map, const auto& sums) {
          nb::list l;
          for (const auto& [name, values] : sums) {
            const Shape shape = map.at(name).numpy_shape();
            nb::list row_shape;
            for (std::size_t d = 1; d < shape.size(); ++d) row_shape.append(shape[d]);
            l.append(nb::make_tuple(name, values, nb::tuple(row_shape)));
          }
          return l;
        };
        return nb::make_tuple(r.dimension, r.length, r.area, r.volume,
                              fields(ds.point_data(), r.point_fields),
                              fields(ds.cell_data(), r.cell_fields));
      },
      nb::arg("ds"));
  m.def(
      "dataset_gradient",
      [](const DataSet& ds, const std::string& field, const std::string& name) {
        GilRelease release;
        return dataset::gradient(ds, field, name);
      },
      nb::arg("ds"), nb::arg("field"), nb::arg("name"));
  m.def(
      "dataset_contour",
      [](const DataSet& ds, const std::string& field, const std::vector<double>& values,
         bool compute_normals, bool interpolate_fields, bool merge_points) {
        GilRelease release;
        return dataset::contour(ds, field, values,
                                {compute_normals, interpolate_fields, merge_points});
      },
      nb::arg("ds"), nb::arg("field"), nb::arg("values"), nb::arg("compute_normals"),
      nb::arg("interpolate_fields"), nb::arg("merge_points"));
  nb::class_<dataset::ImplicitFunction>(m, "ImplicitFunction")
      .def_static("plane", &dataset::ImplicitFunction::plane, nb::arg("origin"), nb::arg("normal"))
      .def_static("sphere", &dataset::ImplicitFunction::sphere, nb::arg("center"),
                  nb::arg("radius"))
      .def_static("cylinder", &dataset::ImplicitFunction::cylinder, nb::arg("center"),
                  nb::arg("axis"), nb::arg("radius"))
      .def_static("box", &dataset::ImplicitFunction::box, nb::arg("bounds"))
      .def_ro("a", &dataset::ImplicitFunction::a)
      .def_ro("b", &dataset::ImplicitFunction::b)
      .def_ro("radius", &dataset::ImplicitFunction::radius);
  m.def(
      "dataset_evaluate",
      [](const dataset::ImplicitFunction& f, const DataSet& ds) {
        GilRelease release;
        return dataset::evaluate(f, ds);
      },
      nb::arg("f"), nb::arg("ds"));
  m.def(
      "dataset_slice",
      [](const DataSet& ds, const dataset::ImplicitFunction& f, bool compute_normals,
         bool interpolate_fields, bool merge_points) {
        GilRelease release;
        return dataset::slice(ds, f, {compute_normals, interpolate_fields, merge_points});
      },
      nb::arg("ds"), nb::arg("f"), nb::arg("compute_normals"), nb::arg("interpolate_fields"),
      nb::arg("merge_points"));
  m.def(
      "dataset_clip",
      [](const DataSet& ds, const std::string& field, double value, bool invert) {
        GilRelease release;
        return dataset::clip(ds, field, value, invert);
      },
      nb::arg("ds"), nb::arg("field"), nb::arg("value"), nb::arg("invert"));
  m.def(
      "dataset_clip_implicit",
      [](const DataSet& ds, const dataset::ImplicitFunction& f, double value, bool invert) {
        GilRelease release;
        return dataset::clip(ds, f, value, invert);
      },
      nb::arg("ds"), nb::arg("f"), nb::arg("value"), nb::arg("invert"));
  m.def(
      "dataset_clip_box",
      [](const DataSet& ds, const std::array<double, 6>& bounds, bool invert) {
        GilRelease release;
        return dataset::clip_box(ds, bounds, invert);
      },
      nb::arg("ds"), nb::arg("bounds"), nb::arg("invert"));
  m.def(
      "dataset_external_faces",
      [](const DataSet& ds) {
        GilRelease release;
        return dataset::external_faces(ds);
      },
      nb::arg("ds"));
  nb::class_<dataset::CellLocator>(m, "CellLocator",
                                   "Finds the cells holding points (tack.dataset.CellLocator).")
      .def(
          "__init__",
          [](dataset::CellLocator* self, const DataSet& ds, double cells_per_bin) {
            GilRelease release;
            new (self) dataset::CellLocator(ds, cells_per_bin);
          },
          nb::arg("ds"), nb::arg("cells_per_bin"))
      .def(
          "find_cells",
          [](dataset::CellLocator& l, const Array& points) {
            GilRelease release;
            return l.find_cells(points);
          },
          nb::arg("points"))
      .def_prop_ro("dataset", &dataset::CellLocator::dataset)
      .def_prop_ro("builds", &dataset::CellLocator::builds)
      .def_prop_ro("bins", &dataset::CellLocator::bins);
  nb::class_<dataset::PointLocator>(m, "PointLocator",
                                    "Finds points near others (tack.dataset.PointLocator).")
      .def(
          "__init__",
          [](dataset::PointLocator* self, const Array& points, double points_per_bin) {
            GilRelease release;
            new (self) dataset::PointLocator(points, points_per_bin);
          },
          nb::arg("points"), nb::arg("points_per_bin"))
      .def(
          "nearest",
          [](dataset::PointLocator& l, const Array& q) {
            GilRelease release;
            return l.nearest(q);
          },
          nb::arg("queries"))
      .def(
          "within",
          [](dataset::PointLocator& l, const Array& q, double radius) {
            GilRelease release;
            return l.within(q, radius);
          },
          nb::arg("queries"), nb::arg("radius"))
      .def_prop_ro("points", &dataset::PointLocator::points)
      .def_prop_ro("builds", &dataset::PointLocator::builds)
      .def_prop_ro("bins", &dataset::PointLocator::bins);
  m.def(
      "dataset_streamlines",
      [](const DataSet& ds, const std::string& vectors, const Array& seeds, double step,
         std::int64_t max_steps, const std::string& method, const std::string& direction,
         double terminal_speed, double max_length, double tolerance,
         dataset::CellLocator* locator) {
        dataset::StreamlineOptions o;
        o.step = step;
        o.max_steps = max_steps;
        o.terminal_speed = terminal_speed;
        o.max_length = max_length;
        o.tolerance = tolerance;
        if (method == "rk45") {
          o.method = dataset::StreamMethod::RK45;
        } else if (method != "rk4") {
          throw ValueError("tack.dataset.streamlines: method='" + method +
                           "'; take 'rk4' or 'rk45'");
        }
        if (direction == "backward") {
          o.direction = dataset::StreamDirection::Backward;
        } else if (direction == "both") {
          o.direction = dataset::StreamDirection::Both;
        } else if (direction != "forward") {
          throw ValueError("tack.dataset.streamlines: direction='" + direction +
                           "'; take 'forward', 'backward' or 'both'");
        }
        GilRelease release;
        return dataset::streamlines(ds, vectors, seeds, o, locator);
      },
      nb::arg("ds"), nb::arg("vectors"), nb::arg("seeds"), nb::arg("step"), nb::arg("max_steps"),
      nb::arg("method"), nb::arg("direction"), nb::arg("terminal_speed"), nb::arg("max_length"),
      nb::arg("tolerance"), nb::arg("locator").none());
  m.def(
      "dataset_probe",
      [](const DataSet& ds, const Array& points, dataset::CellLocator* locator) {
        GilRelease release;
        return dataset::probe(ds, points, locator);
      },
      nb::arg("ds"), nb::arg("points"), nb::arg("locator").none());
  m.def(
      "dataset_resample_to_image",
      [](const DataSet& ds, const dataset::Dims& dims,
         const std::optional<std::array<double, 6>>& bounds) {
        GilRelease release;
        return dataset::resample_to_image(ds, dims, bounds);
      },
      nb::arg("ds"), nb::arg("dims"), nb::arg("bounds").none());
}

}  // namespace tack::python
