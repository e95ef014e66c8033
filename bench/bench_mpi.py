"""Tack over MPI (issue 15), on two ranks of this machine, each figure beside its reference in the
same run: a 64 MiB f32 ping-pong and a 64 MiB f32 allreduce of Tack arrays against mpi4py's
buffer calls (Send/Recv, Allreduce) on NumPy arrays of the same size; the latency and bandwidth
of small and large messages (for docs/distributed.md's estimate at 1,000 ranks); and the weak
scaling of the distributed heat stencil, 1 rank against 2 with the same block per rank, its time
split into compute and exchange.

    PYTHONPATH=build/dev/python .venv/bin/python bench/bench_mpi.py

Run without mpirun, it starts itself under `mpirun -np 2` (and `-np 1` for weak scaling) and
prints rank 0's lines."""
import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MIB64 = 16 * 1024 * 1024  # f32 elements in 64 MiB
ENV = {"OMPI_MCA_btl": "self,vader", "TACK_NUM_THREADS": "1"}


def launch():
    """Not under MPI: run this script under mpirun and report."""
    sys.path.insert(0, HERE)
    from _util import record
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        print("mpirun is not installed: bench_mpi skipped")
        return
    try:
        import tack._mpi  # noqa: F401
    except ImportError as e:
        print(f"Tack was built without MPI ({e}): bench_mpi skipped")
        return
    flags = ["--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
    results = {}
    for n in (2, 1):
        r = subprocess.run([mpirun, "-np", str(n), *flags, sys.executable, __file__, "child"],
                           capture_output=True, text=True, timeout=900,
                           env=dict(os.environ, **ENV))
        if r.returncode != 0:
            raise RuntimeError(r.stdout[-2000:] + r.stderr[-2000:])
        results[n] = json.loads(r.stdout.strip().splitlines()[-1])
    two, one = results[2], results[1]
    print(f"mpi on 2 ranks, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}")
    for case in ("ping-pong 64 MiB", "allreduce 64 MiB"):
        t, ref = two[case]["tack"], two[case]["mpi4py"]
        if ref is None:
            print(f"{case:22s} tack {t * 1e3:8.2f} ms  (mpi4py not installed: no reference)")
            continue
        print(f"{case:22s} tack {t * 1e3:8.2f} ms  mpi4py on NumPy {ref * 1e3:8.2f} ms  "
              f"ratio {ref / t:5.2f}")
        record("bench_mpi.py", case, ref / t, "mpi4py on numpy / tack")
    lat, bw = two["latency_us"], two["bandwidth_gbs"]
    print(f"latency (8-byte ping-pong, half round trip) {lat:.2f} us; bandwidth 64 MiB "
          f"{bw:.2f} GB/s")
    record("bench_mpi.py", "latency (us)", lat, "us")
    record("bench_mpi.py", "bandwidth 64 MiB (GB/s)", bw, "GB/s")
    s1, s2 = one["stencil"], two["stencil"]
    print(f"weak scaling, heat stencil {s1['block']} per rank, {s1['steps']} steps:")
    for n, s in ((1, s1), (2, s2)):
        print(f"  {n} rank(s): {s['total'] * 1e3:8.2f} ms/step = compute {s['compute'] * 1e3:.2f}"
              f" + exchange {s['exchange'] * 1e3:.2f}")
    print(f"  efficiency (1-rank time / 2-rank time) {s1['total'] / s2['total']:.2f}")
    record("bench_mpi.py", "weak scaling 1 -> 2 ranks", s1["total"] / s2["total"],
           "efficiency (1 rank time / 2 rank time)")


def child():
    from _util import best_of as best  # this script's folder is on the path
    import tack
    from tack import mpi
    comm = mpi.Communicator()
    rank, size = comm.rank, comm.size
    try:
        from mpi4py import MPI
    except ImportError:
        MPI = None
    out = {}
    if size == 2:
        other = 1 - rank
        a, b = tack.ones(MIB64), tack.zeros(MIB64)

        def tack_pingpong():
            if rank == 0:
                comm.send(a, other)
                comm.recv(b, other)
            else:
                comm.recv(b, other)
                comm.send(a, other)

        na, nb = np.ones(MIB64, np.float32), np.zeros(MIB64, np.float32)

        def ref_pingpong():
            w = MPI.COMM_WORLD
            if rank == 0:
                w.Send(na, other)
                w.Recv(nb, other)
            else:
                w.Recv(nb, other)
                w.Send(na, other)

        def tack_allreduce():
            comm.allreduce(a, out=b)

        def ref_allreduce():
            MPI.COMM_WORLD.Allreduce(na, nb)

        for case, t_fn, r_fn in (("ping-pong 64 MiB", tack_pingpong, ref_pingpong),
                                 ("allreduce 64 MiB", tack_allreduce, ref_allreduce)):
            times = {"tack": [], "mpi4py": []}
            for _ in range(5):  # interleaved, best of each
                comm.barrier()
                times["tack"].append(best(t_fn, 1))
                if MPI is not None:
                    comm.barrier()
                    times["mpi4py"].append(best(r_fn, 1))
            out[case] = {"tack": min(times["tack"]),
                         "mpi4py": min(times["mpi4py"]) if times["mpi4py"] else None}
        small, small_in = tack.ones(2), tack.zeros(2)

        def tiny():
            for _ in range(200):
                if rank == 0:
                    comm.send(small, other)
                    comm.recv(small_in, other)
                else:
                    comm.recv(small_in, other)
                    comm.send(small, other)

        out["latency_us"] = best(tiny, 3) / 400 * 1e6
        out["bandwidth_gbs"] = 2 * a.nbytes / out["ping-pong 64 MiB"]["tack"] / 1e9
    out["stencil"] = stencil(comm)
    if rank == 0:
        print(json.dumps(out))


def stencil(comm):
    """Time per step of the heat stencil on a 2048 x 2048 block per rank (rows split)."""
    import tack
    from tack import mpi
    sys.path.insert(0, os.path.join(HERE, "..", "examples", "mpi"))
    from heat_distributed import heat_block
    block, steps = 2048, 20
    grid = mpi.Decomposition(comm, (block * comm.size, block), ghost=1, ranks=(comm.size, 1))
    u, v = grid.allocate(), grid.allocate()
    g = grid.ghost
    compute = exchange = 0.0
    grid.exchange(u)
    heat_block(u, v, 0.2, g, g + grid.block_shape[0], g + 1, g + block - 1)  # compiled here
    comm.barrier()
    for _ in range(steps):
        t0 = time.perf_counter()
        grid.exchange(u)
        t1 = time.perf_counter()
        heat_block(u, v, 0.2, g, g + grid.block_shape[0], g + 1, g + block - 1)
        t2 = time.perf_counter()
        exchange += t1 - t0
        compute += t2 - t1
        u, v = v, u
    return {"block": f"{block}x{block}", "steps": steps, "compute": compute / steps,
            "exchange": exchange / steps, "total": (compute + exchange) / steps}


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "child":
        child()
    else:
        launch()
