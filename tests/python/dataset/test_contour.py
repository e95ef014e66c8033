"""tack.dataset.contour against VTK's vtkContourFilter (docs/design/contour.md): the case tables
cell by cell (VTK's item count in every case of every linear cell type, orientation, closed
surfaces), then whole meshes of every kind on every device: counts of each item type equal, areas
and lengths within 1e-5 for planar pieces, points as sets, watertight surfaces, degenerate values,
NaN, several values, options and errors."""
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import tack
import tack.dataset as td

vtk = pytest.importorskip("vtkmodules.all")
ns = pytest.importorskip("vtkmodules.util.numpy_support")

from test_model import MAKERS  # noqa: E402 - after the skip

ROOT = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tools"))
import gen_contour_tables as tables  # noqa: E402

KINDS = sorted(MAKERS)


def vtk_contour(obj, name, values):
    f = vtk.vtkContourFilter()
    f.SetInputData(obj)
    f.SetInputArrayToProcess(0, 0, 0, 0, name)
    for i, v in enumerate(values):
        f.SetValue(i, v)
    f.Update()
    return f.GetOutput()


def one_cell(t, corners, values):
    ug = vtk.vtkUnstructuredGrid()
    pts = vtk.vtkPoints()
    for p in corners:
        pts.InsertNextPoint(*p)
    ug.SetPoints(pts)
    ug.InsertNextCell(t, len(corners), list(range(len(corners))))
    a = ns.numpy_to_vtk(np.asarray(values, dtype=np.float64), deep=True)
    a.SetName("s")
    ug.GetPointData().AddArray(a)
    return ug


def test_the_generated_tables_are_current():
    subprocess.run([sys.executable, str(ROOT / "tools" / "gen_contour_tables.py"), "--check"],
                   check=True)


@pytest.mark.parametrize("t", sorted(t for t in tables.CELLS if t not in (1, 3)))
def test_every_case_has_vtks_items_and_orientation(t):
    """Each case of the cell alone (corners at +1 above, -1 below, value 0: crossings at edge
    midpoints): VTK's number of items, triangles facing the same way (from above to below),
    2-D cells' segments the same segments."""
    name, corners, faces = tables.CELLS[t]
    edges = tables.edges_of(faces)
    mids = np.array([(np.add(corners[a], corners[b])) / 2 for a, b in edges])
    rows = tables.table(t)
    for case in range(1 << len(corners)):
        s = [1.0 if (case >> k) & 1 else -1.0 for k in range(len(corners))]
        out = vtk_contour(one_cell(t, corners, s), "s", [0.0])
        assert out.GetNumberOfCells() == len(rows[case]), (name, case)
        if not rows[case]:
            continue
        pts = ns.vtk_to_numpy(out.GetPoints().GetData()).astype(np.float64)
        theirs = [[pts[out.GetCell(c).GetPointId(k)] for k in range(out.GetCell(c).GetNumberOfPoints())]
                  for c in range(out.GetNumberOfCells())]
        mine = [[mids[e] for e in item] for item in rows[case]]
        if len(faces) == 1:
            key = lambda seg: sorted(tuple(np.round(p, 6)) for p in seg)  # noqa: E731
            assert sorted(map(key, theirs)) == sorted(map(key, mine)), (name, case)
        else:  # the loops' boundaries, sides directed by the triangles' orientation
            assert directed_boundary(theirs) == directed_boundary(mine), (name, case)


def directed_boundary(triangles):
    """The sides (p, q) of triangles whose reverse no triangle has: each loop's rim, in the
    direction its triangles go round (the same whichever diagonals cut the loop)."""
    sides = [(tuple(np.round(t[k], 6)), tuple(np.round(t[(k + 1) % 3], 6)))
             for t in triangles for k in range(3)]
    present = set(sides)
    return sorted(side for side in sides if (side[1], side[0]) not in present)


@pytest.mark.parametrize("t", [10, 11, 12, 13, 14])
def test_every_case_is_a_surface_closed_by_the_cells_faces(t):
    """Brute force over the cases: every triangle's vertices are crossed edges and every crossed
    edge is used; a triangle side joining two edges of one face lies on that face and is used
    once, any other side is inside the cell and is shared by two triangles."""
    _, corners, faces = tables.CELLS[t]
    edges = tables.edges_of(faces)
    for case, items in enumerate(tables.table(t)):
        above = [(case >> k) & 1 for k in range(len(corners))]
        crossed = {i for i, (a, b) in enumerate(edges) if above[a] != above[b]}
        assert {e for tri in items for e in tri} == crossed, case
        sides = {}
        for tri in items:
            for k in range(3):
                side = tuple(sorted((tri[k], tri[(k + 1) % 3])))
                sides[side] = sides.get(side, 0) + 1
        # the faces' own segments: two crossings joined, or with four each corner above cut off
        rim = set()
        for f in faces:
            m = len(f)
            edge = lambda a, b: edges.index((min(a, b), max(a, b)))  # noqa: E731
            cut = [k for k in range(m) if above[f[k]] != above[f[(k + 1) % m]]]
            if len(cut) == 2:
                rim.add(tuple(sorted(edge(f[k], f[(k + 1) % m]) for k in cut)))
            elif len(cut) == 4:
                for k in range(m):
                    if above[f[k]]:
                        rim.add(tuple(sorted((edge(f[k - 1], f[k]), edge(f[k], f[(k + 1) % m])))))
        assert rim <= set(sides), case
        for side, n in sides.items():
            assert n == (1 if side in rim else 2), (case, side)


