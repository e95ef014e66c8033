// tack.Device and the device list: devices(), device(name), the default device, sync(),
// memory_space(ptr).
#include <functional>
#include <string>

#include "py_convert.hpp"

namespace tack::python {

void init_device(nb::module_& m) {
  nb::class_<Device>(m, "Device", "A device arrays live on and kernels run on: 'cpu', ...")
      .def_prop_ro("name", &Device::name, "'cpu', 'opencl:0', ...")
      .def_prop_ro("kind", &Device::kind, "'cpu', 'opencl', ...")
      .def(
          "synchronize",
          [](const Device& d) {
            GilRelease release;
            d.synchronize();
          },
          "waits for every launch queued on this device")
      .def("__repr__", [](const Device& d) { return "tack.device('" + d.name() + "')"; })
      .def("__str__", &Device::name)
      .def(
          "__eq__", [](const Device& a, nb::handle b) { return equals<Device>(a, b, true); },
          nb::arg("other").none())
      .def(
          "__ne__", [](const Device& a, nb::handle b) { return equals<Device>(a, b, false); },
          nb::arg("other").none())
      .def("__hash__", [](const Device& d) { return std::hash<std::string>{}(d.name()); });

  m.def("devices", &devices, "the devices present: the CPU always, others where they answer");
  m.def("device", &device, nb::arg("name"), "tack.device('cpu'); ValueError naming those present");
  m.def("default_device", &default_device,
        "the device new arrays land on when none is given (TACK_DEVICE, else the CPU)");
  m.def(
      "set_default_device",
      [](const std::variant<std::string, Device>& d) { set_default_device(to_device(d)); },
      nb::arg("device"),
      "makes `device` (a name or a tack.device) the default; arrays already made keep theirs");
  m.def(
      "_about",
      [] {
        const About a = about();
        nb::dict d;
        d["version"] = a.version;
        d["llvm_version"] = a.llvm_version;
        d["llvm_static"] = a.llvm_static;
        d["cuda"] = a.cuda;
        d["numa"] = a.numa;
        d["numa_nodes"] = a.numa_nodes;
        d["host_cpu"] = a.host_cpu;
        d["host_triple"] = a.host_triple;
        d["vector_math"] = a.vector_math;
        d["threads"] = a.threads;
        d["cache_directory"] =
            a.cache_directory ? nb::object(nb::str(a.cache_directory->c_str())) : nb::none();
        d["cache_limit"] = a.cache_limit;
        nb::list kinds;
        for (const std::string& k : a.device_kinds) kinds.append(nb::str(k.c_str()));
        d["device_kinds"] = kinds;
        return d;
      },
      "this build of Tack and what it finds here, as a dict (tack::about; python -m tack)");
  m.def(
      "_nvrtc",
      [] {
        NvrtcFound f;
        {
          GilRelease release;  // loading NVRTC: tens of milliseconds
          f = find_nvrtc();
        }
        nb::dict d;
        d["version"] = f.version;
        d["path"] = f.path;
        d["why"] = f.why;
        return d;
      },
      "the NVRTC CUDA kernels compile with: {'version', 'path', 'why'} (tack::find_nvrtc; loads "
      "it)");
  m.def("_cpu_kernel_fill_count", &detail::cpu_kernel_fill_count,
        "how many CPU fills ran as a fill kernel through the dispatch (for tests)");
  m.def(
      "sync",
      [] {
        GilRelease release;
        sync();
      },
      "waits for everything queued on every device");
  m.def(
      "_at_exit",
      [] {
        shutdown_begins();
        {
          // The optimized builds still compiling (tack::set_tiered_compile) finish and reach
          // the disk cache before anything is torn down.
          GilRelease release;
          set_tiered_compile(false);  // a daemon thread's later compile builds at once
          finish_compiles();
        }
        // A program may end without tack.sync(): every queued launch completes here, before
        // finalization and exit() tear down what device runtimes still use (a driver's compiler
        // thread, its LLVM's statics). Errors cannot be reported any more; the launch failed.
        try {
          GilRelease release;
          sync();
        } catch (const std::exception&) {
        }
        release_python_logger();
      },
      "tack's atexit hook (tack/__init__.py): shutdown of GIL releases, the background builds "
      "finished, then sync()");
  m.def("_prefetch_cache_key", &detail::prefetch_cache_key,
        "import tack: the disk cache's per-process key parts, computed in the background");
  m.def(
      "_quiet_leak_report", [] { nb::set_leak_warnings(false); },
      "at exit with daemon threads alive: their frames, and the arrays they hold, are never "
      "released, so nanobind's leak report would be a false alarm");
  m.def(
      "memory_space",
      [](nb::handle ptr, const DeviceArg& device) {
        std::optional<std::uintptr_t> address;
        if (is_ndarray(ptr)) {
          address = host_array_facts(ptr).address;
        } else {
          address = as_address(ptr);
        }
        return memory_space(address, to_device(device));
      },
      nb::arg("ptr").none(), nb::arg("device") = nb::none(),
      "the memory space of an address (or a NumPy array's memory) on a device: 'cpu', ...");
}

}  // namespace tack::python
