"""tack.dataset's data model against VTK (docs/design/dataset.md): every kind read from VTK with
its counts, points and fields; the round trip to_vtk(from_vtk(x)) keeps every array bit for bit;
VTK's memory is shared on the CPU (read-only unless writable=True) and copied to other devices;
VTK XML files in and out; and the refusals, each naming what is wrong."""
import numpy as np
import pytest

import tack
import tack.dataset as td

vtk = pytest.importorskip("vtkmodules.all")
ns = pytest.importorskip("vtkmodules.util.numpy_support")

HEX = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]


def add_fields(obj, n_points, n_cells):
    r = np.random.default_rng(3)
    for data, n in ((obj.GetPointData(), n_points), (obj.GetCellData(), n_cells)):
        s = ns.numpy_to_vtk(r.standard_normal(n), deep=True)
        s.SetName("pressure")
        data.AddArray(s)
        v = ns.numpy_to_vtk(r.standard_normal((n, 3)).astype(np.float32), deep=True)
        v.SetName("velocity")
        data.AddArray(v)
        i = ns.numpy_to_vtk(np.arange(n, dtype=np.int32), deep=True)
        i.SetName("id")
        data.AddArray(i)
    return obj


def vtk_image():
    im = vtk.vtkImageData()
    im.SetExtent(1, 4, 0, 2, 0, 1)  # an extent not starting at 0: the origin moves
    im.SetOrigin(0.5, -1.0, 2.0)
    im.SetSpacing(0.25, 0.5, 2.0)
    return add_fields(im, im.GetNumberOfPoints(), im.GetNumberOfCells())


def vtk_rectilinear():
    g = vtk.vtkRectilinearGrid()
    g.SetDimensions(3, 4, 2)
    g.SetXCoordinates(ns.numpy_to_vtk(np.array([0.0, 0.5, 2.0]), deep=True))
    g.SetYCoordinates(ns.numpy_to_vtk(np.array([0.0, 1.0, 1.5, 3.0]), deep=True))
    g.SetZCoordinates(ns.numpy_to_vtk(np.array([-1.0, 1.0]), deep=True))
    return add_fields(g, g.GetNumberOfPoints(), g.GetNumberOfCells())


def vtk_structured():
    g = vtk.vtkStructuredGrid()
    g.SetDimensions(3, 2, 2)
    pts = vtk.vtkPoints()
    for k in range(2):
        for j in range(2):
            for i in range(3):
                pts.InsertNextPoint(i + 0.1 * j, j + 0.2 * k * i, k)
    g.SetPoints(pts)
    return add_fields(g, g.GetNumberOfPoints(), g.GetNumberOfCells())


def vtk_mixed_unstructured():
    """One cell of every 3-D, 2-D, 1-D and 0-D linear type."""
    g = vtk.vtkUnstructuredGrid()
    pts = vtk.vtkPoints()
    pts.SetDataTypeToDouble()
    for p in HEX:
        pts.InsertNextPoint(p)
    pts.InsertNextPoint(0.5, 0.5, 1.8)  # 8: a pyramid's apex
    pts.InsertNextPoint(0.5, 1.4, 1.0)  # 9: a fifth corner of the top face (a pentagon)
    g.SetPoints(pts)
    cells = [(vtk.VTK_HEXAHEDRON, list(range(8))), (vtk.VTK_VOXEL, [0, 1, 3, 2, 4, 5, 7, 6]),
             (vtk.VTK_TETRA, [0, 1, 3, 4]), (vtk.VTK_WEDGE, [0, 1, 3, 4, 5, 7]),
             (vtk.VTK_PYRAMID, [4, 5, 6, 7, 8]), (vtk.VTK_TRIANGLE, [0, 1, 2]),
             (vtk.VTK_QUAD, [0, 1, 2, 3]), (vtk.VTK_PIXEL, [0, 1, 3, 2]),
             (vtk.VTK_POLYGON, [4, 5, 6, 9, 7]), (vtk.VTK_LINE, [0, 6]),
             (vtk.VTK_POLY_LINE, [0, 1, 2, 3]), (vtk.VTK_VERTEX, [8]),
             (vtk.VTK_POLY_VERTEX, [1, 2]), (vtk.VTK_TRIANGLE_STRIP, [0, 1, 3, 2])]
    for t, ids in cells:
        g.InsertNextCell(t, len(ids), ids)
    return add_fields(g, g.GetNumberOfPoints(), g.GetNumberOfCells())