def measure(pts, offsets, conn):
    """The total length of the segments and area of the triangles."""
    total = 0.0
    for i in range(len(offsets) - 1):
        ids = conn[offsets[i]:offsets[i + 1]]
        if len(ids) == 2:
            total += np.linalg.norm(pts[ids[1]] - pts[ids[0]])
        elif len(ids) == 3:
            total += np.linalg.norm(np.cross(pts[ids[1]] - pts[ids[0]],
                                             pts[ids[2]] - pts[ids[0]])) / 2
    return total


def vtk_arrays(out):
    pts = (ns.vtk_to_numpy(out.GetPoints().GetData()).astype(np.float64)
           if out.GetNumberOfPoints() else np.zeros((0, 3)))
    cells = [[out.GetCell(c).GetPointId(k) for k in range(out.GetCell(c).GetNumberOfPoints())]
             for c in range(out.GetNumberOfCells())]
    offsets = np.cumsum([0] + [len(c) for c in cells])
    conn = np.array([i for c in cells for i in c], dtype=np.int64)
    types = [out.GetCellType(c) for c in range(out.GetNumberOfCells())]
    return pts, offsets, conn, types


def same_point_sets(a, b, tol):
    """Every point of a within tol of one of b's and the other way round."""
    if len(a) == 0 or len(b) == 0:
        return len(a) == len(b)
    d = np.linalg.norm(a[:, None, :] - b[None, :, :], axis=2)
    return d.min(axis=1).max() <= tol and d.min(axis=0).max() <= tol


def without_polygons(obj):
    """The mesh less its polygons (contoured along their boundary here, where VTK cuts them into
    triangles first: docs/dataset.md)."""
    if obj.IsA("vtkStructuredGrid") or obj.IsA("vtkImageData") or obj.IsA("vtkRectilinearGrid"):
        return obj
    keep = vtk.vtkIdList()
    for c in range(obj.GetNumberOfCells()):
        if obj.GetCellType(c) != vtk.VTK_POLYGON:
            keep.InsertNextId(c)
    e = vtk.vtkExtractCells()
    e.SetInputData(obj)
    e.SetCellList(keep)
    e.Update()
    if obj.IsA("vtkPolyData"):
        g = vtk.vtkGeometryFilter()
        g.SetInputData(e.GetOutput())
        g.Update()
        return g.GetOutput()
    return e.GetOutput()


def with_linear_field(obj):
    pts = ns.vtk_to_numpy(obj.GetPoints().GetData()) if not obj.IsA("vtkImageData") and \
        not obj.IsA("vtkRectilinearGrid") else np.array(
            [obj.GetPoint(i) for i in range(obj.GetNumberOfPoints())])
    lin = pts @ np.array([0.3, -0.2, 0.5]) + 0.1
    a = ns.numpy_to_vtk(lin.astype(np.float64), deep=True)
    a.SetName("lin")
    obj.GetPointData().AddArray(a)
    return obj, lin


@pytest.mark.parametrize("kind", KINDS)
def test_contour_is_vtks(kind, device):
    obj, lin = with_linear_field(without_polygons(MAKERS[kind]()))
    ds = td.from_vtk(obj)
    # values between the points' values (a value at a point is the degenerate test's)
    for field, values in (("pressure", None), ("lin", np.percentile(lin, [20, 50, 85]) + 1e-7)):
        if obj.GetPointData().GetArray(field) is None:
            continue
        if values is None:
            p = ns.vtk_to_numpy(obj.GetPointData().GetArray(field))
            values = np.percentile(p, [30, 70]) + 1e-7
        want = vtk_contour(obj, field, values)
        out = td.contour(ds, field, values)
        assert out.kind == "poly" and out.device == device
        w_pts, w_off, w_conn, w_types = vtk_arrays(want)
        types = out.types.numpy()
        for t in (1, 3, 5):  # vertices, segments, triangles: VTK's counts
            assert np.count_nonzero(types == t) == w_types.count(t), (field, t)
        assert np.all(np.diff(np.searchsorted([2, 4], types, side="left")) >= 0)  # poly order
        pts = out.points.numpy().astype(np.float64)
        span = max(np.ptp(w_pts, axis=0).max() if len(w_pts) else 1.0, 1e-12)
        assert same_point_sets(pts, w_pts, 1e-5 * span)
        # no duplicate or unused point
        assert len(np.unique(out.connectivity.numpy())) == out.n_points
        if field == "lin":  # planar pieces: the same measure whatever the diagonals
            got = measure(pts, out.offsets.numpy(), out.connectivity.numpy())
            assert got == pytest.approx(measure(w_pts, w_off, w_conn), rel=1e-5)
            # a linear field interpolates exactly: pressure is not, lin is its formula
            np.testing.assert_allclose(out.point_data["lin"].numpy(),
                                       pts @ np.array([0.3, -0.2, 0.5]) + 0.1, atol=1e-5)


