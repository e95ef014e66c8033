// Conversions between Python objects and Tack's C++ types (see py_convert.hpp).
#include "py_convert.hpp"

#include <unistd.h>

#include <array>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

namespace tack::python {
namespace {

// A Py_buffer released on every path. Host data is read through the buffer protocol: one call
// gives the address, shape, byte strides and read-only flag of a NumPy array.
class BufferView {
 public:
  BufferView(nb::handle obj, int flags) {
    if (PyObject_GetBuffer(obj.ptr(), &view_, flags) != 0) throw nb::python_error();
  }
  ~BufferView() { PyBuffer_Release(&view_); }
  BufferView(const BufferView&) = delete;
  BufferView& operator=(const BufferView&) = delete;
  const Py_buffer& operator*() const { return view_; }
  const Py_buffer* operator->() const { return &view_; }

 private:
  Py_buffer view_{};
};

Shape buffer_shape(const Py_buffer& v) {
  Shape s;
  for (int k = 0; k < v.ndim; ++k) s.push_back(static_cast<std::int64_t>(v.shape[k]));
  return s;
}

// The shutdown protocol of GilRelease. Immortal: threads may use it while exit() runs the
// static destructors.
struct Shutdown {
  std::mutex mutex;
  std::condition_variable idle;
  bool begun = false;
  std::thread::id exiting_thread;
  int reacquiring = 0;  // threads between "not begun" and holding the GIL again
};

Shutdown& shutdown_state() {
  static Shutdown* s = new Shutdown;
  return *s;
}

[[noreturn]] void park_forever() {
  for (;;) ::pause();  // until the process exits; a signal handler's return resumes the wait
}

// Takes the GIL back after a release, by GilRelease's shutdown protocol.
void take_gil_back(PyThreadState* state) {
  Shutdown& s = shutdown_state();
  std::unique_lock lock(s.mutex);
  if (s.begun && std::this_thread::get_id() != s.exiting_thread) {
    lock.unlock();
    park_forever();  // taking the GIL now could end this thread by pthread_exit
  }
  ++s.reacquiring;
  lock.unlock();
  PyEval_RestoreThread(state);
  {
    std::lock_guard lock(s.mutex);
    --s.reacquiring;
  }
  s.idle.notify_all();
}

}  // namespace

GilRelease::GilRelease() : state_(PyEval_SaveThread()) {}

GilRelease::~GilRelease() {
  take_gil_back(state_);
}

void GilReleaseOnLongWork::before_long_work() {
  if (state_ == nullptr) state_ = PyEval_SaveThread();
}

GilReleaseOnLongWork::~GilReleaseOnLongWork() {
  if (state_ != nullptr) take_gil_back(state_);
}

void shutdown_begins() {
  Shutdown& s = shutdown_state();
  {
    std::lock_guard lock(s.mutex);
    s.begun = true;
    s.exiting_thread = std::this_thread::get_id();
  }
  // Threads already on their way to the GIL get it before finalization can end them.
  PyThreadState* st = PyEval_SaveThread();
  {
    std::unique_lock lock(s.mutex);
    s.idle.wait(lock, [&] { return s.reacquiring == 0; });
  }
  PyEval_RestoreThread(st);
}

nb::handle numpy() {
  // Imported once and never released: the module outlives every array.
  static nb::handle np = nb::module_::import_("numpy").release();
  return np;
}

bool is_ndarray(nb::handle obj) {
  static nb::handle ndarray = nb::object(numpy().attr("ndarray")).release();
  return PyObject_TypeCheck(obj.ptr(), reinterpret_cast<PyTypeObject*>(ndarray.ptr())) != 0;
}

nb::object numpy_scalar(const Scalar& s, ScalarType t) {
  return numpy_dtype(t).attr("type")(nb::cast(s));
}

nb::object numpy_dtype(ScalarType t) {
  static std::array<PyObject*, kScalarTypeCount + 1> cache{};  // the ten and bool
  PyObject*& d = cache[static_cast<std::size_t>(t)];
  if (d == nullptr) d = numpy().attr("dtype")(std::string(numpy_name(t))).release().ptr();
  return nb::borrow(d);
}

std::string python_type_name(nb::handle obj) {
  return Py_TYPE(obj.ptr())->tp_name;
}

std::optional<DType> to_optional_dtype(nb::handle obj) {
  if (obj.is_none()) return std::nullopt;
  if (nb::isinstance<DType>(obj)) return nb::cast<DType>(obj);
  if (nb::isinstance<nb::str>(obj)) {
    if (auto t = scalar_type_from_name(nb::cast<std::string>(obj))) return DType(*t);
  }
  // NumPy spells every other form (np.float32, np.dtype("f4"), float, "d") as a dtype name.
  std::string name;
  try {
    name = nb::cast<std::string>(numpy().attr("dtype")(obj).attr("name"));
  } catch (nb::python_error&) {
    name = nb::cast<std::string>(nb::repr(obj));
  }
  return DType(scalar_type_for_argument(name));
}

DType to_dtype(nb::handle obj) {
  if (auto d = to_optional_dtype(obj)) return *d;
  return DType(scalar_type_for_argument("None"));
}

Device to_device(const DeviceArg& d) {
  if (!d) return default_device();
  if (const auto* name = std::get_if<std::string>(&*d)) return device(*name);
  return std::get<Device>(*d);
}

Shape to_shape(const ShapeArg& s) {
  if (const auto* n = std::get_if<std::int64_t>(&s)) return Shape{*n};
  return std::get<std::vector<std::int64_t>>(s);
}

nb::tuple shape_tuple(const Shape& s) {
  PyObject* t = PyTuple_New(static_cast<Py_ssize_t>(s.size()));
  if (t == nullptr) throw nb::python_error();
  for (std::size_t k = 0; k < s.size(); ++k) {
    PyTuple_SET_ITEM(t, static_cast<Py_ssize_t>(k), PyLong_FromLongLong(s[k]));
  }
  return nb::steal<nb::tuple>(t);
}

std::optional<std::uintptr_t> as_address(nb::handle obj) {
  if (!PyIndex_Check(obj.ptr())) return std::nullopt;
  PyObject* i = PyNumber_Index(obj.ptr());
  if (i == nullptr) {
    PyErr_Clear();
    return std::nullopt;
  }
  const unsigned long long v = PyLong_AsUnsignedLongLong(i);
  Py_DECREF(i);
  if (v == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();  // negative or 2**64 and beyond: not an address
    return std::nullopt;
  }
  return static_cast<std::uintptr_t>(v);
}

HostData host_data(nb::handle obj, std::optional<ScalarType> target) {
  nb::object arr = numpy().attr("asarray")(obj);
  nb::object dt = arr.attr("dtype");
  std::string name = nb::cast<std::string>(dt.attr("name"));
  const HostConversion how =
      target ? host_conversion(nb::cast<std::string>(dt.attr("kind")).front(), name, *target,
                               obj.is_none() ? "None" : "a " + python_type_name(obj))
             : HostConversion::Direct;  // no target: C++ names a dtype outside the ten
  if (how != HostConversion::Direct) {
    const ScalarType via = how == HostConversion::ViaFloat64 ? ScalarType::f64 : *target;
    arr = numpy().attr("asarray")(arr, numpy_dtype(via));
    name = std::string(numpy_name(via));
  } else if (!nb::cast<bool>(dt.attr("isnative"))) {
    arr = arr.attr("astype")(dt.attr("newbyteorder")("="));
  }
  HostData out;
  out.view.dtype = scalar_type_for_host(name);  // C++ refuses dtypes outside the ten
  BufferView buf(arr, PyBUF_RECORDS_RO);
  out.view.data = buf->buf;
  out.view.shape = buffer_shape(*buf);
  for (int k = 0; k < buf->ndim; ++k) out.view.strides.push_back(buf->strides[k]);
  out.array = std::move(arr);
  return out;
}

HostArrayFacts host_array_facts(nb::handle ndarray) {
  BufferView buf(ndarray, PyBUF_RECORDS_RO);
  HostArrayFacts f;
  f.address = reinterpret_cast<std::uintptr_t>(buf->buf);
  f.nbytes = static_cast<std::size_t>(buf->len);
  f.c_contiguous = PyBuffer_IsContiguous(&*buf, 'C') != 0;
  f.writable = buf->readonly == 0;
  f.what = "a NumPy array of shape " + detail::shape_str(buffer_shape(*buf)) + " and dtype " +
           nb::cast<std::string>(ndarray.attr("dtype").attr("name"));
  return f;
}

std::shared_ptr<void> python_hold(nb::handle obj) {
  obj.inc_ref();
  return std::shared_ptr<void>(obj.ptr(), [](void* p) {
    // The last owner may go away on any thread, or while the interpreter shuts down.
    if (nb::detail::cleanup_guard guard{}) Py_DECREF(static_cast<PyObject*>(p));
  });
}

nb::object to_numpy(const Array& a, ScalarType host_type) {
  nb::object out = numpy().attr("empty")(shape_tuple(a.numpy_shape()), numpy_dtype(host_type));
  BufferView buf(out, PyBUF_WRITABLE);
  void* dst = buf->buf;
  const auto nbytes = static_cast<std::size_t>(buf->len);
  {
    GilRelease release;
    copy_to_host(a, dst, host_type, nbytes);
  }
  return out;
}

}  // namespace tack::python

