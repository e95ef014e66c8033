"""A distributed tack.dataset.AMR (docs/design/amr.md, "Distributed") on bench_amr.py's
hierarchy (five levels, ratio 2, about 15,000 boxes, ghost width 2), run under mpirun: each rank
owns a balanced share of every level's boxes. Times ghost_cells and average_down per call (the
slowest rank's, between barriers), and, in the same run, the same calls on one process (rank 0
alone, the other ranks waiting), each rank with the same number of threads. Prints the ratio
(one process / distributed: N ranks at best make it N) and checks that the distributed values
equal the single process's bit for bit.

    TACK_NUM_THREADS=1 mpirun -np 2 python bench/bench_amr_mpi.py [--small]

Run without mpirun (as tools/run_benchmarks.sh does), it runs itself so: 2 ranks of one thread.
"""
import os
import shutil
import subprocess
import sys
import time

import numpy as np

import tack
import tack.dataset as td
from tack import mpi
from bench_amr import G, R, hierarchy
from _util import record


def timed(comm, fn, repeat=5):
    """The best of `repeat` runs of fn() on every rank, each the slowest rank's time."""
    fn()
    best = float("inf")
    for _ in range(repeat):
        comm.barrier()
        t0 = time.perf_counter()
        fn()
        tack.sync()
        comm.barrier()
        best = min(best, time.perf_counter() - t0)
    return best


def filled(levels, comm=None):
    amr = td.AMR(levels, ratio=R, comm=comm)
    amr.add_field("u", dtype=tack.f64, ghost=G)
    rng = np.random.default_rng(0)
    for level, boxes in enumerate(levels):  # box b's values: the same whichever rank has it
        sizes = [np.prod([hi[a] - lo[a] + 1 + 2 * G for a in range(3)]) for lo, hi in boxes]
        values = rng.standard_normal(int(sum(sizes)))
        at = np.concatenate([[0], np.cumsum(sizes)])
        mine = amr.local_boxes(level)
        if mine:
            tack.copyto(amr.level_array("u", level),
                        np.concatenate([values[at[b]:at[b + 1]] for b in mine]))
    return amr


def under_mpirun():
    """Runs this script under mpirun -np 2 (one thread a rank) when it was not started so; True
    when it did."""
    if any(v in os.environ for v in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE")):
        return False
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        print("bench_amr_mpi.py skipped: mpirun is not installed (Debian: openmpi-bin)")
        return True
    cmd = [mpirun, "-np", "2", "--oversubscribe"] + \
        (["--allow-run-as-root"] if os.geteuid() == 0 else []) + [sys.executable] + sys.argv
    env = dict(os.environ, TACK_NUM_THREADS="1", OMPI_MCA_btl="self,vader",
               OMPI_MCA_btl_vader_single_copy_mechanism="none")
    subprocess.run(cmd, env=env, check=True)
    return True


def main():
    if under_mpirun():
        return
    comm = mpi.Communicator()
    levels, _ = hierarchy()
    dist = filled(levels, comm)
    t_ghost = timed(comm, lambda: td.ghost_cells(dist, "u"))
    t_avg = timed(comm, lambda: td.average_down(dist, "u"))
    one = filled(levels) if comm.rank == 0 else None

    def on_rank_0(fn):
        return lambda: fn() if comm.rank == 0 else None
    t_one_ghost = timed(comm, on_rank_0(lambda: td.ghost_cells(one, "u")))
    t_one_avg = timed(comm, on_rank_0(lambda: td.average_down(one, "u")))
    # the same values (both have run each call as often, in the same order): rank 0's boxes
    if comm.rank == 0:
        for level in range(dist.n_levels):
            for b in dist.local_boxes(level):
                assert np.array_equal(dist.box_array("u", level, b).numpy(),
                                      one.box_array("u", level, b).numpy()), (level, b)
        n_boxes = sum(len(level) for level in levels)
        print(f"{len(levels)} levels, {n_boxes} boxes over {comm.size} ranks "
              f"(TACK_NUM_THREADS={os.environ.get('TACK_NUM_THREADS', 'all cores')} each), "
              f"ghost width {G}")
        for name, t, t1 in (("ghost_cells", t_ghost, t_one_ghost),
                            ("average_down", t_avg, t_one_avg)):
            print(f"  {name:13s} distributed {t * 1e3:8.2f} ms | one process {t1 * 1e3:8.2f} ms: "
                  f"{t1 / t:5.2f}x")
            record("bench_amr_mpi.py", f"{name} ({n_boxes} boxes, {comm.size} ranks)",
                   round(t1 / t, 2), "one process / distributed")


if __name__ == "__main__":
    main()