def test_polygons_are_contoured_along_their_boundary(device):
    """A polygon gives one segment per run of corners at or above the value; for a linear field
    on a planar polygon that is VTK's line (VTK may break it where it crosses a diagonal of its
    triangulation)."""
    pts = np.array([(0, 0, 0), (1, 0, 0), (1.5, 1, 0), (0.5, 1.6, 0), (-0.4, 0.9, 0)], float)
    ds = td.poly(pts, [0, 5], [0, 1, 2, 3, 4], np.array([7], np.uint8))
    ds.point_data["f"] = pts[:, 0] + 0.5 * pts[:, 1]
    out = td.contour(ds, "f", [0.6, 1.1])
    assert out.types.numpy().tolist() == [3, 3]
    want = vtk_contour(td.to_vtk(ds.to("cpu")), "f", [0.6, 1.1])
    w_pts, w_off, w_conn, _ = vtk_arrays(want)
    assert measure(out.points.numpy(), out.offsets.numpy(), out.connectivity.numpy()) == \
        pytest.approx(measure(w_pts, w_off, w_conn), rel=1e-9)
    # two corners above 0.6 on either side of corner 2's dip: two runs, two segments
    ds.point_data["g"] = np.array([1.0, 1.0, 0.0, 1.0, 1.0])
    assert td.contour(ds, "g", 0.5).n_cells == 1
    ds.point_data["h"] = np.array([1.0, 0.0, 1.0, 0.0, 0.0])
    assert td.contour(ds, "h", 0.5).n_cells == 2


def tetrahedra(n, field):
    im = vtk.vtkImageData()
    im.SetDimensions(n, n, n)
    im.SetSpacing(1.0 / (n - 1), 1.0 / (n - 1), 1.0 / (n - 1))
    tri = vtk.vtkDataSetTriangleFilter()
    tri.SetInputData(im)
    tri.Update()
    obj = tri.GetOutput()
    pts = ns.vtk_to_numpy(obj.GetPoints().GetData())
    a = ns.numpy_to_vtk(field(pts).astype(np.float64), deep=True)
    a.SetName("f")
    obj.GetPointData().AddArray(a)
    return obj


def sphere(p):
    return np.linalg.norm(p - 0.5, axis=1)


@pytest.mark.parametrize("mesh", ["tetrahedra", "image"])
def test_a_closed_isosurface_is_watertight(mesh, device):
    if mesh == "tetrahedra":
        obj = tetrahedra(9, sphere)
    else:
        obj = vtk.vtkImageData()
        obj.SetDimensions(10, 11, 9)
        obj.SetSpacing(1 / 9, 1 / 10, 1 / 8)
        pts = np.array([obj.GetPoint(i) for i in range(obj.GetNumberOfPoints())])
        a = ns.numpy_to_vtk(sphere(pts) + 0.02 * np.sin(40 * pts[:, 0]), deep=True)
        a.SetName("f")
        obj.GetPointData().AddArray(a)
    out = td.contour(td.from_vtk(obj), "f", 0.3)
    conn = out.connectivity.numpy().reshape(-1, 3)
    sides = np.sort(np.concatenate([conn[:, [0, 1]], conn[:, [1, 2]], conn[:, [2, 0]]]), axis=1)
    _, count = np.unique(sides, axis=0, return_counts=True)
    assert np.all(count == 2)
    # and oriented: each side once each way
    directed = np.concatenate([conn[:, [0, 1]], conn[:, [1, 2]], conn[:, [2, 0]]])
    assert len(np.unique(directed, axis=0)) == len(directed)
    want = vtk_contour(obj, "f", [0.3])
    assert out.n_cells == want.GetNumberOfCells()
    # a curved surface: the loops' diagonals may differ from VTK's, the area hardly
    w_pts, w_off, w_conn, _ = vtk_arrays(want)
    assert measure(out.points.numpy().astype(np.float64), out.offsets.numpy(),
                   out.connectivity.numpy()) == pytest.approx(measure(w_pts, w_off, w_conn),
                                                              rel=1e-5)


