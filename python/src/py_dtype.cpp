// tack.DType, the ten scalar dtypes (tack.f32, ...) and tack.vec(n, dtype).
#include <functional>
#include <string>

#include "py_convert.hpp"

namespace tack::python {
namespace {

std::string dtype_repr(const DType& d) {
  if (!d.is_vector()) return "tack." + d.str();
  if (d.is_matrix()) {
    return "tack.mat(" + std::to_string(d.matrix_rows()) + ", " + std::to_string(d.matrix_cols) +
           ", tack." + std::string(name(d.scalar)) + ")";
  }
  return "tack.vec(" + std::to_string(d.vector_n) + ", tack." + std::string(name(d.scalar)) + ")";
}

}  // namespace

void init_dtype(nb::module_& m) {
  nb::class_<DType>(m, "DType",
                    "An array's element type: a scalar type (tack.f32, ...) or a small vector "
                    "of scalars (tack.vec(n, dtype)).")
      .def_prop_ro("name", &DType::str, "'f32', or 'vec(3, f32)' for a vector dtype")
      .def_prop_ro("itemsize", &DType::itemsize, "bytes per element (all components)")
      .def_prop_ro(
          "numpy", [](const DType& d) { return numpy_dtype(d.scalar); },
          "the NumPy dtype of the scalar type (a vector's components)")
      .def_prop_ro(
          "vector_n", [](const DType& d) { return d.vector_n; },
          "n for tack.vec(n, dtype), rows * cols for tack.mat(rows, cols, dtype), 0 for a "
          "scalar dtype")
      .def_prop_ro(
          "matrix_shape",
          [](const DType& d) -> nb::object {
            if (!d.is_matrix()) return nb::none();
            return nb::make_tuple(d.matrix_rows(), d.matrix_cols);
          },
          "(rows, cols) for tack.mat(rows, cols, dtype), None otherwise")
      .def_prop_ro(
          "scalar", [](const DType& d) { return DType(d.scalar); },
          "the scalar type (the dtype itself unless it is a vector)")
      .def("__repr__", &dtype_repr)
      .def(
          "__eq__", [](const DType& a, nb::handle b) { return equals<DType>(a, b, true); },
          nb::arg("other").none())
      .def(
          "__ne__", [](const DType& a, nb::handle b) { return equals<DType>(a, b, false); },
          nb::arg("other").none())
      .def("__hash__", [](const DType& d) {
        return std::hash<int>{}((static_cast<int>(d.scalar) * 64 + d.vector_n) * 8 + d.matrix_cols);
      });

  const std::pair<const char*, DType> scalars[] = {
      {"i8", i8},   {"i16", i16}, {"i32", i32}, {"i64", i64}, {"u8", u8},
      {"u16", u16}, {"u32", u32}, {"u64", u64}, {"f32", f32}, {"f64", f64},
  };
  for (const auto& [n, d] : scalars) m.attr(n) = d;

  m.def(
      "vec", [](int n, nb::handle dtype) { return vec(n, to_dtype(dtype)); }, nb::arg("n"),
      nb::arg("dtype").none(), "tack.vec(3, tack.f32): elements that are vectors of n scalars");
  m.def(
      "mat", [](int rows, int cols, nb::handle dtype) { return mat(rows, cols, to_dtype(dtype)); },
      nb::arg("rows"), nb::arg("cols"), nb::arg("dtype").none(),
      "tack.mat(3, 3, tack.f32): elements that are rows x cols matrices (row-major)");
}

}  // namespace tack::python
