"""The cells each work item walks (src/dataset/marching.hpp, cell_chunk): the CPU's runs of at
least 512, one on GPUs, 64 on an OpenCL CPU device (PoCL), or TACK_DEVICE_CELL_CHUNK. The run
length is a launch's layout, never its result: contour, slice and clip of tetrahedra on an OpenCL
device give the CPU's arrays bit for bit with one cell per work item (the GPUs' layout, which
this machine has no GPU to run), an odd run that leaves a partial last one, and the default."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tack

pytest.importorskip("vtkmodules.all")

SCRIPT = r"""
import json, sys
import numpy as np
import tack
import tack.dataset as td
import vtkmodules.all as vtk

image = vtk.vtkImageData()
image.SetDimensions(17, 15, 13)
image.SetSpacing(0.1, 0.11, 0.12)
tets = vtk.vtkDataSetTriangleFilter()
tets.SetInputData(image)
tets.Update()
obj = tets.GetOutput()
out = {}
for name in ("cpu", sys.argv[1]):
    ds = td.from_vtk(obj, device=tack.device(name))
    p = ds.points.numpy()
    ds.point_data["f"] = np.sin(3 * p[:, 0]) + np.cos(4 * p[:, 1]) * p[:, 2]
    results = {"contour": td.contour(ds, "f", [0.3]),
               "slice": td.slice(ds, td.Plane(origin=(0.8, 0.7, 0.7), normal=(1, 2, 3))),
               "clip": td.clip(ds, "f", 0.3),
               "clip_plane": td.clip(ds, td.Plane(origin=(0.8, 0.7, 0.7), normal=(1, 2, 3)))}
    out[name] = {k: {a: getattr(r, a).numpy().tolist()
                     for a in ("points", "connectivity", "offsets")}
                 for k, r in results.items()}
print(json.dumps([len(out["cpu"]["clip"]["offsets"]), out["cpu"] == out[sys.argv[1]]]))
"""


def opencl_device():
    found = [d for d in tack.devices() if d.kind == "opencl"]
    if not found:
        pytest.skip("no OpenCL device")
    return found[0].name


@pytest.mark.parametrize("chunk", ["1", "7", ""])
def test_the_run_of_cells_per_work_item_changes_no_result(chunk):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), TACK_DEVICE_CELL_CHUNK=chunk)
    run = subprocess.run([sys.executable, "-c", SCRIPT, opencl_device()], env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert "warning" not in run.stderr, run.stderr
    cells, same = json.loads(run.stdout.strip().splitlines()[-1])
    assert cells > 1000  # many runs of cells, whichever the length
    assert same, f"TACK_DEVICE_CELL_CHUNK={chunk!r}: the device's arrays differ from the CPU's"


def test_a_bad_value_is_ignored_with_a_warning():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), TACK_DEVICE_CELL_CHUNK="0")
    run = subprocess.run([sys.executable, "-c", SCRIPT, opencl_device()], env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert run.stderr.count("TACK_DEVICE_CELL_CHUNK='0' is not a number of cells") == 1, run.stderr
    assert json.loads(run.stdout.strip().splitlines()[-1])[1]
