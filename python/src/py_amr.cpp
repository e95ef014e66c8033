// tack.dataset.AMR's core (tack/amr.hpp): the hierarchy, its level buffers and box views, and
// ghost_cells / average_down. The Python class (tack/dataset.py) wraps it.
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nanobind/stl/array.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "py_convert.hpp"
#include "tack/amr.hpp"

namespace tack::python {

using Corners = std::pair<std::array<std::int64_t, 3>, std::array<std::int64_t, 3>>;

std::vector<dataset::AmrBox> boxes_of(const std::vector<Corners>& corners) {
  std::vector<dataset::AmrBox> out;
  for (const auto& [lo, hi] : corners) out.push_back({lo, hi});
  return out;
}

void init_amr(nb::module_& m) {
  nb::class_<dataset::AmrTransport>(
      m, "AmrTransport",
      "How a distributed AMR moves values between ranks (tack.mpi.Communicator makes one).");
  nb::class_<dataset::AMR>(m, "AMR", "A block-structured AMR hierarchy (tack.dataset.AMR).")
      .def(
          "__init__",
          [](dataset::AMR* self, const std::vector<std::vector<Corners>>& levels, int ratio,
             const DeviceArg& device, const std::array<double, 3>& origin,
             const std::array<double, 3>& spacing, std::shared_ptr<dataset::AmrTransport> transport,
             std::optional<std::vector<std::vector<int>>> owners) {
            std::vector<std::vector<dataset::AmrBox>> boxes;
            for (const std::vector<Corners>& level : levels) boxes.push_back(boxes_of(level));
            new (self)
                dataset::AMR(std::move(boxes), ratio, to_device(device), origin, spacing,
                             {std::move(transport),
                              owners ? std::move(*owners) : std::vector<std::vector<int>>{}});
          },
          nb::arg("levels"), nb::arg("ratio"), nb::arg("device").none(), nb::arg("origin"),
          nb::arg("spacing"), nb::arg("transport").none(), nb::arg("owners").none())
      .def_prop_ro("rank", &dataset::AMR::rank)
      .def_prop_ro("n_ranks", &dataset::AMR::n_ranks)
      .def("owner", &dataset::AMR::owner)
      .def("local_boxes", &dataset::AMR::local_boxes)
      .def("owners",
           [](const dataset::AMR& a, int level) {
             a.boxes(level);  // IndexError for a level out of range
             return a.owners()[static_cast<std::size_t>(level)];
           })
      .def_prop_ro("origin", &dataset::AMR::origin)
      .def("spacing", &dataset::AMR::spacing)
      .def("add_blanking", &dataset::AMR::add_blanking)
      .def("blanking", &dataset::AMR::blanking)
      .def("regrid",
           [](const dataset::AMR& a, int level, const std::vector<Corners>& boxes,
              std::vector<int> owners) {
             GilRelease release;
             return a.regrid(level, boxes_of(boxes), std::move(owners));
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