def vtk_poly():
    p = vtk.vtkPolyData()
    pts = vtk.vtkPoints()
    for q in HEX + [(0.5, -0.5, 0.0)]:  # 8: a fifth corner of the bottom face (a pentagon)
        pts.InsertNextPoint(q)
    p.SetPoints(pts)
    verts, lines, polys, strips = (vtk.vtkCellArray() for _ in range(4))
    verts.InsertNextCell(1, [0])
    verts.InsertNextCell(2, [1, 2])
    lines.InsertNextCell(2, [0, 6])
    polys.InsertNextCell(4, [0, 1, 2, 3])
    polys.InsertNextCell(3, [4, 5, 6])
    polys.InsertNextCell(5, [0, 8, 1, 2, 3])
    strips.InsertNextCell(4, [0, 1, 3, 2])
    p.SetVerts(verts)
    p.SetLines(lines)
    p.SetPolys(polys)
    p.SetStrips(strips)
    return add_fields(p, p.GetNumberOfPoints(), p.GetNumberOfCells())


def vtk_triangles():
    s = vtk.vtkSphereSource()
    s.Update()
    return s.GetOutput()


def vtk_image_plane():
    """A 2-D image in the x-z plane (pixels)."""
    im = vtk.vtkImageData()
    im.SetDimensions(4, 1, 3)
    im.SetSpacing(0.5, 1.0, 0.25)
    return add_fields(im, im.GetNumberOfPoints(), im.GetNumberOfCells())


def vtk_structured_plane():
    """A 2-D structured grid in the y-z plane (quads), f32 points."""
    g = vtk.vtkStructuredGrid()
    g.SetDimensions(1, 3, 4)
    pts = vtk.vtkPoints()
    pts.SetDataTypeToFloat()
    for k in range(4):
        for j in range(3):
            pts.InsertNextPoint(0.1 * j * k, j + 0.3 * k, k * k * 0.5)
    g.SetPoints(pts)
    return add_fields(g, g.GetNumberOfPoints(), g.GetNumberOfCells())


def vtk_structured_line():
    """A 1-D structured grid along z (lines)."""
    g = vtk.vtkStructuredGrid()
    g.SetDimensions(1, 1, 5)
    pts = vtk.vtkPoints()
    for k in range(5):
        pts.InsertNextPoint(k, k * k, 0.5 * k)
    g.SetPoints(pts)
    return add_fields(g, g.GetNumberOfPoints(), g.GetNumberOfCells())


MAKERS = {"image": vtk_image, "rectilinear": vtk_rectilinear, "structured": vtk_structured,
          "unstructured": vtk_mixed_unstructured, "poly": vtk_poly, "triangles": vtk_triangles,
          "image_plane": vtk_image_plane, "structured_plane": vtk_structured_plane,
          "structured_line": vtk_structured_line}
KIND_OF = {"vtkImageData": "image", "vtkRectilinearGrid": "rectilinear",
           "vtkStructuredGrid": "structured", "vtkUnstructuredGrid": "unstructured",
           "vtkPolyData": "poly"}


