// Conversions between Python objects and Tack's C++ types, shared by the binding's areas.
// Nothing here decides a rule: every check, error and choice is made by the C++ library.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/variant.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "tack/tack.hpp"

namespace nb = nanobind;

namespace tack::python {

// One registration function per area (py_<area>.cpp), called in this order by py_module.cpp.
void init_errors(nb::module_& m);
void init_dtype(nb::module_& m);
void init_device(nb::module_& m);
nb::class_<Array> init_array(nb::module_& m);
void init_dlpack(nb::module_& m, nb::class_<Array>& array_class);
void init_kernel(nb::module_& m);
void init_strided(nb::module_& m);
void init_texture(nb::module_& m);
void init_dataset(nb::module_& m);
void init_amr(nb::module_& m);
void init_algorithms(nb::module_& m, nb::class_<Array>& array_class);

// The numpy module, imported once and kept for the life of the process.
nb::handle numpy();
bool is_ndarray(nb::handle obj);
// The NumPy dtype of a scalar type (numpy.dtype("float32") for f32).
nb::object numpy_dtype(ScalarType t);
// s as a NumPy scalar of type t (np.float32(...)): the value of a reduction or a kernel.
nb::object numpy_scalar(const Scalar& s, ScalarType t);
// Py_TYPE(obj)->tp_name: how C++ messages name a value of the wrong kind.
std::string python_type_name(nb::handle obj);

// A dtype argument: a tack DType, a NumPy dtype or scalar type, a Python type, or a name
// ("f32", "float32"). None is nullopt. C++ raises the TypeError for anything else.
std::optional<DType> to_optional_dtype(nb::handle obj);
DType to_dtype(nb::handle obj);

// A device argument: None (the default device), a Device, or a name ("cpu").
using DeviceArg = std::optional<std::variant<std::string, Device>>;
Device to_device(const DeviceArg& d);

// A shape argument: an int or a sequence of ints.
using ShapeArg = std::variant<std::int64_t, std::vector<std::int64_t>>;
Shape to_shape(const ShapeArg& s);
nb::tuple shape_tuple(const Shape& s);

// An integer in [0, 2**64) (a Python int, a NumPy integer); nullopt for anything else.
std::optional<std::uintptr_t> as_address(nb::handle obj);

// Host data read by NumPy (np.asarray): the array, kept alive as long as `view` is used, and
// its description. A dtype outside Tack's ten (bool, float16) is converted by NumPy to
// `target` first when one is given; with none, C++ names the dtype in its TypeError.
struct HostData {
  nb::object array;
  HostView view;
};
HostData host_data(nb::handle obj, std::optional<ScalarType> target);

// What a NumPy array says about its memory, for array_from_ptr's rules in C++.
HostArrayFacts host_array_facts(nb::handle ndarray);

// a == b (or a != b when `equal` is false) for a bound value type; NotImplemented when b is of
// another type, so Python tries the reflected operation.
template <class T>
nb::object equals(const T& a, nb::handle b, bool equal) {
  if (!nb::isinstance<T>(b)) return nb::borrow(Py_NotImplemented);
  return nb::bool_((a == nb::cast<const T&>(b)) == equal);
}

// Releases the GIL around a long call into C++, as nb::gil_scoped_release does, but safe at
// interpreter shutdown. CPython 3.11-3.13 end a daemon thread that wants the GIL back after
// finalization has begun with pthread_exit, whose forced unwind through a noexcept destructor
// is std::terminate ("terminate called without an active exception"). So tack's atexit hook
// (shutdown_begins) marks the shutdown and waits for every thread already taking the GIL back;
// from then on a thread returning from C++ parks (sleeps until the process exits, as CPython
// 3.14 does for any thread) instead of taking it. The thread running the shutdown is never
// parked. docs/design/robustness.md, "Exit".
class GilRelease {
 public:
  GilRelease();
  ~GilRelease();
  GilRelease(const GilRelease&) = delete;
  GilRelease& operator=(const GilRelease&) = delete;

 private:
  PyThreadState* state_;
};

// A kernel call's GIL: kept through a warm launch of a few microseconds (as a NumPy ufunc keeps
// it), released when the call tells of long work (tack::BeforeLongWork: a compile, a long or
// parallel launch, a device's launch) and taken back at the end of the scope as GilRelease
// does (docs/design/dispatch.md, "The warm path").
class GilReleaseOnLongWork final : public BeforeLongWork {
 public:
  GilReleaseOnLongWork() = default;
  ~GilReleaseOnLongWork();
  GilReleaseOnLongWork(const GilReleaseOnLongWork&) = delete;
  GilReleaseOnLongWork& operator=(const GilReleaseOnLongWork&) = delete;
  void before_long_work() override;

 private:
  PyThreadState* state_ = nullptr;
};
// Called once from tack's Python atexit hook, with the GIL held: see GilRelease.
void shutdown_begins();
// Called once from tack's Python atexit hook, with the GIL held: the `tack` logger is let go and
// later events are dropped (a handler may hold the program's globals, kernels among them, which
// would otherwise outlive finalization).
void release_python_logger();

// A reference to a Python object, released (under the GIL) when the last C++ owner is gone.
std::shared_ptr<void> python_hold(nb::handle obj);

// A new NumPy array in a.numpy_shape() of `host_type`, filled by C++ straight into its memory.
nb::object to_numpy(const Array& a, ScalarType host_type);

}  // namespace tack::python

// tack::Scalar <-> Python int, float and bool (NumPy scalars too). An int beyond 64 bits
// becomes a float, as NumPy would make it; C++ then decides whether the value fits.
namespace nanobind::detail {
template <>
struct type_caster<tack::Scalar> {
  NB_TYPE_CASTER(tack::Scalar, const_name("int | float | bool"))

  bool from_python(handle src, uint32_t, cleanup_list*) noexcept;
  static handle from_cpp(const tack::Scalar& s, rv_policy, cleanup_list*) noexcept;
};
}  // namespace nanobind::detail
