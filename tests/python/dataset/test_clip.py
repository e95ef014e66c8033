"""tack.dataset.clip against VTK's vtkTableBasedClipDataSet (docs/design/contour.md, "Clip"): the
generated tables (current; every case's cells fill the kept part at positive volume, on any
linear field), then every dataset kind on every device: the measure (volume, area, length) of
each dimension equal to VTK's, the points as sets (less VTK's centroid points), the kept side and
its complement filling the input, a linear field interpolated exactly, a conforming output (its
boundary is the clipped region's), implicit functions, degenerate values, NaN, fields, the same
output on every device, and errors."""
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import tack
import tack.dataset as td

vtk = pytest.importorskip("vtkmodules.all")
ns = pytest.importorskip("vtkmodules.util.numpy_support")

from test_contour import implicit_pairs, same_point_sets, vtk_arrays  # noqa: E402 - after the skip
from test_model import MAKERS  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tools"))
import gen_clip_tables as tables  # noqa: E402

KINDS = sorted(MAKERS)

# VTK's faces of the output's 3-D cell types, each as its corners in order.
FACES = {10: [(0, 1, 3), (1, 2, 3), (2, 0, 3), (0, 2, 1)],
         14: [(0, 3, 2, 1), (0, 1, 4), (1, 2, 4), (2, 3, 4), (3, 0, 4)],
         13: [(0, 1, 2), (3, 5, 4), (0, 3, 4, 1), (1, 4, 5, 2), (2, 5, 3, 0)],
         12: [(0, 4, 7, 3), (1, 2, 6, 5), (0, 1, 5, 4), (3, 7, 6, 2), (0, 3, 2, 1),
              (4, 5, 6, 7)],
         11: [(0, 4, 6, 2), (1, 3, 7, 5), (0, 1, 5, 4), (2, 6, 7, 3), (0, 2, 3, 1),
              (4, 5, 7, 6)]}


def tri_area(a, b, c):
    return np.linalg.norm(np.cross(b - a, c - a), axis=-1) / 2


def polygon_area(p):
    """Polygons' areas ((..., n, 3) corners) by the fan from their centroids (the same whichever
    corner starts them)."""
    m = p.mean(axis=-2)
    n = p.shape[-2]
    return sum(tri_area(m, p[..., k, :], p[..., (k + 1) % n, :]) for k in range(n))


def cell_volume(t, p):
    """3-D cells' volumes ((..., n, 3) corners): the flux of x through their faces, each fanned
    from its centroid (so a face's share does not depend on which corner starts it); the
    magnitude: VTK's wedge corner order turns the faces' listing inside out."""
    c = p.mean(axis=-2)
    v = 0.0
    for f in FACES[t]:
        q = p[..., list(f), :]
        m = q.mean(axis=-2)
        for k in range(len(f)):
            v = v + (np.cross(q[..., k, :] - c, q[..., (k + 1) % len(f), :] - c) * (m - c)).sum(-1) / 6
    return np.abs(v)


def measures(pts, offsets, conn, types):
    """Length, area and volume of the cells of each dimension (and the vertices' count)."""
    out = {"vertices": 0, "length": 0.0, "area": 0.0, "volume": 0.0}
    types, offsets = np.asarray(types), np.asarray(offsets)
    for t in np.unique(types):
        at = offsets[:-1][types == t]
        if t in (2, 4, 6, 7):  # cells of any size: one by one
            for i in np.flatnonzero(types == t):
                p = pts[conn[offsets[i]:offsets[i + 1]]]
                if t == 2:
                    out["vertices"] += len(p)
                elif t == 4:
                    out["length"] += np.linalg.norm(np.diff(p, axis=0), axis=1).sum()
                elif t == 6:
                    out["area"] += sum(tri_area(p[k], p[k + 1], p[k + 2]) for k in range(len(p) - 2))
                else:
                    out["area"] += polygon_area(p)
            continue
        n = {1: 1, 3: 2, 5: 3, 8: 4, 9: 4, 10: 4, 11: 8, 12: 8, 13: 6, 14: 5}[int(t)]
        p = pts[conn[at[:, None] + np.arange(n)]]
        if t == 1:
            out["vertices"] += len(p)
        elif t == 3:
            out["length"] += np.linalg.norm(p[:, 1] - p[:, 0], axis=1).sum()
        elif t == 8:
            out["area"] += polygon_area(p[:, [0, 1, 3, 2]]).sum()
        elif t in (5, 9):
            out["area"] += polygon_area(p).sum()
        else:
            out["volume"] += cell_volume(int(t), p).sum()
    return out


