// tack.DType, the ten scalar dtypes (tack.f32, ...) and tack.vec(n, dtype).
#include <functional>
#include <string>

#include "py_convert.hpp"

namespace tack::python {
namespace {

// The NumPy dtype of `d`: its scalar's, with the vector's or matrix's shape as a subarray
// (np.dtype((np.float32, (3,)))), so np.dtype(a.dtype) and NumPy's own comparisons work.
nb::object numpy_dtype_of(const DType& d) {
  nb::object scalar = numpy_dtype(d.scalar);
  if (!d.is_vector()) return scalar;
  nb::object shape =
      d.is_matrix() ? nb::make_tuple(d.matrix_rows(), d.matrix_cols) : nb::make_tuple(d.vector_n);
  return numpy().attr("dtype")(nb::make_tuple(scalar, shape));
}

// a.dtype == np.float32, == "float32", == np.dtype("f4"), == tack.f32: NumPy's spellings of the
// same type compare equal, as they do with NumPy's own dtypes; anything else is unequal.
bool dtype_equals(const DType& a, nb::handle b) {
  if (nb::isinstance<DType>(b)) return a == nb::cast<const DType&>(b);
  if (b.is_none()) return false;
  if (nb::isinstance<nb::str>(b)) {
    if (auto t = scalar_type_from_name(nb::cast<std::string>(b))) return a == DType(*t);
  }
  try {
    return nb::cast<bool>(numpy_dtype_of(a).attr("__eq__")(numpy().attr("dtype")(b)));
  } catch (nb::python_error&) {
    return false;  // not a dtype at all (np.dtype raised)
  }
}

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
      .def(
          "__call__",
          [](const DType& d, nb::handle value) {
            if (d.is_vector()) {
              throw TypeError("tack." + d.str() +
                              " is a vector dtype; only scalar dtypes make numbers "
                              "(tack.f64(0.5)); build vectors with tack.Vector in kernels");
            }
            return numpy_dtype(d.scalar).attr("type")(value);
          },
          nb::arg("value"),
          "tack.f64(0.5): the number as a NumPy scalar of this dtype, so that a kernel takes it "
          "as this type (a plain Python float is f32 beside f32 arrays); in kernels, a cast")
      .def("__repr__", &dtype_repr)
      .def_prop_ro("dtype", &numpy_dtype_of,
                   "the NumPy dtype (a vector's or matrix's shape as a subarray): np.dtype(d) "
                   "reads it")
      .def(
          "__eq__", [](const DType& a, nb::handle b) { return dtype_equals(a, b); },
          nb::arg("other").none(), "equal to tack's, NumPy's and the names' spellings of the type")
      .def(
          "__ne__", [](const DType& a, nb::handle b) { return !dtype_equals(a, b); },
          nb::arg("other").none())
      .def("__hash__", [](const DType& d) {
        // NumPy's dtype's hash: a Tack dtype equals its NumPy dtype, so they must hash alike
        // (dict and set keys work across the two).
        return nb::hash(numpy_dtype_of(d));
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
