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
    from tack._mpi import Communicator, Request, finalize, init, initialized
except ImportError as _e:  # built without MPI
    raise ImportError("tack.mpi needs Tack built with MPI (Debian: apt-get install "
                      "libopenmpi-dev openmpi-bin, then rebuild): " + str(_e)) from None


def world():
    """A communicator over every process of the job (a duplicate of MPI_COMM_WORLD)."""
    return Communicator()


_atexit.register(finalize)  # only what Tack initialized; mpi4py finalizes its own

__all__ = ["Communicator", "Request", "finalize", "init", "initialized", "world"]