def arrays(ds):
    return (ds.points.numpy().astype(np.float64), ds.offsets.numpy(), ds.connectivity.numpy(),
            ds.types.numpy())


def vtk_clip(obj, name_or_function, value=0.0, invert=False):
    c = vtk.vtkTableBasedClipDataSet()
    c.SetInputData(obj)
    if isinstance(name_or_function, str):
        c.SetInputArrayToProcess(0, 0, 0, 0, name_or_function)
    else:
        c.SetClipFunction(name_or_function)
    c.SetValue(value)
    c.SetInsideOut(invert)
    c.Update()
    return c.GetOutput()


def used_points(pts, conn):
    return pts[np.unique(conn)] if len(conn) else pts[:0]


def edges_of(obj):
    """The input's cell edges as (m, 2, 3) segments."""
    e = vtk.vtkExtractEdges()
    e.SetInputData(obj)
    e.Update()
    pts, offsets, conn, _ = vtk_arrays(e.GetOutput())
    ends = np.array([conn[offsets[i]:offsets[i] + 2] for i in range(len(offsets) - 1)])
    return pts[ends]


def without_centroids(pts, obj, tol):
    """The points on the input's edges (kept points and crossings), not the centroids of the
    parts a table cuts round a point of their own (VTK places its centroids otherwise)."""
    seg = edges_of(obj)
    a, d = seg[:, 0], seg[:, 1] - seg[:, 0]
    keep = np.zeros(len(pts), dtype=bool)
    for i in range(0, len(pts), 64):
        x = pts[i:i + 64, None, :] - a[None]
        u = np.clip((x * d[None]).sum(axis=2) / np.maximum((d * d).sum(axis=1), 1e-300), 0, 1)
        gap = np.linalg.norm(x - u[..., None] * d[None], axis=2).min(axis=1)
        keep[i:i + 64] = gap < tol
    return pts[keep]


def point_array(obj):
    if obj.IsA("vtkImageData") or obj.IsA("vtkRectilinearGrid"):
        return np.array([obj.GetPoint(i) for i in range(obj.GetNumberOfPoints())])
    return ns.vtk_to_numpy(obj.GetPoints().GetData()).astype(np.float64)


LIN = np.array([0.3, -0.2, 0.5])


def image_and_tetrahedra(dims):
    """A unit-cube image of `dims` points and the tetrahedra vtkDataSetTriangleFilter makes of it."""
    im = vtk.vtkImageData()
    im.SetDimensions(*dims)
    im.SetSpacing(*(1 / (n - 1) for n in dims))
    tri = vtk.vtkDataSetTriangleFilter()
    tri.SetInputData(im)
    tri.Update()
    return im, tri.GetOutput()


def with_linear_field(obj):
    lin = point_array(obj) @ LIN + 0.1
    a = ns.numpy_to_vtk(lin.astype(np.float64), deep=True)
    a.SetName("lin")
    obj.GetPointData().AddArray(a)
    return obj, lin


# ---- the tables ----

def test_the_generated_tables_are_current():
    subprocess.run([sys.executable, str(ROOT / "tools" / "gen_clip_tables.py"), "--check"],
                   check=True)