def test_a_mesh_of_more_points_than_an_i32_squares(device):
    """64,000 points: an edge's key (v * n + lo) * n + hi passes 2^32 (the kernels widen n,
    which arrives as an i32 argument)."""
    n = 40
    ds = td.image((n, n, n), origin=(-1, -1, -1), spacing=(2 / (n - 1),) * 3)
    ds.point_data["r"] = np.linalg.norm(ds.points.numpy(), axis=1)
    out = td.contour(ds, "r", [0.5, 0.8])
    r = np.linalg.norm(out.points.numpy(), axis=1)
    assert np.all((np.abs(r - 0.5) < 0.03) | (np.abs(r - 0.8) < 0.03))
    assert np.count_nonzero(np.abs(r - 0.8) < 0.03) > np.count_nonzero(np.abs(r - 0.5) < 0.03)


@pytest.mark.parametrize("dims", [(9, 7, 6), (64, 4, 3), (65, 5, 3), (131, 4, 4)])
@pytest.mark.parametrize("kind", ["image", "structured"])
def test_flying_edges_on_grids_is_the_cell_paths_output(kind, dims, device):
    """Grids of 3-D cells take flying edges (no sort, every point made once by the row owning its
    edge); its triangles, their order, the point numbering and the cells are those of the cell
    path, which the same grid as an unstructured grid of voxels (hexahedra) takes. Rows of one,
    two and three 64-bit words of points (flying edges works on them), ending inside a word and
    at its end."""
    ds = td.image(dims, origin=(0.1, -0.2, 0.3), spacing=(2.7 / dims[0], 0.25, 0.4))
    pts = ds.points.numpy()
    if kind == "structured":
        pts = pts + 0.02 * np.sin(3 * pts[:, [1, 2, 0]])
        ds = td.structured(dims, pts)
    f = np.sin(2 * pts[:, 0]) + np.cos(3 * pts[:, 1]) * pts[:, 2]
    ds.point_data["f"] = f
    ds.cell_data["id"] = np.arange(ds.n_cells, dtype=np.int64)
    i, j, k = np.meshgrid(*(np.arange(n - 1) for n in dims), indexing="ij")
    corner = lambda a, b, c: ((i + a) + dims[0] * ((j + b) + dims[1] * (k + c))).transpose(2, 1, 0).ravel()  # noqa: E731,E501
    order = ([(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0), (0, 0, 1), (1, 0, 1), (0, 1, 1), (1, 1, 1)]
             if kind == "image" else
             [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)])
    conn = np.stack([corner(*o) for o in order], axis=1).ravel()
    cells = td.unstructured(pts, np.arange(0, len(conn) + 1, 8), conn,
                            np.full(ds.n_cells, 11 if kind == "image" else 12, np.uint8))
    cells.point_data["f"] = f
    cells.cell_data["id"] = ds.cell_data["id"]
    values = [float(np.percentile(f, 35)) + 1e-9, float(np.percentile(f, 60)) + 1e-9]
    grid, explicit = td.contour(ds, "f", values), td.contour(cells, "f", values)
    assert grid.n_cells == explicit.n_cells > 0
    np.testing.assert_array_equal(grid.connectivity.numpy(), explicit.connectivity.numpy())
    np.testing.assert_array_equal(grid.cell_data["id"].numpy(), explicit.cell_data["id"].numpy())
    np.testing.assert_allclose(grid.points.numpy(), explicit.points.numpy(), rtol=0, atol=1e-6)
    np.testing.assert_array_equal(grid.point_data["f"].numpy(), explicit.point_data["f"].numpy())
    separate = td.contour(ds, "f", values, merge_points=False)
    assert separate.n_points == 3 * grid.n_cells
    np.testing.assert_array_equal(separate.points.numpy(),
                                  grid.points.numpy()[grid.connectivity.numpy()])


def test_several_values_are_each_values_output_in_turn(device):
    obj = tetrahedra(7, sphere)
    ds = td.from_vtk(obj)
    both = td.contour(ds, "f", [0.2, 0.35])
    one, two = td.contour(ds, "f", 0.2), td.contour(ds, "f", 0.35)
    assert both.n_cells == one.n_cells + two.n_cells
    assert both.n_points == one.n_points + two.n_points
    np.testing.assert_array_equal(both.points.numpy(),
                                  np.concatenate([one.points.numpy(), two.points.numpy()]))
    np.testing.assert_array_equal(
        both.connectivity.numpy(),
        np.concatenate([one.connectivity.numpy(), two.connectivity.numpy() + one.n_points]))


