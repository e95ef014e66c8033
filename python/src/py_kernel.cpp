// tack.Kernel: kernels from source, their launch (the Python warm path), debug mode, inspect.
#include <cstring>
#include <exception>
#include <optional>
#include <type_traits>

#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "py_convert.hpp"
#include "tack/kernel.hpp"
#include "tack/log.hpp"

namespace tack::python {
namespace {

// tack.Array's Python type, set at import: a kernel argument of exactly this type is taken
// without nanobind's general cast.
PyTypeObject* array_type = nullptr;

// Converts the call's Python arguments into KernelArgs without copying arrays. At most a
// handful of arguments: a fixed buffer keeps the warm path free of allocation. A NumPy array is
// wrapped in place (zero-copy, read-only when NumPy's is) as a CPU array, kept for the call.
struct ArgList {
  static constexpr std::size_t kInline = 16;
  // Storage for up to kInline arguments, constructed only as far as the call has them (a
  // default construction of all sixteen was a tenth of a warm call).
  union Inline {
    Inline() {}
    KernelArg args[kInline];
  } inline_args;
  std::vector<KernelArg> heap;
  std::vector<Array> wrapped;  // NumPy arguments as CPU arrays; reserved once, never moved
  KernelArg* data = inline_args.args;
  std::size_t size = 0;

  ArgList(const ArgList&) = delete;  // `data` points into this object
  ArgList& operator=(const ArgList&) = delete;

  explicit ArgList(const nb::args& args) {
    const std::size_t n = args.size();
    if (n > kInline) {
      heap.resize(n);
      data = heap.data();
    }
    static_assert(std::is_trivially_destructible_v<KernelArg>);
    for (std::size_t i = 0; i < n; ++i) new (&data[i]) KernelArg(convert(args[i], n));
    size = n;
    if (!wrapped.empty()) check_numpy_device();
  }

  KernelArg convert(nb::handle h, std::size_t n) {
    if (Py_TYPE(h.ptr()) == array_type && nb::inst_ready(h))
      return KernelArg(*nb::inst_ptr<Array>(h));  // the usual argument, without a general cast
    Array* a = nullptr;
    if (nb::try_cast<Array*>(h, a) && a != nullptr) return KernelArg(*a);
    arrays::Strided* strided = nullptr;
    if (nb::try_cast<arrays::Strided*>(h, strided) && strided != nullptr)
      return KernelArg(*strided);
    Texture3D* texture = nullptr;
    if (nb::try_cast<Texture3D*>(h, texture) && texture != nullptr) return KernelArg(*texture);
    if (is_ndarray(h)) return wrap_numpy(h, n);
    Scalar s;
    PyObject* o = h.ptr();
    if (!PyFloat_CheckExact(o) && !PyLong_CheckExact(o) && !PyBool_Check(o) &&
        std::strncmp(Py_TYPE(o)->tp_name, "numpy.", 6) == 0 && nb::try_cast<Scalar>(h, s)) {
      // A NumPy scalar keeps its dtype, as in NumPy's own promotion: np.float64(0.1) is an f64
      // argument beside f32 arrays (a Python float would be f32 there). tack.f64(v) makes one.
      const DType d = to_dtype(h.attr("dtype"));
      return KernelArg(s, d.scalar);
    }
    if (nb::try_cast<Scalar>(h, s)) return KernelArg(s);
    throw TypeError(std::string("kernel arguments are tack arrays (or tack.arrays.Strided, "
                                "tack.texture3d), NumPy arrays or Python numbers, got ") +
                    nb::type_name(h.type()).c_str() +
                    "; wrap other data with tack.array(x) or tack.from_dlpack(x)");
  }