@pytest.mark.parametrize("t", [10, 11, 12, 13, 14])
def test_every_linear_case_fills_the_kept_part(t):
    """For every case a linear field makes (and two sides), at random crossings of such fields:
    every cell of the case has a positive volume, the cells' volumes add up to the kept part's
    (the cell's volume less the other side's), and each side's cut faces are the same."""
    _, corners, faces = tables.CELLS[t]
    corners = np.array(corners, dtype=np.float64)
    edges = tables.edges_of(faces)
    rng = np.random.default_rng(t)
    whole = cell_volume(t, corners)
    rows = [tables.table(t, side) for side in (0, 1)]
    seen = set()
    for _ in range(600):
        f = corners @ rng.normal(size=3)
        f -= rng.uniform(f.min(), f.max())
        case = sum(1 << k for k in range(len(f)) if f[k] >= 0)
        seen.add(case)

        def place(label):
            if label < tables.EDGE:
                return corners[label]
            a, b = edges[label - tables.EDGE]
            return corners[a] + f[a] / (f[a] - f[b]) * (corners[b] - corners[a])
        got = []
        for side in (0, 1):
            cells, centroids = rows[side][case]

            def at(label):
                if label < tables.CENTROID:
                    return place(label)
                return np.mean([place(v) for v in centroids[label - tables.CENTROID]], axis=0)
            vols = [cell_volume(ct, np.array([at(v) for v in vs])) for ct, vs in cells]
            signed = [tables.volume((ct, vs), at) for ct, vs in cells]
            assert all(v > 0 for v in signed) or not cells, (case, side)
            got.append(sum(vols))
        assert got[0] + got[1] == pytest.approx(whole, rel=1e-9), case
    assert len(seen) >= 0.75 * len(tables.linear_fields(tables.CELLS[t][1]))


def test_two_cells_sharing_a_face_cut_it_alike():
    """The face rules: a kept face polygon is cut the same way from either cell (pentagons and
    hexagons by their corners, not by where the walk starts)."""
    for poly in ([0, 1, 2, 9, 8], [8, 0, 1, 2, 9], [0, 9, 10, 2, 11, 12]):
        pieces = {frozenset(map(frozenset, [tuple(sorted(p)) for p in tables.split(poly)]))}
        for k in range(len(poly)):
            turned = poly[k:] + poly[:k]
            pieces.add(frozenset(map(frozenset, [tuple(sorted(p)) for p in tables.split(turned)])))
            back = list(reversed(turned))
            pieces.add(frozenset(map(frozenset, [tuple(sorted(p)) for p in tables.split(back)])))
        assert len(pieces) == 1, poly


# ---- whole datasets against VTK ----

def without_poly_lines(obj):
    """The mesh less its poly-lines: VTK's clip keeps a cut poly-line as one poly-line that
    bridges the part cut away (longer than the poly-line was); Tack's gives its kept segments
    (test_a_cut_poly_line_keeps_its_segments)."""
    if not obj.IsA("vtkUnstructuredGrid"):
        return obj
    keep = vtk.vtkIdList()
    for c in range(obj.GetNumberOfCells()):
        if obj.GetCellType(c) != vtk.VTK_POLY_LINE:
            keep.InsertNextId(c)
    e = vtk.vtkExtractCells()
    e.SetInputData(obj)
    e.SetCellList(keep)
    e.Update()
    return e.GetOutput()