def test_the_output_is_the_same_on_every_device(device):
    obj = tetrahedra(8, lambda p: sphere(p) + 0.1 * p[:, 0])
    here = td.contour(td.from_vtk(obj), "f", [0.25, 0.4])
    cpu = td.contour(td.from_vtk(obj, device="cpu"), "f", [0.25, 0.4])
    np.testing.assert_array_equal(here.connectivity.numpy(), cpu.connectivity.numpy())
    np.testing.assert_allclose(here.points.numpy(), cpu.points.numpy(), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(here.cell_data.keys(), cpu.cell_data.keys())


def test_values_at_points_drop_degenerate_items(device):
    """Integer values contoured at values the points take: crossings at a corner merge into the
    corner's point and triangles left with no area (naming a point twice) go. VTK's grid path
    makes none; its unstructured path keeps them as zero-area triangles over duplicated points:
    the others are Tack's triangles."""
    im = vtk.vtkImageData()
    im.SetDimensions(6, 5, 4)
    rng = np.random.default_rng(3)
    a = ns.numpy_to_vtk(rng.integers(0, 4, im.GetNumberOfPoints()).astype(np.float64), deep=True)
    a.SetName("f")
    im.GetPointData().AddArray(a)
    tri = vtk.vtkDataSetTriangleFilter()
    tri.SetInputData(im)
    tri.Update()
    for obj in (im, tri.GetOutput()):
        for value in (1.0, 2.0):
            out = td.contour(td.from_vtk(obj), "f", value)
            w_pts, _, w_conn, _ = vtk_arrays(vtk_contour(obj, "f", [value]))
            tris = w_conn.reshape(-1, 3)
            area = np.linalg.norm(np.cross(w_pts[tris[:, 1]] - w_pts[tris[:, 0]],
                                           w_pts[tris[:, 2]] - w_pts[tris[:, 0]]), axis=1)
            assert out.n_cells == np.count_nonzero(area > 1e-12)
            conn = out.connectivity.numpy().reshape(-1, 3)
            assert np.all((conn[:, 0] != conn[:, 1]) & (conn[:, 1] != conn[:, 2])
                          & (conn[:, 0] != conn[:, 2]))
            assert len(np.unique(conn)) == out.n_points
            pts = out.points.numpy().astype(np.float64)
            assert len(np.unique(pts, axis=0)) == out.n_points  # no point twice
            assert same_point_sets(pts, w_pts[np.unique(tris[area > 1e-12])], 1e-6)


def test_constant_fields_values_outside_the_range_and_empty_datasets_give_nothing(device):
    obj = tetrahedra(4, lambda p: np.full(len(p), 2.0))
    ds = td.from_vtk(obj)
    for value in (2.0, 1.0, 3.0, np.inf):
        out = td.contour(ds, "f", value)
        assert (out.n_cells, out.n_points, out.offsets.numpy().tolist()) == (0, 0, [0])
        assert out.point_data["f"].shape == (0,)
    empty = td.unstructured(np.zeros((0, 3)), [0], np.zeros(0, np.int64), np.zeros(0, np.uint8))
    empty.point_data["f"] = np.zeros(0)
    assert td.contour(empty, "f", 0.0).n_cells == 0


def test_a_cell_with_a_nan_corner_gives_nothing(device):
    obj = tetrahedra(6, sphere)
    f = ns.vtk_to_numpy(obj.GetPointData().GetArray("f")).copy()
    ds = td.from_vtk(obj)
    whole = td.contour(ds, "f", 0.3)
    bad = int(np.argmin(np.abs(f - 0.3)))  # a point of cells the surface crosses
    f[bad] = np.nan
    ds.point_data["g"] = f
    out = td.contour(ds, "g", 0.3)
    conn = ds.connectivity.numpy().reshape(-1, 4)
    kept = conn[~np.any(conn == bad, axis=1)]
    without = td.unstructured(ds.points.numpy(), np.arange(0, 4 * len(kept) + 1, 4), kept.ravel(),
                              np.full(len(kept), 10, np.uint8))
    without.point_data["g"] = f
    rest = td.contour(without, "g", 0.3)
    assert out.n_cells == rest.n_cells < whole.n_cells
    np.testing.assert_array_equal(out.points.numpy(), rest.points.numpy())
    assert not np.isnan(out.points.numpy()).any()


def test_options(device):
    obj = tetrahedra(7, sphere)
    ds = td.from_vtk(obj)
    ds.cell_data["id"] = np.arange(ds.n_cells, dtype=np.int32)
    ds.point_data["x"] = ds.points.numpy()[:, 0].copy()
    merged = td.contour(ds, "f", 0.3)
    # cell fields from each triangle's cell; point fields interpolated (x is exact)
    np.testing.assert_allclose(merged.point_data["x"].numpy(), merged.points.numpy()[:, 0],
                               atol=1e-12)
    assert merged.cell_data["id"].dtype == np.int32
    separate = td.contour(ds, "f", 0.3, merge_points=False)
    assert separate.n_cells == merged.n_cells and separate.n_points == 3 * merged.n_cells
    assert measure(separate.points.numpy(), separate.offsets.numpy(),
                   separate.connectivity.numpy()) == pytest.approx(
        measure(merged.points.numpy(), merged.offsets.numpy(), merged.connectivity.numpy()))
    bare = td.contour(ds, "f", 0.3, interpolate_fields=False)
    assert list(bare.point_data) == ["f"] and list(bare.cell_data) == []
    normals = td.contour(ds, "f", 0.3, compute_normals=True).point_data["Normals"].numpy()
    np.testing.assert_allclose(np.linalg.norm(normals, axis=1), 1.0, rtol=1e-6)
    outward = merged.points.numpy() - 0.5  # the field grows outwards: normals point in
    assert np.all(np.sum(normals * outward, axis=1) < 0)


def test_errors_name_the_field():
    ds = td.from_vtk(MAKERS["unstructured"]())
    with pytest.raises(KeyError, match="no point field 'rho'"):
        td.contour(ds, "rho", 0.0)
    ds.cell_data["c"] = np.zeros(ds.n_cells)
    with pytest.raises(ValueError, match=r"'c' is a cell field; .* cell_to_point\(ds, 'c'\)"):
        td.contour(ds, "c", 0.0)
    with pytest.raises(ValueError, match="'velocity' has 3 components; contour takes a scalar"):
        td.contour(ds, "velocity", 0.0)
    with pytest.raises(ValueError, match="no contour values"):
        td.contour(ds, "pressure", [])


# ---- slice: the contour of an implicit function at 0 (vtkCutter) ----

def vtk_cut(obj, f):
    c = vtk.vtkCutter()
    c.SetInputData(obj)
    c.SetCutFunction(f)
    c.Update()
    return c.GetOutput()


def implicit_pairs(center, size):
    """Tack's and VTK's implicit functions, alike."""
    pl = vtk.vtkPlane()
    pl.SetOrigin(*center)
    pl.SetNormal(0.3, 0.5, 0.8)
    sp = vtk.vtkSphere()
    sp.SetCenter(*center)
    sp.SetRadius(0.35 * size)
    cy = vtk.vtkCylinder()
    cy.SetCenter(*center)
    cy.SetAxis(0.2, 1.0, 0.1)
    cy.SetRadius(0.3 * size)
    bx = vtk.vtkBox()
    bounds = [c + s * size for c in center for s in (-0.3, 0.25)]
    bx.SetBounds(*bounds)
    return [(td.Plane(center, (0.3, 0.5, 0.8)), pl),
            (td.Sphere(center, 0.35 * size), sp),
            (td.Cylinder(center, (0.2, 1.0, 0.1), 0.3 * size), cy),
            (td.Box(bounds), bx)]


@pytest.mark.parametrize("kind", KINDS)
def test_slice_by_a_plane_is_vtks(kind, device):
    obj = without_polygons(MAKERS[kind]())
    b = obj.GetBounds()
    center = [(b[0] + b[1]) / 2, (b[2] + b[3]) / 2, (b[4] + b[5]) / 2]
    mine, theirs = implicit_pairs(center, 1.0)[0]
    out = td.slice(td.from_vtk(obj), mine)
    w_pts, w_off, w_conn, w_types = vtk_arrays(vtk_cut(obj, theirs))
    types = out.types.numpy()
    for t in (1, 3, 5):
        assert np.count_nonzero(types == t) == w_types.count(t), t
    pts = out.points.numpy().astype(np.float64)
    assert measure(pts, out.offsets.numpy(), out.connectivity.numpy()) == \
        pytest.approx(measure(w_pts, w_off, w_conn), rel=1e-5, abs=1e-9)
    span = max(np.ptp(w_pts, axis=0).max() if len(w_pts) else 1.0, 1e-12)
    assert same_point_sets(pts, w_pts, 1e-5 * span)
    assert "__tack_slice__" not in out.point_data  # the function's values are not kept
    assert sorted(out.point_data) == sorted(td.from_vtk(obj).point_data)


@pytest.mark.parametrize("which", range(4))
def test_slice_by_each_function_is_vtks(which, device):
    """Plane, sphere, cylinder and box through tetrahedra (planar pieces: the same area exactly
    whatever the diagonals) and through an image, against vtkCutter."""
    tets = tetrahedra(10, sphere)
    im = vtk.vtkImageData()
    im.SetDimensions(24, 22, 20)
    im.SetSpacing(1 / 23, 1 / 21, 1 / 19)
    for obj in (tets, im):
        # off the grid's points (a point exactly on the surface is the degenerate tests' case;
        # VTK's plane cutter breaks that tie its own way)
        mine, theirs = implicit_pairs((0.5 + 1e-7, 0.5 - 2e-7, 0.5 + 3e-7), 1.0)[which]
        ds = td.from_vtk(obj)
        np.testing.assert_allclose(
            mine.evaluate(ds).numpy(),
            [theirs.EvaluateFunction(obj.GetPoint(i)) for i in range(obj.GetNumberOfPoints())],
            rtol=1e-12, atol=1e-12)
        out = td.slice(ds, mine)
        want = vtk_cut(obj, theirs)
        w_pts, w_off, w_conn, _ = vtk_arrays(want)
        assert out.n_cells == want.GetNumberOfCells() > 0
        assert measure(out.points.numpy().astype(np.float64), out.offsets.numpy(),
                       out.connectivity.numpy()) == pytest.approx(
            measure(w_pts, w_off, w_conn), rel=1e-5)


def test_slice_refuses_bad_functions():
    with pytest.raises(ValueError, match=r"plane's normal \(0.000000, 0.000000, 0.000000\) has no "
                                         r"direction"):
        td.Plane((0, 0, 0), (0, 0, 0))
    with pytest.raises(ValueError, match="a radius of -1.000000; give a finite radius"):
        td.Sphere((0, 0, 0), -1)
    with pytest.raises(ValueError, match="box bounds run from 1.000000 to 0.000000 along axis 0"):
        td.Box((1, 0, 0, 1, 0, 1))
    with pytest.raises(ValueError, match="bounds are six numbers"):
        td.Box((0, 1))
    ds = td.from_vtk(MAKERS["image"]())
    with pytest.raises(TypeError, match="cuts with a Plane, Sphere, Cylinder or Box, got tuple"):
        td.slice(ds, (0, 0, 1))


def test_a_point_with_thousands_of_crossings_round_it(device):
    """1200 tetrahedra round point 0, contoured across all its edges: the CPU's merge would sort
    thousands of crossings in point 0's bucket, so the radix sort merges instead; the output is
    the other path's (here: the same as on the CPU and VTK's count)."""
    ring = 1200
    angle = np.linspace(0, 2 * np.pi, ring, endpoint=False)
    pts = np.r_[[(0.0, 0.0, 0.0), (0.0, 0.0, 1.0)], np.c_[np.cos(angle), np.sin(angle),
                                                          np.zeros(ring)]]
    conn = np.array([[0, 2 + i, 2 + (i + 1) % ring, 1] for i in range(ring)], np.int64)
    ds = td.unstructured(pts, np.arange(0, 4 * ring + 1, 4), conn.ravel(),
                         np.full(ring, 10, np.uint8))
    ds.point_data["r"] = np.linalg.norm(pts, axis=1)
    out = td.contour(ds, "r", 0.5)
    cpu = td.contour(ds.to("cpu"), "r", 0.5)
    want = vtk_contour(td.to_vtk(ds.to("cpu")), "r", [0.5])
    assert out.n_cells == cpu.n_cells == want.GetNumberOfCells()
    np.testing.assert_array_equal(out.connectivity.numpy(), cpu.connectivity.numpy())
    assert len(np.unique(out.points.numpy(), axis=0)) == out.n_points


def test_a_nan_on_a_grid_leaves_it_to_the_cell_path(device):
    """Flying edges declines a field with a NaN (the cell path skips the NaN's cells): the grid's
    output is then the same grid's as voxels, and holds no NaN point."""
    dims = (7, 6, 5)
    ds = td.image(dims, spacing=(0.2, 0.25, 0.3))
    pts = ds.points.numpy()
    f = np.linalg.norm(pts - 0.6, axis=1)
    f[int(np.argmin(np.abs(f - 0.5)))] = np.nan
    ds.point_data["f"] = f
    i, j, k = np.meshgrid(*(np.arange(n - 1) for n in dims), indexing="ij")
    corner = lambda a, b, c: ((i + a) + dims[0] * ((j + b) + dims[1] * (k + c))).transpose(2, 1, 0).ravel()  # noqa: E731,E501
    conn = np.stack([corner(*o) for o in [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0), (0, 0, 1),
                                          (1, 0, 1), (0, 1, 1), (1, 1, 1)]], axis=1).ravel()
    voxels = td.unstructured(pts, np.arange(0, len(conn) + 1, 8), conn,
                             np.full(ds.n_cells, 11, np.uint8))
    voxels.point_data["f"] = f
    grid, explicit = td.contour(ds, "f", 0.5), td.contour(voxels, "f", 0.5)
    assert 0 < grid.n_cells == explicit.n_cells
    np.testing.assert_array_equal(grid.connectivity.numpy(), explicit.connectivity.numpy())
    assert not np.isnan(grid.points.numpy()).any()


