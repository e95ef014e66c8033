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
    scale = np.abs(want).max() if np.size(want) else 1.0
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * max(1.0, scale))


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


def cells_of(offsets, connectivity):
    return [connectivity[offsets[i]:offsets[i + 1]].tolist() for i in range(len(offsets) - 1)]


def vtk_cells(obj):
    return [[obj.GetCell(c).GetPointId(k) for k in range(obj.GetCell(c).GetNumberOfPoints())]
            for c in range(obj.GetNumberOfCells())]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("association", ["cell", "point"])
def test_threshold_is_vtks(kind, association, device):
    obj = MAKERS[kind]()
    data = obj.GetCellData() if association == "cell" else obj.GetPointData()
    if data.GetArray("pressure") is None:
        pytest.skip("no fields")
    # a point field's cells need all their points in range: a wider one
    lower, upper = (-0.6, 1.1) if association == "cell" else (-2.2, 2.2)
    t = vtk.vtkThreshold()
    t.SetInputArrayToProcess(0, 0, 0, 1 if association == "cell" else 0, "pressure")
    want = run(t, obj, LowerThreshold=lower, UpperThreshold=upper)
    ds = td.from_vtk(obj)
    out = td.threshold(ds, "pressure", lower, upper, association=association)
    assert out.kind == "unstructured" and out.device == device
    assert (out.n_cells, out.n_points) == (want.GetNumberOfCells(), want.GetNumberOfPoints())
    assert out.n_cells < ds.n_cells and (out.n_cells > 0 or association == "point")
    # VTK keeps the cells and the points they use in the input's order, as Tack does.
    close(out.points.numpy(), ns.vtk_to_numpy(want.GetPoints().GetData()), 1e-6)
    assert cells_of(out.offsets.numpy(), out.connectivity.numpy()) == vtk_cells(want)
    assert out.types.numpy().tolist() == [want.GetCellType(c) for c in range(want.GetNumberOfCells())]
    for mine, theirs in ((out.point_data, want.GetPointData()), (out.cell_data, want.GetCellData())):
        for name in ("pressure", "velocity", "id"):
            np.testing.assert_array_equal(mine[name].numpy(),
                                          ns.vtk_to_numpy(theirs.GetArray(name)))


def test_threshold_components_any_point_and_nan(device):
    pts = np.array([(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)], np.float64)
    ds = td.unstructured(pts, [0, 3, 6], [0, 1, 2, 1, 3, 2], np.array([5, 5]))
    ds.point_data["v"] = np.array([(0.0, 5.0), (0.0, 1.0), (0.0, 1.0), (np.nan, 1.0)])
    assert td.threshold(ds, "v", 0.5, 2.0, component=1).n_cells == 1  # point 0's 5.0 drops cell 0
    assert td.threshold(ds, "v", -1, 1).n_cells == 1  # NaN is in no range
    assert td.threshold(ds, "v", 4.0, 6.0, component=1, all_points=False).n_cells == 1
    none = td.threshold(ds, "v", 7.0, 8.0, component=1)
    assert (none.n_cells, none.n_points, none.offsets.numpy().tolist()) == (0, 0, [0])
    with pytest.raises(ValueError, match=r"component 2 of field 'v', which has 2 component"):
        td.threshold(ds, "v", 0, 1, component=2)
    ds.cell_data["v"] = np.array([1.0, 2.0])
    with pytest.raises(ValueError, match=r"'v' is both a point and a cell field; pass "
                                         r"association='point' or 'cell'"):
        td.threshold(ds, "v", 0, 1)
    assert td.threshold(ds, "v", 1.5, 2.5, association="cell").cell_data["v"].numpy().tolist() \
        == [2.0]
    with pytest.raises(KeyError, match=r"no field 'w'; there are 'v', 'v'"):
        td.threshold(ds, "w", 0, 1)


def polygons(obj_points, cells):
    """Each cell as its points' coordinates, turned to start at its least point (keeping the
    way it goes round), the list sorted: two outputs in different orders compare equal."""
    out = []
    for ids in cells:
        pts = [tuple(np.round(obj_points[i], 9)) for i in ids]
        k = pts.index(min(pts))
        out.append(tuple(pts[k:] + pts[:k]))
    return sorted(out)