@pytest.mark.parametrize("kind", KINDS)
def test_clip_is_vtks(kind, device):
    """By a linear field (plane cuts: each cell's kept part is a polyhedron whatever its cut),
    at three values and both sides: the measure of each dimension equals VTK's, the points are
    VTK's (less its centroid points), the two sides fill the input, the field interpolates
    exactly, the fields come through. (The structured grids' cells have curved faces: the two
    sides' parts need not fill them to 1e-6 in the measure here, planes through the corners.)"""
    obj, lin = with_linear_field(without_poly_lines(MAKERS[kind]()))
    ds = td.from_vtk(obj)
    everything = measures(*arrays(td.clip(ds, "lin", lin.min() - 1.0)))
    for value in np.percentile(lin, [25, 50, 80]) + 1e-7:
        halves = []
        for invert in (False, True):
            out = td.clip(ds, "lin", value, invert=invert)
            assert out.kind == "unstructured" and out.device == device
            want = vtk_clip(obj, "lin", value, invert)
            mine, theirs = measures(*arrays(out)), measures(*vtk_arrays(want))
            assert mine["volume"] == pytest.approx(theirs["volume"], rel=1e-6, abs=1e-12)
            assert mine["area"] == pytest.approx(theirs["area"], rel=1e-6, abs=1e-12)
            assert mine["length"] == pytest.approx(theirs["length"], rel=1e-6, abs=1e-12)
            halves.append(mine)
            pts = out.points.numpy().astype(np.float64)
            w_pts, _, w_conn, _ = vtk_arrays(want)
            span = max(np.ptp(point_array(obj), axis=0).max(), 1e-12)
            # crossings and kept points (VTK's poly data path keeps unused points; its
            # centroids are placed otherwise); f32 points round at 1e-7 of the extent
            tol = 1e-6 * span
            assert same_point_sets(without_centroids(pts, obj, tol),
                                   without_centroids(used_points(w_pts, w_conn), obj, tol), tol)
            # no unused point; kept points first, in the input's order
            assert len(np.unique(out.connectivity.numpy())) == out.n_points
            np.testing.assert_allclose(out.point_data["lin"].numpy(), pts @ LIN + 0.1,
                                       atol=1e-6 * span)
            assert sorted(out.point_data) == sorted(ds.point_data)
            assert sorted(out.cell_data) == sorted(ds.cell_data)
        for m in ("volume", "area", "length"):
            if not kind.startswith("structured"):
                assert halves[0][m] + halves[1][m] == pytest.approx(everything[m], rel=1e-9)


def test_clip_of_an_image_keeps_whole_cells_as_vtk_does(device):
    """Voxels wholly kept become hexahedra in VTK's corner order, carrying their cell's fields."""
    obj = vtk.vtkImageData()
    obj.SetDimensions(6, 5, 4)
    obj.SetSpacing(0.5, 0.25, 1.0)
    obj, lin = with_linear_field(obj)
    ds = td.from_vtk(obj)
    value = np.percentile(lin, 40) + 1e-7
    out = td.clip(ds, "lin", value)
    want = vtk_clip(obj, "lin", value)
    types = out.types.numpy()
    # the voxels with every corner kept, and only they, are copied (the hexahedra that are
    # parts of cut voxels name crossings)
    nx, ny, nz = obj.GetDimensions()
    up = (lin >= value).reshape(nz, ny, nx)
    whole = up[:-1, :-1, :-1] & up[1:, :-1, :-1] & up[:-1, 1:, :-1] & up[:-1, :-1, 1:] & \
        up[1:, 1:, :-1] & up[1:, :-1, 1:] & up[:-1, 1:, 1:] & up[1:, 1:, 1:]
    inputs = point_array(obj)
    named = [np.linalg.norm(out.points.numpy()[out.connectivity.numpy()[
        out.offsets.numpy()[i]:out.offsets.numpy()[i + 1]]][:, None] - inputs[None],
        axis=2).min(axis=1).max() < 1e-12 for i in range(out.n_cells)]
    assert np.count_nonzero((types == 12) & np.array(named)) == np.count_nonzero(whole) > 0
    assert want.GetNumberOfCells() > 0
    # each whole hexahedron is its voxel with VTK's hexahedron corner order: +x, then +y from
    # there, back along -x, and the same above
    pts = out.points.numpy()
    conn, offsets = out.connectivity.numpy(), out.offsets.numpy()
    sx, sy, sz = obj.GetSpacing()
    for i in np.flatnonzero((types == 12) & np.array(named)):
        h = pts[conn[offsets[i]:offsets[i + 1]]]
        np.testing.assert_allclose(h[[1, 2, 3, 4]] - h[[0, 1, 0, 0]],
                                   [[sx, 0, 0], [0, sy, 0], [0, sy, 0], [0, 0, sz]], atol=1e-12)
        np.testing.assert_allclose(h[4:] - h[:4], [[0, 0, sz]] * 4, atol=1e-12)


