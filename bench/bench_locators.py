"""tack.dataset.CellLocator and probe against VTK's on the same mesh in the same process
(docs/design/locators.md), VTK's STDThread SMP backend with as many threads as Tack's CPU pool,
each figure the best of several runs: the tetrahedra vtkDataSetTriangleFilter makes of an image
of m^3 points (76 by default: 2.1 M cells), warped by a smooth map, and 10^6 random points in
its bounds:
* building the locator: tack.dataset.CellLocator against vtkStaticCellLocator.BuildLocator;
* probing a point field at the points, a locator built each time: tack.dataset.probe against
  vtkProbeFilter with a new vtkStaticCellLocator (threaded in VTK 9.2 and later);
* Tack's find_cells alone, on a built locator.
Prints the times and the ratios VTK time / Tack time (the issue's goal: 3), and checks that the
two probes agree (the valid masks equal, the values within 1e-5).

    PYTHONPATH=build/dev/python .venv/bin/python bench/bench_locators.py [m] [points] [--device NAME]
"""
import os
import sys
import time

import numpy as np

import tack
import tack.dataset as td
from _util import best_of, record

try:
    import vtkmodules.all as vtk
    from vtkmodules.util import numpy_support as ns
except ImportError:  # pragma: no cover
    print("bench_locators skipped: the vtk package is not installed (pip install vtk)")
    sys.exit(0)

ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]
DEVICE = sys.argv[sys.argv.index("--device") + 1] if "--device" in sys.argv else "cpu"
if DEVICE != "cpu":
    ARGS = [a for a in ARGS if a != DEVICE]
M = int(ARGS[0]) if len(ARGS) > 0 else 76
N_POINTS = int(float(ARGS[1])) if len(ARGS) > 1 else 1_000_000
THREADS = os.cpu_count()


def tetrahedra(m):
    im = vtk.vtkImageData()
    im.SetDimensions(m, m, m)
    im.SetSpacing(1.0 / (m - 1), 1.0 / (m - 1), 1.0 / (m - 1))
    tri = vtk.vtkDataSetTriangleFilter()
    tri.SetInputData(im)
    tri.Update()
    ug = tri.GetOutput()
    p = ns.vtk_to_numpy(ug.GetPoints().GetData()).astype(np.float64)
    warped = p + 0.02 * np.sin(2 * np.pi * p[:, [1, 2, 0]])
    pts = vtk.vtkPoints()
    pts.SetData(ns.numpy_to_vtk(warped, deep=True))
    ug.SetPoints(pts)
    f = ns.numpy_to_vtk((np.sin(3 * warped[:, 0]) * warped[:, 1] + warped[:, 2]).astype(
        np.float32), deep=True)
    f.SetName("f")
    ug.GetPointData().AddArray(f)
    return ug, warped


def main():
    vtk.vtkSMPTools.SetBackend("STDThread")
    vtk.vtkSMPTools.Initialize(THREADS)
    ug, p = tetrahedra(M)
    ds = td.from_vtk(ug, device=DEVICE)
    rng = np.random.default_rng(0)
    q = rng.uniform(p.min(0), p.max(0), (N_POINTS, 3))
    tq = tack.array(q, device=DEVICE)
    print(f"VTK {vtk.vtkVersion.GetVTKVersion()} ({vtk.vtkSMPTools.GetBackend()}, "
          f"{vtk.vtkSMPTools.GetEstimatedNumberOfThreads()} threads) vs Tack on {DEVICE}: "
          f"{ds.n_cells / 1e6:.2f} M tetrahedra, {N_POINTS / 1e6:g} M points")

    t0 = time.perf_counter()
    loc = td.CellLocator(ds)
    loc.find_cells(tq[:10])
    tack.sync()
    print(f"  first locator (kernels compiled): {(time.perf_counter() - t0) * 1e3:.0f} ms; "
          f"bins {loc.bins}")
    tack.finish_compiles()

    def tack_build():
        td.CellLocator(ds)
        tack.sync()

    def vtk_build():
        v = vtk.vtkStaticCellLocator()
        v.SetDataSet(ug)
        v.BuildLocator()

    t_build = best_of(tack_build, repeat=5)
    v_build = best_of(vtk_build, repeat=5)

    def tack_find():
        loc.find_cells(tq)
        tack.sync()
    t_find = best_of(tack_find, repeat=5)

    def tack_probe():
        out = td.probe(ds, tq)
        tack.sync()
        return out

    src = vtk.vtkPolyData()
    vp = vtk.vtkPoints()
    vp.SetData(ns.numpy_to_vtk(q, deep=True))
    src.SetPoints(vp)

    def vtk_probe():
        probe = vtk.vtkProbeFilter()
        probe.SetInputData(src)
        probe.SetSourceData(ug)
        if hasattr(probe, "SetCellLocator"):  # VTK 9.7 (the prototype is deprecated there)
            probe.SetCellLocator(vtk.vtkStaticCellLocator())
        else:
            probe.SetCellLocatorPrototype(vtk.vtkStaticCellLocator())
        probe.Update()
        return probe.GetOutput()
    t_probe = best_of(tack_probe, repeat=3)
    v_probe = best_of(vtk_probe, repeat=3)

    ours, theirs = tack_probe(), vtk_probe()
    valid = ns.vtk_to_numpy(theirs.GetPointData().GetArray("vtkValidPointMask"))
    mine = ours.point_data["valid"].numpy()
    differ = int((valid != mine).sum())
    ok = (valid == 1) & (mine == 1)
    err = float(np.max(np.abs(ours.point_data["f"].numpy()[ok] -
                              ns.vtk_to_numpy(theirs.GetPointData().GetArray("f"))[ok])))

    print(f"  build    Tack {t_build * 1e3:8.1f} ms | vtkStaticCellLocator {v_build * 1e3:8.1f} ms:"
          f" {v_build / t_build:5.2f}x")
    print(f"  probe    Tack {t_probe * 1e3:8.1f} ms | vtkProbeFilter       {v_probe * 1e3:8.1f} ms:"
          f" {v_probe / t_probe:5.2f}x   (locator built in each)")
    print(f"  find_cells alone, on a built locator: {t_find * 1e3:.1f} ms "
          f"({t_find / N_POINTS * 1e9:.0f} ns a point)")
    print(f"  valid masks differ at {differ} of {N_POINTS} points; values within {err:.1e}")
    case = f"{ds.n_cells / 1e6:.1f} M tets, {DEVICE}"
    record("bench_locators.py", f"build ({case})", round(v_build / t_build, 2),
           "vtkStaticCellLocator / Tack")
    record("bench_locators.py", f"probe {N_POINTS / 1e6:g} M points ({case})",
           round(v_probe / t_probe, 2), "vtkProbeFilter / Tack")


if __name__ == "__main__":
    main()