def vtk_points(obj):
    return np.array([obj.GetPoint(i) for i in range(obj.GetNumberOfPoints())])


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_from_vtk_reads_counts_points_and_fields(name, device):
    obj = MAKERS[name]()
    ds = td.from_vtk(obj)
    assert ds.device == device
    assert ds.kind == KIND_OF[obj.GetClassName()]
    assert (ds.n_points, ds.n_cells) == (obj.GetNumberOfPoints(), obj.GetNumberOfCells())
    np.testing.assert_allclose(ds.points.numpy(), vtk_points(obj), rtol=0, atol=1e-12)
    for vtk_data, fields in ((obj.GetPointData(), ds.point_data),
                             (obj.GetCellData(), ds.cell_data)):
        names = [vtk_data.GetArrayName(i) for i in range(vtk_data.GetNumberOfArrays())]
        assert list(fields) == names
        for n in names:
            np.testing.assert_array_equal(fields[n].numpy(),
                                          ns.vtk_to_numpy(vtk_data.GetArray(n)))
    if ds.kind in ("unstructured", "poly"):
        types = [obj.GetCellType(c) for c in range(obj.GetNumberOfCells())]
        assert ds.types.numpy().tolist() == types
        for c in range(obj.GetNumberOfCells()):
            ids = vtk.vtkIdList()
            obj.GetCellPoints(c, ids)
            o = ds.offsets.numpy()
            assert ds.connectivity.numpy()[o[c]:o[c + 1]].tolist() == \
                [ids.GetId(k) for k in range(ids.GetNumberOfIds())]


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_to_vtk_of_from_vtk_keeps_every_array_bit_for_bit(name, device):
    obj = MAKERS[name]()
    back = td.to_vtk(td.from_vtk(obj))
    assert back.GetClassName() == obj.GetClassName()
    assert (back.GetNumberOfPoints(), back.GetNumberOfCells()) == \
        (obj.GetNumberOfPoints(), obj.GetNumberOfCells())
    np.testing.assert_array_equal(vtk_points(back), vtk_points(obj))
    for c in range(obj.GetNumberOfCells()):
        assert back.GetCellType(c) == obj.GetCellType(c)
        a, b = vtk.vtkIdList(), vtk.vtkIdList()
        obj.GetCellPoints(c, a)
        back.GetCellPoints(c, b)
        assert [a.GetId(k) for k in range(a.GetNumberOfIds())] == \
            [b.GetId(k) for k in range(b.GetNumberOfIds())]
    for get in (lambda o: o.GetPointData(), lambda o: o.GetCellData()):
        want, got = get(obj), get(back)
        assert got.GetNumberOfArrays() == want.GetNumberOfArrays()
        for i in range(want.GetNumberOfArrays()):
            w = want.GetArray(i)
            g = got.GetArray(w.GetName())
            x, y = ns.vtk_to_numpy(w), ns.vtk_to_numpy(g)
            assert x.dtype == y.dtype and x.tobytes() == y.tobytes()


@pytest.mark.cpu_only("shares VTK's host memory")
def test_on_the_cpu_vtk_memory_is_shared_and_read_only_unless_asked(device):
    obj = vtk_mixed_unstructured()
    ds = td.from_vtk(obj)
    pressure = ds.point_data["pressure"]
    assert not pressure.writable
    ns.vtk_to_numpy(obj.GetPointData().GetArray("pressure"))[0] = 42.0
    assert pressure.numpy()[0] == 42.0  # the same memory
    with pytest.raises(RuntimeError, match="read-only"):
        pressure.fill(0.0)
    w = td.from_vtk(obj, writable=True)
    w.point_data["pressure"].fill(1.5)
    assert ns.vtk_to_numpy(obj.GetPointData().GetArray("pressure"))[3] == 1.5
    del obj  # the Tack arrays keep VTK's arrays alive
    assert ds.point_data["pressure"].numpy()[3] == 1.5


def test_another_device_gets_copies():
    devices = [d for d in tack.devices() if d.kind != "cpu"]
    if not devices:
        pytest.skip("no device other than the CPU")
    obj = vtk_poly()
    ds = td.from_vtk(obj, device=devices[0])
    assert ds.device == devices[0] and ds.points.device == devices[0]
    assert ds.point_data["id"].device == devices[0]
    ns.vtk_to_numpy(obj.GetPointData().GetArray("id"))[0] = 99
    assert ds.point_data["id"].numpy()[0] == 0