def test_the_output_conforms(device):
    """The clipped tetrahedra and image: every face of an output cell is shared by two cells or
    lies on the clipped region's boundary, so the output's external faces cover exactly the
    boundary's area (the input's kept boundary plus the cut)."""
    for obj in image_and_tetrahedra((7, 6, 5)):
        pts = point_array(obj)
        linear = pts @ LIN
        for field in (linear, np.linalg.norm(pts - 0.5, axis=1)):
            a = ns.numpy_to_vtk(field.astype(np.float64), deep=True)
            a.SetName("f")
            obj.GetPointData().AddArray(a)
            value = np.percentile(field, 45) + 1e-7
            for invert in (False, True):
                out = td.clip(td.from_vtk(obj), "f", value, invert=invert)
                faces = face_counts(out)
                assert set(faces.values()) <= {1, 2}
                boundary = td.external_faces(out)
                want = vtk.vtkDataSetSurfaceFilter()
                want.SetInputData(vtk_clip(obj, "f", value, invert))
                want.Update()
                # a curved cut: VTK's tables cut its parts' faces along other diagonals
                assert measures(*arrays(boundary))["area"] == pytest.approx(
                    measures(*vtk_arrays(want.GetOutput()))["area"],
                    rel=1e-9 if field is linear else 1e-4)


def face_counts(out):
    conn, offsets, types = out.connectivity.numpy(), out.offsets.numpy(), out.types.numpy()
    faces = {}
    for i, t in enumerate(types):
        ids = conn[offsets[i]:offsets[i + 1]]
        for f in FACES[int(t)]:
            key = tuple(sorted(int(ids[k]) for k in f))
            faces[key] = faces.get(key, 0) + 1
    return faces


@pytest.mark.parametrize("which", range(4))
def test_clip_by_each_function_is_vtks(which, device):
    """Plane, sphere, cylinder and box on tetrahedra and on an image. A plane cuts each cell
    along a plane: VTK's volume exactly. The others cut curved: a part's cut face is contour's
    triangles where VTK's tables take other diagonals (and on tetrahedra VTK's wedges pair their
    cut quadrilaterals' corners otherwise), the volumes within 1e-5 on tetrahedra, 1e-3 on this
    coarse image, the points (less centroids) the same."""
    im, tets = image_and_tetrahedra((9, 8, 7))
    for obj, rel in ((tets, 1e-9 if which == 0 else 1e-5),
                     (im, 1e-9 if which == 0 else 1e-3)):
        mine, theirs = implicit_pairs((0.5 + 1e-7, 0.5 - 2e-7, 0.5 + 3e-7), 1.0)[which]
        ds = td.from_vtk(obj)
        for invert in (False, True):
            out = td.clip(ds, mine, invert=invert)
            want = vtk_clip(obj, theirs, invert=invert)
            assert out.n_cells > 0
            assert measures(*arrays(out))["volume"] == pytest.approx(
                measures(*vtk_arrays(want))["volume"], rel=rel)
            w_pts, _, w_conn, _ = vtk_arrays(want)
            assert same_point_sets(without_centroids(out.points.numpy(), obj, 1e-9),
                                   without_centroids(w_pts, obj, 1e-9), 1e-9)
            assert sorted(out.point_data) == sorted(ds.point_data)  # the function is not kept


