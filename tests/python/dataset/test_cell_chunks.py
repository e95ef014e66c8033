"""The cells each work item walks (src/dataset/marching.hpp, cell_chunk; the rule itself is
tests/e2e/cell_chunk_test.cpp): the CPU's runs of at least 512, one on GPUs, 64 on an OpenCL CPU
device (PoCL), or TACK_DEVICE_CELL_CHUNK. The run length is a launch's layout, never its result:
contour, slice and clip of tetrahedra on a device give the CPU's arrays bit for bit with the
GPUs' chunk of one cell, with runs of 7 and 130 cells that leave a partial last run, and with the
device's own."""
import numpy as np
import pytest

import tack
import tack.dataset as td

vtk = pytest.importorskip("vtkmodules.all")

WARNED = []  # the devices test_a_bad_value_is_ignored_with_one_warning ran on
PLANE = dict(origin=(0.8, 0.7, 0.7), normal=(1, 2, 3))


def tetrahedra():
    image = vtk.vtkImageData()
    image.SetDimensions(18, 16, 13)  # 3,060 voxels: no chunk below divides their tetrahedra
    image.SetSpacing(0.1, 0.11, 0.12)
    tets = vtk.vtkDataSetTriangleFilter()
    tets.SetInputData(image)
    tets.Update()
    return tets.GetOutput()


def filtered(obj, device):
    ds = td.from_vtk(obj, device=device)
    p = ds.points.numpy()
    ds.point_data["f"] = np.sin(3 * p[:, 0]) + np.cos(4 * p[:, 1]) * p[:, 2]
    results = {"contour": td.contour(ds, "f", [0.3]), "slice": td.slice(ds, td.Plane(**PLANE)),
               "clip": td.clip(ds, "f", 0.3), "clip_plane": td.clip(ds, td.Plane(**PLANE))}
    return {(k, a): getattr(r, a).numpy() for k, r in results.items()
            for a in ("points", "connectivity", "offsets")}


@pytest.mark.parametrize("chunk", ["1", "7", "130", ""])
def test_the_run_of_cells_per_work_item_changes_no_result(device, chunk, monkeypatch):
    if device.kind == "cpu":
        pytest.skip("the CPU's runs follow its threads, not TACK_DEVICE_CELL_CHUNK")
    obj = tetrahedra()
    cells = obj.GetNumberOfCells()
    length = int(chunk or (1 if device.kind == "cuda" else 64))
    assert length == 1 or cells % length != 0  # a partial last run
    expected = filtered(obj, tack.device("cpu"))
    monkeypatch.setenv("TACK_DEVICE_CELL_CHUNK", chunk)
    got = filtered(obj, device)
    assert len(expected[("clip", "offsets")]) > 1000
    for key, want in expected.items():
        assert np.array_equal(got[key], want), f"TACK_DEVICE_CELL_CHUNK={chunk!r}: {key} differ"


def test_a_bad_value_is_ignored_with_one_warning(device, monkeypatch, capfd):
    if device.kind == "cpu":
        pytest.skip("the CPU's runs follow its threads, not TACK_DEVICE_CELL_CHUNK")
    obj = tetrahedra()
    expected = filtered(obj, tack.device("cpu"))
    monkeypatch.setenv("TACK_DEVICE_CELL_CHUNK", "0")
    got = filtered(obj, device)
    err = capfd.readouterr().err
    # One warning in a process: this test's first device prints it, a second one nothing.
    assert err.count("TACK_DEVICE_CELL_CHUNK='0' is not a number of cells") == (not WARNED), err
    WARNED.append(device.name)
    for key, want in expected.items():
        assert np.array_equal(got[key], want), key