@pytest.mark.parametrize("name", ["image", "rectilinear", "structured", "unstructured", "poly"])
def test_vtk_xml_files_round_trip(name, tmp_path):
    ds = td.from_vtk(MAKERS[name]())
    ext = {"image": ".vti", "rectilinear": ".vtr", "structured": ".vts", "unstructured": ".vtu",
           "poly": ".vtp"}[name]
    path = tmp_path / ("mesh" + ext)
    td.write(ds, path)
    again = td.read(path)
    assert again.kind == ds.kind and (again.n_points, again.n_cells) == (ds.n_points, ds.n_cells)
    np.testing.assert_array_equal(again.points.numpy(), ds.points.numpy())
    for n in ds.cell_data:
        np.testing.assert_array_equal(again.cell_data[n].numpy(), ds.cell_data[n].numpy())
    with pytest.raises(ValueError, match=r"is written as " + ext):
        td.write(ds, tmp_path / "mesh.vtk")


def test_building_datasets_from_arrays():
    img = td.image((3, 2, 1), origin=(1, 2, 3), spacing=(0.5, 1, 1))
    assert (img.n_points, img.n_cells, img.dims) == (6, 2, (3, 2, 1))
    np.testing.assert_array_equal(img.points.numpy()[:, 0], [1, 1.5, 2, 1, 1.5, 2])
    np.testing.assert_array_equal(img.points.numpy()[:, 1], [2, 2, 2, 3, 3, 3])
    line = td.image((5, 1, 1))
    assert line.n_cells == 4
    ug = td.unstructured(np.array(HEX, np.float64), [0, 4, 8], [0, 1, 3, 4, 1, 2, 3, 5],
                         np.array([10, 10]))
    assert (ug.kind, ug.n_points, ug.n_cells) == ("unstructured", 8, 2)
    ug.cell_data["quality"] = tack.array([1.0, 2.0])
    ug.point_data["t"] = tack.zeros(8)
    assert list(ug.cell_data) == ["quality"] and "t" in ug.point_data
    del ug.point_data["t"]
    assert len(ug.point_data) == 0


def test_refusals_name_what_is_wrong():
    pts = np.array(HEX, np.float64)
    with pytest.raises(ValueError, match=r"cell 1 of the unstructured dataset \(a tetra of 3 "
                                         r"point ids: 1, 2, 3\): a tetra needs 4"):
        td.unstructured(pts, [0, 4, 7], [0, 1, 3, 4, 1, 2, 3], np.array([10, 10]))
    with pytest.raises(ValueError, match=r"cell 0 of the unstructured dataset \(a tetra of 4 "
                                         r"point ids: 0, 1, 3, 9\) uses a point id outside "
                                         r"\[0, 8\)"):
        td.unstructured(pts, [0, 4], [0, 1, 3, 9], np.array([10]))
    with pytest.raises(ValueError, match=r"VTK cell type 24"):
        td.unstructured(pts, [0, 4], [0, 1, 3, 4], np.array([24]))
    with pytest.raises(ValueError, match=r"2 cell types need 3 offsets"):
        td.unstructured(pts, [0, 4], [0, 1, 3, 4], np.array([10, 10]))
    with pytest.raises(ValueError, match=r"offsets run from 0 to 3.*length 4"):
        td.unstructured(pts, [0, 3], [0, 1, 3, 4], np.array([10]))
    with pytest.raises(TypeError, match=r"\(n, 3\) f32/f64"):
        td.unstructured(pts[:, :2], [0, 1], [0], np.array([1]))
    with pytest.raises(ValueError, match=r"cell 1 of the poly data is a vertex, out of VTK's "
                                         r"order"):
        td.poly(pts, [0, 3, 4], [0, 1, 2, 3], np.array([5, 1]))
    with pytest.raises(ValueError, match=r"is a tetra, which poly data does not hold"):
        td.poly(pts, [0, 4], [0, 1, 2, 3], np.array([10]))
    ug = td.unstructured(pts, [0, 4], [0, 1, 3, 4], np.array([10]))
    with pytest.raises(KeyError, match=r"no point field 'rho'; there are 'p'"):
        ug.point_data["p"] = tack.zeros(8)
        ug.point_data["rho"]
    with pytest.raises(ValueError, match=r"cell field 'q' needs one value per cell \(1\)"):
        ug.cell_data["q"] = tack.zeros(8)
    with pytest.raises(ValueError, match=r"dims are the points along x, y and z"):
        td.image((-1, 2, 2))
    with pytest.raises(ValueError, match=r"offsets \(explicit cells\) of an image"):
        td.image((2, 2, 2)).offsets


