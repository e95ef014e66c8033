"""tack.dataset's filters against VTK's on the same data in the same process (docs/dataset.md):
VTK's STDThread SMP backend with as many threads as Tack's CPU pool (the machine's cores), each
figure the best of several runs. Meshes: an image of n^3 points (128 by default) and the
unstructured grid of tetrahedra VTK's vtkDataSetTriangleFilter makes of an image of m^3 points
(48: about 0.5 M tetrahedra). Prints times and the ratio VTK time / Tack time (above 1: Tack is
faster; the issue's goal is 2).

    PYTHONPATH=build/dev/python .venv/bin/python bench/bench_dataset.py [n] [m]
"""
import os
import sys

import numpy as np

import tack
import tack.dataset as td
from _util import best_of, record

try:
    import vtkmodules.all as vtk
    from vtkmodules.util import numpy_support as ns
except ImportError:  # pragma: no cover
    print("bench_dataset skipped: the vtk package is not installed (pip install vtk)")
    sys.exit(0)

N = int(sys.argv[1]) if len(sys.argv) > 1 else 128
M = int(sys.argv[2]) if len(sys.argv) > 2 else 48
THREADS = os.cpu_count()


def image(n):
    im = vtk.vtkImageData()
    im.SetDimensions(n, n, n)
    im.SetSpacing(1.0 / (n - 1), 1.0 / (n - 1), 1.0 / (n - 1))
    x = np.linspace(0, 1, n)
    zz, yy, xx = np.meshgrid(x, x, x, indexing="ij")
    p = ns.numpy_to_vtk(np.sin(6 * xx.ravel()) * np.cos(5 * yy.ravel()) + zz.ravel(), deep=True)
    p.SetName("p")
    im.GetPointData().AddArray(p)
    c = ns.numpy_to_vtk(np.arange(im.GetNumberOfCells(), dtype=np.float64), deep=True)
    c.SetName("c")
    im.GetCellData().AddArray(c)
    return im


def tetrahedra(m):
    tri = vtk.vtkDataSetTriangleFilter()
    tri.SetInputData(image(m))
    tri.Update()
    return tri.GetOutput()


def gradient_filter():
    f = vtk.vtkGradientFilter()
    f.SetInputArrayToProcess(0, 0, 0, 0, "p")
    return f


def threshold_filter():
    f = vtk.vtkThreshold()
    f.SetInputArrayToProcess(0, 0, 0, 0, "p")
    f.SetLowerThreshold(0.0)
    f.SetUpperThreshold(1.0)
    return f


def vtk_time(algorithm, obj, **settings):
    algorithm.SetInputData(obj)
    for k, v in settings.items():
        getattr(algorithm, "Set" + k)(*v) if isinstance(v, tuple) else getattr(
            algorithm, "Set" + k)(v)

    def run():
        algorithm.Modified()
        algorithm.Update()
    return best_of(run, repeat=5)


def tack_time(fn):
    def run():
        fn()
        tack.sync()
    run()
    tack.finish_compiles()  # the optimized builds, not the quick ones (tiered compile)
    return best_of(run, repeat=5)


def main():
    vtk.vtkSMPTools.SetBackend("STDThread")
    vtk.vtkSMPTools.Initialize(THREADS)
    print(f"VTK {vtk.vtkVersion.GetVTKVersion()} ({vtk.vtkSMPTools.GetBackend()}, "
          f"{vtk.vtkSMPTools.GetEstimatedNumberOfThreads()} threads) vs Tack on the CPU "
          f"({THREADS} cores)")
    meshes = [(f"image {N}^3", image(N)), (f"tetrahedra of {M}^3", tetrahedra(M))]
    for label, obj in meshes:
        ds = td.from_vtk(obj, device="cpu")
        print(f"{label}: {ds.n_points} points, {ds.n_cells} cells")
        cases = [
            ("elevation", lambda: vtk_time(vtk.vtkElevationFilter(), obj,
                                           LowPoint=(0, 0, 0), HighPoint=(1, 1, 1)),
             lambda: td.elevation(ds, (0, 0, 0), (1, 1, 1))),
            ("point_to_cell", lambda: vtk_time(vtk.vtkPointDataToCellData(), obj),
             lambda: td.point_to_cell(ds, "p")),
            ("cell_to_point", lambda: vtk_time(vtk.vtkCellDataToPointData(), obj),
             lambda: td.cell_to_point(ds, "c")),
            ("cell_centers", lambda: vtk_time(vtk.vtkCellCenters(), obj, VertexCells=True),
             lambda: td.cell_centers(ds)),
            ("gradient", lambda: vtk_time(gradient_filter(), obj),
             lambda: td.gradient(ds, "p")),
            ("threshold", lambda: vtk_time(threshold_filter(), obj),
             lambda: td.threshold(ds, "p", 0.0, 1.0, association="point")),
            ("external_faces", lambda: vtk_time(vtk.vtkDataSetSurfaceFilter(), obj),
             lambda: td.external_faces(ds)),
            ("integrate", lambda: vtk_time(vtk.vtkIntegrateAttributes(), obj),
             lambda: td.integrate(ds)),
        ]
        for name, run_vtk, run_tack in cases:
            t_vtk = run_vtk()
            t_tack = tack_time(run_tack)
            ratio = t_vtk / t_tack
            print(f"  {name:14s} VTK {t_vtk * 1e3:9.2f} ms   Tack {t_tack * 1e3:9.2f} ms   "
                  f"VTK / Tack {ratio:6.2f}")
            record("dataset", f"{name} ({label})", round(ratio, 2), "vtk / tack")


if __name__ == "__main__":
    main()
