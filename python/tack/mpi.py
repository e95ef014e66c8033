"""Tack arrays over MPI (docs/design/mpi.md): a communicator whose messages are Tack arrays,
point-to-point and collective, with the memory model kept across the wire -- a receive is a
write (the array's version moves; a read-only array is refused), an array in flight is completed
before anything else touches it, device arrays travel through host memory -- and each message's
dtype and size checked against its receiver's. The names are tack::mpi's (tack/mpi.hpp).

    from tack import mpi
    comm = mpi.Communicator()            # MPI_COMM_WORLD, or mpi.Communicator(mpi4py_comm)
    total = comm.allreduce(tack.ones(4)) # every rank's array, summed

Run with `mpirun -np 4 python script.py`. MPI is initialized on first use unless the program
(or mpi4py) has, and then finalized at exit."""
import atexit as _atexit

import tack as _tack  # noqa: F401  (the array types this module takes)

try:
    from tack._mpi import Request, cuda_aware, finalize, init, initialized
    from tack._mpi import Communicator as _Communicator
    from tack._mpi import Decomposition as _Decomposition
except ImportError as _e:  # built without MPI
    raise ImportError("tack.mpi needs Tack built with MPI (Debian: apt-get install "
                      "libopenmpi-dev openmpi-bin, then rebuild): " + str(_e)) from None


def _device_name(device):
    return device.name if isinstance(device, _tack.Device) else device


class Communicator(_Communicator):
    """Tack arrays over an MPI communicator: a duplicate of `comm` (None: MPI_COMM_WORLD; or an
    mpi4py communicator). Point to point: send, recv, isend, irecv; collectives: allreduce,
    reduce, broadcast, gather, allgather, scatter, alltoall, barrier (docs/distributed.md)."""

    def scatter(self, a=None, root=0, device=None):
        """The root's `a` (shape (size, ...)) row by row: rank r gets a[r], on `device` off the
        root; other ranks pass None."""
        return super().scatter(a, root, _device_name(device))


class Decomposition(_Decomposition):
    """A global 1-3-D grid of `shape` cells divided into blocks, one per rank of `comm` (balanced
    by MPI_Dims_create unless `ranks` gives the blocks per dimension), each block with `ghost`
    layers of cells around it; `periodic` is one flag for every dimension or one per dimension.

        grid = mpi.Decomposition(comm, (512, 512), ghost=1)
        u = grid.allocate()            # local_shape: the owned block and its ghosts
        grid.exchange(u)               # the ghosts, from the neighbours' owned cells
    """

    def allocate(self, dtype=None, device=None):
        """A local array (zeros) of local_shape for this rank's block."""
        return _tack.zeros(self.local_shape, dtype=dtype, device=device)

    def global_ids(self, device=None):
        """i64 of local_shape: each local cell's global C-order index (-1 outside the grid)."""
        return super().global_ids(_device_name(device))


def world():
    """A communicator over every process of the job (a duplicate of MPI_COMM_WORLD)."""
    return Communicator()


_atexit.register(finalize)  # only what Tack initialized; mpi4py finalizes its own

__all__ = ["Communicator", "Decomposition", "Request", "cuda_aware", "finalize", "init",
           "initialized", "world"]
