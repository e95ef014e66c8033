// Tack arrays over MPI (docs/design/mpi.md): a communicator whose messages are Tack arrays,
// point-to-point and collective, with the memory model kept across the wire -- a receive is a
// write (the version moves; a read-only array is refused), a buffer in flight is completed
// before anything else touches it, device arrays are staged through host memory -- and every
// message's dtype and size checked against its receiver's. Link tack::mpi (built where CMake
// finds MPI). Python: tack.mpi, name for name.
#pragma once

// MPI's C API only: OpenMPI's and MPICH's mpi.h would otherwise bring their deprecated C++ API,
// whose symbols live in a library tack::mpi does not link.
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "tack/amr.hpp"
#include "tack/array.hpp"

namespace tack::mpi {

// The reductions of allreduce and reduce, element by element (a vector array's components
// each on their own).
enum class Op { sum, prod, min, max };
// "sum", "prod", "min" or "max"; ValueError otherwise.
Op op_from_name(std::string_view name);

// Initializes MPI (MPI_Init_thread, MPI_THREAD_SERIALIZED or better) unless the program, or
// mpi4py, has; every operation calls it. RuntimeError after MPI was finalized.
void init();
// Whether MPI is initialized and not finalized.
bool initialized();
// Whether this MPI passes CUDA device pointers itself (CUDA-aware OpenMPI: the compile-time
// MPIX_CUDA_AWARE_SUPPORT and the run-time MPIX_Query_cuda_support(), never assumed). Device
// arrays travel through host memory unless the MPI is aware of their device kind; Tack's devices
// today (the CPU, OpenCL) are none an MPI addresses.
bool cuda_aware();

// Finalizes MPI if Tack initialized it (the program's own MPI_Init is the program's to
// finalize); later operations are a RuntimeError. Python calls it at exit.
void finalize();

namespace detail {
struct CommState;
struct Pending;
}  // namespace detail

// A nonblocking operation. Its array is in flight until it completes: anything that touches the
// array first completes it (tack/mpi.hpp's header note).
class Request {
 public:
  Request() = default;
  explicit Request(std::shared_ptr<detail::Pending> p) : pending_(std::move(p)) {}
  // Waits for completion (under the TACK_MPI_TIMEOUT watchdog) and raises what the operation
  // found: a mismatched dtype or size, an MPI error, a peer that did not answer.
  void wait() const;
  // Completes the operation if it can without waiting; true when it has completed.
  bool test() const;

 private:
  std::shared_ptr<detail::Pending> pending_;
};

class Communicator {
 public:
  // A duplicate of MPI_COMM_WORLD.
  static Communicator world();
  // A duplicate of `comm` (Tack's messages never match the program's own; MPI_ERRORS_RETURN is
  // set on the duplicate only).
  static Communicator from_native(MPI_Comm comm);

  int rank() const;
  int size() const;
  void barrier() const;
  // The duplicate's handle (valid while this communicator or a copy of it lives).
  MPI_Comm native() const;

  // Point to point. `a` is any array (views are contiguous); its dtype and element count must
  // be the receiver's (ValueError on both sides otherwise). A rank outside [0, size) is an
  // IndexError; a read-only receive buffer a ValueError, before anything is posted.
  void send(const Array& a, int dest, int tag = 0) const;
  void recv(const Array& a, int source, int tag = 0) const;
  Request isend(const Array& a, int dest, int tag = 0) const;
  Request irecv(const Array& a, int source, int tag = 0) const;

  // Collectives: every rank passes arrays of one dtype and element count (ValueError on every
  // rank otherwise). `recv` may be `send` itself (in place).
  void allreduce(const Array& send, const Array& recv, Op op) const;
  Array allreduce(const Array& a, Op op) const;
  // `recv` is used on the root only (other ranks may pass `send`).
  void reduce(const Array& send, const Array& recv, Op op, int root) const;
  void broadcast(const Array& a, int root) const;
  // On the root, an array of shape (size, *a.shape) of every rank's `a` in rank order;
  // nullopt elsewhere.
  std::optional<Array> gather(const Array& a, int root) const;
  Array allgather(const Array& a) const;
  // The root's `a` has shape (size, ...): rank r receives a[r]. Other ranks pass nullopt (the
  // root says the dtype and shape); the result is on `device`.
  Array scatter(const std::optional<Array>& a, int root,
                const Device& device = default_device()) const;
  // send and recv have shape (size, ...): rank r's send[s] arrives as rank s's recv[r].
  void alltoall(const Array& send, const Array& recv) const;

 private:
  explicit Communicator(std::shared_ptr<detail::CommState> s) : state_(std::move(s)) {}
  std::shared_ptr<detail::CommState> state_;
};

// A global structured grid of 1 to 3 dimensions divided into blocks, one per rank of a
// communicator, each rank's block with `ghost` layers of cells on every side (the part of DIY
// that structured-grid codes need first). Rank r's block has coordinates coords(); its owned
// cells are global cells [origin()[d], origin()[d] + block_shape()[d]) in each dimension d,
// stored in a local array of local_shape() = block_shape() + 2 ghost, owned cell (i, j) at
// local index (i + ghost, j + ghost). Blocks differ by at most one cell per dimension.
class Decomposition {
 public:
  // `ranks_per_dim` empty: MPI_Dims_create's balanced factors of comm.size(); else its product
  // must be comm.size(). `periodic` empty: no dimension is. ValueError for a grid of other
  // than 1 to 3 dimensions, a block thinner than the ghost width, or factors that do not fit.
  Decomposition(const Communicator& comm, const Shape& global_shape, int ghost = 1,
                std::vector<bool> periodic = {}, std::vector<int> ranks_per_dim = {});

  const Shape& global_shape() const { return global_; }
  int ghost() const { return ghost_; }
  const std::vector<int>& ranks_per_dim() const { return dims_; }
  const std::vector<bool>& periodic() const { return periodic_; }
  const std::vector<int>& coords() const { return coords_; }
  const Shape& origin() const { return origin_; }
  const Shape& block_shape() const { return block_; }
  Shape local_shape() const;
  // The rank of the neighbouring block on `side` (-1 below, +1 above) of dimension `dim`, or -1
  // at the edge of a dimension that is not periodic.
  int neighbour(int dim, int side) const;

  // A local array for this rank's block (zeros), of `dtype` on `device`.
  Array allocate(DType dtype = f32, const Device& device = default_device()) const;
  // Fills the ghost layers of `local` (this rank's local_shape()) from the neighbours' owned
  // cells; the ghost layers at the edge of a dimension that is not periodic are left as they
  // are. Dimension by dimension, each including the ghosts filled before it, so edges and
  // corners come from the diagonal neighbours too. Layers of the first dimension travel as views
  // of `local` (no copy); the others are packed and unpacked by kernels on its device.
  void exchange(const Array& local) const;
  // i64, local_shape(): the global linear (C-order) index of each local cell, ghosts included
  // (wrapped in periodic dimensions; -1 outside the grid), on `device`.
  Array global_ids(const Device& device = default_device()) const;

 private:
  Communicator comm_;
  Shape global_;
  int ghost_;
  std::vector<bool> periodic_;
  std::vector<int> dims_, coords_;
  Shape origin_, block_;
  std::vector<int> neighbours_;  // [2 * dim + (side > 0)]
};

// What a distributed tack::dataset::AMR moves its values with (AmrDistribution): messages over
// a duplicate of `comm` (so they never match the program's own), each checked and waited on
// under the watchdog as Communicator's are.
std::shared_ptr<dataset::AmrTransport> amr_transport(const Communicator& comm);

}  // namespace tack::mpi