def test_clip_box_keeps_the_inside(device):
    """clip_box is the clip by vtkBox's function (ParaView's clip by a box, not "exact"): the
    inside by default, the outside with invert; the two fill the input."""
    obj = vtk.vtkImageData()
    obj.SetDimensions(11, 11, 11)
    obj.SetSpacing(0.1, 0.1, 0.1)
    ds = td.from_vtk(obj)
    bounds = (0.23, 0.71, 0.1, 0.55, -1.0, 0.37)
    box = vtk.vtkBox()
    box.SetBounds(*bounds)
    inside = td.clip_box(ds, bounds)
    outside = td.clip_box(ds, bounds, invert=True)
    # the box's function bends near its edges: cut faces there follow other diagonals
    for mine, invert in ((inside, True), (outside, False)):
        assert measures(*arrays(mine))["volume"] == pytest.approx(
            measures(*vtk_arrays(vtk_clip(obj, box, invert=invert)))["volume"], rel=1e-4)
    # (the two sides' cut faces agree where they are planar: here within 1e-4)
    assert td.integrate(inside)["volume"] + td.integrate(outside)["volume"] == pytest.approx(
        1.0, rel=1e-4)
    assert td.integrate(inside)["volume"] == pytest.approx(0.48 * 0.45 * 0.37, rel=0.1)
    assert td.clip(ds, td.Box(bounds), invert=True).n_cells == inside.n_cells


def test_a_cut_poly_line_keeps_its_segments(device):
    pts = np.array([(0, 0, 0), (1, 0, 0), (2, 0, 0), (3, 0, 0), (4, 0, 0)], float)
    ds = td.unstructured(pts, [0, 5], [0, 1, 2, 3, 4], np.array([4], np.uint8))
    ds.point_data["f"] = np.array([1.0, -1.0, 1.0, 1.0, -1.0])
    out = td.clip(ds, "f", 0.0)
    assert out.types.numpy().tolist() == [3, 3, 3, 3]
    assert measures(*arrays(out))["length"] == pytest.approx(0.5 + 0.5 + 1.0 + 0.5)
    assert td.clip(ds, "f", -5.0).types.numpy().tolist() == [4]  # kept whole: itself


def test_clip_scalar_is_clip_by_a_field(device):
    ds = td.image((5, 4, 3))
    ds.point_data["x"] = ds.points.numpy()[:, 0]
    a, b = td.clip_scalar(ds, "x", 1.5, invert=True), td.clip(ds, "x", 1.5, invert=True)
    assert np.array_equal(a.connectivity.numpy(), b.connectivity.numpy())
    assert td.integrate(a)["volume"] == pytest.approx(1.5 * 3 * 2)


# ---- degenerate values ----

def test_values_at_points_are_kept_on_the_upper_side(device):
    """A point at the value is kept by the default side and not by invert (VTK's >= and <); each
    cut edge's crossing is a point of its own even where it is at a corner, as VTK's."""
    obj = vtk.vtkImageData()
    obj.SetDimensions(5, 4, 3)
    pts = point_array(obj)
    f = pts[:, 0] + 0.0 * pts[:, 1]  # integer values: the value 2 is at a plane of points
    a = ns.numpy_to_vtk(f, deep=True)
    a.SetName("f")
    obj.GetPointData().AddArray(a)
    ds = td.from_vtk(obj)
    for invert in (False, True):
        out = td.clip(ds, "f", 2.0, invert=invert)
        want = vtk_clip(obj, "f", 2.0, invert)
        assert out.n_points == want.GetNumberOfPoints()
        assert measures(*arrays(out))["volume"] == pytest.approx(
            measures(*vtk_arrays(want))["volume"])
        assert not np.isnan(out.points.numpy()).any()
    assert td.integrate(td.clip(ds, "f", 2.0))["volume"] == pytest.approx(2 * 3 * 2)