  // A NumPy array as Numba and Warp users pass it: the same memory, on the CPU, with every check
  // a wrapped array gets (C-contiguous, writable only if NumPy's is).
  KernelArg wrap_numpy(nb::handle h, std::size_t n) {
    const nb::object dtype = h.attr("dtype");
    const nb::object native = dtype.attr("isnative");
    if (PyObject_IsTrue(native.ptr()) != 1) {
      throw ValueError(std::string("a NumPy array of byte order ") + nb::str(dtype).c_str() +
                       " is not the machine's: a kernel would read its bytes swapped; pass "
                       "x.astype(x.dtype.newbyteorder('=')) or tack.array(x) (copies)");
    }
    if (wrapped.capacity() == 0) wrapped.reserve(n);
    const HostArrayFacts facts = host_array_facts(h);
    if (!facts.c_contiguous) {
      // array_from_host_array refuses it too; this says it as a kernel argument, where a copy
      // would silently take the kernel's writes.
      throw ValueError("kernel argument: " + facts.what +
                       " is not C-contiguous, and a kernel indexes one contiguous run of memory; "
                       "pass np.ascontiguousarray(x) (and copy it back if the kernel writes it), "
                       "or for every k-th row a tack.arrays.Strided over a Tack array");
    }
    Shape shape;
    for (nb::handle d : nb::borrow<nb::tuple>(h.attr("shape")))
      shape.push_back(nb::cast<std::int64_t>(d));
    wrapped.push_back(array_from_host_array(facts, to_dtype(h.attr("dtype")), shape, facts.writable,
                                            device("cpu"), python_hold(h)));
    return KernelArg(wrapped.back());
  }

  // NumPy memory is host memory: a launch whose other arrays are on another device cannot take
  // it (it would fail naming two devices; this says what to do).
  void check_numpy_device() const {
    for (std::size_t i = 0; i < size; ++i) {
      const Array* a = data[i].array;
      if (a == nullptr || a->device().kind() == "cpu") continue;
      throw ValueError("a NumPy array is host memory, but this launch's array argument " +
                       std::to_string(i) + " is on device '" + a->device().name() +
                       "'; copy the NumPy data there first: tack.array(x, device=\"" +
                       a->device().name() + "\")");
    }
  }
};

// A constant as tack/_kernel.py encodes it: ("number", v), ("typed", v, dtype name),
// ("tuple", [encoded, ...]) or ("unsupported", what).
ConstantValue decode_constant(nb::handle h) {
  const nb::tuple t = nb::cast<nb::tuple>(h);
  const std::string kind = nb::cast<std::string>(t[0]);
  if (kind == "number") return ConstantValue::number(nb::cast<Scalar>(t[1]));
  if (kind == "typed") {
    const std::string dtype = nb::cast<std::string>(t[2]);
    return ConstantValue::typed(nb::cast<Scalar>(t[1]), dtype == "bool"
                                                            ? ScalarType::boolean
                                                            : scalar_type_for_argument(dtype));
  }
  if (kind == "tuple") {
    std::vector<ConstantValue> elements;
    for (nb::handle e : nb::cast<nb::list>(t[1])) elements.push_back(decode_constant(e));
    return ConstantValue::tuple(std::move(elements));
  }
  return ConstantValue::unsupported(nb::cast<std::string>(t[1]));
}

// The base of Python's tack.Kernel (tack/_kernel.py): it keeps the built kernel so that a warm
// call is one C++ call, with no Python frame. The subclass's _compile() builds (or rebuilds) and
// returns the tack.CompiledKernel; when `watching`, its _watch.changed() says whether a module
// constant the kernel reads changed since (then _compile() is called again). No Python object
// is held here, so the garbage collector sees every reference (they live in the __dict__).
struct KernelCall {
  std::optional<Kernel> built;
  bool watching = false;
};

// Python's `tack` logger, fetched at the first events after Python's logging is imported. Until
// then nobody can have configured a handler, and an unconfigured logger shows no INFO record,
// so the events are dropped: `import tack` does not import logging (with threading, traceback
// and string, 5 ms of a 40 ms import; docs/performance.md, "Import").
PyObject* tack_logger = nullptr;
bool logger_released = false;  // at exit: events from then on are dropped

// The compile and cache events of the calls so far, to Python's `tack` logger (INFO), with the
// GIL held: C++ only collects them (a compile may run on any thread, without the GIL).
void forward_log_events() {
  if (logger_released) {
    take_log_events();
    return;
  }
  if (tack_logger == nullptr) {
    PyObject* logging = PyImport_GetModule(nb::str("logging").ptr());  // null: not imported
    if (logging == nullptr) {
      PyErr_Clear();  // (a failed lookup: as if not imported)
      take_log_events();
      return;
    }
    nb::object logger = nb::steal(logging).attr("getLogger")("tack");
    if (tack_logger == nullptr) tack_logger = logger.release().ptr();  // kept for the process
  }
  for (const std::string& event : take_log_events()) nb::handle(tack_logger).attr("info")(event);
}

// Forwards the events of a call when it ends, also when it raises (a kernel that compiled and
// then failed its checks has its compile reported). A logging failure is not the call's error.
struct ForwardLogEvents {
  ~ForwardLogEvents() {
    if (!log_events_pending()) return;
    PyObject *type = nullptr, *value = nullptr, *traceback = nullptr;
    PyErr_Fetch(&type, &value, &traceback);
    try {
      forward_log_events();
    } catch (...) {
      PyErr_Clear();
    }
    PyErr_Restore(type, value, traceback);
  }
};

// The GIL through a launch (GilReleaseOnLongWork), and the kernel it launches when that is a
// @tack.kernel's `built`: another thread may replace `built` (its first call, a changed
// constant) once the GIL is released, so a reference to the kernel is taken then, while the GIL
// is still held -- not on every call (a warm call keeps the GIL throughout).
class LaunchGil final : public BeforeLongWork {
 public:
  explicit LaunchGil(const std::optional<Kernel>* built) : built_(built) {}
  void before_long_work() override {
    if (built_ != nullptr && !keep_) keep_ = *built_;
    gil_.before_long_work();
  }

