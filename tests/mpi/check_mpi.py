"""tack.mpi under mpirun (tests/python/test_mpi.py runs it with -np 2 and -np 4): every operation
on CPU arrays and, where present, OpenCL arrays; views as buffers; the version and read-only
rules; a launch after an irecv reads the received values; mismatched dtypes and sizes; ranks
out of range; the watchdog; use after finalize. Each rank exits 0 when every check passed."""
import os
import sys

import numpy as np

import tack
from tack import mpi

comm = mpi.Communicator()
rank, size = comm.rank, comm.size
assert mpi.cuda_aware() in (True, False)  # Debian's OpenMPI: built without CUDA
assert size >= 2, "run under mpirun -np 2 or more"
right, left = (rank + 1) % size, (rank - 1) % size
devices = ["cpu"] + [d.name for d in tack.devices() if d.kind == "opencl"][:1]


def raises(kind, fn, *words):
    try:
        fn()
    except kind as e:
        for w in words:
            assert w in str(e), (w, str(e))
        return str(e)
    raise AssertionError(f"{fn} did not raise {kind.__name__}")


@tack.kernel
def add_one(x, out):
    for i in range(len(x)):
        out[i] = x[i] + 1.0


for dev in devices:
    # Point to point around a ring; a receive is a write.
    a = tack.array(np.arange(6, dtype=np.float32) + 100 * rank, device=dev)
    got = tack.zeros(6, device=dev)
    v0 = got.version
    reqs = [comm.irecv(got, left, tag=1), comm.isend(a, right, tag=1)]
    for r in reqs:
        r.wait()
    assert got.version > v0
    assert np.array_equal(got.numpy(), np.arange(6, dtype=np.float32) + 100 * left), got.numpy()

    # Blocking send and receive of views (rows of a 2-D array), even ranks first.
    grid = tack.array(np.full((4, 3), rank, dtype=np.int32), device=dev)
    if rank % 2 == 0:
        comm.send(grid[1:3], right, tag=2)
        comm.recv(grid[0:2], left, tag=2)
    else:
        inbox = tack.zeros((2, 3), dtype=tack.i32, device=dev)
        comm.recv(inbox, left, tag=2)
        comm.send(grid[1:3], right, tag=2)
        tack.copyto(grid[0:2], inbox.numpy())
    g = grid.numpy()
    assert (g[0:2] == left).all() and (g[2:] == rank).all(), g

    # A launch after an irecv reads the received values (the receive completes first).
    x = tack.zeros(5, device=dev)
    out = tack.zeros(5, device=dev)
    req = comm.irecv(x, left, tag=3)
    comm.send(tack.full(5, 7.0, device=dev), right, tag=3)
    add_one(x, out)  # settles the receive into x first
    assert np.array_equal(out.numpy(), np.full(5, 8.0, np.float32)), out.numpy()
    req.wait()  # already complete: returns at once

    # Request.test() completes without waiting; numpy() of an array in flight completes it first.
    y = tack.zeros(3, device=dev)
    req = comm.irecv(y, left, tag=5)
    comm.send(tack.full(3, rank + 0.5, device=dev), right, tag=5)
    while not req.test():
        pass
    assert (y.numpy() == left + 0.5).all()
    z = tack.zeros(3, device=dev)
    req = comm.irecv(z, left, tag=6)
    comm.send(tack.full(3, rank + 0.25, device=dev), right, tag=6)
    assert (z.numpy() == left + 0.25).all()  # the receive lands before the copy is taken
    assert req.test()

    # Vector dtypes travel as their scalars.
    vec = tack.array(np.full((3, 3), rank, np.float64), dtype=tack.vec(3, tack.f64), device=dev)
    vin = tack.zeros(3, dtype=tack.vec(3, tack.f64), device=dev)
    r = comm.irecv(vin, left, tag=4)
    comm.send(vec, right, tag=4)
    r.wait()
    assert (vin.numpy() == left).all()

    # Collectives.
    s = comm.allreduce(tack.array(np.arange(4, dtype=np.float64) + rank, device=dev))
    assert np.allclose(s.numpy(), size * np.arange(4) + sum(range(size)))
    for op, expect in [("min", 0), ("max", size - 1), ("prod", 0)]:
        r = comm.allreduce(tack.full(3, rank, dtype=tack.i64, device=dev), op=op)
        assert (r.numpy() == expect).all(), (op, r.numpy())
    inplace = tack.full(2, rank + 1, dtype=tack.u16, device=dev)
    v0 = inplace.version
    comm.allreduce(inplace, op="sum", out=inplace)
    assert inplace.version > v0 and (inplace.numpy() == size * (size + 1) // 2).all()
    red = comm.reduce(tack.full(2, 1.5, device=dev), op="sum", root=size - 1)
    if rank == size - 1:
        assert np.allclose(red.numpy(), 1.5 * size)
    else:
        assert red is None
    b = tack.array(np.arange(5, dtype=np.int8) * (1 if rank == 1 else 0), device=dev)
    comm.broadcast(b, root=1)
    assert np.array_equal(b.numpy(), np.arange(5, dtype=np.int8))
    gathered = comm.gather(tack.full((2,), rank, dtype=tack.i32, device=dev), root=0)
    if rank == 0:
        assert gathered.shape == (size, 2) and (gathered.numpy()[:, 0] == np.arange(size)).all()
    everyone = comm.allgather(tack.full((1, 2), rank, dtype=tack.f32, device=dev))
    assert everyone.shape == (size, 1, 2) and (everyone.numpy()[:, 0, 1] == np.arange(size)).all()
    rows = tack.array(np.arange(size * 3, dtype=np.uint8).reshape(size, 3), device=dev)
    mine = comm.scatter(rows if rank == 0 else None, root=0, device=dev)
    assert mine.shape == (3,) and np.array_equal(mine.numpy(), np.arange(3) + 3 * rank)
    send = tack.array(np.array([[rank * 10 + s] for s in range(size)], np.int64), device=dev)
    recvd = comm.alltoall(send)
    assert np.array_equal(recvd.numpy()[:, 0], np.array([r * 10 + rank for r in range(size)]))
    comm.barrier()

# Read-only receive buffers are refused before anything is posted.
ro = tack.from_dlpack(np.zeros(3, np.float32), writable=False)
raises(ValueError, lambda: comm.recv(ro, left), "read-only")
raises(ValueError, lambda: comm.allreduce(tack.zeros(3), out=ro), "read-only")
# Ranks out of range.
raises(IndexError, lambda: comm.send(tack.zeros(1), size), "outside", str(size - 1))
raises(IndexError, lambda: comm.broadcast(tack.zeros(1), root=-1), "root")
# A mismatched dtype or size is a ValueError on the receiving rank.
if rank == 0:
    comm.send(tack.zeros(4, dtype=tack.i32), 1, tag=9)
    comm.send(tack.zeros(6), 1, tag=9)
elif rank == 1:
    raises(ValueError, lambda: comm.recv(tack.zeros(4), 0, tag=9), "i32", "f32")
    raises(ValueError, lambda: comm.recv(tack.zeros(4), 0, tag=9), "6 elements", "4 elements")
comm.barrier()
# A collective whose ranks pass different arrays fails on every rank.
raises(ValueError, lambda: comm.allreduce(tack.zeros(3 if rank == 0 else 4)), "different sizes")
raises(ValueError, lambda: comm.allreduce(tack.zeros(2, dtype=tack.f64 if rank else tack.f32)),
       "different dtypes")
raises(ValueError, lambda: comm.allreduce(tack.zeros(2), op="mean"), "mean")
# The watchdog: a receive nobody sends fails within TACK_MPI_TIMEOUT instead of hanging.
if rank == 0:
    os.environ["TACK_MPI_TIMEOUT"] = "2"
    raises(RuntimeError, lambda: comm.recv(tack.zeros(1), 1, tag=77), "did not complete within",
           "rank 1")
    del os.environ["TACK_MPI_TIMEOUT"]
comm.barrier()

# mpi4py's communicators are accepted, where mpi4py is installed.
try:
    from mpi4py import MPI
except ImportError:
    MPI = None
if MPI is not None:
    sub = mpi.Communicator(MPI.COMM_WORLD)
    assert (sub.rank, sub.size) == (rank, size)
    assert (sub.allreduce(tack.ones(2)).numpy() == size).all()

    devices.append("mpi4py")

mpi.finalize()
assert not mpi.initialized()  # Tack initialized MPI (before mpi4py's import), so it finalized it
raises(RuntimeError, lambda: comm.barrier(), "finalized")
raises(RuntimeError, lambda: mpi.Communicator(), "finalized")
print(f"rank {rank} of {size}: ok on {', '.join(devices)}", flush=True)