@pytest.mark.parametrize("kind", KINDS)
def test_external_faces_are_vtks(kind, device):
    obj = MAKERS[kind]()
    want = run(vtk.vtkDataSetSurfaceFilter(), obj)
    ds = td.from_vtk(obj)
    out = td.external_faces(ds)
    assert out.kind == "poly" and out.device == device
    assert out.n_cells == want.GetNumberOfCells()
    theirs_points = ns.vtk_to_numpy(want.GetPoints().GetData())
    if kind in ("image", "rectilinear", "structured"):
        # a grid's six sides in VTK's order, each with its own points: VTK's arrays exactly
        assert out.points.dtype == theirs_points.dtype
        np.testing.assert_array_equal(out.points.numpy(), theirs_points)
        np.testing.assert_array_equal(out.offsets.numpy(),
                                      ns.vtk_to_numpy(want.GetPolys().GetOffsetsArray()))
        np.testing.assert_array_equal(out.connectivity.numpy(),
                                      ns.vtk_to_numpy(want.GetPolys().GetConnectivityArray()))
        assert out.types.numpy().tolist() == [9] * out.n_cells
        for mine, theirs in ((out.point_data, want.GetPointData()),
                             (out.cell_data, want.GetCellData())):
            assert sorted(mine) == sorted(theirs.GetArrayName(i)
                                          for i in range(theirs.GetNumberOfArrays()))
            for name in mine:
                np.testing.assert_array_equal(mine[name].numpy(),
                                              ns.vtk_to_numpy(theirs.GetArray(name)))
        return
    assert out.n_points == (len(theirs_points) if kind == "poly"  # poly data is its own surface
                            else len(np.unique(theirs_points, axis=0)))
    mine = polygons(out.points.numpy(), cells_of(out.offsets.numpy(), out.connectivity.numpy()))
    theirs = polygons(theirs_points, vtk_cells(want))
    assert mine == theirs
    # each face carries its cell's fields, each point its own
    if ds.cell_data:
        source = out.cell_data["id"].numpy()
        # vertices, lines, then polygons, each in the input's cell order
        category = np.searchsorted([2, 4], out.types.numpy(), side="left")
        order = sorted(range(out.n_cells), key=lambda i: (category[i], source[i]))
        assert order == list(range(out.n_cells))
        np.testing.assert_array_equal(out.cell_data["pressure"].numpy(),
                                      ds.cell_data["pressure"].numpy()[source])
        kept = out.point_data["id"].numpy()  # the input's point ids, increasing
        assert np.all(np.diff(kept) > 0)
        close(out.points.numpy(), ds.points.numpy()[kept], 1e-12)


@pytest.mark.parametrize("dims", [(5, 4, 3), (2, 6, 4), (3, 3, 7)])
def test_external_faces_of_a_grid_are_vtks_arrays(dims, device):
    """A grid's sides, each with its own points, in VTK's order: its arrays bit for bit."""
    obj = vtk.vtkImageData()
    obj.SetDimensions(*dims)
    obj.SetOrigin(-1.0, 0.5, 2.0)
    obj.SetSpacing(0.5, 0.25, 3.0)
    for data, n, name in ((obj.GetPointData(), obj.GetNumberOfPoints(), "u"),
                          (obj.GetCellData(), obj.GetNumberOfCells(), "c")):
        a = ns.numpy_to_vtk(np.arange(n, dtype=np.float64) * 1.5, deep=True)
        a.SetName(name)
        data.AddArray(a)
    want = run(vtk.vtkDataSetSurfaceFilter(), obj)
    out = td.external_faces(td.from_vtk(obj))
    np.testing.assert_array_equal(out.points.numpy(), ns.vtk_to_numpy(want.GetPoints().GetData()))
    np.testing.assert_array_equal(out.connectivity.numpy(),
                                  ns.vtk_to_numpy(want.GetPolys().GetConnectivityArray()))
    np.testing.assert_array_equal(out.point_data["u"].numpy(),
                                  ns.vtk_to_numpy(want.GetPointData().GetArray("u")))
    np.testing.assert_array_equal(out.cell_data["c"].numpy(),
                                  ns.vtk_to_numpy(want.GetCellData().GetArray("c")))


