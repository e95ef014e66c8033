// The _tack extension module: the binding of Tack's C++ library, imported by the `tack` package.
#include "py_convert.hpp"

NB_MODULE(_tack, m) {
  namespace py = tack::python;
  m.doc() = "Tack's C++ core (arrays, dtypes, devices, DLPack); use it through `import tack`.";
  m.attr("__version__") = TACK_VERSION;  // the file VERSION, through CMake
  py::init_errors(m);
  py::init_dtype(m);
  py::init_device(m);
  nb::class_<tack::Array> array_class = py::init_array(m);
  py::init_dlpack(m, array_class);
  py::init_strided(m);
  py::init_texture(m);
  py::init_kernel(m);
  py::init_algorithms(m, array_class);
  py::init_dataset(m);
  py::init_amr(m);
}
