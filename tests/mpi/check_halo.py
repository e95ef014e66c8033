"""tack.mpi.Decomposition under mpirun (tests/python/test_mpi.py, -np 2 and -np 4): the blocks
cover the grid exactly once, and an exchange fills every ghost cell with its neighbour's owned
value -- the single-process reference is the global grid's own index -- in 1, 2 and 3
dimensions, periodic or not, ghost widths 1 and 2, on the CPU and OpenCL."""
import numpy as np

import tack
from tack import mpi

comm = mpi.Communicator()
rank, size = comm.rank, comm.size
devices = ["cpu"] + [d.name for d in tack.devices() if d.kind == "opencl"][:1]
cases = [((37,), 2, True), ((37,), 1, False), ((20, 13), 1, True), ((20, 13), 2, False),
         ((9, 8, 7), 1, True), ((9, 8, 7), 1, False), ((6, 5), 1, (True, False))]
for dev in devices:
    for shape, ghost, periodic in cases:
        grid = mpi.Decomposition(comm, shape, ghost=ghost, periodic=periodic)
        # The blocks cover the grid once.
        cells = comm.allreduce(tack.array(np.array([np.prod(grid.block_shape)], np.int64)))
        assert cells.numpy()[0] == np.prod(shape), (shape, cells.numpy())
        ids = grid.global_ids(device=dev)
        assert ids.shape == grid.local_shape
        ref = ids.numpy()
        owned = np.zeros(grid.local_shape, bool)
        owned[tuple(slice(ghost, ghost + b) for b in grid.block_shape)] = True
        start = np.where(owned, ref, -7).astype(np.float64)
        u = tack.array(start, device=dev)
        grid.exchange(u)
        expect = np.where(ref >= 0, ref, -7).astype(np.float64)
        got = u.numpy()
        assert np.array_equal(got, expect), (dev, shape, ghost, periodic, rank, got, expect)
        # Vector dtypes: the same, per component.
        w = tack.array(np.stack([start, -start], axis=-1), dtype=tack.vec(2, tack.f64), device=dev)
        grid.exchange(w)
        assert np.array_equal(w.numpy()[..., 0], expect) and np.array_equal(w.numpy()[..., 1], -expect)
# Bad input.
try:
    mpi.Decomposition(comm, (size,), ghost=2)
    raise AssertionError("no error")
except ValueError as e:
    assert "thinner than the ghost width" in str(e), e
grid = mpi.Decomposition(comm, (8, 8))
try:
    grid.exchange(tack.zeros((3, 3)))
    raise AssertionError("no error")
except ValueError as e:
    assert "shape" in str(e), e
print(f"rank {rank} of {size}: halo ok on {', '.join(devices)}", flush=True)