def test_from_vtk_refuses_what_it_cannot_hold():
    g = vtk.vtkUnstructuredGrid()
    pts = vtk.vtkPoints()
    for i in range(10):
        pts.InsertNextPoint(i, i * i, 0)
    g.SetPoints(pts)
    g.InsertNextCell(vtk.VTK_TETRA, 4, [0, 1, 2, 3])
    g.InsertNextCell(vtk.VTK_QUADRATIC_TETRA, 10, list(range(10)))
    with pytest.raises(ValueError, match=r"cell 1 .* VTK cell type 24.*tessellate"):
        td.from_vtk(g)
    p = vtk_poly()
    s = vtk.vtkStringArray()
    s.SetName("labels")
    s.SetNumberOfValues(p.GetNumberOfPoints())
    p.GetPointData().AddArray(s)
    with pytest.raises(TypeError, match=r"point array 'labels' is a vtkStringArray"):
        td.from_vtk(p)
    with pytest.raises(TypeError, match=r"takes a VTK dataset, got int"):
        td.from_vtk(3)


def test_bad_offsets_and_types_are_refused_not_read():
    pts = np.array(HEX, np.float64)
    conn = np.arange(8)
    with pytest.raises(ValueError, match=r"cell 0 of the unstructured dataset has offsets 0 "
                                         r"to -1000000000000"):
        td.unstructured(pts, [0, -10**12, -10**12 + 4, 8], conn, [10, 10, 10])
    with pytest.raises(ValueError, match=r"offsets 4 to 1000000000000, outside the connectivity "
                                         r"\(8 ids\)"):
        td.unstructured(pts, [0, 4, 10**12, 8], conn, [10, 12, 10])
    with pytest.raises(ValueError, match=r"a tetra needs 4 point ids"):
        td.unstructured(pts, [0, 4, 7, 8], conn, [10, 10, 1])
    with pytest.raises(ValueError, match=r"VTK's type numbers.*got 261"):
        td.unstructured(pts, [0, 4], conn[:4], [261])
    with pytest.raises(ValueError, match=r"VTK's type numbers.*got 5.7"):
        td.unstructured(pts, [0, 4], conn[:4], [5.7])
    with pytest.raises(ValueError, match=r"dims \(4194304, 4194304, 4194304\) make more points"):
        td.image((2**22,) * 3)


def test_poly_cells_must_have_the_type_vtk_reads():
    pts = np.array(HEX, np.float64)
    with pytest.raises(ValueError, match=r"polygon of 3 points, which VTK's poly data reads as a "
                                         r"triangle: give it type 5"):
        td.poly(pts, [0, 3], [0, 1, 6], [7])
    with pytest.raises(ValueError, match=r"poly-line of 2 points.*a line: give it type 3"):
        td.poly(pts, [0, 2], [0, 1], [4])


