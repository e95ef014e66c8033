// tack._mpi: the binding of tack::mpi (tack/mpi.hpp), its own extension module so that
// `import tack` never loads MPI. tack/mpi.py is its Python face.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <optional>
#include <string>

#include "tack/mpi.hpp"
#include "tack/tack.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using tack::Array;
using tack::mpi::Communicator;
using tack::mpi::Request;

using Release = nb::gil_scoped_release;

// comm: None (MPI_COMM_WORLD), an mpi4py communicator (anything with py2f(), the Fortran
// handle MPI's C API converts), or a Fortran handle as an int.
Communicator communicator_of(nb::handle comm) {
  if (comm.is_none()) return Communicator::world();
  nb::object handle;
  if (nb::hasattr(comm, "py2f")) {
    handle = comm.attr("py2f")();
  } else if (nb::isinstance<nb::int_>(comm)) {
    handle = nb::borrow(comm);
  } else {
    throw tack::TypeError(
        "Communicator(comm): comm is None (MPI_COMM_WORLD), an mpi4py communicator or a Fortran "
        "communicator handle, not " +
        std::string(nb::str(nb::type_name(comm.type())).c_str()));
  }
  const auto f = nb::cast<MPI_Fint>(handle);
  tack::mpi::init();
  return Communicator::from_native(MPI_Comm_f2c(f));
}

tack::Device device_named(const std::optional<std::string>& name) {
  return name ? tack::device(*name) : tack::default_device();
}

}  // namespace

NB_MODULE(_mpi, m) {
  nb::module_::import_("tack._tack");  // Array and its errors are that module's types
  m.doc() = "Tack arrays over MPI (tack.mpi is its Python face; docs/design/mpi.md)";

  m.def("init", &tack::mpi::init,
        "initializes MPI unless the program (or mpi4py) has; every operation calls it");
  m.def("initialized", &tack::mpi::initialized, "whether MPI is initialized and not finalized");
  m.def(
      "finalize",
      [] {
        Release release;
        tack::mpi::finalize();
      },
      "finalizes MPI if Tack initialized it (tack.mpi calls it at exit); later operations are a "
      "RuntimeError");

  nb::class_<Request>(m, "Request",
                      "a nonblocking send or receive; its array is in flight until it completes "
                      "(anything that touches the array completes it first)")
      .def(
          "wait",
          [](const Request& r) {
            Release release;
            r.wait();
          },
          "waits for completion (TACK_MPI_TIMEOUT) and raises what the operation found")
      .def(
          "test",
          [](const Request& r) {
            Release release;
            return r.test();
          },
          "completes the operation if it can without waiting; True when it has completed");

  nb::class_<Communicator>(m, "Communicator",
                           "Tack arrays over an MPI communicator (a duplicate of `comm`: None for "
                           "MPI_COMM_WORLD, or an mpi4py communicator)")
      .def(
          "__init__",
          [](Communicator* self, nb::handle comm) {
            new (self) Communicator(communicator_of(comm));
          },
          "comm"_a = nb::none())
      .def_prop_ro("rank", &Communicator::rank, "this process's rank")
      .def_prop_ro("size", &Communicator::size, "the number of ranks")
      .def(
          "barrier",
          [](const Communicator& c) {
            Release release;
            c.barrier();
          },
          "waits until every rank has reached it")
      .def(
          "send",
          [](const Communicator& c, const Array& a, int dest, int tag) {
            Release release;
            c.send(a, dest, tag);
          },
          "a"_a, "dest"_a, "tag"_a = 0,
          "sends array a to rank dest (a device array through host memory, after the launches "
          "queued on it)")
      .def(
          "recv",
          [](const Communicator& c, const Array& a, int source, int tag) {
            Release release;
            c.recv(a, source, tag);
          },
          "a"_a, "source"_a, "tag"_a = 0,
          "receives into array a from rank source: a write (a.version moves); the sender's dtype "
          "and size must be a's (ValueError)")
      .def(
          "isend",
          [](const Communicator& c, const Array& a, int dest, int tag) {
            Release release;
            return c.isend(a, dest, tag);
          },
          "a"_a, "dest"_a, "tag"_a = 0, "send, not waiting: a Request")
      .def(
          "irecv",
          [](const Communicator& c, const Array& a, int source, int tag) {
            Release release;
            return c.irecv(a, source, tag);
          },
          "a"_a, "source"_a, "tag"_a = 0, "recv, not waiting: a Request")
      .def(
          "allreduce",
          [](const Communicator& c, const Array& a, const std::string& op,
             std::optional<Array> out) {
            const tack::mpi::Op o = tack::mpi::op_from_name(op);
            Release release;
            if (!out) return c.allreduce(a, o);
            c.allreduce(a, *out, o);
            return *out;
          },
          "a"_a, "op"_a = "sum", "out"_a = nb::none(),
          "every rank's a reduced element by element (op: sum, prod, min, max), on every rank: "
          "into out (out=a: in place) or a new array")
      .def(
          "reduce",
          [](const Communicator& c, const Array& a, const std::string& op, int root,
             std::optional<Array> out) -> std::optional<Array> {
            const tack::mpi::Op o = tack::mpi::op_from_name(op);
            Release release;
            const bool is_root = c.rank() == root;
            Array target =
                out ? *out : (is_root ? tack::empty(a.shape(), a.dtype(), a.device()) : a);
            c.reduce(a, target, o, root);
            if (!is_root) return std::nullopt;
            return target;
          },
          "a"_a, "op"_a = "sum", "root"_a = 0, "out"_a = nb::none(),
          "allreduce's result on the root only (into out, or a new array); None elsewhere")
      .def(
          "broadcast",
          [](const Communicator& c, const Array& a, int root) {
            Release release;
            c.broadcast(a, root);
            return a;
          },
          "a"_a, "root"_a = 0, "the root's a into every rank's a (a write off the root)")
      .def(
          "gather",
          [](const Communicator& c, const Array& a, int root) {
            Release release;
            return c.gather(a, root);
          },
          "a"_a, "root"_a = 0,
          "on the root, an array of shape (size, *a.shape) of every rank's a; None elsewhere")
      .def(
          "allgather",
          [](const Communicator& c, const Array& a) {
            Release release;
            return c.allgather(a);
          },
          "a"_a, "gather's result on every rank")
      .def(
          "scatter",
          [](const Communicator& c, std::optional<Array> a, int root,
             const std::optional<std::string>& device) {
            Release release;
            return c.scatter(a, root, device_named(device));
          },
          "a"_a = nb::none(), "root"_a = 0, "device"_a = nb::none(),
          "the root's a (shape (size, ...)) row by row: rank r gets a[r]; other ranks pass None")
      .def(
          "alltoall",
          [](const Communicator& c, const Array& a, std::optional<Array> out) {
            Release release;
            Array target = out ? *out : tack::empty(a.shape(), a.dtype(), a.device());
            c.alltoall(a, target);
            return target;
          },
          "a"_a, "out"_a = nb::none(),
          "a and the result have shape (size, ...): rank r's a[s] arrives as rank s's result[r]");
}
