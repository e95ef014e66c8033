// tack.sum ... tack.argmax and the methods a.sum() ... (docs/algorithms.md): the C++ reductions.
// Over every element (axis=None) a result is a NumPy scalar of NumPy's result type; along an
// axis a tack.Array on the input's device (a 0-d result, as NumPy's, a NumPy scalar).
#include <cstdint>
#include <optional>
#include <string>

#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>

#include "py_convert.hpp"
#include "tack/algorithms.hpp"
#include "tack/strided.hpp"

namespace tack::python {
namespace {

std::optional<DType> optional_dtype(nb::handle dtype) {
  if (dtype.is_none()) return std::nullopt;
  return to_dtype(dtype);
}

std::optional<int> optional_axis(nb::handle axis, const char* what) {
  if (axis.is_none()) return std::nullopt;
  // Any integer, NumPy's too (operator.index), but not a bool.
  if (!PyIndex_Check(axis.ptr()) || PyBool_Check(axis.ptr())) {
    throw TypeError(std::string("tack.") + what + ": axis takes None or one integer, got " +
                    nb::cast<std::string>(nb::repr(axis)) + "; reduce one axis at a time");
  }
  const Py_ssize_t k = PyNumber_AsSsize_t(axis.ptr(), PyExc_OverflowError);
  if (k == -1 && PyErr_Occurred()) {
    PyErr_Clear();
    throw IndexError(std::string("tack.") + what + ": axis " +
                     nb::cast<std::string>(nb::repr(axis)) + " is out of bounds");
  }
  if (k < -64 || k > 64) {
    throw IndexError(std::string("tack.") + what + ": axis " + std::to_string(k) +
                     " is out of bounds; use an axis in [-ndim, ndim - 1]");
  }
  return static_cast<int>(k);
}

// An algorithm's input from Python (docs/algorithms.md, "Host data"): a Tack array is itself;
// host data -- a NumPy array, or anything np.asarray reads, such as a list -- is a CPU array over
// NumPy's memory (read-only; a copy first when it is not C-contiguous native data), as kernels
// take NumPy arrays. A NumPy bool array (a mask) is read as u8 0 and 1 (`mask`): Tack arrays
// hold no bools.
struct Input {
  Array array;
  bool mask = false;
};

Input input(nb::handle h, const char* what) {
  Array* a = nullptr;
  if (nb::try_cast<Array*>(h, a) && a != nullptr) return Input{*a, false};
  if (nb::isinstance<arrays::Strided>(h)) {
    throw TypeError(std::string("tack.") + what +
                    " takes an array, not a tack.arrays.Strided; pass s.copy() (a contiguous "
                    "array of its rows)");
  }
  nb::object arr = numpy().attr("asarray")(h);
  const std::string kind = nb::cast<std::string>(arr.attr("dtype").attr("kind"));
  if (kind == "O" || kind == "U" || kind == "S" || kind == "V") {
    throw TypeError(std::string("tack.") + what +
                    " takes a Tack array or host data (a NumPy array, a list of numbers), got " +
                    python_type_name(h) + " (NumPy reads it as dtype " +
                    nb::cast<std::string>(arr.attr("dtype").attr("name")) + ")");
  }
  const bool mask = kind == "b";
  if (mask) arr = arr.attr("view")(numpy_dtype(ScalarType::u8));
  const nb::object dt = arr.attr("dtype");
  if (!nb::cast<bool>(dt.attr("isnative"))) arr = arr.attr("astype")(dt.attr("newbyteorder")("="));
  if (!nb::cast<bool>(arr.attr("flags").attr("c_contiguous")))
    arr = numpy().attr("ascontiguousarray")(arr);
  const HostArrayFacts facts = host_array_facts(arr);
  Shape shape;
  for (nb::handle d : nb::borrow<nb::tuple>(arr.attr("shape")))
    shape.push_back(nb::cast<std::int64_t>(d));
  const DType t(scalar_type_for_host(nb::cast<std::string>(arr.attr("dtype").attr("name"))));
  return Input{
      array_from_host_array(facts, t, shape, /*writable=*/false, device("cpu"), python_hold(arr)),
      mask};
}

// An axis result: the array, or for a 0-d array its one element as a NumPy scalar.
nb::object array_result(const Array& r) {
  if (r.ndim() != 0) return nb::cast(r);
  const Scalar s = std::get<Scalar>(r.reshape({1}).index({std::int64_t{0}}));
  return numpy_scalar(s, r.dtype().scalar);
}

// The NumPy scalar types of whole-array results: the C++ API's result types.
ScalarType sum_type(const Array& a, const std::optional<DType>& dtype) {
  return tack::sum_result_type(a.dtype(), dtype).scalar;
}

ScalarType float_type(const Array& a, const std::optional<DType>& dtype) {
  return tack::mean_result_type(a.dtype(), dtype).scalar;
}

// The shape every reduction shares: whole(a) -> (Scalar, result type) or lines(a, axis) -> Array.
template <class Whole, class Lines>
nb::object reduction(const Array& a, nb::handle axis, const char* what, Whole whole, Lines lines,
                     bool keepdims = false) {
  const std::optional<int> k = optional_axis(axis, what);
  if (!k && !keepdims) return whole();
  if (!k) {  // keepdims over every element: an array of shape (1, ..., 1), as NumPy's
    const nb::object s = whole();
    // count_nonzero gives a Python int (i64 here), any/all a np.bool_ (u8, as along an axis).
    const bool is_bool =
        nb::cast<std::string>(nb::str(s.type().attr("__name__"))).rfind("bool", 0) == 0;
    const DType t = is_bool ? u8 : !nb::hasattr(s, "dtype") ? i64 : to_dtype(s.attr("dtype"));
    const Scalar v = is_bool
                         ? Scalar::from(static_cast<std::int64_t>(PyObject_IsTrue(s.ptr()) == 1))
                         : nb::cast<Scalar>(nb::hasattr(s, "item") ? s.attr("item")() : s);
    return nb::cast(tack::full(Shape(static_cast<std::size_t>(a.ndim()), 1), v, t, a.device()));
  }
  std::optional<Array> r;
  {
    GilRelease release;
    r.emplace(lines(*k));
  }
  return array_result(*r);
}

template <class F>
Scalar released(F f) {
  GilRelease release;
  return f();
}

// Binds `name` as tack.name(a, <args>) and a.name(<args>).
template <class F, class... Extra>
void both(nb::module_& m, nb::class_<Array>& cls, const char* name, F f, const char* doc,
          const Extra&... args) {
  m.def(name, f, nb::arg("a"), args..., doc);
  cls.def(name, f, args..., doc);
}

// The device of a *_like call: a's unless given.
std::optional<Device> like_device(const DeviceArg& device) {
  if (!device) return std::nullopt;
  return to_device(device);
}

void init_utilities(nb::module_& m, nb::class_<Array>& array_class) {
  const auto dtype = nb::arg("dtype").none() = nb::none();
  const auto device = nb::arg("device").none() = nb::none();
  m.def(
      "arange",
      [](const Scalar& start, std::optional<Scalar> stop, const Scalar& step, nb::handle dtype,
         const DeviceArg& device) {
        const std::optional<DType> d = optional_dtype(dtype);
        const Device dev = to_device(device);
        GilRelease release;
        if (!stop) return tack::arange(Scalar::from(std::int64_t{0}), start, step, d, dev);
        return tack::arange(start, *stop, step, d, dev);
      },
      nb::arg("start"), nb::arg("stop").none() = nb::none(), nb::arg("step") = 1, dtype, device,
      "NumPy's arange: [start, stop) by step (arange(n) is [0, n)), the same values; i64 for "
      "integers, f64 otherwise, or dtype.");
  m.def(
      "linspace",
      [](double start, double stop, std::int64_t num, bool endpoint, nb::handle dtype,
         const DeviceArg& device) {
        const std::optional<DType> d = optional_dtype(dtype);
        const Device dev = to_device(device);
        GilRelease release;
        return tack::linspace(start, stop, num, endpoint, d, dev);
      },
      nb::arg("start"), nb::arg("stop"), nb::arg("num") = 50, nb::arg("endpoint") = true, dtype,
      device, "NumPy's linspace: num evenly spaced samples, the same values; f64 or dtype.");
  m.def(
      "concat",
      [](const std::vector<Array>& arrays, int axis) {
        GilRelease release;
        return tack::concat(arrays, axis);
      },
      nb::arg("arrays"), nb::arg("axis") = 0,
      "The arrays joined along axis (NumPy's concatenate): one dtype, one device.");
  array_class
      .def(
          "astype",
          [](const Array& a, nb::handle dtype) {
            const DType d = to_dtype(dtype);
            GilRelease release;
            return tack::astype(a, d);
          },
          nb::arg("dtype"), "A copy converted to dtype, on the same device.")
      .def(
          "copy",
          [](const Array& a) {
            GilRelease release;
            return tack::copy(a);
          },
          "A copy on the same device (a new root array).")
      .def(
          "to",
          [](const Array& a, const DeviceArg& device) {
            const Device d = to_device(device);
            GilRelease release;
            return tack::to(a, d);
          },
          nb::arg("device"), "A copy on another device (a Device or a name such as 'opencl').");
  auto like = [](auto make) {
    return [make](const Array& a, nb::handle dtype, const DeviceArg& device) {
      return make(a, optional_dtype(dtype), like_device(device));
    };
  };
  m.def("empty_like",
        like([](const Array& a, auto d, auto dev) { return tack::empty_like(a, d, dev); }),
        nb::arg("a"), dtype, device,
        "A new array of a's shape (contents unspecified), in a's dtype and device unless given.");
  m.def("zeros_like",
        like([](const Array& a, auto d, auto dev) { return tack::zeros_like(a, d, dev); }),
        nb::arg("a"), dtype, device, "Zeros of a's shape, in a's dtype and device unless given.");
  m.def("ones_like",
        like([](const Array& a, auto d, auto dev) { return tack::ones_like(a, d, dev); }),
        nb::arg("a"), dtype, device, "Ones of a's shape, in a's dtype and device unless given.");
  m.def(
      "full_like",
      [](const Array& a, const Scalar& value, nb::handle dtype, const DeviceArg& device) {
        return tack::full_like(a, value, optional_dtype(dtype), like_device(device));
      },
      nb::arg("a"), nb::arg("fill_value"), dtype, device,
      "fill_value in a's shape, in a's dtype and device unless given.");
}

// axis=-1 (the last) or None (every element); other values reach the C++ check.
std::optional<int> sort_axis(nb::handle axis, const char* what) {
  return optional_axis(axis, what);
}

void init_sorts(nb::module_& m, nb::class_<Array>& array_class) {
  m.def(
      "sort",
      [](nb::handle a_obj, nb::handle axis) {
        const Input a_in = input(a_obj, "sort");
        const Array& a = a_in.array;
        const std::optional<int> k = sort_axis(axis, "sort");
        GilRelease release;
        return tack::sort(a, k);
      },
      nb::arg("a"), nb::arg("axis").none() = -1,
      "A sorted copy, stable, along the last axis (each row) or of every element (axis=None); "
      "NumPy's order, NaN last.");
  auto argsort = [](nb::handle a_obj, nb::handle axis) {
    const Input a_in = input(a_obj, "argsort");
    const Array& a = a_in.array;
    const std::optional<int> k = sort_axis(axis, "argsort");
    GilRelease release;
    return tack::argsort(a, k);
  };
  const char* argsort_doc =
      "The i64 indices that sort a, stably (ties keep their order), along the last axis or of "
      "every element (axis=None).";
  m.def("argsort", argsort, nb::arg("a"), nb::arg("axis").none() = -1, argsort_doc);
  array_class.def("argsort", argsort, nb::arg("axis").none() = -1, argsort_doc);
  m.def(
      "sort_by_key",
      [](nb::handle keys_obj, nb::handle values_obj) {
        const Input keys_in = input(keys_obj, "sort_by_key");
        const Array& keys = keys_in.array;
        const Input values_in = input(values_obj, "sort_by_key");
        const Array& values = values_in.array;
        std::optional<std::pair<Array, Array>> r;
        {
          GilRelease release;
          r.emplace(tack::sort_by_key(keys, values));
        }
        return nb::make_tuple(r->first, r->second);
      },
      nb::arg("keys"), nb::arg("values"),
      "(keys sorted stably, values permuted alike): one value (row of values) per key.");
  m.def(
      "gather",
      [](nb::handle values_obj, nb::handle indices_obj) {
        const Input values_in = input(values_obj, "gather");
        const Array& values = values_in.array;
        const Input indices_in = input(indices_obj, "gather");
        const Array& indices = indices_in.array;
        GilRelease release;
        return tack::gather(values, indices);
      },
      nb::arg("values"), nb::arg("indices"),
      "values[indices] along the first axis (NumPy's take); negative indices count from the "
      "end.");
  m.def(
      "scatter",
      [](const Array& values, const Array& indices, const Array& out) {
        GilRelease release;
        tack::scatter(values, indices, out);
      },
      nb::arg("values"), nb::arg("indices"), nb::arg("out"),
      "out[indices] = values along out's first axis; with a repeated index, which value lands "
      "is unspecified.");
}

nb::tuple as_tuple(const std::vector<Array>& arrays) {
  nb::list l;
  for (const Array& a : arrays) l.append(nb::cast(a));
  return nb::tuple(l);
}

void init_selection(nb::module_& m, nb::class_<Array>& array_class) {
  m.def(
      "unique",
      [](nb::handle a_obj, bool return_index, bool return_inverse, bool return_counts) {
        const Input a_in = input(a_obj, "unique");
        const Array& a = a_in.array;
        std::optional<Unique> u;
        {
          GilRelease release;
          u.emplace(tack::unique(a, return_index, return_inverse, return_counts));
        }
        if (!return_index && !return_inverse && !return_counts) return nb::cast(u->values);
        nb::list l;
        l.append(nb::cast(u->values));
        if (u->index) l.append(nb::cast(*u->index));
        if (u->inverse) l.append(nb::cast(*u->inverse));
        if (u->counts) l.append(nb::cast(*u->counts));
        return nb::object(nb::tuple(l));
      },
      nb::arg("a"), nb::arg("return_index") = false, nb::arg("return_inverse") = false,
      nb::arg("return_counts") = false,
      "NumPy's unique of every element: the sorted distinct values (NaNs one value), and on "
      "request (values, index, inverse, counts) in that order.");
  auto nonzero = [](nb::handle a_obj) {
    const Input a_in = input(a_obj, "nonzero");
    const Array& a = a_in.array;
    std::vector<Array> r;
    {
      GilRelease release;
      r = tack::nonzero(a);
    }
    return as_tuple(r);
  };
  const char* nonzero_doc =
      "A tuple of i64 index arrays, one per dimension, of the nonzero elements.";
  m.def("nonzero", nonzero, nb::arg("a"), nonzero_doc);
  array_class.def("nonzero", nonzero, nonzero_doc);
  m.def(
      "compress",
      [](nb::handle condition_obj, nb::handle a_obj, nb::handle axis) {
        const Input condition_in = input(condition_obj, "compress");
        const Array& condition = condition_in.array;
        const Input a_in = input(a_obj, "compress");
        const Array& a = a_in.array;
        const std::optional<int> k = optional_axis(axis, "compress");
        GilRelease release;
        return tack::compress(condition, a, k);
      },
      nb::arg("condition"), nb::arg("a"), nb::arg("axis").none() = nb::none(),
      "The rows (axis=0) or elements (axis=None) of a whose condition is nonzero.");
  m.def(
      "searchsorted",
      [](nb::handle a_obj, nb::handle v, const std::string& side) -> nb::object {
        const Input a_in = input(a_obj, "searchsorted");
        const Array& a = a_in.array;
        if (nb::isinstance<Array>(v) || is_ndarray(v) || PyList_Check(v.ptr()) ||
            PyTuple_Check(v.ptr())) {
          const Input values_in = input(v, "searchsorted");
          const Array& values = values_in.array;
          std::optional<Array> r;
          {
            GilRelease release;
            r.emplace(tack::searchsorted(a, values, side));
          }
          return nb::cast(*r);
        }
        // One number: a NumPy integer, as NumPy's.
        // As its own array: a Python int as i64 (u64 past it), a float as f64; the search
        // compares in the common type.
        const Scalar s = nb::cast<Scalar>(v);
        const DType t = s.kind == Scalar::Kind::Float  ? f64
                        : s.kind == Scalar::Kind::UInt ? u64
                                                       : i64;
        const Array one = tack::full({1}, s, t, a.device());
        Array r = [&] {
          GilRelease release;
          return tack::searchsorted(a, one, side);
        }();
        return numpy_scalar(std::get<Scalar>(r.index({std::int64_t{0}})), ScalarType::i64);
      },
      nb::arg("a"), nb::arg("v"), nb::arg("side") = "left",
      "Where each value of v goes in the sorted 1-D array a: side 'left' the first such place, "
      "'right' the last (NaN after every number).");
  m.def(
      "histogram",
      [](nb::handle a_obj, std::int64_t bins, std::optional<std::pair<double, double>> range,
         const std::string& out_of_range) {
        const Input a_in = input(a_obj, "histogram");
        const Array& a = a_in.array;
        std::optional<std::pair<Array, Array>> r;
        {
          GilRelease release;
          r.emplace(tack::histogram(a, bins, range, out_of_range));
        }
        return nb::make_tuple(r->first, r->second);
      },
      nb::arg("a"), nb::arg("bins") = 10, nb::arg("range").none() = nb::none(), nb::kw_only(),
      nb::arg("out_of_range") = "drop",
      "NumPy's histogram with equal bins: (i64 counts, bins + 1 edges), the last bin closed. "
      "out_of_range='drop' (NumPy's) leaves values outside the range uncounted; 'clamp' counts "
      "them in the first or last bin.");
}

}  // namespace

void init_algorithms(nb::module_& m, nb::class_<Array>& array_class) {
  const auto axis = nb::arg("axis").none() = nb::none();
  const auto dtype = nb::arg("dtype").none() = nb::none();
  const auto keepdims = nb::arg("keepdims") = false;
  const auto ddof = nb::arg("ddof") = 0;

  both(
      m, array_class, "sum",
      [](nb::handle a_obj, nb::handle axis, nb::handle dtype, bool keepdims) {
        const Input a_in = input(a_obj, "sum");
        const Array& a = a_in.array;
        // A mask counts as NumPy's sum of bools does: in i64.
        const std::optional<DType> d = a_in.mask && dtype.is_none() ? i64 : optional_dtype(dtype);
        return reduction(
            a, axis, "sum",
            [&] { return numpy_scalar(released([&] { return tack::sum(a, d); }), sum_type(a, d)); },
            [&](int k) { return tack::sum(a, k, d, keepdims); }, keepdims);
      },
      "The sum of the elements (axis=None) or along one axis, in one defined order (the same "
      "bits on every device and thread count); accumulates as NumPy (i64/u64 for integers) or "
      "in dtype.",
      axis, dtype, keepdims);
  both(
      m, array_class, "prod",
      [](nb::handle a_obj, nb::handle axis, nb::handle dtype, bool keepdims) {
        const Input a_in = input(a_obj, "prod");
        const Array& a = a_in.array;
        // A mask counts as NumPy's sum of bools does: in i64.
        const std::optional<DType> d = a_in.mask && dtype.is_none() ? i64 : optional_dtype(dtype);
        return reduction(
            a, axis, "prod",
            [&] {
              return numpy_scalar(released([&] { return tack::prod(a, d); }), sum_type(a, d));
            },
            [&](int k) { return tack::prod(a, k, d, keepdims); }, keepdims);
      },
      "The product of the elements, in tack.sum's order and accumulators.", axis, dtype, keepdims);

  // min, max, absmax: the array's own dtype.
  auto same_type = [](auto whole, auto lines, const char* what) {
    return [whole, lines, what](nb::handle a_obj, nb::handle axis, bool keepdims) {
      const Input a_in = input(a_obj, what);
      const Array& a = a_in.array;
      return reduction(
          a, axis, what,
          [&] {
            const Scalar v = released([&] { return whole(a); });
            // The extreme of a mask is a bool, as NumPy's.
            return a_in.mask ? numpy_scalar(Scalar::from_bool(v.i != 0), ScalarType::boolean)
                             : numpy_scalar(v, a.dtype().scalar);
          },
          [&](int k) { return lines(a, k, keepdims); }, keepdims);
    };
  };
  both(m, array_class, "min",
       same_type([](const Array& a) { return tack::min(a); },
                 [](const Array& a, int k, bool kd) { return tack::min(a, k, kd); }, "min"),
       "The smallest element (NaN if any is NaN); ValueError for no elements.", axis, keepdims);
  both(m, array_class, "max",
       same_type([](const Array& a) { return tack::max(a); },
                 [](const Array& a, int k, bool kd) { return tack::max(a, k, kd); }, "max"),
       "The largest element (NaN if any is NaN); ValueError for no elements.", axis, keepdims);
  both(m, array_class, "absmax",
       same_type([](const Array& a) { return tack::absmax(a); },
                 [](const Array& a, int k, bool kd) { return tack::absmax(a, k, kd); }, "absmax"),
       "The largest absolute value (NumPy's abs(a).max()); ValueError for no elements.", axis,
       keepdims);

  both(
      m, array_class, "mean",
      [](nb::handle a_obj, nb::handle axis, nb::handle dtype, bool keepdims) {
        const Input a_in = input(a_obj, "mean");
        const Array& a = a_in.array;
        const std::optional<DType> d = optional_dtype(dtype);
        return reduction(
            a, axis, "mean",
            [&] {
              return numpy_scalar(released([&] { return tack::mean(a, d); }), float_type(a, d));
            },
            [&](int k) { return tack::mean(a, k, d, keepdims); }, keepdims);
      },
      "The arithmetic mean: the sum (f64 for integers, the float itself, or dtype) divided by "
      "the count; NaN for no elements.",
      axis, dtype, keepdims);
  auto variance = [](bool root) {
    return [root](nb::handle a_obj, nb::handle axis, nb::handle dtype, int ddof, bool keepdims) {
      const std::optional<DType> d = optional_dtype(dtype);
      const char* what = root ? "std" : "var";
      const Input a_in = input(a_obj, what);
      const Array& a = a_in.array;
      return reduction(
          a, axis, what,
          [&] {
            const Scalar s =
                released([&] { return root ? tack::std(a, d, ddof) : tack::var(a, d, ddof); });
            return numpy_scalar(s, float_type(a, d));
          },
          [&](int k) {
            return root ? tack::std(a, k, d, ddof, keepdims) : tack::var(a, k, d, ddof, keepdims);
          },
          keepdims);
    };
  };
  both(m, array_class, "var", variance(false),
       "The variance: the mean of squared deviations from the mean (two passes), divided by "
       "max(count - ddof, 0) as NumPy.",
       axis, dtype, ddof, keepdims);
  both(m, array_class, "std", variance(true), "The standard deviation: the root of tack.var.", axis,
       dtype, ddof, keepdims);

  both(
      m, array_class, "dot",
      [](nb::handle a_obj, nb::handle b_obj, nb::handle axis, nb::handle dtype, bool keepdims) {
        const Input a_in = input(a_obj, "dot");
        const Array& a = a_in.array;
        const Input b_in = input(b_obj, "dot");
        const Array& b = b_in.array;
        const std::optional<DType> d = optional_dtype(dtype);
        return reduction(
            a, axis, "dot",
            [&] {
              const Scalar s = released([&] { return tack::dot(a, b, d); });
              // The common type, as NumPy promotes (np.result_type).
              const ScalarType t =
                  d ? d->scalar
                    : to_dtype(nb::module_::import_("numpy").attr("result_type")(
                                   numpy_dtype(a.dtype().scalar), numpy_dtype(b.dtype().scalar)))
                          .scalar;
              return numpy_scalar(s, t);
            },
            [&](int k) { return tack::dot(a, b, k, d, keepdims); }, keepdims);
      },
      "The sum of a * b over two arrays of one shape (NumPy's vdot; a 1-D dot), in the common "
      "type or dtype.",
      nb::arg("b"), axis, dtype, keepdims);
  both(
      m, array_class, "norm",
      [](nb::handle a_obj, nb::handle ord, nb::handle axis, bool keepdims) {
        const Input a_in = input(a_obj, "norm");
        const Array& a = a_in.array;
        double p = 2.0;
        if (!ord.is_none()) {
          if (!PyNumber_Check(ord.ptr()) || PyUnicode_Check(ord.ptr()) || PyBool_Check(ord.ptr())) {
            throw ValueError("norm: ord=" + nb::cast<std::string>(nb::repr(ord)) +
                             " is not a vector norm; use None or 2, 1, inf, -inf, 0 or another "
                             "number (matrix norms such as 'fro' are not provided)");
          }
          p = nb::cast<double>(nb::float_(ord));
        }
        return reduction(
            a, axis, "norm",
            [&] {
              return numpy_scalar(released([&] { return tack::norm(a, p); }),
                                  float_type(a, std::nullopt));
            },
            [&](int k) { return tack::norm(a, k, keepdims, p); }, keepdims);
      },
      "NumPy's vector norm (linalg.norm of the flattened array, or along an axis): ord None or 2 "
      "sqrt(sum(a * a)), 1 sum(|a|), inf max(|a|), -inf min(|a|), 0 the count of nonzero "
      "elements, any other p sum(|a|**p)**(1/p); f64 for integers.",
      nb::arg("ord").none() = nb::none(), axis, keepdims);

  both(
      m, array_class, "count_nonzero",
      [](nb::handle a_obj, nb::handle axis, bool keepdims) {
        const Input a_in = input(a_obj, "count_nonzero");
        const Array& a = a_in.array;
        return reduction(
            a, axis, "count_nonzero",
            [&] {
              std::int64_t c;
              {
                GilRelease release;
                c = tack::count_nonzero(a);
              }
              return nb::object(nb::int_(c));
            },
            [&](int k) { return tack::count_nonzero(a, k, keepdims); }, keepdims);
      },
      "How many elements are not zero (NaN counts); along an axis an i64 array.", axis, keepdims);
  auto truth = [](bool every) {
    return [every](nb::handle a_obj, nb::handle axis, bool keepdims) {
      const Input a_in = input(a_obj, every ? "all" : "any");
      const Array& a = a_in.array;
      return reduction(
          a, axis, every ? "all" : "any",
          [&] {
            bool r;
            {
              GilRelease release;
              r = every ? tack::all(a) : tack::any(a);
            }
            return nb::module_::import_("numpy").attr("bool_")(r);
          },
          [&](int k) { return every ? tack::all(a, k, keepdims) : tack::any(a, k, keepdims); },
          keepdims);
    };
  };
  both(m, array_class, "any", truth(false),
       "Whether any element is not zero (np.bool_); along an axis a u8 array of 0 and 1.", axis,
       keepdims);
  both(m, array_class, "all", truth(true),
       "Whether every element is not zero (np.bool_); along an axis a u8 array of 0 and 1.", axis,
       keepdims);

  auto arg = [](bool is_max) {
    return [is_max](nb::handle a_obj, nb::handle axis, bool keepdims) {
      const Input a_in = input(a_obj, is_max ? "argmax" : "argmin");
      const Array& a = a_in.array;
      return reduction(
          a, axis, is_max ? "argmax" : "argmin",
          [&] {
            std::int64_t i;
            {
              GilRelease release;
              i = is_max ? tack::argmax(a) : tack::argmin(a);
            }
            return numpy_scalar(Scalar::from(i), ScalarType::i64);
          },
          [&](int k) {
            return is_max ? tack::argmax(a, k, keepdims) : tack::argmin(a, k, keepdims);
          },
          keepdims);
    };
  };
  both(m, array_class, "argmin", arg(false),
       "The index of the first smallest element (of the flattened array, or along the axis); a "
       "NaN comes first. ValueError for no elements.",
       axis, keepdims);
  both(m, array_class, "argmax", arg(true),
       "The index of the first largest element (of the flattened array, or along the axis); a "
       "NaN comes first. ValueError for no elements.",
       axis, keepdims);

  // Scans: tack.Array results of every element in C order.
  auto scan = [](bool exclusive) {
    return [exclusive](nb::handle a_obj, const std::string& op, nb::handle dtype,
                       nb::handle out_obj) -> nb::object {
      const Input a_in = input(a_obj, exclusive ? "exclusive_scan" : "inclusive_scan");
      const Array& a = a_in.array;
      const std::optional<DType> d = optional_dtype(dtype);
      if (!out_obj.is_none()) {
        const Array& out = nb::cast<const Array&>(out_obj);
        // dtype= with out=: the accumulator is out's dtype; a different dtype is refused.
        if (d && !(*d == out.dtype())) {
          throw TypeError(std::string("tack.") + (exclusive ? "exclusive" : "inclusive") +
                          "_scan: dtype=" + d->str() + " but out= has dtype " + out.dtype().str() +
                          "; pass one of them");
        }
        {
          GilRelease release;
          exclusive ? tack::exclusive_scan(a, out, op) : tack::inclusive_scan(a, out, op);
        }
        return nb::borrow(out_obj);
      }
      std::optional<Array> r;
      {
        GilRelease release;
        r.emplace(exclusive ? tack::exclusive_scan(a, op, d) : tack::inclusive_scan(a, op, d));
      }
      return nb::cast(*r);
    };
  };
  const auto op = nb::arg("op") = "add";
  both(m, array_class, "inclusive_scan", scan(false),
       "out[k] = a[0] op ... op a[k] over every element in C order (op 'add', 'min' or "
       "'max'), in one defined order; NumPy's cumsum dtype for 'add', or dtype; into out= "
       "(a itself scans in place).",
       op, dtype, nb::arg("out").none() = nb::none());
  both(m, array_class, "exclusive_scan", scan(true),
       "out[k] = a[0] op ... op a[k - 1], out[0] the identity; otherwise as inclusive_scan.", op,
       dtype, nb::arg("out").none() = nb::none());
  both(
      m, array_class, "cumsum",
      [](nb::handle a_obj, nb::handle dtype) {
        const Input a_in = input(a_obj, "cumsum");
        const Array& a = a_in.array;
        // A mask counts as NumPy's cumsum of bools does: in i64.
        const std::optional<DType> d = a_in.mask && dtype.is_none() ? i64 : optional_dtype(dtype);
        GilRelease release;
        return tack::cumsum(a, d);
      },
      "NumPy's cumsum of every element: tack.inclusive_scan(a, 'add', dtype).", dtype);

  init_utilities(m, array_class);
  init_sorts(m, array_class);
  init_selection(m, array_class);

  auto by_key = [](bool exclusive) {
    return [exclusive](nb::handle keys_obj, nb::handle values_obj, const std::string& op,
                       nb::handle dtype) {
      const char* what = exclusive ? "exclusive_scan_by_key" : "inclusive_scan_by_key";
      const Input keys_in = input(keys_obj, what), values_in = input(values_obj, what);
      const Array &keys = keys_in.array, &values = values_in.array;
      const std::optional<DType> d = optional_dtype(dtype);
      GilRelease release;
      return exclusive ? tack::exclusive_scan_by_key(keys, values, op, d)
                       : tack::inclusive_scan_by_key(keys, values, op, d);
    };
  };
  m.def("inclusive_scan_by_key", by_key(false), nb::arg("keys"), nb::arg("values"),
        nb::arg("op") = "add", dtype,
        "The scan of values restarting at every run of equal consecutive keys ('add', 'min', "
        "'max'); dtype as tack.sum's accumulator for add.");
  m.def("exclusive_scan_by_key", by_key(true), nb::arg("keys"), nb::arg("values"),
        nb::arg("op") = "add", dtype,
        "As inclusive_scan_by_key, each run starting from the identity.");
  m.def(
      "reduce_by_key",
      [](nb::handle keys_obj, nb::handle values_obj, const std::string& op, nb::handle dtype) {
        const Input keys_in = input(keys_obj, "reduce_by_key");
        const Array& keys = keys_in.array;
        const Input values_in = input(values_obj, "reduce_by_key");
        const Array& values = values_in.array;
        const std::optional<DType> d = optional_dtype(dtype);
        std::optional<std::pair<Array, Array>> r;
        {
          GilRelease release;
          r.emplace(tack::reduce_by_key(keys, values, op, d));
        }
        return nb::make_tuple(r->first, r->second);
      },
      nb::arg("keys"), nb::arg("values"), nb::arg("op") = "add", dtype,
      "(run keys, reductions): one per run of equal consecutive keys, in order.");
  m.def(
      "run_length_encode",
      [](nb::handle keys_obj) {
        const Input keys_in = input(keys_obj, "run_length_encode");
        const Array& keys = keys_in.array;
        std::optional<std::pair<Array, Array>> r;
        {
          GilRelease release;
          r.emplace(tack::run_length_encode(keys));
        }
        return nb::make_tuple(r->first, r->second);
      },
      nb::arg("keys"),
      "(values, i64 counts): one per run of equal consecutive keys (flattened), in order.");
  m.def(
      "segmented_sum",
      [](nb::handle values_obj, nb::handle segment_ids_obj, std::int64_t num_segments,
         nb::handle dtype) {
        const Input values_in = input(values_obj, "segmented_sum");
        const Array& values = values_in.array;
        const Input segment_ids_in = input(segment_ids_obj, "segmented_sum");
        const Array& segment_ids = segment_ids_in.array;
        const std::optional<DType> d = optional_dtype(dtype);
        GilRelease release;
        return tack::segmented_sum(values, segment_ids, num_segments, d);
      },
      nb::arg("values"), nb::arg("segment_ids"), nb::arg("num_segments"), dtype,
      "out[s] = the sum of the values whose segment id is s (ids in [0, num_segments), any "
      "order); the same bits on every device.");
}

}  // namespace tack::python
