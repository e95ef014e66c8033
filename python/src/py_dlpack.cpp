// DLPack in Python: Array.__dlpack__ / __dlpack_device__ (capsules out) and tack.from_dlpack
// (capsules in). The capsule protocol is mechanics; which form, which checks and who owns the
// tensor are decided by C++ (export_dlpack, from_dlpack_capsule).
#include <string>
#include <utility>

#include <nanobind/stl/pair.h>

#include "py_convert.hpp"

namespace tack::python {
namespace {

// A capsule's destructor runs the deleter only if nobody consumed the capsule: a consumer
// renames it ("used_..."), and then owns the tensor. The capsule's context holds a reference of
// its own to the exported tensor (ExportedTensor::keep), dropped last, so a consumer that
// called the deleter and left the name as it was (or called it twice) costs nothing: the
// deleter is idempotent while the context lives.
template <class Managed>
void capsule_destructor(PyObject* capsule) {
  constexpr bool versioned = std::is_same_v<Managed, dlpack::ManagedTensorVersioned>;
  const char* name = versioned ? kVersionedCapsuleName : kCapsuleName;
  PyObject *type = nullptr, *value = nullptr, *traceback = nullptr;
  PyErr_Fetch(&type, &value, &traceback);  // a destructor must leave the error state alone
  auto* keep = static_cast<std::shared_ptr<void>*>(PyCapsule_GetContext(capsule));
  if (PyCapsule_IsValid(capsule, name) != 0) {
    auto* m = static_cast<Managed*>(PyCapsule_GetPointer(capsule, name));
    if (m != nullptr && m->deleter != nullptr) m->deleter(m);
  }
  delete keep;
  PyErr_Restore(type, value, traceback);
}

nb::object make_capsule(const ExportedTensor& t) {
  PyObject* c = PyCapsule_New(t.tensor, t.capsule_name(),
                              t.versioned ? &capsule_destructor<dlpack::ManagedTensorVersioned>
                                          : &capsule_destructor<dlpack::ManagedTensor>);
  if (c != nullptr) {
    auto* keep = new std::shared_ptr<void>(t.keep);
    if (PyCapsule_SetContext(c, keep) != 0) {
      delete keep;
      Py_DECREF(c);  // without a context: its destructor runs the deleter once
      throw nb::python_error();
    }
  }
  if (c == nullptr) {
    if (t.versioned) {
      auto* m = static_cast<dlpack::ManagedTensorVersioned*>(t.tensor);
      m->deleter(m);
    } else {
      auto* m = static_cast<dlpack::ManagedTensor*>(t.tensor);
      m->deleter(m);
    }
    throw nb::python_error();
  }
  return nb::steal(c);
}

nb::object dlpack_method(const Array& a, nb::handle stream,
                         std::optional<std::pair<std::uint32_t, std::uint32_t>> max_version,
                         std::optional<std::pair<std::int64_t, std::int64_t>> dl_device,
                         std::optional<bool> copy) {
  ExportRequest r;
  if (!stream.is_none()) {
    if (PyLong_Check(stream.ptr())) {
      r.stream = nb::cast<std::int64_t>(stream);
    } else {
      r.stream_type = python_type_name(stream);
    }
  }
  if (max_version) r.max_version = dlpack::Version{max_version->first, max_version->second};
  if (dl_device) {
    r.dl_device = dlpack::Device{static_cast<dlpack::DeviceType>(dl_device->first),
                                 static_cast<std::int32_t>(dl_device->second)};
  }
  r.copy = copy;
  return make_capsule(export_dlpack(a, r));
}

Array from_dlpack_function(nb::handle x, std::optional<bool> copy, const DeviceArg& device,
                           std::optional<bool> writable) {
  // None: where the tensor's memory is (the array API's rule), not the default device.
  const std::optional<Device> dev =
      device ? std::optional<Device>(to_device(device)) : std::nullopt;
  nb::object capsule;
  if (PyCapsule_CheckExact(x.ptr())) {
    capsule = nb::borrow(x);
  } else if (nb::hasattr(x, "__dlpack__")) {
    // A tensor on a device with streams (CUDA): ask the producer to order its pending work
    // before Tack's stream (the array API's stream rule), else a Tack kernel could read the
    // tensor before the producer's kernel has written it.
    std::optional<std::int64_t> stream;
    if (nb::hasattr(x, "__dlpack_device__")) {
      try {
        nb::object where = x.attr("__dlpack_device__")();
        const dlpack::Device d{static_cast<dlpack::DeviceType>(nb::cast<int>(where[0])),
                               nb::cast<std::int32_t>(where[1])};
        stream = dlpack_consumer_stream(d);
      } catch (nb::python_error&) {  // an odd __dlpack_device__: the import reports it
      } catch (const nb::cast_error&) {
      }
    }
    auto ask = [&](bool versioned, bool with_stream) {
      if (with_stream && versioned)
        return x.attr("__dlpack__")(nb::arg("max_version") = nb::make_tuple(1, 0),
                                    nb::arg("stream") = *stream);
      if (with_stream) return x.attr("__dlpack__")(nb::arg("stream") = *stream);
      if (versioned) return x.attr("__dlpack__")(nb::arg("max_version") = nb::make_tuple(1, 0));
      return x.attr("__dlpack__")();
    };
    // The newest form first; a producer from before max_version, or one whose __dlpack__ takes
    // no stream, answers TypeError and gets the next older form.
    const bool streams[] = {true, false};
    for (bool with_stream : streams) {
      if (with_stream && !stream) continue;
      try {
        capsule = ask(true, with_stream);
        break;
      } catch (nb::python_error& e) {
        if (!e.matches(PyExc_TypeError)) throw;
      }
      try {
        capsule = ask(false, with_stream);
        break;
      } catch (nb::python_error& e) {
        if (!e.matches(PyExc_TypeError) || !with_stream) throw;
      }
    }
  }
  if (!capsule.is_valid() || !PyCapsule_CheckExact(capsule.ptr())) {
    const std::string what = capsule.is_valid() ? "an object whose __dlpack__ returned " +
                                                      python_type_name(capsule) + ", not a capsule"
                                                : python_type_name(x);
    return from_dlpack_capsule(std::nullopt, nullptr, copy, dev, what);  // TypeError
  }
  const char* name = PyCapsule_GetName(capsule.ptr());
  const std::string capsule_name = name != nullptr ? name : "";
  void* tensor = PyCapsule_GetPointer(capsule.ptr(), name);
  if (tensor == nullptr) PyErr_Clear();
  Array a = from_dlpack_capsule(capsule_name, tensor, copy, dev, "", writable);
  // C++ owns the tensor now: the producer's capsule destructor must leave it alone.
  if (PyCapsule_SetName(capsule.ptr(), consumed_capsule_name(capsule_name)) != 0) PyErr_Clear();
  return a;
}

}  // namespace

void init_dlpack(nb::module_& m, nb::class_<Array>& array_class) {
  array_class
      .def("__dlpack__", &dlpack_method, nb::kw_only(), nb::arg("stream").none() = nb::none(),
           nb::arg("max_version") = nb::none(), nb::arg("dl_device") = nb::none(),
           nb::arg("copy") = nb::none(),
           "exports the array as a DLPack capsule (versioned when max_version >= (1, 0)); the "
           "allocation is marked shared")
      .def(
          "__dlpack_device__",
          [](const Array& a) {
            const dlpack::Device d = dlpack_device(a);
            return nb::make_tuple(static_cast<int>(d.device_type), d.device_id);
          },
          "(device_type, device_id) as DLPack numbers them: (1, 0) for the CPU");

  m.def("from_dlpack", &from_dlpack_function, nb::arg("x").none(), nb::kw_only(),
        nb::arg("copy") = nb::none(), nb::arg("device") = nb::none(),
        nb::arg("writable") = nb::none(),
        "an array over a DLPack producer's memory (a NumPy array, another framework's tensor, "
        "or a capsule); the producer is held until the array and every view of it are gone. "
        "copy=True imports a copy (needed for non-contiguous data). device=None keeps the array "
        "where the memory is (host memory: the CPU); another device gets a copy. writable=None "
        "keeps the producer's read-only flag, False imports read-only whatever it says (PyTorch "
        "and JAX set none), True refuses a read-only tensor unless copy=True");
}

}  // namespace tack::python