@pytest.mark.parametrize("wedge", [False, True])
def test_external_faces_of_a_star_of_tetrahedra_are_vtks(wedge, device):
    """600 tetrahedra round point 0, which is the least point of 1800 faces: more than the
    CPU's buckets compare one by one (512), so the faces are matched by the sort instead, with
    exact keys (tetrahedra only) or with a hash checked point by point (a wedge beside them)."""
    ring = 600
    angle = np.linspace(0, 2 * np.pi, ring, endpoint=False)
    pts = np.r_[[(0.0, 0.0, 0.0), (0.0, 0.0, 1.0)],
                np.c_[np.cos(angle), np.sin(angle), np.zeros(ring)]]
    conn = [[0, 2 + i, 2 + (i + 1) % ring, 1] for i in range(ring)]
    types = [10] * ring
    if wedge:  # a wedge on the ring's outside, sharing no face with the tetrahedra
        base = len(pts)
        pts = np.r_[pts, [(3, 0, 0), (4, 0, 0), (3, 1, 0), (3, 0, 1), (4, 0, 1), (3, 1, 1)]]
        conn.append(list(range(base, base + 6)))
        types.append(13)
    offsets = np.cumsum([0] + [len(c) for c in conn])
    ds = td.unstructured(pts, offsets, np.concatenate(conn), np.array(types, np.uint8))
    ds.cell_data["c"] = np.arange(len(types), dtype=np.float64)
    obj = td.to_vtk(ds.to("cpu"))
    want = run(vtk.vtkDataSetSurfaceFilter(), obj)
    out = td.external_faces(ds)
    assert out.n_cells == want.GetNumberOfCells() == 2 * ring + (5 if wedge else 0)
    assert polygons(out.points.numpy(), cells_of(out.offsets.numpy(),
                                                 out.connectivity.numpy())) == \
        polygons(ns.vtk_to_numpy(want.GetPoints().GetData()), vtk_cells(want))


def test_external_faces_of_a_tetrahedral_block_are_its_box(device):
    obj = vtk.vtkImageData()
    obj.SetDimensions(4, 3, 5)
    tri = vtk.vtkDataSetTriangleFilter()
    tri.SetInputData(obj)
    tri.Update()
    ds = td.from_vtk(tri.GetOutput())
    out = td.external_faces(ds)
    # 2 triangles per boundary square: 2 * (3*2 + 3*4 + 2*4) * 2 sides
    assert out.n_cells == 2 * 2 * (3 * 2 + 3 * 4 + 2 * 4)
    assert out.n_points == 4 * 3 * 5 - 2 * 1 * 3  # every point but the interior ones
    assert out.types.numpy().tolist() == [5] * out.n_cells


@pytest.mark.parametrize("kind", KINDS)
def test_integrate_is_vtks(kind, device):
    obj = MAKERS[kind]()
    want = run(vtk.vtkIntegrateAttributes(), obj)
    got = td.integrate(td.from_vtk(obj))
    for key, name in (("length", "Length"), ("area", "Area"), ("volume", "Volume")):
        array = want.GetCellData().GetArray(name)
        assert got[key] == pytest.approx(array.GetValue(0) if array else 0.0, rel=1e-6, abs=1e-12)
    for data, suffix in ((want.GetPointData(), ""), (want.GetCellData(), " (cell)")):
        for name in ("pressure", "velocity", "id"):
            if data.GetArray(name) is not None:
                np.testing.assert_allclose(got[name + suffix],
                                           ns.vtk_to_numpy(data.GetArray(name))[0],
                                           rtol=1e-6, atol=1e-9)


def test_integrate_names_and_shapes():
    ds = td.image((3, 3, 1), spacing=(0.5, 2.0, 1.0))  # 2 x 2 pixels of area 1
    ds.point_data["v"] = np.ones((9, 3))
    ds.cell_data["v"] = np.full(4, 2.0)
    r = td.integrate(ds)
    assert (r["length"], r["area"], r["volume"]) == (0.0, 4.0, 0.0)
    assert r["v"].shape == (3,) and r["v"].tolist() == [4.0, 4.0, 4.0]
    assert r["v (cell)"] == 8.0
    empty = td.integrate(td.image((0, 0, 0)))
    assert (empty["length"], empty["area"], empty["volume"]) == (0.0, 0.0, 0.0)


GRID_KINDS = ["image", "rectilinear", "structured", "image_plane", "structured_plane",
              "structured_line"]


def vtk_gradient(obj, name):
    f = vtk.vtkGradientFilter()
    f.SetInputArrayToProcess(0, 0, 0, 0, name)
    return ns.vtk_to_numpy(run(f, obj).GetPointData().GetArray("Gradients"))


@pytest.mark.parametrize("kind", GRID_KINDS)
def test_gradient_on_grids_is_vtks(kind, device):
    obj = MAKERS[kind]()
    ds = td.from_vtk(obj)
    for name in ("pressure", "velocity", "id"):
        got = td.gradient(ds, name).point_data["gradient"]
        want = vtk_gradient(obj, name)
        assert got.shape == want.shape and got.dtype == want.dtype
        close(got.numpy(), want, 1e-6 if want.dtype == np.float64 else 1e-5)