def test_constant_fields_values_outside_the_range_and_empty_datasets(device):
    ds = td.image((4, 3, 3))
    ds.point_data["c"] = np.full(ds.n_points, 2.0)
    ds.cell_data["id"] = np.arange(ds.n_cells)
    whole = td.clip(ds, "c", 2.0)  # every point at the value: all kept
    assert whole.n_cells == ds.n_cells and whole.n_points == ds.n_points
    assert whole.types.numpy().tolist() == [12] * ds.n_cells
    assert whole.cell_data["id"].numpy().tolist() == list(range(ds.n_cells))
    assert td.clip(ds, "c", 2.0, invert=True).n_cells == 0
    none = td.clip(ds, "c", 5.0)
    assert none.n_cells == 0 and none.n_points == 0 and "c" in none.point_data
    empty = td.unstructured(np.zeros((0, 3)), [0], np.zeros(0, np.int64), np.zeros(0, np.uint8))
    empty.point_data["c"] = np.zeros(0)
    assert td.clip(empty, "c", 0.0).n_cells == 0


def test_a_cell_with_a_nan_corner_is_dropped(device):
    ds = td.image((4, 4, 4))
    f = ds.points.numpy()[:, 0].copy()
    f[21] = np.nan  # point (1, 1, 1): its eight voxels
    ds.point_data["f"] = f
    for invert in (False, True):
        out = td.clip(ds, "f", 1.5, invert=invert)
        assert not np.isnan(out.points.numpy()).any()
        # the eight voxels round the point are gone from both sides: 13.5 each less the four
        # cut ones' halves, and on the lower side the four whole ones before them
        assert td.integrate(out)["volume"] == pytest.approx(7.5 if invert else 11.5)


def test_fields_interpolate_and_integers_become_f64(device):
    ds = td.image((4, 3, 2))
    ds.point_data["i"] = np.arange(ds.n_points, dtype=np.int32)
    ds.point_data["v"] = np.stack([ds.points.numpy()[:, 0]] * 3, axis=1).astype(np.float32)
    ds.cell_data["c"] = np.arange(ds.n_cells, dtype=np.int16) * 10
    out = td.clip(ds, "i", 5.5)
    assert out.point_data["i"].dtype == np.float64
    assert out.point_data["v"].dtype == np.float32 and out.point_data["v"].shape[1] == 3
    assert out.cell_data["c"].dtype == np.int16
    # ids as VTK's 32-bit cell arrays where every one fits
    assert out.connectivity.dtype == np.int32 and out.offsets.dtype == np.int32
    i = out.point_data["i"].numpy()
    assert i.min() == pytest.approx(5.5) and np.all(i >= 5.5)


def explicit_cells(n, kind, extra_line=False):
    """The cells of a grid of n points as explicit voxels (an image's order) or hexahedra (a
    structured grid's): offsets, connectivity, types; with a line after them if asked."""
    i, j, l = np.meshgrid(np.arange(n[0] - 1), np.arange(n[1] - 1), np.arange(n[2] - 1),
                          indexing="ij")
    base = (i + n[0] * (j + n[1] * l)).transpose(2, 1, 0).ravel()
    dx, dy, dz = 1, n[0], n[0] * n[1]
    order = [0, dx, dy, dx + dy, dz, dz + dx, dz + dy, dz + dx + dy] if kind == "image" else \
        [0, dx, dx + dy, dy, dz, dz + dx, dz + dx + dy, dz + dy]
    conn = (base[:, None] + np.array(order)).ravel()
    types = np.full(len(base), 11 if kind == "image" else 12, np.uint8)
    offsets = list(range(0, len(conn) + 1, 8))
    if extra_line:
        conn = np.concatenate([conn, [0, 1]])
        types = np.append(types, np.uint8(3))
        offsets.append(len(conn))
    return offsets, conn, types