namespace nanobind::detail {

bool type_caster<tack::Scalar>::from_python(handle src, uint32_t, cleanup_list*) noexcept {
  PyObject* o = src.ptr();
  if (PyBool_Check(o)) {
    value = tack::Scalar::from_bool(o == Py_True);
    return true;
  }
  const char* tn = Py_TYPE(o)->tp_name;
  if (std::strcmp(tn, "numpy.bool") == 0 || std::strcmp(tn, "numpy.bool_") == 0) {
    const int t = PyObject_IsTrue(o);
    if (t < 0) {
      PyErr_Clear();
      return false;
    }
    value = tack::Scalar::from_bool(t != 0);
    return true;
  }
  if (PyFloat_Check(o)) {
    value = tack::Scalar::from(PyFloat_AS_DOUBLE(o));
    return true;
  }
  if (std::strcmp(tn, "numpy.ndarray") == 0) return false;  // arrays are not scalars
  if (PyIndex_Check(o)) {
    PyObject* i = PyNumber_Index(o);
    if (i == nullptr) {
      PyErr_Clear();
      return false;
    }
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(i, &overflow);
    bool ok = true;
    if (overflow == 0) {
      value = tack::Scalar::from(static_cast<std::int64_t>(v));
    } else {
      const unsigned long long u = overflow > 0 ? PyLong_AsUnsignedLongLong(i) : 0;
      if (overflow > 0 && !PyErr_Occurred()) {
        value = tack::Scalar::from_unsigned(u);
      } else {
        PyErr_Clear();
        const double d = PyLong_AsDouble(i);  // beyond 64 bits: a float, as NumPy makes it
        if (d == -1.0 && PyErr_Occurred()) {
          PyErr_Clear();
          ok = false;
        } else {
          value = tack::Scalar::from(d);
        }
      }
    }
    Py_DECREF(i);
    return ok;
  }
  // NumPy's floating scalars (np.float32, ...) and other real numbers with __float__.
  if (Py_TYPE(o)->tp_as_number != nullptr && Py_TYPE(o)->tp_as_number->nb_float != nullptr) {
    const double d = PyFloat_AsDouble(o);
    if (d == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
    value = tack::Scalar::from(d);
    return true;
  }
  return false;
}

handle type_caster<tack::Scalar>::from_cpp(const tack::Scalar& s, rv_policy,
                                           cleanup_list*) noexcept {
  switch (s.kind) {
    case tack::Scalar::Kind::Int:
      return PyLong_FromLongLong(s.i);
    case tack::Scalar::Kind::UInt:
      return PyLong_FromUnsignedLongLong(s.u);
    case tack::Scalar::Kind::Float:
      return PyFloat_FromDouble(s.f);
    case tack::Scalar::Kind::Bool:
      return PyBool_FromLong(static_cast<long>(s.i));
  }
  return nullptr;
}

}  // namespace nanobind::detail