def test_fields_take_host_data_and_vec_arrays():
    ds = td.unstructured(np.array(HEX, np.float64), [0, 4, 8], np.arange(8), [10, 10])
    ds.point_data["t"] = np.arange(8.0)  # copied to the dataset's device
    ds.cell_data["v"] = tack.array(np.arange(6.0).reshape(2, 3), dtype=tack.vec(3, tack.f64))
    assert ds.point_data["t"].device == ds.device
    c = td.point_to_cell(ds, "t").cell_data["t"]
    assert c.numpy().tolist() == [1.5, 5.5]
    v = td.cell_to_point(ds, "v").point_data["v"]
    assert v.dtype == tack.vec(3, tack.f64)
    np.testing.assert_array_equal(v.numpy()[:4], [[0, 1, 2]] * 4)
    ds.point_data["w"] = tack.zeros(8, dtype=tack.vec(2, tack.f32))
    assert td.point_to_cell(ds, "w").cell_data["w"].numpy().shape == (2, 2)
    ds.point_data["m"] = tack.zeros(8, dtype=tack.mat(2, 2, tack.f32))
    with pytest.raises(TypeError, match=r"field 'm' is a mat\(2, 2, f32\) array"):
        td.point_to_cell(ds, "m")


@pytest.mark.parametrize("cls", ["vtkImageData", "vtkRectilinearGrid", "vtkStructuredGrid",
                                 "vtkUnstructuredGrid", "vtkPolyData"])
def test_empty_vtk_datasets_are_empty(cls):
    obj = getattr(vtk, cls)()
    ds = td.from_vtk(obj)
    assert (ds.n_points, ds.n_cells) == (obj.GetNumberOfPoints(), obj.GetNumberOfCells()) == (0, 0)
    assert td.cell_centers(ds).n_points == 0
    back = td.to_vtk(ds)
    assert (back.GetNumberOfPoints(), back.GetNumberOfCells()) == (0, 0)


def test_arrays_on_another_device_are_refused_not_copied():
    devices = [d for d in tack.devices() if d.kind != "cpu"]
    if not devices:
        pytest.skip("no device other than the CPU")
    pts = tack.array(np.array(HEX, np.float64), device=devices[0])
    ds = td.structured((2, 2, 2), pts)  # the points' device
    assert ds.device == devices[0]
    with pytest.raises(ValueError, match=r"offsets is on device 'cpu' but the dataset is on"):
        td.unstructured(pts, tack.array(np.array([0, 4]), device="cpu"), np.arange(4), [10])


def test_soa_fields_are_stored_as_components(device):
    ds = td.image((3, 2, 1))
    x = tack.array(np.arange(6.0))
    y = tack.array(np.arange(6, dtype=np.float32) * 2)
    ds.point_data["v"] = tack.soa([x, y])
    v = ds.point_data["v"]
    assert v.shape == (6, 2) and v.dtype == np.float64 and v.device == device
    np.testing.assert_array_equal(v.numpy(), np.c_[np.arange(6.0), np.arange(6.0) * 2])
    # the filters read it as any (n, k) field
    assert td.point_to_cell(ds, "v").cell_data["v"].numpy().tolist() == [[2.0, 4.0], [3.0, 6.0]]
    with pytest.raises(ValueError, match=r"point field 'w' needs one value per point \(6\)"):
        ds.point_data["w"] = tack.soa([tack.array(np.arange(5.0))])
    with pytest.raises(TypeError, match=r"needs 1-D scalar components"):
        ds.point_data["w"] = tack.soa([tack.array(np.ones((6, 2)))])


def test_to_copies_every_array_to_the_device(device):
    ds = td.from_vtk(MAKERS["unstructured"]())
    out = ds.to(device)
    assert out.device == device and out.points.device == device
    assert out.connectivity.device == device and out.cell_data["id"].device == device
    np.testing.assert_array_equal(out.points.numpy(), ds.points.numpy())
    tack.copyto(out.points, np.zeros((ds.n_points, 3)))  # a copy even on the same device
    assert ds.points.numpy().any() and not out.points.numpy().any()
    np.testing.assert_array_equal(out.point_data["velocity"].numpy(),
                                  ds.point_data["velocity"].numpy())
    img = td.image((3, 4, 5), origin=(1, 2, 3), spacing=(0.5, 1, 2)).to(device)
    assert (img.dims, img.origin, img.spacing, img.device) == ((3, 4, 5), (1, 2, 3),
                                                              (0.5, 1, 2), device)
    assert td.from_vtk(MAKERS["poly"]()).to(str(device.name)).device == device
