// tack.dataset.AMR's core (tack/amr.hpp): the hierarchy, its level buffers and box views, and
// ghost_cells / average_down. The Python class (tack/dataset.py) wraps it.
#include <array>
#include <string>
#include <utility>
#include <vector>

#include <nanobind/stl/array.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "py_convert.hpp"
#include "tack/amr.hpp"

namespace tack::python {

using Corners = std::pair<std::array<std::int64_t, 3>, std::array<std::int64_t, 3>>;

void init_amr(nb::module_& m) {
  nb::class_<dataset::AMR>(m, "AMR", "A block-structured AMR hierarchy (tack.dataset.AMR).")
      .def(
          "__init__",
          [](dataset::AMR* self, const std::vector<std::vector<Corners>>& levels, int ratio,
             const DeviceArg& device, const std::array<double, 3>& origin,
             const std::array<double, 3>& spacing) {
            std::vector<std::vector<dataset::AmrBox>> boxes;
            for (const std::vector<Corners>& level : levels) {
              boxes.emplace_back();
              for (const auto& [lo, hi] : level) boxes.back().push_back({lo, hi});
            }
            new (self) dataset::AMR(std::move(boxes), ratio, to_device(device), origin, spacing);
          },
          nb::arg("levels"), nb::arg("ratio"), nb::arg("device").none(), nb::arg("origin"),
          nb::arg("spacing"))
      .def_prop_ro("origin", &dataset::AMR::origin)
      .def("spacing", &dataset::AMR::spacing)
      .def("add_blanking", &dataset::AMR::add_blanking)
      .def("blanking", &dataset::AMR::blanking)
      .def("regrid",
           [](const dataset::AMR& a, int level, const std::vector<Corners>& boxes) {
             std::vector<dataset::AmrBox> b;
             for (const auto& [lo, hi] : boxes) b.push_back({lo, hi});
             GilRelease release;
             return a.regrid(level, std::move(b));
           })
      .def_prop_ro("ratio", &dataset::AMR::ratio)
      .def_prop_ro("n_levels", &dataset::AMR::n_levels)
      .def_prop_ro("device", &dataset::AMR::device)
      .def("boxes",
           [](const dataset::AMR& a, int level) {
             std::vector<Corners> out;
             for (const dataset::AmrBox& b : a.boxes(level)) out.emplace_back(b.lo, b.hi);
             return out;
           })
      .def(
          "add_field",
          [](dataset::AMR& a, const std::string& name, nb::handle dtype, int ghost) {
            a.add_field(name, to_dtype(dtype), ghost);
          },
          nb::arg("name"), nb::arg("dtype"), nb::arg("ghost"))
      .def("field_names", &dataset::AMR::field_names)
      .def("ghost", &dataset::AMR::ghost)
      .def("level_array", &dataset::AMR::level_array, nb::arg("name"), nb::arg("level"))
      .def("box_array", &dataset::AMR::box_array, nb::arg("name"), nb::arg("level"), nb::arg("b"));
  m.def(
      "amr_ghost_cells",
      [](dataset::AMR& a, const std::string& field, const std::string& interpolation) {
        dataset::AmrInterpolation how = dataset::AmrInterpolation::Constant;
        if (interpolation == "linear") {
          how = dataset::AmrInterpolation::Linear;
        } else if (interpolation != "constant") {
          throw ValueError("tack.dataset.ghost_cells: interpolation='" + interpolation +
                           "'; take 'constant' (piecewise constant) or 'linear'");
        }
        GilRelease release;
        dataset::ghost_cells(a, field, how);
      },
      nb::arg("amr"), nb::arg("field"), nb::arg("interpolation"));
  m.def(
      "amr_average_down",
      [](dataset::AMR& a, const std::string& field) {
        GilRelease release;
        dataset::average_down(a, field);
      },
      nb::arg("amr"), nb::arg("field"));
}

}  // namespace tack::python
