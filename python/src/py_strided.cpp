// tack.arrays.Strided: every step-th row of an array without copying (tack/strided.hpp). The
// rules are the C++ class's; this file converts arguments and names the Python spellings.
#include <optional>
#include <string>

#include "py_convert.hpp"
#include "tack/strided.hpp"

namespace tack::python {

void init_strided(nb::module_& m) {
  using arrays::Strided;
  nb::class_<Strided>(m, "Strided",
                      "Strided(base, start=0, step=1, count=None): rows start, start + step, ... "
                      "of base's first dimension, over the same memory (no copy). A kernel "
                      "argument on every device: read, and written when base is writable. "
                      "numpy() and copy() give contiguous copies; export_memory and DLPack "
                      "are refused (export the base, or a copy).")
      .def(nb::init<const Array&, std::int64_t, std::int64_t, std::optional<std::int64_t>>(),
           nb::arg("base"), nb::arg("start") = 0, nb::arg("step") = 1,
           nb::arg("count").none() = nb::none())
      .def_prop_ro("base", &Strided::base, "the array whose rows it reads")
      .def_prop_ro("start", &Strided::start, "the first row of base (counted from 0)")
      .def_prop_ro("step", &Strided::step, "rows of base from one row to the next")
      .def_prop_ro("count", &Strided::count, "number of rows")
      .def_prop_ro("shape", [](const Strided& s) { return shape_tuple(s.shape()); })
      .def_prop_ro("dtype", &Strided::dtype)
      .def_prop_ro("ndim", &Strided::ndim)
      .def_prop_ro("size", &Strided::size)
      .def_prop_ro("writable", &Strided::writable, "writable exactly when base is")
      .def_prop_ro("device", &Strided::device)
      .def_prop_ro("version", &Strided::version,
                   "the write counter of the whole allocation, shared with base")
      .def_prop_ro("nbytes_spanned", &Strided::span_nbytes,
                   "bytes from its first row to the end of its last (the gaps included): "
                   "what the read-only and aliasing rules apply to")
      .def("__len__", [](const Strided& s) { return s.count(); })
      .def(
          "numpy", [](const Strided& s) { return to_numpy(s.copy(), s.dtype().scalar); },
          "a new C-contiguous NumPy array of its rows")
      .def("copy", &Strided::copy, "a new contiguous array of its rows, on the same device")
      .def(
          "__array__",
          [](const Strided& s, nb::args, nb::kwargs) {
            return to_numpy(s.copy(), s.dtype().scalar);
          },
          "np.asarray(s): a copy of its rows (as numpy())")
      .def("export_memory", [](const Strided& s) { s.refuse_export("export_memory()"); })
      .def(
          "__dlpack__",
          [](const Strided& s, nb::args, nb::kwargs) { s.refuse_export("DLPack export"); },
          "refused: export the base array, or a copy (s.copy())")
      .def("__dlpack_device__", [](const Strided& s) { s.refuse_export("DLPack export"); })
      .def("__repr__", [](const Strided& s) {
        return "tack.arrays.Strided(shape=" + detail::shape_str(s.shape()) +
               ", dtype=" + s.dtype().str() + ", start=" + std::to_string(s.start()) +
               ", step=" + std::to_string(s.step()) + ", device=" + s.device().name() + ")";
      });
}

}  // namespace tack::python