def test_a_plane_through_an_image_looks_only_near_it(device):
    """An image's slice by a plane evaluates the plane only near it (flying edges over those
    points): the same output, bit for bit, as the contour of the plane's values at every point;
    planes along the axes (the same value along a row), oblique ones, one through grid points
    (which takes the general path)."""
    ds = td.image((23, 19, 17), origin=(-0.3, 0.1, 0.2), spacing=(0.05, 0.07, 0.06))
    ds.point_data["t"] = np.arange(ds.n_points, dtype=np.float64)
    planes = [((0.31, 0.62, 0.55), (0.3, 0.5, 0.8)), ((0.2, 0.7, 0.61), (0.0, 1.0, 0.0)),
              ((0.2, 0.7, 0.61), (0.0, 0.0, -2.0)), ((0.21, 0.7, 0.61), (1.0, 0.0, 0.0)),
              ((0.4, 0.5, 0.5), (-0.9, 0.05, 0.3)), ((0.5, 0.5, 0.5), (0.01, 1.0, 1.0)),
              ((-0.05, 0.45, 0.5), (1.0, 1.0, 1.0))]  # the last through grid points
    # rows of three 64-bit words (flying edges works on them), the planes crossing them in
    # the first, the second and the third word, and along a whole row
    wide = td.image((150, 11, 9), origin=(0.0, 0.0, 0.0), spacing=(0.01, 0.1, 0.1))
    wide.point_data["t"] = np.arange(wide.n_points, dtype=np.float64)
    wide_planes = [((0.3, 0.5, 0.4), (1.0, 0.2, 0.1)), ((0.9, 0.5, 0.4), (1.0, -0.3, 0.2)),
                   ((1.35, 0.5, 0.4), (0.8, 0.1, 0.5)), ((0.5, 0.55, 0.45), (0.05, 1.0, 0.2)),
                   ((0.705, 0.5, 0.4), (0.004, 0.03, -0.02))]
    for grid in (ds, wide):  # fields of other dtypes and shapes, and a cell field
        grid.point_data["i"] = (np.arange(grid.n_points) % 7).astype(np.int32)
        grid.point_data["v"] = np.random.default_rng(0).random((grid.n_points, 3), np.float32)
        grid.cell_data["c"] = np.arange(grid.n_cells, dtype=np.int64)
    options = [{}, {"merge_points": False}, {"interpolate_fields": False}]
    for ds, origin, normal in [(ds, o, n) for o, n in planes] + [(wide, o, n) for o, n in wide_planes]:
        plane = td.Plane(origin, normal)
        for opts in options:
            got = td.slice(ds, plane, compute_normals=False, **opts)
            ds.point_data["g"] = plane.evaluate(ds)
            want = td.contour(ds, "g", 0.0, **opts)
            del ds.point_data["g"]
            assert got.n_cells == want.n_cells > 0, normal
            for a, b in ((got.points, want.points), (got.connectivity, want.connectivity),
                         (got.offsets, want.offsets)):
                assert np.array_equal(a.numpy(), b.numpy()), (normal, opts)
            names = sorted(set(want.point_data.keys()) - {"g"})
            assert sorted(got.point_data.keys()) == names
            assert sorted(got.cell_data.keys()) == sorted(want.cell_data.keys())
            for name in names:
                a, b = got.point_data[name], want.point_data[name]
                assert a.dtype == b.dtype and np.array_equal(a.numpy(), b.numpy()), (normal, name)
            for name in got.cell_data.keys():
                assert np.array_equal(got.cell_data[name].numpy(), want.cell_data[name].numpy())
            assert "__tack_slice__" not in got.point_data.keys()