def vtk_cells_of_dimension(make, dimension):
    """The cells of one dimension of a mesh, the rest dropped (VTK's gradient counts cells of
    every dimension around a point; Tack's those of the highest)."""
    obj = make()
    out = vtk.vtkUnstructuredGrid()
    out.SetPoints(obj.GetPoints())
    keep = [c for c in range(obj.GetNumberOfCells())
            if obj.GetCell(c).GetCellDimension() == dimension
            and obj.GetCellType(c) != vtk.VTK_POLYGON]  # VTK's polygon rule is not exact
    for c in keep:
        cell = obj.GetCell(c)
        out.InsertNextCell(obj.GetCellType(c), cell.GetPointIds())
    out.GetPointData().ShallowCopy(obj.GetPointData())
    return out


@pytest.mark.parametrize("dimension", [3, 2])
def test_gradient_on_cells_is_vtks(dimension, device):
    obj = vtk_cells_of_dimension(MAKERS["unstructured"], dimension)
    ds = td.from_vtk(obj)
    for name in ("pressure", "velocity"):
        got = td.gradient(ds, name).point_data["gradient"].numpy()
        want = vtk_gradient(obj, name)
        used = np.unique(ds.connectivity.numpy())
        close(got[used], want[used], 1e-5)


def test_gradient_on_triangles_is_vtks(device):
    obj = MAKERS["triangles"]()
    ds = td.from_vtk(obj)
    ds.point_data["u"] = np.sin(3 * ds.points.numpy()).sum(axis=1)
    obj.GetPointData().AddArray(td.to_vtk(ds).GetPointData().GetArray("u"))
    close(td.gradient(ds, "u").point_data["gradient"].numpy(), vtk_gradient(obj, "u"), 1e-6)


LINEAR = np.array([2.0, 3.0, 5.0])


@pytest.mark.parametrize("cell", ["tetra", "hexahedron", "voxel", "wedge", "pyramid", "triangle",
                                  "quad", "pixel", "polygon4", "polygon", "triangle_strip",
                                  "line", "poly_line"])
def test_gradient_of_a_linear_field_is_exact(cell, device):
    """On every cell type and at every point: the field's gradient on 3-D cells, its part in
    the cell's plane on 2-D cells, along the line on lines."""
    skew = np.array([[1.0, 0.2, 0.1], [0.1, 0.9, 0.3], [0.2, -0.1, 1.1]])
    shapes = {
        "tetra": (10, [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]),
        "hexahedron": (12, [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1),
                            (1, 1, 1), (0, 1, 1)]),
        "voxel": (11, [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0), (0, 0, 1), (1, 0, 1),
                       (0, 1, 1), (1, 1, 1)]),
        "wedge": (13, [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (0, 1, 1)]),
        "pyramid": (14, [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0.5, 0.5, 1)]),
        "triangle": (5, [(0, 0, 0), (1, 0, 0.5), (0, 1, 0)]),
        "quad": (9, [(0, 0, 0), (1, 0, 0), (1.2, 1, 0), (0, 1, 0)]),
        "pixel": (8, [(0, 0, 0), (2, 0, 0), (0, 1, 0), (2, 1, 0)]),
        "polygon4": (7, [(0, 0, 0), (1, 0, 0), (1.3, 1, 0), (0, 1.1, 0)]),
        "polygon": (7, [(0, 0, 0), (1, 0, 0), (1.5, 0.8, 0), (0.5, 1.5, 0), (-0.3, 0.7, 0)]),
        "triangle_strip": (6, [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0), (0, 2, 0)]),
        "line": (3, [(0, 0, 0), (1, 1, 0)]),
        "poly_line": (4, [(0, 0, 0), (1, 1, 0), (2, 1, 1)]),
    }
    vtk_type, pts = shapes[cell]
    pts = np.array(pts, np.float64)
    if vtk_type not in (8, 11):  # pixels and voxels stay axis-aligned
        pts = pts @ skew.T
    n = len(pts)
    ds = td.unstructured(pts, [0, n], np.arange(n), np.array([vtk_type], np.uint8))
    ds.point_data["u"] = pts @ LINEAR + 1.0
    got = td.gradient(ds, "u").point_data["gradient"].numpy()
    for k in range(n):
        if vtk_type >= 10:
            want = LINEAR
        elif vtk_type in (3, 4):
            e = max(k - 1, 0) if vtk_type == 4 else 0
            d = pts[e + 1] - pts[e]
            want = d * (LINEAR @ d) / (d @ d)
        else:
            normal = np.cross(pts[1] - pts[0], pts[2] - pts[0])
            normal /= np.linalg.norm(normal)
            want = LINEAR - normal * (LINEAR @ normal)
        np.testing.assert_allclose(got[k], want, rtol=1e-9, atol=1e-9, err_msg=f"point {k}")


