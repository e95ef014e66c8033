// tack._mpi: the binding of tack::mpi (tack/mpi.hpp), its own extension module so that
// `import tack` never loads MPI. tack/mpi.py is its Python face.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

#include <optional>
#include <string>
#include <vector>

#include "tack/mpi.hpp"
#include "tack/tack.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using tack::Array;
using tack::mpi::Communicator;
using tack::mpi::Decomposition;
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

template <class T>
nb::tuple tuple_of(const std::vector<T>& v) {
  nb::list l;
  for (const T& x : v) l.append(x);
  return nb::tuple(l);
}

// An int or a sequence of them.
std::vector<std::int64_t> ints(nb::handle obj) {
  if (nb::isinstance<nb::int_>(obj)) return {nb::cast<std::int64_t>(obj)};
  std::vector<std::int64_t> out;
  for (nb::handle x : obj) out.push_back(nb::cast<std::int64_t>(x));
  return out;
}

}  // namespace

NB_MODULE(_mpi, m) {
  nb::module_::import_("tack._tack");  // Array and its errors are that module's types
  m.doc() = "Tack arrays over MPI (tack.mpi is its Python face; docs/design/mpi.md)";

  m.def("init", &tack::mpi::init,
        "initializes MPI unless the program (or mpi4py) has; every operation calls it");
  m.def("initialized", &tack::mpi::initialized, "whether MPI is initialized and not finalized");
  m.def("cuda_aware", &tack::mpi::cuda_aware,
        "whether this MPI passes CUDA device pointers itself (detected, never assumed)");
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
      .def("_amr_transport", &tack::mpi::amr_transport,
           "what a distributed tack.dataset.AMR moves its values with (over a duplicate)")
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

  nb::class_<Decomposition>(
      m, "Decomposition",
      "a global 1-3-D grid divided into blocks, one per rank, each with `ghost` layers of cells "
      "around it; exchange() fills the ghosts from the neighbours")
      .def(
          "__init__",
          [](Decomposition* self, const Communicator& comm, nb::handle shape, int ghost,
             nb::handle periodic, nb::handle ranks) {
            const std::vector<std::int64_t> global = ints(shape);
            std::vector<bool> flags;
            if (nb::isinstance<nb::bool_>(periodic)) {
              flags.assign(global.size(), nb::cast<bool>(periodic));
            } else {
              for (nb::handle x : periodic) flags.push_back(nb::cast<bool>(x));
            }
            std::vector<int> per_dim;
            if (!ranks.is_none()) {
              for (std::int64_t r : ints(ranks)) per_dim.push_back(static_cast<int>(r));
            }
            Release release;
            new (self) Decomposition(comm, global, ghost, flags, per_dim);
          },
          "comm"_a, "shape"_a, "ghost"_a = 1, "periodic"_a = false, "ranks"_a = nb::none())
      .def_prop_ro(
          "global_shape", [](const Decomposition& d) { return tuple_of(d.global_shape()); },
          "the whole grid's shape")
      .def_prop_ro("ghost", &Decomposition::ghost, "the ghost width")
      .def_prop_ro(
          "ranks", [](const Decomposition& d) { return tuple_of(d.ranks_per_dim()); },
          "blocks per dimension")
      .def_prop_ro(
          "periodic", [](const Decomposition& d) { return tuple_of(d.periodic()); },
          "per dimension: whether it wraps around")
      .def_prop_ro(
          "coords", [](const Decomposition& d) { return tuple_of(d.coords()); },
          "this rank's block coordinates")
      .def_prop_ro(
          "origin", [](const Decomposition& d) { return tuple_of(d.origin()); },
          "the global index of this rank's first owned cell")
      .def_prop_ro(
          "block_shape", [](const Decomposition& d) { return tuple_of(d.block_shape()); },
          "this rank's owned cells per dimension")
      .def_prop_ro(
          "local_shape", [](const Decomposition& d) { return tuple_of(d.local_shape()); },
          "block_shape + 2 ghost: the local array's shape (owned cell i at i + ghost)")
      .def("neighbour", &Decomposition::neighbour, "dim"_a, "side"_a,
           "the rank of the neighbouring block (side -1 or 1) along dim, or -1 at a closed edge")
      .def(
          "exchange",
          [](const Decomposition& d, const Array& local) {
            Release release;
            d.exchange(local);
          },
          "local"_a,
          "fills the ghost layers of `local` from the neighbours (dimension by dimension: edges "
          "and corners too); ghosts at a closed edge stay as they are")
      .def(
          "global_ids",
          [](const Decomposition& d, const std::optional<std::string>& device) {
            Release release;
            return d.global_ids(device_named(device));
          },
          "device"_a = nb::none(),
          "i64 of local_shape: each local cell's global C-order index (-1 outside the grid)");
}
