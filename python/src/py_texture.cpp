// tack.texture3d / tack.Texture3D (tack/texture.hpp): the rules are the C++ class's; this file
// converts arguments and names the Python spellings.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "py_convert.hpp"
#include "tack/texture.hpp"

namespace tack::python {
namespace {

Texture3D make_texture(nb::handle source, std::optional<std::vector<std::int64_t>> shape,
                       const std::string& interp) {
  Array* a = nullptr;
  if (!nb::try_cast<Array*>(source, a) || a == nullptr) {
    throw TypeError(std::string("tack.texture3d takes a Tack array of texels, got ") +
                    python_type_name(source) + "; copy host data in first with tack.array(x)");
  }
  std::optional<TextureFilter> filter = texture_filter_named(interp);
  if (!filter) {
    throw ValueError("tack.texture3d: interp='" + interp + "' is not a filter; use 'linear' or " +
                     "'nearest'");
  }
  std::optional<std::array<std::int64_t, 3>> extent;
  if (shape) {
    if (shape->size() != 3) {
      throw ValueError("tack.texture3d: shape is the extent (W, H, D), three sizes; got " +
                       std::to_string(shape->size()));
    }
    extent = std::array<std::int64_t, 3>{(*shape)[0], (*shape)[1], (*shape)[2]};
  }
  return Texture3D(*a, extent, *filter);
}

}  // namespace

void init_texture(nb::module_& m) {
  nb::class_<Texture3D>(m, "Texture3D",
                        "A 3-D f32/f64 field that kernels sample with tex.sample(u, v, w) at "
                        "normalized coordinates (0: the first texel, 1: the last), trilinear "
                        "or nearest, clamped to the edge. Made by tack.texture3d; a view of its "
                        "array, so samples see the array's current values.")
      .def_prop_ro(
          "shape",
          [](const Texture3D& t) {
            return nb::make_tuple(t.extent()[0], t.extent()[1], t.extent()[2]);
          },
          "the extent (W, H, D)")
      .def_prop_ro("dtype", &Texture3D::dtype)
      .def_prop_ro(
          "interp", [](const Texture3D& t) { return std::string(to_string(t.filter())); },
          "'linear' or 'nearest'")
      .def_prop_ro("array", &Texture3D::array,
                   "its texels: the source's memory as a (D, H, W) array, a[z, y, x]")
      .def_prop_ro("device", &Texture3D::device)
      .def("update", &Texture3D::update,
           "Nothing to refresh: a texture samples its array's current values (kept for the "
           "original Tack's programs, which call it after writing the field).")
      .def("__repr__", [](const Texture3D& t) {
        const auto& e = t.extent();
        return "tack.texture3d(shape=(" + std::to_string(e[0]) + ", " + std::to_string(e[1]) +
               ", " + std::to_string(e[2]) + "), dtype=tack." + t.dtype().str() + ", interp='" +
               to_string(t.filter()) + "')";
      });
  m.def("texture3d", &make_texture, nb::arg("array"), nb::arg("shape").none() = nb::none(),
        nb::arg("interp") = "linear",
        "texture3d(array, shape=None, interp='linear'): a 3-D texture over an f32/f64 Tack "
        "array's texels, x fastest (element z * W * H + y * W + x); shape=(W, H, D), or none "
        "for a 3-D array a[z, y, x]. Kernels sample it with tex.sample(u, v, w).");
}

}  // namespace tack::python