def test_a_plane_slice_with_normals_takes_the_plane_s_gradient(device):
    """Normals need the function's gradient, so a plane through an image with compute_normals
    evaluates the plane everywhere: the same triangles as without normals, each normal minus the
    plane's unit normal (the gradient of a linear function, exact up to rounding)."""
    ds = td.image((30, 21, 17), origin=(-0.3, 0.1, 0.2), spacing=(0.05, 0.07, 0.06))
    plane = td.Plane((0.41, 0.62, 0.55), (0.3, -0.5, 0.8))
    plain, with_normals = td.slice(ds, plane), td.slice(ds, plane, compute_normals=True)
    assert plain.n_cells == with_normals.n_cells > 0
    np.testing.assert_array_equal(plain.connectivity.numpy(), with_normals.connectivity.numpy())
    np.testing.assert_allclose(plain.points.numpy(), with_normals.points.numpy(), rtol=0, atol=1e-6)
    unit = -np.array([0.3, -0.5, 0.8]) / np.linalg.norm([0.3, -0.5, 0.8])
    np.testing.assert_allclose(with_normals.point_data["Normals"].numpy(),
                               np.tile(unit, (with_normals.n_points, 1)), rtol=0, atol=1e-5)
    assert "Normals" not in plain.point_data.keys()