def test_gradient_refuses_cell_fields_and_names_the_way():
    ds = td.from_vtk(MAKERS["poly"]())
    del ds.point_data["pressure"]
    with pytest.raises(ValueError, match=r"'pressure' is a cell field; make it a point field "
                                         r"first with cell_to_point\(ds, 'pressure'\)"):
        td.gradient(ds, "pressure")
    with pytest.raises(KeyError, match=r"no point field 'rho'"):
        td.gradient(ds, "rho")


@pytest.mark.parametrize("fan", [8, 200])
def test_links_of_a_fan_give_vtks_averages(fan, device):
    """A fan of triangles round point 0: 200 puts more cells on one point than the links'
    insertion sort takes (128), so they are built by the stable sort instead; the same
    averages and gradients either way, and VTK's."""
    angle = np.linspace(0, 2 * np.pi, fan, endpoint=False)
    pts = np.r_[[(0.0, 0.0, 0.0)], np.c_[np.cos(angle), np.sin(angle), np.zeros(fan)]]
    conn = np.c_[np.zeros(fan, np.int64), np.arange(1, fan + 1), np.r_[np.arange(2, fan + 1), 1]]
    ds = td.unstructured(pts, np.arange(0, 3 * fan + 1, 3), conn.ravel(), np.full(fan, 5, np.uint8))
    ds.cell_data["c"] = np.arange(fan, dtype=np.float64) ** 2
    ds.point_data["u"] = pts @ np.array([2.0, -1.0, 0.0]) + np.sin(5 * pts[:, 0])
    obj = td.to_vtk(td.from_vtk(td.to_vtk(ds)).to("cpu"))
    want = run(vtk.vtkCellDataToPointData(), obj)
    close(td.cell_to_point(ds, "c").point_data["c"].numpy(),
          ns.vtk_to_numpy(want.GetPointData().GetArray("c")), 1e-12)
    close(td.gradient(ds, "u").point_data["gradient"].numpy(), vtk_gradient(obj, "u"), 1e-9)


def test_threshold_refuses_an_unknown_association():
    ds = td.from_vtk(MAKERS["unstructured"]())
    with pytest.raises(ValueError, match=r"association 'points' is not one of 'point', 'cell'"):
        td.threshold(ds, "pressure", 0, 1, association="points")


def test_cell_to_point_sums_each_points_cells_in_cell_order(device):
    """The links list a point's cells in increasing cell id on every device and thread count
    (on the CPU a counting sort in chunks of cells, on devices atomics and a sort): the average
    is the left-to-right sum in cell order, bit for bit, even where the order changes the sum
    (values of very different sizes) and where a cell names a point twice."""
    rng = np.random.default_rng(7)
    n_points, n_cells = 40, 3000
    conn = rng.integers(0, n_points, size=3 * n_cells)
    conn[3] = conn[4]  # cell 1 names a point twice
    ds = td.unstructured(rng.random((n_points, 3)), np.arange(0, 3 * n_cells + 1, 3), conn,
                         np.full(n_cells, 5, np.uint8))
    values = rng.choice([1e16, -1e16, 1.0, 3.5, -2.25], size=n_cells)
    ds.cell_data["c"] = values
    want = np.zeros(n_points)
    count = np.zeros(n_points)
    for c in range(n_cells):
        for p in conn[3 * c:3 * c + 3]:
            want[p] = want[p] + values[c]  # the left fold, one cell at a time
            count[p] += 1
    want = np.where(count > 0, want / np.maximum(count, 1), 0.0)
    got = td.cell_to_point(ds, "c").point_data["c"].numpy()
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("kind", ["image", "unstructured"])
def test_filter_outputs_pass_the_constructors_checks_in_debug_mode(kind, device):
    """Outputs skip re-validation (Tack's kernels wrote them) except in debug mode, where they
    are checked as user data is: every extracting filter's output passes."""
    ds = td.from_vtk(MAKERS[kind]())
    tack.set_debug(True)
    try:
        outputs = [td.external_faces(ds), td.cell_centers(ds)]
        if "pressure" in ds.point_data:
            outputs.append(td.threshold(ds, "pressure", -1e9, 1e9, association="point"))
    finally:
        tack.set_debug(False)
    for out in outputs:
        assert out.n_cells == len(out.types)