 private:
  const std::optional<Kernel>* built_;
  std::optional<Kernel> keep_;  // released after gil_ has taken the GIL back
  GilReleaseOnLongWork gil_;
};

// Launches `k` (`built`: the @tack.kernel's slot holding it, or null), releasing the GIL for
// whatever of the call takes long (a short warm launch keeps it); its value as Python sees it:
// None, or a NumPy scalar of its type.
nb::object launch(const Kernel& k, const ArgList& list, const std::optional<Kernel>* built) {
  std::optional<KernelValue> value;
  {
    const ForwardLogEvents forward;
    LaunchGil gil(built);
    value = k.call(list.data, list.size, gil);
  }
  if (!value) return nb::none();
  return numpy_scalar(value->value, value->type);
}

// A @tack.kernel call: compiles first when the kernel is new or a constant it reads changed.
nb::object call_kernel(nb::handle self, const nb::args& args) {
  if (!nb::inst_ready(self))
    throw TypeError("this tack.Kernel was never initialized; make kernels with @tack.kernel");
  KernelCall& call = *nb::inst_ptr<KernelCall>(self);
  if (!call.built.has_value() ||
      (call.watching && nb::cast<bool>(self.attr("_watch").attr("changed")()))) {
    call.built = nb::cast<Kernel>(self.attr("_compile")());
  }
  // The arguments first: converting one may run Python code (a NumPy scalar's dtype), which
  // may replace `built`; from here to the GIL's release no Python code runs.
  const ArgList list(args);
  return launch(*call.built, list, &call.built);
}

// A C++ exception of a type slot, handed to nanobind's translators: `_reraise` rethrows it
// from a nanobind function, which sets the Python error as any binding's would.
thread_local std::exception_ptr pending_exception;
PyObject* reraise = nullptr;

PyObject* set_python_error(std::exception_ptr e) {
  pending_exception = std::move(e);
  PyObject* none = PyObject_CallNoArgs(reraise);  // raises: returns null, the error set
  Py_XDECREF(none);
  pending_exception = nullptr;
  return nullptr;
}

// The call slot of tack.Kernel's C++ base: a Python subclass that defines no __call__ inherits
// the slot itself, so a call goes from the interpreter straight here, with no method lookup,
// no second argument tuple and no overload resolution (docs/design/dispatch.md).
PyObject* kernel_tp_call(PyObject* self, PyObject* args, PyObject* kwargs) noexcept {
  try {
    const nb::handle h(self);
    if (kwargs != nullptr && PyDict_GET_SIZE(kwargs) != 0) {
      // Keyword arguments: _positional() binds them by parameter name, as Python does.
      const nb::object bound = h.attr("_positional")(nb::handle(args), nb::handle(kwargs));
      const nb::object positional = nb::steal(PySequence_Tuple(bound.ptr()));
      if (!positional.is_valid()) throw nb::python_error();
      return call_kernel(h, nb::borrow<nb::args>(positional)).release().ptr();
    }
    return call_kernel(h, nb::borrow<nb::args>(args)).release().ptr();
  } catch (...) {
    return set_python_error(std::current_exception());
  }
}

PyType_Slot kernel_call_slots[] = {{Py_tp_call, reinterpret_cast<void*>(kernel_tp_call)},
                                   {0, nullptr}};

}  // namespace

void release_python_logger() {
  logger_released = true;  // (logging's own atexit hook has closed its handlers by now)
  Py_CLEAR(tack_logger);   // its handlers may hold the program's globals, kernels among them
}

void init_kernel(nb::module_& m) {
  set_log_collect(true);  // forwarded to logging.getLogger("tack") after each call
  m.def("_reraise", [] {
    if (!pending_exception) throw RuntimeError("_tack._reraise: no exception is pending");
    std::rethrow_exception(pending_exception);
  });
  reraise = m.attr("_reraise").inc_ref().ptr();  // kept for the process
  array_type = reinterpret_cast<PyTypeObject*>(nb::type<Array>().ptr());
  // A call launches the kernel, compiling it first when it is new or a constant it reads
  // changed: the type's call slot (kernel_tp_call), not a method.
  nb::class_<KernelCall>(m, "_KernelCall", nb::dynamic_attr(), nb::type_slots(kernel_call_slots))
      .def(nb::init<>())
      .def_rw("_watching", &KernelCall::watching);

  // Named CompiledKernel in Python: tack.Kernel is the @tack.kernel object (tack/_kernel.py),
  // which holds one of these; one class per language is named Kernel.
  nb::class_<Kernel>(m, "CompiledKernel",
                     "A kernel compiled from source text: the C++ tack::Kernel a @tack.kernel "
                     "function holds (its .compiled), or tack.kernel_from_source's result. "
                     "Calling it launches the kernel on its arrays' device.")
      .def(
          "__call__",
          [](const Kernel& k, nb::args args) { return launch(k, ArgList(args), nullptr); },
          "launches the kernel on the arguments' device")
      .def_prop_ro("name", &Kernel::name)
      .def_prop_ro("variant_count", &Kernel::variant_count)
      .def_prop_rw("debug", &Kernel::debug, &Kernel::set_debug,
                   "debug mode for this kernel alone (tack.set_debug: every kernel)")
      .def("__repr__", [](const Kernel& k) { return "tack.CompiledKernel('" + k.name() + "')"; });

  m.def(
      "_kernel_from_source",
      [](const std::string& source, const std::string& name, int first_line) {
        return kernel(source, name, first_line);
      },
      nb::arg("source"), nb::arg("name") = "", nb::arg("first_line") = 1);
  m.def(
      "_kernel_from_pieces",
      [](const std::vector<std::tuple<std::string, int, std::string, bool>>& pieces,
         const std::string& name, const nb::list& constants,
         const std::vector<std::tuple<std::string, std::string, std::string>>& aliases) {
        std::vector<SourcePiece> list;
        for (const auto& [text, first_line, file, device_function] : pieces)
          list.push_back({text, first_line, file, device_function});
        std::vector<NamedConstant> named;
        for (nb::handle c : constants) {
          const nb::tuple t = nb::cast<nb::tuple>(c);
          named.push_back(NamedConstant{nb::cast<std::string>(t[0]), nb::cast<std::string>(t[1]),
                                        decode_constant(t[2])});
        }
        std::vector<FunctionAlias> alias_list;
        for (const auto& [function, called, target] : aliases)
          alias_list.push_back({function, called, target});
        return kernel(list, name, std::move(named), std::move(alias_list));
      },
      nb::arg("pieces"), nb::arg("name"), nb::arg("constants") = nb::list(),
      nb::arg("aliases") = std::vector<std::tuple<std::string, std::string, std::string>>(),
      "a kernel from pieces of source (text, first line, file, is a device function), the "
      "kernel's first: CompileErrors name the piece's file and line; constants: (function, "
      "name, encoded value) for the names the functions read from their module or closure; "
      "aliases: (function, name as called, device function) for calls by another name");
  m.def("set_debug", &set_debug, nb::arg("on"),
        "debug mode: check every index against its array's shape; IndexError on the first "
        "out-of-bounds access (skipped)");
  m.def("debug", &debug, "whether debug mode is on for every kernel (tack.set_debug)");
  m.def("set_tiered_compile", &set_tiered_compile, nb::arg("on"),
        "tiered compile on the CPU (on from import): a kernel the disk cache does not hold "
        "first runs a quick build while the optimized build compiles in the background; the "
        "next launch waits for it. TACK_TIERED_COMPILE=0 or 1 overrides this");
  m.def("set_streaming_threshold", &set_streaming_threshold, nb::arg("bytes"),
        "streamed outputs on the CPU: a launch whose arrays hold at least this many bytes "
        "writes the arrays its kernel only writes (each element once, from its parallel loop) "
        "around the caches; smaller launches keep ordinary stores. Default: the last-level "
        "cache's size (TACK_STREAM_BYTES); a launch past it streams when the kernel's first such "
        "launches measured streaming faster; 0 streams every launch, unmeasured; 2**64 - 1 none");
  m.def("streaming_threshold", &streaming_threshold,
        "the CPU's streaming threshold in bytes (tack.set_streaming_threshold)");
  m.def("tiered_compile", &tiered_compile,
        "whether the CPU compiles in tiers (tack.set_tiered_compile, TACK_TIERED_COMPILE)");
  m.def(
      "finish_compiles",
      [] {
        GilRelease release;
        finish_compiles();
      },
      "waits until every background (optimized) build has finished and replaced its quick "
      "build");
  m.def("set_specialize_disjoint", &set_specialize_disjoint, nb::arg("on"),
        "the CPU's disjoint-arrays specialization: a noalias variant for calls whose written "
        "arrays overlap no other argument (on by default; TACK_DISJOINT=0)");
  m.def("specialize_disjoint", &specialize_disjoint,
        "whether the CPU's disjoint-arrays specialization is on");
  m.attr("default_cuda_arch") = std::string(tack::kDefaultCudaArch);
  m.def(
      "_builtins",
      [] {
        nb::list out;
        for (const tack::BuiltinInfo& b : tack::builtins()) {
          nb::dict d;
          d["names"] = b.names;
          d["min_args"] = b.min_args;
          d["max_args"] = b.max_args;
          d["signature"] = b.signature;
          d["doc"] = b.doc;
          d["family"] = b.family;
          d["needs_workgroups"] = b.needs_workgroups;
          d["stubs"] = b.stubs;
          out.append(d);
        }
        return out;
      },
      "the kernel language's builtins, from the lowering's table (tools/gen_builtins.py writes "
      "docs/language.md's index and tack._builtins from it): a list of dicts with names, "
      "min_args, max_args (-1: no limit), signature, doc, family, needs_workgroups, stubs");
  m.def(
      "_called_names", [](const std::string& source) { return tack::called_names(source); },
      nb::arg("source"),
      "the names the functions of kernel-language `source` call, dotted as written, each once, "
      "in source order (the front end's parse; nothing for text it cannot parse)");
  m.def(
      "_kernel_record_counts",
      [] {
        const detail::KernelRecordCounts c = detail::kernel_record_counts();
        nb::dict d;
        d["lowered"] = c.lowered;
        d["from_records"] = c.from_records;
        d["parsed"] = c.parsed;
        d["kernels_from_records"] = c.kernels_from_records;
        d["names_parsed"] = c.names_parsed;
        d["records_refused"] = c.records_refused;
        return d;
      },
      "this process's variants lowered and made from kernel records, kernels parsed and made "
      "from records, sources whose called names were parsed, records refused "
      "(docs/design/kernel_records.md; for tests)");
  m.def(
      "inspect",
      [](const Kernel& k, nb::args args, const std::string& mode, const std::string& device,
         const std::string& arch) {
        ArgList list(args);
        const ForwardLogEvents forward;
        GilRelease release;  // an NVRTC compile takes a while
        return inspect(k, std::vector<KernelArg>(list.data, list.data + list.size), mode, device,
                       arch);
      },
      nb::arg("kernel"), nb::arg("args"), nb::arg("mode") = "ir", nb::arg("device") = "",
      nb::arg("arch") = std::string(tack::kDefaultCudaArch),
      "the IR, source or optimized code of the variant these arguments would run; device=\"cuda\" "
      "compiles it for CUDA (mode \"source\" or \"ptx\", for arch) without a GPU");
}

}  // namespace tack::python
