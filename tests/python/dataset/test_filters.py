"""The first filters against VTK's (docs/design/dataset.md): elevation (vtkElevationFilter),
point_to_cell (vtkPointDataToCellData) and cell_centers (vtkCellCenters with vertex cells), on
every dataset kind and cell type, on every device: counts equal, values within 1e-6 relative."""
import numpy as np
import pytest

import tack
import tack.dataset as td

vtk = pytest.importorskip("vtkmodules.all")
ns = pytest.importorskip("vtkmodules.util.numpy_support")

from test_model import MAKERS  # noqa: E402 - after the skip

KINDS = sorted(MAKERS)


def run(algorithm, obj, **settings):
    algorithm.SetInputData(obj)
    for k, v in settings.items():
        getattr(algorithm, "Set" + k)(*v) if isinstance(v, tuple) else getattr(
            algorithm, "Set" + k)(v)
    algorithm.Update()
    return algorithm.GetOutput()


def close(got, want, rtol=1e-6):
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * max(1.0, np.abs(want).max()))


@pytest.mark.parametrize("kind", KINDS)
def test_elevation_is_vtks(kind, device):
    obj = MAKERS[kind]()
    low, high, rng = (0.1, -0.5, 0.2), (1.2, 0.9, 2.5), (-2.0, 3.0)
    want = run(vtk.vtkElevationFilter(), obj, LowPoint=low, HighPoint=high, ScalarRange=rng)
    ds = td.elevation(td.from_vtk(obj), low, high, rng)
    got = ds.point_data["elevation"]
    assert got.dtype == np.float32 and got.device == device
    close(got.numpy(), ns.vtk_to_numpy(want.GetPointData().GetArray("Elevation")))
    data = obj.GetPointData()
    assert all(data.GetArrayName(i) in ds.point_data  # the input's fields stay
               for i in range(data.GetNumberOfArrays()))


@pytest.mark.parametrize("kind", KINDS)
def test_point_to_cell_is_vtks(kind, device):
    obj = MAKERS[kind]()
    if obj.GetPointData().GetArray("pressure") is None:
        pytest.skip("no point fields")
    want = run(vtk.vtkPointDataToCellData(), obj)
    ds = td.from_vtk(obj)
    for name in ("pressure", "velocity"):
        out = td.point_to_cell(ds, name)
        got = out.cell_data[name]
        src = ds.point_data[name]
        assert got.dtype == src.dtype and got.shape == (ds.n_cells,) + src.shape[1:]
        close(got.numpy(), ns.vtk_to_numpy(want.GetCellData().GetArray(name)),
              rtol=1e-6 if src.dtype == np.float64 else 1e-5)
    ints = td.point_to_cell(ds, "id").cell_data["id"]
    assert ints.dtype == np.float64  # an integer field averages to f64
    np.testing.assert_allclose(ints.numpy(), ns.vtk_to_numpy(want.GetCellData().GetArray("id")),
                               rtol=0, atol=1.0)  # VTK keeps int32: its average is truncated


@pytest.mark.parametrize("kind", KINDS)
def test_cell_centers_are_vtks(kind, device):
    obj = MAKERS[kind]()
    want = run(vtk.vtkCellCenters(), obj, VertexCells=True)
    ds = td.from_vtk(obj)
    out = td.cell_centers(ds)
    assert out.kind == "poly" and out.device == device
    assert (out.n_points, out.n_cells) == (want.GetNumberOfPoints(), want.GetNumberOfCells())
    close(out.points.numpy(), ns.vtk_to_numpy(want.GetPoints().GetData()), 1e-6)
    assert out.types.numpy().tolist() == [1] * ds.n_cells
    for name in ds.cell_data:
        np.testing.assert_array_equal(out.point_data[name].numpy(), ds.cell_data[name].numpy())


def test_filters_name_a_missing_field():
    ds = td.from_vtk(MAKERS["poly"]())
    with pytest.raises(KeyError, match=r"no point field 'rho'; there are 'pressure', "
                                       r"'velocity', 'id'"):
        td.point_to_cell(ds, "rho")


@pytest.mark.parametrize("kind", KINDS)
def test_cell_to_point_is_vtks(kind, device):
    obj = MAKERS[kind]()
    if obj.GetCellData().GetArray("pressure") is None:
        pytest.skip("no cell fields")
    want = run(vtk.vtkCellDataToPointData(), obj)
    ds = td.from_vtk(obj)
    for name in ("pressure", "velocity"):
        got = td.cell_to_point(ds, name).point_data[name]
        assert got.dtype == ds.cell_data[name].dtype and got.shape[0] == ds.n_points
        close(got.numpy(), ns.vtk_to_numpy(want.GetPointData().GetArray(name)),
              rtol=1e-6 if got.dtype == np.float64 else 1e-5)


def test_cell_to_point_gives_zero_to_a_point_no_cell_uses(device):
    ds = td.unstructured(np.eye(4, 3), [0, 3], [0, 1, 2], np.array([5]))  # point 3 unused
    ds.cell_data["q"] = tack.array([2.0])
    assert td.cell_to_point(ds, "q").point_data["q"].numpy().tolist() == [2.0, 2.0, 2.0, 0.0]
