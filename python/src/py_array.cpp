// tack.Array and its constructors, copyto, array_from_ptr, structure-of-arrays arrays and
// exported memory. Index keys, shapes, scalars and host data are converted here; every rule is
// applied by the C++ library.
#include <climits>
#include <cstddef>
#include <span>
#include <string>
#include <utility>

#include "py_convert.hpp"

namespace tack::python {
namespace {

// An integer as Python sees it (operator.index), saturated to 64 bits: an index that large is
// out of bounds, and slice bounds clamp anyway. nullopt when the value is not an integer.
std::optional<std::int64_t> index_value(PyObject* o) {
  if (!PyIndex_Check(o)) return std::nullopt;
  PyObject* i = PyNumber_Index(o);
  if (i == nullptr) {
    PyErr_Clear();
    return std::nullopt;
  }
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(i, &overflow);
  Py_DECREF(i);
  if (overflow > 0) return INT64_MAX;
  if (overflow < 0) return INT64_MIN;
  return static_cast<std::int64_t>(v);
}

IndexItem index_item(nb::handle k) {
  PyObject* o = k.ptr();
  if (PySlice_Check(o)) {
    Slice s;
    std::optional<std::int64_t>* parts[] = {&s.start, &s.stop, &s.step};
    const auto* slice = reinterpret_cast<const PySliceObject*>(o);  // its fields, no lookups
    PyObject* bounds[] = {slice->start, slice->stop, slice->step};
    for (int p = 0; p < 3; ++p) {
      if (bounds[p] == Py_None) continue;
      *parts[p] = index_value(bounds[p]);
      if (!*parts[p]) {
        const nb::handle b(bounds[p]);
        return OtherIndex{"a slice with the bound " + nb::cast<std::string>(nb::repr(b)) + " (" +
                          python_type_name(b) + "; slice bounds are integers or None)"};
      }
    }
    return s;
  }
  if (auto v = index_value(o)) return *v;
  return OtherIndex{python_type_name(k)};
}

std::vector<IndexItem> index_key(nb::handle key) {
  std::vector<IndexItem> items;
  if (PyTuple_Check(key.ptr())) {
    for (nb::handle k : nb::borrow<nb::tuple>(key)) items.push_back(index_item(k));
  } else {
    items.push_back(index_item(key));
  }
  return items;
}

// The most dimensions the fast element read takes; longer keys take the general path.
constexpr std::size_t kFastIndexDims = 8;

// A key of exact Python ints (one, or a tuple of up to kFastIndexDims) into `out`: their count,
// or 0 when the key is anything else (then the general path decides, and words any error).
std::size_t int_key(nb::handle key, std::int64_t* out) {
  auto one = [](PyObject* o, std::int64_t* v) {
    if (!PyLong_CheckExact(o)) return false;
    int overflow = 0;
    *v = PyLong_AsLongLongAndOverflow(o, &overflow);
    return overflow == 0;  // an exact int converts or overflows; nothing else can fail
  };
  if (one(key.ptr(), out)) return 1;
  if (!PyTuple_CheckExact(key.ptr())) return 0;
  const Py_ssize_t n = PyTuple_GET_SIZE(key.ptr());
  if (n == 0 || static_cast<std::size_t>(n) > kFastIndexDims) return 0;
  for (Py_ssize_t k = 0; k < n; ++k) {
    if (!one(PyTuple_GET_ITEM(key.ptr(), k), out + k)) return 0;
  }
  return static_cast<std::size_t>(n);
}

nb::object scalars_to_python(const std::vector<Scalar>& v) {
  nb::list out;
  for (const auto& s : v) out.append(nb::cast(s));
  return nb::tuple(out);
}

// One dimension of a.reshape(...): an integer (operator.index) that fits in 64 bits.
std::int64_t reshape_dimension(nb::handle d) {
  PyObject* i = PyIndex_Check(d.ptr()) ? PyNumber_Index(d.ptr()) : nullptr;
  if (i == nullptr) {
    PyErr_Clear();
    throw TypeError("reshape: dimension " + nb::cast<std::string>(nb::repr(d)) + " (" +
                    python_type_name(d) +
                    ") is not an integer; pass integers, as a.reshape(2, 6) or a.reshape((2, 6))");
  }
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(i, &overflow);
  Py_DECREF(i);
  if (overflow != 0) {
    throw ValueError("reshape: dimension " + nb::cast<std::string>(nb::repr(d)) +
                     " does not fit in 64 bits; a dimension is at most 2**63 - 1");
  }
  return static_cast<std::int64_t>(v);
}

// a.reshape(2, 6) or a.reshape((2, 6)) (any sequence of integers, a NumPy array of them too).
Shape reshape_args(const nb::args& args) {
  Shape s;
  if (args.size() == 1) {
    nb::handle one = args[0];
    const bool text = PyUnicode_Check(one.ptr()) || PyBytes_Check(one.ptr());
    if (!text && PySequence_Check(one.ptr()) != 0) {  // a tuple, a list, a NumPy array, ...
      for (nb::handle d : nb::iter(one)) s.push_back(reshape_dimension(d));
      return s;
    }
    if (!PyIndex_Check(one.ptr())) {
      throw TypeError(
          "reshape takes a shape: integers or one sequence of integers, as "
          "a.reshape(2, 6) or a.reshape((2, 6)); got " +
          nb::cast<std::string>(nb::repr(one)) + " (" + python_type_name(one) + ")");
    }
  }
  for (nb::handle a : args) s.push_back(reshape_dimension(a));
  return s;
}

nb::object array_method(const Array& a, nb::handle dtype, std::optional<bool> copy) {
  if (copy.has_value() && !*copy) a.refuse_zero_copy_host_view();
  if (dtype.is_none()) return to_numpy(a, a.dtype().scalar);
  nb::object want = numpy().attr("dtype")(dtype);
  if (auto t = scalar_type_from_name(nb::cast<std::string>(want.attr("name")))) {
    return to_numpy(a, *t);  // C++ converts while copying
  }
  return to_numpy(a, a.dtype().scalar).attr("astype")(want);  // bool, float16, ...: NumPy's
}

}  // namespace

nb::class_<Array> init_array(nb::module_& m) {
  nb::class_<ExportedMemory>(m, "ExportedMemory",
                             "The allocation behind a root array, handed outside Tack: kept "
                             "alive, and marked shared, while this object lives.")
      .def_ro("address", &ExportedMemory::address)
      .def_ro("nbytes", &ExportedMemory::nbytes)
      .def_prop_ro("device", [](const ExportedMemory& e) { return device(e.device); })
      .def("__repr__", [](const ExportedMemory& e) {
        return "tack.ExportedMemory(address=" + std::to_string(e.address) +
               ", nbytes=" + std::to_string(e.nbytes) + ", device=" + e.device + ")";
      });

  auto array_class =
      nb::class_<Array>(m, "Array", nb::is_weak_referenceable(),
                        "A dtype and a shape over a device buffer. Views (a[i:j], reshape) share "
                        "the memory of the array they come from.")
          .def_prop_ro("shape", [](const Array& a) { return shape_tuple(a.shape()); })
          .def_prop_ro("dtype", &Array::dtype)
          .def_prop_ro("ndim", &Array::ndim)
          .def_prop_ro("size", &Array::size)
          .def_prop_ro("nbytes", &Array::nbytes)
          .def_prop_ro(
              "itemsize", [](const Array& a) { return a.dtype().itemsize(); },
              "bytes per element (all of a vector's or matrix's components)")
          .def_prop_ro("writable", &Array::writable)
          .def_prop_ro("device", &Array::device)
          .def_prop_ro("version", &Array::version,
                       "the write counter of the whole allocation, shared by every view")
          .def_prop_ro("is_view", &Array::is_view)
          .def_prop_ro("shared", &Array::shared,
                       "handed outside Tack (DLPack export, wrapped pointer, export_memory)")
          .def(
              "numpy", [](const Array& a) { return to_numpy(a, a.dtype().scalar); },
              "a new NumPy array holding a copy of the data, in shape + (n,) for vec(n, t) arrays")
          .def(
              "fill",
              [](Array& a, const Scalar& value) {
                GilRelease release;
                a.fill(value);
              },
              nb::arg("value"))
          .def(
              "fill",
              [](Array& a, nb::handle value) {
                // One vector or matrix value for every element: a sequence or array of its
                // components (a matrix's rows).
                nb::object flat = numpy().attr("asarray")(value).attr("ravel")().attr("tolist")();
                std::vector<Scalar> element;
                for (nb::handle x : flat) element.push_back(nb::cast<Scalar>(x));
                GilRelease release;
                a.fill(std::span<const Scalar>(element));
              },
              nb::arg("value"))
          .def("reshape",
               [](const Array& a, const nb::args& args) { return a.reshape(reshape_args(args)); })
          .def(
              "__getitem__",
              [](const Array& a, nb::handle key) -> nb::object {
                // The common keys without building a general key: a[i, j] (Python ints, one
                // per dimension, scalar elements) and a[i:j].
                std::int64_t idx[kFastIndexDims];
                const std::size_t n = int_key(key, idx);
                if (n != 0 && n == a.shape().size() && !a.dtype().is_vector()) {
                  std::byte raw[8];
                  a.read_element(std::span<const std::int64_t>(idx, n), raw);
                  return nb::cast(load_scalar(a.dtype().scalar, raw));
                }
                if (PySlice_Check(key.ptr())) {
                  const IndexItem item = index_item(key);
                  if (const auto* s = std::get_if<Slice>(&item)) {
                    return nb::cast(a.slice(s->start, s->stop, s->step));
                  }  // a bound that is not an integer: the general path names it (TypeError)
                }
                if (key.is_none()) {  // NumPy's a[None]: a view with a new first axis of 1
                  Shape shape = a.shape();
                  shape.insert(shape.begin(), 1);
                  return nb::cast(a.reshape(shape));
                }
                auto r = a.index(index_key(key));
                if (auto* v = std::get_if<Array>(&r)) return nb::cast(std::move(*v));
                if (auto* s = std::get_if<Scalar>(&r)) return nb::cast(*s);
                return scalars_to_python(std::get<std::vector<Scalar>>(r));
              },
              nb::arg("key").none())
          .def(
              "__setitem__",
              [](const Array& a, nb::handle, nb::handle) { a.refuse_item_assignment(); },
              nb::arg("key").none(), nb::arg("value").none())
          .def("__iter__", [](const Array& a) { a.refuse_iteration(); })
          .def("__len__", &Array::len)
          // The values in NumPy's format, the dtype and the device (tack/_repr.py: NumPy does
          // the formatting, reading only the edges of a large array).
          .def("__repr__",
               [](nb::handle self) {
                 return nb::module_::import_("tack._repr").attr("array_repr")(self);
               })
          .def("__str__",
               [](nb::handle self) {
                 return nb::module_::import_("tack._repr").attr("array_str")(self);
               })
          .def("__array__", &array_method, nb::arg("dtype").none() = nb::none(),
               nb::arg("copy") = nb::none())
          .def("export_memory", &Array::export_memory,
               "the allocation's address and size, for a caller that orders its own accesses; "
               "refused for views");

  // No element-wise operators (as the original Tack's fields and Warp's arrays): a TypeError
  // saying where element-wise work goes. NumPy on the left still works (it reads __array__).
  static const std::pair<const char*, const char*> kOperators[] = {
      {"__lt__", "<"},        {"__le__", "<="},  {"__gt__", ">"},       {"__ge__", ">="},
      {"__add__", "+"},       {"__sub__", "-"},  {"__mul__", "*"},      {"__truediv__", "/"},
      {"__floordiv__", "//"}, {"__mod__", "%"},  {"__pow__", "**"},     {"__matmul__", "@"},
      {"__and__", "&"},       {"__or__", "|"},   {"__xor__", "^"},      {"__radd__", "+"},
      {"__rsub__", "-"},      {"__rmul__", "*"}, {"__rtruediv__", "/"}, {"__neg__", "-"}};
  for (const auto& [name, op] : kOperators) {
    const std::string example = std::string(name) == "__neg__"
                                    ? std::string("-a.numpy()")
                                    : "a.numpy() " + std::string(op) + " x";
    const std::string message = "Tack arrays have no element-wise operators ('" + std::string(op) +
                                "'): compute element-wise in a kernel, or on the host with "
                                "NumPy, e.g. " +
                                example +
                                "; tack.sum and the other algorithms take NumPy arrays, a bool "
                                "mask such as a.numpy() > 0 included";
    array_class.def(
        name, [message](const Array&, nb::args) -> nb::object { throw TypeError(message); },
        "refused: Tack arrays have no element-wise operators (see the message)");
  }

  m.def(
      "empty",
      [](const ShapeArg& shape, nb::handle dtype, const DeviceArg& device) {
        return empty(to_shape(shape), to_optional_dtype(dtype).value_or(f32), to_device(device));
      },
      nb::arg("shape"), nb::arg("dtype").none() = f32, nb::arg("device") = nb::none(),
      "a new array whose contents are unspecified");
  m.def(
      "zeros",
      [](const ShapeArg& shape, nb::handle dtype, const DeviceArg& device) {
        return zeros(to_shape(shape), to_optional_dtype(dtype).value_or(f32), to_device(device));
      },
      nb::arg("shape"), nb::arg("dtype").none() = f32, nb::arg("device") = nb::none(),
      "a new array of zeros; dtype a Tack dtype, a NumPy dtype or its name (default f32); "
      "device None for the default device");
  m.def(
      "ones",
      [](const ShapeArg& shape, nb::handle dtype, const DeviceArg& device) {
        return ones(to_shape(shape), to_optional_dtype(dtype).value_or(f32), to_device(device));
      },
      nb::arg("shape"), nb::arg("dtype").none() = f32, nb::arg("device") = nb::none(),
      "a new array of ones (dtype and device as for zeros)");
  m.def(
      "full",
      [](const ShapeArg& shape, const Scalar& fill_value, nb::handle dtype,
         const DeviceArg& device) {
        return full(to_shape(shape), fill_value, to_optional_dtype(dtype).value_or(f32),
                    to_device(device));
      },
      nb::arg("shape"), nb::arg("fill_value"), nb::arg("dtype").none() = f32,
      nb::arg("device") = nb::none(),
      "a new array with every element fill_value, which must fit the dtype (ValueError "
      "otherwise)");
  m.def(
      "array",
      [](nb::handle obj, nb::handle dtype, const DeviceArg& device) {
        const auto dt = to_optional_dtype(dtype);
        if (nb::isinstance<Array>(obj)) {  // any device to any device, no NumPy in between
          const Array& src = nb::cast<const Array&>(obj);
          const Device d = to_device(device);
          GilRelease release;
          return array(src, dt, d);
        }
        HostData data = host_data(obj, dt ? std::optional(dt->scalar) : std::nullopt);
        return array(data.view, dt, to_device(device));
      },
      nb::arg("obj").none(), nb::arg("dtype").none() = nb::none(), nb::arg("device") = nb::none(),
      "a new array holding a copy of obj (a Tack array on any device, a NumPy array, nested "
      "lists, a scalar)");
  m.def(
      "copyto",
      [](const Array& a, nb::handle x) {
        if (nb::isinstance<Array>(x)) {
          const Array& src = nb::cast<const Array&>(x);
          GilRelease release;
          copyto(a, src);
          return;
        }
        HostData data = host_data(x, a.dtype().scalar);
        GilRelease release;
        copyto(a, data.view);
      },
      nb::arg("a"), nb::arg("x").none(),
      "copies x into a: converts the dtype, broadcasts to a's numpy() shape");
  m.def(
      "array_from_ptr",
      [](nb::handle ptr, nb::handle dtype, const ShapeArg& shape, bool writable,
         const DeviceArg& device) {
        const DType dt = to_dtype(dtype);
        if (is_ndarray(ptr)) {
          return array_from_host_array(host_array_facts(ptr), dt, to_shape(shape), writable,
                                       to_device(device), python_hold(ptr));
        }
        return array_from_ptr(as_address(ptr), dt, to_shape(shape), writable, to_device(device),
                              nullptr, python_type_name(ptr));
      },
      nb::arg("ptr").none(), nb::arg("dtype").none(), nb::arg("shape"), nb::arg("writable") = false,
      nb::arg("device") = nb::none(),
      "wraps memory Tack did not allocate (a NumPy array, kept alive, or an integer address, "
      "which the caller keeps alive); read-only unless writable=True");

  nb::class_<SoaArray>(m, "SoaArray",
                       "Structure of arrays: component arrays of one shape, sliced together.")
      .def_prop_ro("components",
                   [](const SoaArray& s) { return std::vector<Array>(s.components()); })
      .def_prop_ro("shape", [](const SoaArray& s) { return shape_tuple(s.shape()); })
      .def_prop_ro("dtypes",
                   [](const SoaArray& s) {
                     nb::list out;
                     for (const auto& c : s.components()) out.append(c.dtype());
                     return out;
                   })
      .def("__getitem__",
           [](const SoaArray& s, const nb::slice& key) {
             const IndexItem item = index_item(key);
             if (const auto* sl = std::get_if<Slice>(&item)) {
               return s.slice(sl->start, sl->stop, sl->step);
             }
             s.components().front().index({item});  // raises the TypeError naming the bound
             return s;
           })
      .def("__len__", [](const SoaArray& s) { return s.components().front().len(); })
      .def("numpy",
           [](const SoaArray& s) {
             nb::list out;
             for (const auto& c : s.components()) out.append(to_numpy(c, c.dtype().scalar));
             return out;
           })
      .def("__repr__", [](const SoaArray& s) {
        std::string d;
        for (const auto& c : s.components()) d += (d.empty() ? "" : ", ") + c.dtype().str();
        return "tack.SoaArray(shape=" + detail::shape_str(s.shape()) + ", dtypes=[" + d +
               "], device=" + s.components().front().device().name() + ")";
      });
  m.def(
      "soa", [](std::vector<Array> components) { return SoaArray(std::move(components)); },
      nb::arg("components"), "a structure-of-arrays array from component arrays of one shape");
  m.def(
      "empty_soa",
      [](const ShapeArg& shape, const std::vector<nb::handle>& dtypes, const DeviceArg& device) {
        std::vector<DType> dts;
        for (nb::handle d : dtypes) dts.push_back(to_dtype(d));
        return empty_soa(to_shape(shape), dts, to_device(device));
      },
      nb::arg("shape"), nb::arg("dtypes"), nb::arg("device") = nb::none(),
      "a new structure-of-arrays array: one uninitialized component array per dtype");
  return array_class;
}

}  // namespace tack::python