def same_clips(a, b):
    """a's cells are b's first ones, over the same points and fields."""
    assert np.array_equal(a.points.numpy(), b.points.numpy())
    assert np.array_equal(a.types.numpy(), b.types.numpy()[:a.n_cells])
    assert np.array_equal(a.connectivity.numpy(),
                          b.connectivity.numpy()[:len(a.connectivity.numpy())])
    for name in a.point_data:
        assert np.array_equal(a.point_data[name].numpy(), b.point_data[name].numpy(),
                              equal_nan=True)


@pytest.mark.parametrize("kind", ["image", "structured"])
def test_a_grid_numbers_its_crossings_as_the_merge_does(kind, device):
    """Grids number their crossings by point and axis without merging, and read the cells'
    points without offsets: the output is the same grid's as explicit voxels or hexahedra, bit
    for bit (one cell type: the one-type path; with a line added: the general one)."""
    n = (7, 6, 5)
    grid = td.image(n, origin=(0.1, -0.2, 0.3), spacing=(0.3, 0.2, 0.25))
    pts = grid.points.numpy()
    if kind == "structured":
        pts = pts + 0.05 * np.sin(3 * pts[:, [1, 2, 0]])
        grid = td.structured(n, pts)
    field = np.linalg.norm(pts - pts.mean(axis=0), axis=1) + 0.1 * pts[:, 0]
    grid.point_data["f"] = field
    value = np.percentile(field, 40)
    for extra in (False, True):
        ex = td.unstructured(pts, *explicit_cells(n, kind, extra))
        ex.point_data["f"] = field
        for invert in (False, True):
            same_clips(td.clip(grid, "f", value, invert=invert),
                       td.clip(ex, "f", value, invert=invert))


def test_a_nan_on_a_grid_leaves_it_to_the_merge(device):
    """A NaN on a grid drops its cells from both sides and sends the crossings to the merge (the
    grid's own numbering would count edges of the dropped cells): the same output as the grid
    as explicit voxels."""
    n = (5, 4, 4)
    grid = td.image(n)
    pts = grid.points.numpy()
    f = pts @ np.array([1.0, 0.3, 0.2])
    f[27] = np.nan
    grid.point_data["f"] = f
    ex = td.unstructured(pts, *explicit_cells(n, "image"))
    ex.point_data["f"] = f
    for invert in (False, True):
        out = td.clip(grid, "f", 1.7, invert=invert)
        same_clips(out, td.clip(ex, "f", 1.7, invert=invert))
        assert not np.isnan(out.points.numpy()).any() and out.n_cells > 0
        assert len(np.unique(out.connectivity.numpy())) == out.n_points  # no unused point


def test_the_output_is_the_same_on_every_device(device):
    obj, lin = with_linear_field(MAKERS["unstructured"]())
    a = td.clip(td.from_vtk(obj), "pressure", 0.4)
    b = td.clip(td.from_vtk(obj, device=tack.device("cpu")), "pressure", 0.4)
    for x, y in ((a.points, b.points), (a.connectivity, b.connectivity), (a.types, b.types),
                 (a.offsets, b.offsets)):
        assert np.array_equal(x.numpy(), y.numpy())


def test_errors_name_what_is_wrong():
    ds = td.image((3, 3, 3))
    ds.point_data["v"] = np.zeros((27, 3))
    ds.cell_data["c"] = np.zeros(8)
    with pytest.raises(ValueError, match="cell field.*cell_to_point"):
        td.clip(ds, "c")
    with pytest.raises(ValueError, match="3 components"):
        td.clip(ds, "v")
    with pytest.raises(KeyError, match="nothing"):
        td.clip(ds, "nothing")
    with pytest.raises(ValueError, match="finite value"):
        td.clip(ds, td.Plane(), float("nan"))
    with pytest.raises(TypeError, match="Plane, Sphere"):
        td.clip(ds, 3.0)
    with pytest.raises(ValueError, match="six numbers"):
        td.clip_box(ds, (0, 1))
