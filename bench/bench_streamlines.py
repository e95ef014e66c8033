"""tack.dataset.streamlines against vtkStreamTracer on the same mesh and seeds in the same
process (docs/design/locators.md), VTK's STDThread SMP backend with as many threads as Tack's CPU
pool, each figure the best of a few runs: bench_locators.py's warped tetrahedra (m^3 image
points, 60 by default: 1.0 M cells) holding a swirl v = (0.5 - y, x - 0.5, 0.02), and s seeds
(10^4 by default) at random radii round the axis, each traced forward 1,000 RK4 steps of a fixed
length (VTK's LENGTH_UNIT). Prints both times, the ratio VTK / Tack (the issue's goal: 5), the
point counts and how far apart the two lines' first 100 points are.

    PYTHONPATH=build/dev/python .venv/bin/python bench/bench_streamlines.py [m] [seeds] [--device NAME]
"""
import os
import sys
import time

import numpy as np

import tack
import tack.dataset as td
from _util import best_of, record
from bench_locators import tetrahedra

try:
    import vtkmodules.all as vtk
    from vtkmodules.util import numpy_support as ns
except ImportError:  # pragma: no cover
    print("bench_streamlines skipped: the vtk package is not installed (pip install vtk)")
    sys.exit(0)

ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]
DEVICE = sys.argv[sys.argv.index("--device") + 1] if "--device" in sys.argv else "cpu"
if DEVICE != "cpu":
    ARGS = [a for a in ARGS if a != DEVICE]
M = int(ARGS[0]) if len(ARGS) > 0 else 60
SEEDS = int(float(ARGS[1])) if len(ARGS) > 1 else 10_000
STEPS = 1000
STEP = 0.002
THREADS = os.cpu_count()


def main():
    vtk.vtkSMPTools.SetBackend("STDThread")
    vtk.vtkSMPTools.Initialize(THREADS)
    ug, p = tetrahedra(M)
    v = np.stack([0.5 - p[:, 1], p[:, 0] - 0.5, np.full(len(p), 0.02)], 1)
    a = ns.numpy_to_vtk(v, deep=True)
    a.SetName("v")
    ug.GetPointData().AddArray(a)
    ds = td.from_vtk(ug, device=DEVICE)
    rng = np.random.default_rng(1)
    r = rng.uniform(0.1, 0.4, SEEDS)
    phi = rng.uniform(0, 2 * np.pi, SEEDS)
    seeds = np.stack([0.5 + r * np.cos(phi), 0.5 + r * np.sin(phi),
                      rng.uniform(0.1, 0.3, SEEDS)], 1)
    print(f"VTK {vtk.vtkVersion.GetVTKVersion()} ({vtk.vtkSMPTools.GetBackend()}, "
          f"{vtk.vtkSMPTools.GetEstimatedNumberOfThreads()} threads) vs Tack on {DEVICE}: "
          f"{ds.n_cells / 1e6:.2f} M tetrahedra, {SEEDS} seeds x {STEPS} RK4 steps")
    loc = td.CellLocator(ds)
    t0 = time.perf_counter()
    td.streamlines(ds, "v", seeds[:10], step=STEP, max_steps=STEPS, locator=loc)
    tack.sync()
    print(f"  first call (kernels compiled): {(time.perf_counter() - t0) * 1e3:.0f} ms")
    tack.finish_compiles()

    def ours():
        out = td.streamlines(ds, "v", seeds, step=STEP, max_steps=STEPS, locator=loc)
        tack.sync()
        return out

    src = vtk.vtkPolyData()
    sp = vtk.vtkPoints()
    sp.SetData(ns.numpy_to_vtk(seeds, deep=True))
    src.SetPoints(sp)

    def theirs():
        tracer = vtk.vtkStreamTracer()
        tracer.SetInputData(ug)
        tracer.SetInputArrayToProcess(0, 0, 0, 0, "v")
        tracer.SetSourceData(src)
        tracer.SetIntegratorTypeToRungeKutta4()
        tracer.SetIntegrationStepUnit(1)  # length
        tracer.SetInitialIntegrationStep(STEP)
        tracer.SetMaximumNumberOfSteps(STEPS)
        tracer.SetMaximumPropagation(1e9)
        tracer.SetIntegrationDirectionToForward()
        tracer.SetComputeVorticity(False)
        tracer.Update()
        return tracer.GetOutput()

    t_ours = best_of(ours, repeat=2)
    t_vtk = best_of(theirs, repeat=1)
    mine, vtks = ours(), theirs()
    # the first line's first 100 points, both ways
    off = mine.offsets.numpy()
    vconn = ns.vtk_to_numpy(vtks.GetLines().GetConnectivityArray())
    voff = ns.vtk_to_numpy(vtks.GetLines().GetOffsetsArray())
    vp = ns.vtk_to_numpy(vtks.GetPoints().GetData())
    far = max(float(np.max(np.abs(mine.points.numpy()[off[i]:off[i] + 100] -
                                  vp[vconn[voff[i]:voff[i] + 100]]))) for i in range(10))
    print(f"  streamlines  Tack {t_ours * 1e3:8.0f} ms | vtkStreamTracer {t_vtk * 1e3:8.0f} ms: "
          f"{t_vtk / t_ours:5.2f}x")
    print(f"  points: Tack {mine.n_points}, VTK {vtks.GetNumberOfPoints()}; the first 100 points "
          f"of the first 10 lines within {far:.1e}")
    record("bench_streamlines.py", f"{SEEDS} lines x {STEPS} steps ({ds.n_cells / 1e6:.1f} M "
           f"tets, {DEVICE})", round(t_vtk / t_ours, 2), "vtkStreamTracer / Tack")


if __name__ == "__main__":
    main()
