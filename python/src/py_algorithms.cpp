// tack.sum, tack.prod, tack.min, tack.max and the methods a.sum() ... (docs/algorithms.md): the
// C++ reductions, each result a NumPy scalar of the accumulator's dtype, as NumPy's own.
#include <optional>

#include "py_convert.hpp"
#include "tack/algorithms.hpp"

namespace tack::python {
namespace {

// The reduction's result as a NumPy scalar of type `t` (np.float32(...), np.int64(...)).
nb::object numpy_scalar(const Scalar& s, ScalarType t) {
  return numpy_dtype(t).attr("type")(nb::cast(s));
}

std::optional<DType> optional_dtype(nb::handle dtype) {
  if (dtype.is_none()) return std::nullopt;
  return to_dtype(dtype);
}

ScalarType accumulator_type(const Array& a, const std::optional<DType>& dtype) {
  if (dtype) return dtype->scalar;
  const ScalarType t = a.dtype().scalar;
  if (is_float(t)) return t;
  return is_signed(t) ? ScalarType::i64 : ScalarType::u64;
}

}  // namespace

void init_algorithms(nb::module_& m, nb::class_<Array>& array_class) {
  auto sum_fn = [](const Array& a, nb::handle dtype) {
    std::optional<DType> d = optional_dtype(dtype);
    Scalar s;
    {
      GilRelease release;
      s = tack::sum(a, d);
    }
    return numpy_scalar(s, accumulator_type(a, d));
  };
  auto prod_fn = [](const Array& a, nb::handle dtype) {
    std::optional<DType> d = optional_dtype(dtype);
    Scalar s;
    {
      GilRelease release;
      s = tack::prod(a, d);
    }
    return numpy_scalar(s, accumulator_type(a, d));
  };
  auto min_fn = [](const Array& a) {
    Scalar s;
    {
      GilRelease release;
      s = tack::min(a);
    }
    return numpy_scalar(s, a.dtype().scalar);
  };
  auto max_fn = [](const Array& a) {
    Scalar s;
    {
      GilRelease release;
      s = tack::max(a);
    }
    return numpy_scalar(s, a.dtype().scalar);
  };
  const char* sum_doc =
      "The sum of every element, in one defined order (the same bits on every device and "
      "thread count); accumulates as NumPy (i64/u64 for integers) or in dtype.";
  m.def("sum", sum_fn, nb::arg("a"), nb::arg("dtype").none() = nb::none(), sum_doc);
  m.def("prod", prod_fn, nb::arg("a"), nb::arg("dtype").none() = nb::none(),
        "The product of every element, as tack.sum orders it.");
  m.def("min", min_fn, nb::arg("a"),
        "The smallest element (NaN if any is NaN); ValueError for an empty array.");
  m.def("max", max_fn, nb::arg("a"),
        "The largest element (NaN if any is NaN); ValueError for an empty array.");
  array_class.def("sum", sum_fn, nb::arg("dtype").none() = nb::none(), sum_doc)
      .def("prod", prod_fn, nb::arg("dtype").none() = nb::none())
      .def("min", min_fn)
      .def("max", max_fn);
}

}  // namespace tack::python
