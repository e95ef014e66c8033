"""The heat example (examples/python/heat.py) distributed over MPI ranks: the plate is divided
into blocks, one per rank, each with one ghost layer; every step exchanges the ghosts with the
neighbours, then updates the rank's own cells. Rank 0 gathers the blocks and writes
heat_distributed.png, the same picture as the single-process example (and the same numbers,
cell for cell).

    mpirun -np 4 python examples/mpi/heat_distributed.py [steps] [output.npy]
"""
import os
import sys

import numpy as np

import tack
from tack import mpi

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from heat import colour, write_png  # noqa: E402  (the single-process example's kernels)


@tack.kernel
def heat_block(u, v, alpha, i0, i1, j0, j1):
    # The cells of this block that are inside the plate (its edge stays as it starts).
    for i, j in tack.ndrange((i0, i1), (j0, j1)):
        lap = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]
        v[i, j] = u[i, j] + alpha * lap


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    n = 256
    comm = mpi.Communicator()
    grid = mpi.Decomposition(comm, (n, n), ghost=1)
    g = grid.ghost
    (y0, x0), (by, bx) = grid.origin, grid.block_shape
    # The initial plate (a hot ring), this block's part with its ghosts (zeros outside).
    yy, xx = np.mgrid[y0 - g:y0 + by + g, x0 - g:x0 + bx + g]
    r = np.hypot(yy - n / 2, xx - n / 2)
    init = (np.abs(r - n / 4) < 6).astype(np.float32)
    u, v = tack.array(init), tack.array(init)
    # Local index ranges of the cells to update: the owned ones not on the plate's edge.
    i0, i1 = g + (1 if y0 == 0 else 0), g + by - (1 if y0 + by == n else 0)
    j0, j1 = g + (1 if x0 == 0 else 0), g + bx - (1 if x0 + bx == n else 0)
    for _ in range(steps):
        grid.exchange(u)
        heat_block(u, v, 0.2, i0, i1, j0, j1)
        u, v = v, u
    # Blocks differ by a cell at most: each travels in the largest block's shape.
    pad = np.zeros(tuple(-(-n // p) for p in grid.ranks), np.float32)
    pad[:by, :bx] = u.numpy()[g:g + by, g:g + bx]
    mine = tack.array(pad)
    blocks = comm.gather(mine, root=0)
    origins = comm.gather(tack.array(np.array([y0, x0, by, bx], np.int64)), root=0)
    if comm.rank == 0:
        plate = np.zeros((n, n), np.float32)
        for block, (oy, ox, hy, hx) in zip(blocks.numpy(), origins.numpy()):
            plate[oy:oy + hy, ox:ox + hx] = block[:hy, :hx]
        rgb = tack.zeros((n, n, 3), dtype=tack.u8)
        colour(tack.array(plate), rgb)
        write_png("heat_distributed.png", rgb.numpy())
        if len(sys.argv) > 2:
            np.save(sys.argv[2], plate)
        print(f"{steps} heat steps on {n}x{n} over {comm.size} ranks {grid.ranks}: centre "
              f"{plate[n // 2, n // 2]:.4f}, ring {plate[n // 2, n // 2 + n // 4]:.4f}; "
              f"wrote heat_distributed.png")


if __name__ == "__main__":
    main()
