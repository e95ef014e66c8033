"""tack.dataset.CellLocator, probe and resample_to_image (docs/design/locators.md): find_cells
against brute force (every cell tested in NumPy with the same definition of "holds": parametric
coordinates inside the cell's domain within 1e-9) on random points and on points at faces,
edges and vertices (the tie rule: the lowest cell id), outside the bounds and NaN, on every
linear 3-D and 2-D cell type, structured grids and images, on every device; the parametric
coordinates map back to the point; the version rule through a view of the points; probe against
vtkProbeFilter."""
import numpy as np
import pytest

import tack
import tack.dataset as td

EPS = 1e-9

# Each type's corners in parametric space, VTK's order.
CORNERS = {
    5: [(0, 0, 0), (1, 0, 0), (0, 1, 0)],
    8: [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)],
    9: [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)],
    10: [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)],
    11: [(i & 1, (i >> 1) & 1, i >> 2) for i in range(8)],
    12: [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)],
    13: [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (0, 1, 1)],
    14: [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0.5, 0.5, 1)],
}
DIM = {5: 2, 8: 2, 9: 2, 10: 3, 11: 3, 12: 3, 13: 3, 14: 3}


def weights(t, pc):
    """VTK's interpolation functions of type t at parametric coordinates pc (..., 3)."""
    r, s, u = pc[..., 0], pc[..., 1], pc[..., 2]
    if t == 5:
        return np.stack([1 - r - s, r, s], -1)
    if t == 10:
        return np.stack([1 - r - s - u, r, s, u], -1)
    if t == 13:
        return np.stack([(1 - r - s) * (1 - u), r * (1 - u), s * (1 - u), (1 - r - s) * u,
                         r * u, s * u], -1)
    if t == 14:
        b = [(1 - r) * (1 - s), r * (1 - s), r * s, (1 - r) * s]
        return np.stack([w * (1 - u) for w in b] + [u], -1)
    corners = np.array(CORNERS[t], float)
    out = []
    for c in corners:
        w = np.ones_like(r)
        for a, x in enumerate((r, s, u)[:DIM[t]]):
            w = w * (x if c[a] else 1 - x)
        out.append(w)
    return np.stack(out, -1)


def jacobian(t, pc, xs):
    """d x / d pc (..., 3, dim) by central differences of the (polynomial) map: exact to
    rounding for maps of degree <= 2 per coordinate, which these are."""
    h = 1e-4
    cols = []
    for a in range(DIM[t]):
        d = np.zeros(3)
        d[a] = h
        cols.append((np.einsum("...i,...ij->...j", weights(t, pc + d), xs) -
                     np.einsum("...i,...ij->...j", weights(t, pc - d), xs)) / (2 * h))
    return np.stack(cols, -1)


def inside(t, pc, eps=EPS):
    r, s, u = pc[..., 0], pc[..., 1], pc[..., 2]
    lo, hi = -eps, 1 + eps
    if t == 5:
        return (r >= lo) & (s >= lo) & (r + s <= hi)
    if t == 10:
        return (r >= lo) & (s >= lo) & (u >= lo) & (r + s + u <= hi)
    if t == 13:
        return (r >= lo) & (s >= lo) & (r + s <= hi) & (u >= lo) & (u <= hi)
    ok = (r >= lo) & (r <= hi) & (s >= lo) & (s <= hi)
    return ok & (u >= lo) & (u <= hi) if DIM[t] == 3 else ok


def model_find(points, cell_points, types):
    """Brute force: for every point, the lowest cell id whose parametric coordinates (Newton
    from the cell's centre, 40 steps; 2 for linear maps) are inside within EPS and whose map reproduces the point
    within 1e-9 of the cell's size; -1 if none."""
    n = len(points)
    found = np.full(n, -1)
    pcs = np.zeros((n, 3))
    for c in reversed(range(len(types))):  # lowest id last: it wins
        t = types[c]
        xs = np.asarray(cell_points[c], float)
        size = np.linalg.norm(xs.max(0) - xs.min(0))
        pc = np.tile(np.mean(np.array(CORNERS[t], float), 0), (n, 1))
        if t == 14:
            pc[:] = (0.5, 0.5, 0.2)
        with np.errstate(all="ignore"):
            for _ in range(2 if t in (5, 8, 10, 11) else 40):  # linear maps: one step is exact
                x = weights(t, pc) @ xs
                j = jacobian(t, pc, np.broadcast_to(xs, (n,) + xs.shape))
                jt = np.swapaxes(j, 1, 2)
                a, b = jt @ j, jt @ (points - x)[..., None]
                fine = np.abs(np.linalg.det(a)) > 1e-300  # a singular map (an apex) stops
                d = np.zeros((n, DIM[t]))
                d[fine] = np.linalg.solve(a[fine], b[fine])[..., 0]
                pc[:, :DIM[t]] += d
            x = weights(t, pc) @ xs
            ok = inside(t, pc) & (np.linalg.norm(points - x, axis=1) <= 1e-9 * size)
        if t == 14:  # the apex: every (r, s) maps there; VTK's (0.5, 0.5, 1)
            apex = np.linalg.norm(points - xs[4], axis=1) <= 1e-9 * size
            pc[apex] = (0.5, 0.5, 1.0)
            ok |= apex
        ok &= ~np.isnan(points).any(1)
        found[ok] = c
        pcs[ok] = pc[ok]
    return found, pcs


def grid(n, rng, jitter):
    """The (n + 1)^3 points of a cube of n^3 unit cells, x fastest, interior points moved at
    random, and the id of point (i, j, k)."""
    g = np.stack(np.meshgrid(*[np.arange(n + 1.0)] * 3, indexing="ij"), -1)[..., ::-1]
    pts = g.reshape(-1, 3).copy()
    interior = np.all((pts > 0) & (pts < n), axis=1)
    pts[interior] += rng.uniform(-jitter, jitter, (interior.sum(), 3))
    return pts, lambda i, j, k: (k * (n + 1) + j) * (n + 1) + i


def kuhn_tets(n, rng, jitter=0.2):
    """A cube of n^3 unit cells, each split into six tetrahedra (conforming), interior points
    moved at random."""
    pts, pid = grid(n, rng, jitter)
    paths = [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
    conn = []
    for k in range(n):
        for j in range(n):
            for i in range(n):
                for path in paths:
                    c = [i, j, k]
                    ids = [pid(*c)]
                    for a in path:
                        c[a] += 1
                        ids.append(pid(*c))
                    conn.append(ids)
    return pts, conn


def hexes(n, rng, jitter=0.2):
    pts, pid = grid(n, rng, jitter)
    conn = [[pid(i + a, j + b, k + c) for (a, b, c) in CORNERS[12]]
            for k in range(n) for j in range(n) for i in range(n)]
    return pts, conn


def unstructured(pts, conn, types, device):
    offsets = np.concatenate([[0], np.cumsum([len(c) for c in conn])])
    return td.unstructured(np.asarray(pts, float), offsets, np.concatenate(conn),
                           np.asarray(types, np.uint8), device=device)


def mesh(kind, rng):
    """(points, cells as point lists, types) of a small mesh of one kind."""
    if kind == "tetra":
        pts, conn = kuhn_tets(3, rng)
        return pts, conn, [10] * len(conn)
    if kind == "hexahedron":
        pts, conn = hexes(3, rng)
        return pts, conn, [12] * len(conn)
    if kind == "voxel":
        pts, conn = hexes(3, rng, jitter=0.0)
        conn = [[c[q] for q in (0, 1, 3, 2, 4, 5, 7, 6)] for c in conn]
        return pts, conn, [11] * len(conn)
    if kind == "wedge":  # each hexahedron as two wedges
        pts, conn = hexes(3, rng)
        out = []
        for h in conn:
            out.append([h[0], h[1], h[3], h[4], h[5], h[7]])
            out.append([h[1], h[2], h[3], h[5], h[6], h[7]])
        return pts, out, [13] * len(out)
    if kind == "pyramid":  # each unit cube as six pyramids round its centre
        pts, conn = hexes(2, rng, jitter=0.0)
        pts = list(map(tuple, pts))
        out = []
        faces = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6),
                 (3, 0, 4, 7)]
        for h in conn:
            centre = np.mean([pts[q] for q in h], 0)
            pts.append(tuple(centre))
            for f in faces:
                out.append([h[f[0]], h[f[1]], h[f[2]], h[f[3]], len(pts) - 1])
        return np.array(pts), out, [14] * len(out)
    if kind == "mixed":
        pts, tets = kuhn_tets(2, rng, jitter=0.0)
        _, hx = hexes(2, rng, jitter=0.0)
        conn = tets[:6] + [hx[1]] + tets[12:]
        types = [10] * 6 + [12] + [10] * (len(tets) - 12)
        return pts, conn, types
    if kind in ("triangle", "quad", "pixel"):
        n = 4
        g = np.stack(np.meshgrid(np.arange(n + 1.0), np.arange(n + 1.0), indexing="xy"), -1)
        pts = np.concatenate([g.reshape(-1, 2), np.zeros(((n + 1) ** 2, 1))], 1)
        if kind != "pixel":
            inner = np.all((pts[:, :2] > 0) & (pts[:, :2] < n), 1)
            pts[inner, :2] += rng.uniform(-0.2, 0.2, (inner.sum(), 2))
        conn, types = [], []
        for j in range(n):
            for i in range(n):
                a, b, c, d = j * (n + 1) + i, j * (n + 1) + i + 1, (j + 1) * (n + 1) + i + 1, \
                    (j + 1) * (n + 1) + i
                if kind == "triangle":
                    conn += [[a, b, c], [a, c, d]]
                    types += [5, 5]
                elif kind == "quad":
                    conn.append([a, b, c, d])
                    types.append(9)
                else:
                    conn.append([a, b, d, c])
                    types.append(8)
        return pts, conn, types
    raise ValueError(kind)


KINDS = ["tetra", "hexahedron", "voxel", "wedge", "pyramid", "mixed", "triangle", "quad", "pixel"]


def queries(pts, conn, types, rng, n_random=300):
    """Random points in the bounds (and a little past them), points on every cell's corners,
    edge midpoints and face centres (built from the cell's own map), points just outside the
    boundary, and NaN."""
    lo, hi = pts.min(0), pts.max(0)
    pad = 0.1 * (hi - lo)
    random = rng.uniform(lo - pad, hi + pad, (n_random, 3))
    if np.all(pts[:, 2] == 0):
        random[:, 2] = 0.0
    special = []
    for c in rng.choice(len(conn), min(len(conn), 12), replace=False):
        t = types[c]
        xs = pts[conn[c]]
        corners = np.array(CORNERS[t], float)
        special.append(xs)  # its vertices
        mids = (corners[:, None] + corners[None, :]) / 2  # edge and face midpoints (in pc)
        pc = mids.reshape(-1, 3)
        pc = pc[inside(t, pc)]
        special.append(weights(t, pc) @ xs)
    outside = np.array([lo - 1e-5 * (hi - lo), hi + 1e-5 * (hi - lo), [np.nan, 0, 0]])
    if np.all(pts[:, 2] == 0):
        outside[:2, 2] = 0.0
        outside = np.concatenate([outside, [[1.5, 1.5, 1e-5]]])  # off the plane
    return np.concatenate([random] + special + [outside])


@pytest.mark.parametrize("kind", KINDS)
def test_find_cells_is_brute_force(kind, device):
    rng = np.random.default_rng(KINDS.index(kind))
    pts, conn, types = mesh(kind, rng)
    ds = unstructured(pts, conn, types, device)
    q = queries(pts, conn, types, rng)
    loc = td.CellLocator(ds)
    cells, pcoords = loc.find_cells(q)
    cells, pcoords = cells.numpy(), pcoords.numpy()
    want, want_pc = model_find(q, [pts[c] for c in conn], types)
    bad = np.nonzero(cells != want)[0]
    assert len(bad) == 0, (kind, bad[:5], q[bad[:5]], cells[bad[:5]], want[bad[:5]])
    assert (cells >= 0).sum() > len(q) // 2
    hit = cells >= 0
    np.testing.assert_allclose(pcoords[hit], want_pc[hit], atol=1e-7)
    np.testing.assert_array_equal(pcoords[~hit], 0.0)
    # the map at the parametric coordinates is the point
    for i in np.nonzero(hit)[0][:200]:
        t = types[cells[i]]
        x = weights(t, pcoords[i]) @ pts[conn[cells[i]]]
        np.testing.assert_allclose(x, q[i], atol=1e-9)


def test_the_tie_rule_gives_the_lowest_cell_id(device):
    """A point every cell of a fan shares (the centre of a cube split into six pyramids) and
    points on shared faces go to the lowest id among the cells holding them."""
    pts, conn, types = mesh("pyramid", np.random.default_rng(0))
    ds = unstructured(pts, conn, types, device)
    centre = pts[conn[0][4]]
    face = (pts[conn[0][0]] + pts[conn[0][2]]) / 2  # the base's centre: cells 0 and a neighbour
    cells, _ = td.CellLocator(ds).find_cells(np.array([centre, face]))
    assert cells.numpy().tolist() == [0, 0]
    # the same cells listed in reverse: the lowest id is now the other end of the list
    rev = unstructured(pts, conn[::-1], types, device)
    cells, _ = td.CellLocator(rev).find_cells(np.array([centre]))
    holding = [c for c in range(len(conn)) if conn[::-1][c][4] == conn[0][4]]
    assert cells.numpy()[0] == min(holding)


def test_structured_kinds(device):
    rng = np.random.default_rng(5)
    # an image: its cells are voxels at arithmetic places
    img = td.image((5, 4, 3), origin=(1.0, -2.0, 0.5), spacing=(0.5, 1.0, 2.0), device=device)
    q = rng.uniform((0.8, -2.2, 0.3), (3.2, 1.2, 4.7), (400, 3))
    q = np.concatenate([q, img.points.numpy()[::7], [[np.nan, 0, 0]]])
    cells, pc = td.CellLocator(img).find_cells(q)
    p = img.points.numpy()
    i = np.arange(img.n_cells)
    ci, cj, ck = i % 4, (i // 4) % 3, i // 12
    corner = [((k * 4 + j) * 5 + ii) for ii, j, k in zip(ci, cj, ck)]
    cell_pts = [p[[c + a + 5 * b + 20 * e for (a, b, e) in CORNERS[11]]] for c in corner]
    want, want_pc = model_find(q, cell_pts, [11] * img.n_cells)
    np.testing.assert_array_equal(cells.numpy(), want)
    np.testing.assert_allclose(pc.numpy(), want_pc, atol=1e-9)
    # a curvilinear structured grid: hexahedra through the same bins
    z, y, x = np.meshgrid(np.arange(3.0), np.arange(3.0), np.arange(4.0), indexing="ij")
    g = np.stack([x, y, z], -1).reshape(-1, 3)
    g = g + 0.15 * np.sin(g[:, [1, 2, 0]] * 1.3)
    sg = td.structured((4, 3, 3), g, device=device)
    q = rng.uniform(g.min(0), g.max(0), (300, 3))
    cells, _ = td.CellLocator(sg).find_cells(q)
    conn = []
    for k in range(2):
        for j in range(2):
            for i in range(3):
                conn.append([((k + c) * 3 + j + b) * 4 + i + a for (a, b, c) in CORNERS[12]])
    want, _ = model_find(q, [g[c] for c in conn], [12] * len(conn))
    np.testing.assert_array_equal(cells.numpy(), want)


def test_a_locator_rebuilds_after_its_points_are_written_through_a_view(device):
    pts, conn, types = mesh("tetra", np.random.default_rng(1))
    points = tack.array(pts, device=device)
    ds = td.unstructured(points, np.arange(0, 4 * len(conn) + 1, 4), np.concatenate(conn),
                         np.full(len(conn), 10, np.uint8), device=device)
    loc = td.CellLocator(ds)
    q = np.array([[1.5, 1.5, 1.5], [10.5, 1.5, 1.5]])
    before, _ = loc.find_cells(q)
    assert loc.builds == 1 and before.numpy()[1] == -1
    view = points[0:len(pts)]  # a view of the same allocation
    tack.copyto(view, tack.array(pts + (9.0, 0.0, 0.0), device=device))  # every point moved
    after, _ = loc.find_cells(q)
    assert loc.builds == 2
    assert after.numpy()[0] == -1 and after.numpy()[1] == before.numpy()[0]
    loc.find_cells(q)
    assert loc.builds == 2  # nothing written since: no rebuild


def test_vec3_points_are_points(device):
    """Points given as n vec(3) floats (a dataset's, the queries, a PointLocator's, seeds) give
    the answers their (n, 3) rows give; a write to a vec(3) array is noticed (version rule)."""
    rng = np.random.default_rng(11)
    pts, conn, types = mesh("tetra", rng)
    vec = tack.vec(3, tack.f64)
    rows = unstructured(pts, conn, types, device)
    vecs = td.unstructured(tack.array(pts, dtype=vec, device=device),
                           np.arange(0, 4 * len(conn) + 1, 4), np.concatenate(conn),
                           np.full(len(conn), 10, np.uint8), device=device)
    for ds in (rows, vecs):
        ds.point_data["v"] = np.tile([0.3, 0.2, 0.1], (len(pts), 1))
    q = queries(pts, conn, types, rng)
    qv = tack.array(q, dtype=vec, device=device)
    want, want_pc = td.CellLocator(rows).find_cells(q)
    for ds in (rows, vecs):
        got, got_pc = td.CellLocator(ds).find_cells(qv)
        assert np.array_equal(got.numpy(), want.numpy())
        assert np.array_equal(got_pc.numpy(), want_pc.numpy())
        a, b = td.probe(ds, qv), td.probe(rows, q)
        assert np.array_equal(a.point_data["v"].numpy(), b.point_data["v"].numpy())
        seeds = q[np.isfinite(q).all(1)][:10]
        a = td.streamlines(ds, "v", tack.array(seeds, dtype=vec, device=device), max_steps=5)
        b = td.streamlines(rows, "v", seeds, max_steps=5)
        assert np.array_equal(a.points.numpy(), b.points.numpy())
    finite = q[np.isfinite(q).all(1)]
    pv = tack.array(finite, dtype=vec, device=device)
    loc = td.PointLocator(pv)
    plain = td.PointLocator(finite)
    assert np.array_equal(loc.nearest(pv).numpy(), plain.nearest(finite).numpy())
    o1, i1 = loc.within(pv, 0.3)
    o2, i2 = plain.within(finite, 0.3)
    assert np.array_equal(o1.numpy(), o2.numpy()) and np.array_equal(i1.numpy(), i2.numpy())
    far = np.array([[50.0, 50.0, 50.0]])
    moved = finite.copy()
    moved[7] = far[0]
    tack.copyto(pv[7:8], tack.array(moved[7:8], dtype=vec, device=device))  # through a view
    assert loc.nearest(far).numpy().tolist() == [7] and loc.builds == 2
    with pytest.raises(ValueError, match="vec"):
        td.PointLocator(tack.zeros(4, dtype=tack.vec(2, tack.f64), device=device))


def test_refusals_name_what_is_wrong():
    pts, conn, types = mesh("triangle", np.random.default_rng(2))
    poly = td.poly(pts, [0, 5], [0, 1, 6, 10, 5], np.array([7], np.uint8))
    with pytest.raises(ValueError, match="polygon"):
        td.CellLocator(poly)
    ds = unstructured(pts, conn, types, None)
    loc = td.CellLocator(ds)
    with pytest.raises(ValueError, match=r"\(n, 3\)"):
        loc.find_cells(np.zeros((4, 2)))
    empty = td.unstructured(np.zeros((0, 3)), [0], np.zeros(0, np.int64), np.zeros(0, np.uint8))
    cells, pc = td.CellLocator(empty).find_cells(np.zeros((2, 3)))
    assert cells.numpy().tolist() == [-1, -1] and pc.shape == (2, 3)


def vtk_modules():
    v = pytest.importorskip("vtkmodules.all")
    ns = pytest.importorskip("vtkmodules.util.numpy_support")
    return v, ns


@pytest.mark.parametrize("kind, tol", [("tetra", 1e-5), ("hexahedron", 1e-3)])
def test_probe_is_vtks(kind, tol, device):
    """Within 1e-5 on tetrahedra; VTK stops its Newton iterations on hexahedra and wedges when a
    step is below 1e-3, so its values there are that far off (ours are exact: the brute-force
    test checks that the cell's map at our coordinates is the point). Compared at points 1e-3
    (parametric) inside their cell: nearer a face VTK's locator takes a cell the point is near
    (within its tolerance) and extrapolates from it."""
    v, ns = vtk_modules()
    rng = np.random.default_rng(9)
    pts, conn, types = mesh(kind, rng)
    ds = unstructured(pts, conn, types, device)
    ds.point_data["t"] = np.sin(pts[:, 0]) + pts[:, 1] * pts[:, 2]
    ds.point_data["v"] = rng.standard_normal((len(pts), 3)).astype(np.float32)
    ds.point_data["n"] = np.arange(len(pts), dtype=np.int32)
    ds.cell_data["c"] = np.arange(len(conn), dtype=np.float64) * 2
    q = rng.uniform(pts.min(0) - 0.3, pts.max(0) + 0.3, (500, 3))
    out = td.probe(ds, q)
    assert out.kind == "poly" and out.n_points == len(q) and out.n_cells == len(q)
    np.testing.assert_array_equal(out.points.numpy(), q)
    vds = td.to_vtk(ds.to("cpu") if device != "cpu" else ds)
    src = v.vtkPolyData()
    vp = v.vtkPoints()
    vp.SetData(ns.numpy_to_vtk(q, deep=True))
    src.SetPoints(vp)
    probe = v.vtkProbeFilter()
    probe.ComputeToleranceOff()  # VTK's own tolerance would take cells a point is near, not in
    probe.SetTolerance(1e-9)
    probe.SetInputData(src)
    probe.SetSourceData(vds)
    probe.Update()
    res = probe.GetOutput()
    valid = ns.vtk_to_numpy(res.GetPointData().GetArray("vtkValidPointMask"))
    np.testing.assert_array_equal(out.point_data["valid"].numpy(), valid)
    outside = valid == 0
    assert (valid == 1).sum() > 100 and outside.sum() > 20
    cells, pcs = model_find(q, [pts[c] for c in conn], types)
    ok = np.array([c >= 0 and bool(inside(types[c], pc, -1e-3)) for c, pc in zip(cells, pcs)])
    assert ok.sum() > 100
    for name in ("t", "v", "n"):
        want = ns.vtk_to_numpy(res.GetPointData().GetArray(name)).astype(np.float64)
        got = out.point_data[name].numpy().astype(np.float64)
        np.testing.assert_allclose(got[ok], want[ok], atol=tol, rtol=tol)
        assert np.all(got[outside] == 0)
    # dtypes kept; an integer field interpolated, then rounded to the nearest (VTK's)
    assert out.point_data["v"].dtype == tack.f32 and out.point_data["n"].dtype == tack.i32
    # a cell field is the holding cell's value (VTK's too, away from shared faces)
    want = ns.vtk_to_numpy(res.GetPointData().GetArray("c"))
    np.testing.assert_allclose(out.point_data["c"].numpy()[ok], want[ok])


@pytest.mark.parametrize("kind", ["wedge", "pyramid"])
def test_probe_is_vtks_cells_own_interpolation(kind, device):
    """Wedges and pyramids against VTK's own cell code: at points 1e-3 inside their cell, the
    value VTK's EvaluatePosition weights give in that cell, within VTK's Newton tolerance (1e-3).
    (vtkProbeFilter itself is off by up to 0.1 on these warped wedges in VTK 9.x: its locator
    takes a neighbouring wedge the point is outside of, by 0.01 in parametric terms, and
    extrapolates.)"""
    v, ns = vtk_modules()
    rng = np.random.default_rng(11)
    pts, conn, types = mesh(kind, rng)
    ds = unstructured(pts, conn, types, device)
    t = np.sin(pts[:, 0]) + pts[:, 1] * pts[:, 2]
    ds.point_data["t"] = t
    q = rng.uniform(pts.min(0), pts.max(0), (300, 3))
    got = td.probe(ds, q).point_data["t"].numpy()
    vds = td.to_vtk(ds.to("cpu"))
    cells, pcs = model_find(q, [pts[c] for c in conn], types)
    checked = 0
    for i in range(len(q)):
        if cells[i] < 0 or not inside(types[cells[i]], pcs[i], -1e-3):
            continue
        cell = vds.GetCell(int(cells[i]))
        pc, w, closest = [0.0] * 3, [0.0] * cell.GetNumberOfPoints(), [0.0] * 3
        assert cell.EvaluatePosition(q[i], closest, v.reference(0), pc, v.reference(0.0), w) == 1
        ids = [cell.GetPointId(k) for k in range(cell.GetNumberOfPoints())]
        assert abs(got[i] - np.dot(w, t[ids])) <= 1e-3, (i, got[i], np.dot(w, t[ids]))
        checked += 1
    assert checked > 100


def test_resample_to_image_is_probe_at_the_image_points(device):
    rng = np.random.default_rng(4)
    pts, conn, types = mesh("tetra", rng)
    ds = unstructured(pts, conn, types, device)
    ds.point_data["t"] = pts[:, 0] * 2 + pts[:, 1] - pts[:, 2]  # linear: exact on tetrahedra
    img = td.resample_to_image(ds, (7, 6, 5))
    assert img.kind == "image" and img.dims == (7, 6, 5)
    p = img.points.numpy()
    np.testing.assert_allclose(p.min(0), pts.min(0))
    np.testing.assert_allclose(p.max(0), pts.max(0))
    valid = img.point_data["valid"].numpy() == 1
    assert valid.all()  # the mesh fills its bounds (a cube)
    np.testing.assert_allclose(img.point_data["t"].numpy(), p[:, 0] * 2 + p[:, 1] - p[:, 2],
                               atol=1e-12)
    half = td.resample_to_image(ds, (3, 3, 3), bounds=(0, 1.5, 0, 1.5, 0, 1.5))
    np.testing.assert_allclose(half.points.numpy().max(0), (1.5, 1.5, 1.5))


def brute_nearest(pts, q):
    d = ((q[:, None, :] - pts[None, :, :]) ** 2).sum(-1)  # the kernel's order: (dx^2 + dy^2) + dz^2
    out = np.where(np.isnan(q).any(1), -1, np.argmin(np.where(np.isnan(d), np.inf, d), 1))
    return out, d


@pytest.mark.parametrize("flat", [False, True])
def test_point_locator_is_brute_force(flat, device):
    rng = np.random.default_rng(21 + flat)
    pts = rng.uniform(-1, 2, (1500, 3))
    pts[700:720] = pts[100:120]  # duplicates: the lower id is nearest
    if flat:
        pts[:, 2] = 0.5
    q = np.concatenate([rng.uniform(-1.5, 2.5, (400, 3)), pts[690:730], [[1e3, -1e3, 5.0]],
                        [[np.nan, 0, 0]], [[0.5, 0.5, 0.5]]])
    loc = td.PointLocator(tack.array(pts, device=device))
    got = loc.nearest(q).numpy()
    want, d = brute_nearest(pts, q)
    np.testing.assert_array_equal(got, want)
    for radius in (0.0, 0.05, 0.3):
        offsets, ids = loc.within(q, radius)
        offsets, ids = offsets.numpy(), ids.numpy()
        assert offsets[0] == 0 and len(ids) == offsets[-1]
        for t in range(len(q)):
            np.testing.assert_array_equal(ids[offsets[t]:offsets[t + 1]],
                                          np.nonzero(d[t] <= radius * radius)[0])


def test_point_locator_version_rule_and_refusals(device):
    pts = tack.array(np.random.default_rng(3).uniform(0, 1, (200, 3)), device=device)
    loc = td.PointLocator(pts)
    q = np.array([[5.0, 5.0, 5.0]])
    first = loc.nearest(q).numpy()[0]
    moved = pts.numpy()
    moved[17] = (5.0, 5.0, 5.0)
    tack.copyto(pts[17:18], tack.array(moved[17:18], device=device))  # through a view
    assert loc.nearest(q).numpy()[0] == 17 and loc.builds == 2 and first != 17
    with pytest.raises(ValueError, match="radius of -1"):
        loc.within(q, -1.0)
    with pytest.raises(ValueError, match=r"\(n, 3\)"):
        td.PointLocator(np.zeros((4, 2)))
    empty = td.PointLocator(np.zeros((0, 3)))
    assert empty.nearest(q).numpy().tolist() == [-1]
    offsets, ids = empty.within(q, 1.0)
    assert offsets.numpy().tolist() == [0, 0] and ids.shape == (0,)
    ds = td.image((3, 3, 3))
    assert td.PointLocator(ds).nearest(np.array([[1.9, 0.1, 0.0]])).numpy().tolist() == [2]


def rotation(kind, device):
    """v = (-y, x, 0) (a solid-body rotation, its paths circles of period 2 pi) on [-1, 1]^2 x
    [0, 0.2]: an image, or its tetrahedra; linear, so every cell interpolates it exactly."""
    img = td.image((41, 41, 3), origin=(-1.0, -1.0, 0.0), spacing=(0.05, 0.05, 0.1),
                   device=device)
    p = img.points.numpy()
    if kind == "tetra":
        v, _ = vtk_modules()
        tri = v.vtkDataSetTriangleFilter()
        tri.SetInputData(td.to_vtk(img.to("cpu")))
        tri.Update()
        img = td.from_vtk(tri.GetOutput(), device=device)
        p = img.points.numpy()
    img.point_data["v"] = np.stack([-p[:, 1], p[:, 0], np.zeros(len(p))], 1)
    img.point_data["t"] = p[:, 0] + 2 * p[:, 1]
    return img


@pytest.mark.parametrize("kind", ["image", "tetra"])
@pytest.mark.parametrize("method, step, tol", [("rk4", 0.01, 1e-9), ("rk45", 0.05, 1e-6)])
def test_streamlines_of_a_rotation_are_circles(kind, method, step, tol, device):
    ds = rotation(kind, device)
    radii = np.array([0.3, 0.5, 0.8])
    seeds = np.stack([radii, np.zeros(3), np.full(3, 0.1)], 1)
    out = td.streamlines(ds, "v", seeds, step=step, max_steps=400, method=method,
                         direction="both", tolerance=1e-9 if method == "rk45" else 1e-6)
    assert out.kind == "poly" and out.n_cells == 6
    offsets = out.offsets.numpy()
    pts = out.points.numpy()
    time = out.point_data["IntegrationTime"].numpy()
    assert out.cell_data["SeedIds"].numpy().tolist() == [0, 0, 1, 1, 2, 2]
    assert np.all(out.cell_data["ReasonForTermination"].numpy() == 5)  # out of steps
    for line in range(6):
        a, b = offsets[line], offsets[line + 1]
        assert b - a == 401
        r = radii[line // 2]
        p = pts[a:b]
        np.testing.assert_allclose(np.hypot(p[:, 0], p[:, 1]), r, atol=tol)
        np.testing.assert_allclose(p[:, 2], 0.1, atol=1e-12)
        # unit angular speed: the time is the angle turned (negative backward)
        angle = np.unwrap(np.arctan2(p[:, 1], p[:, 0]))
        np.testing.assert_allclose(time[a:b], angle - angle[0], atol=max(tol, 1e-9) * 100)
        assert (time[b - 1] > 0) == (line % 2 == 0)
        if method == "rk4":  # fixed steps of `step` length (the chord of an arc of step / r)
            d = np.linalg.norm(np.diff(p, axis=0), axis=1)
            np.testing.assert_allclose(d, 2 * r * np.sin(step / r / 2), rtol=1e-6)
    # fields are carried: t = x + 2 y, exact in every cell
    np.testing.assert_allclose(out.point_data["t"].numpy(), pts[:, 0] + 2 * pts[:, 1],
                               atol=1e-9)


def test_streamlines_end_where_vtk_says(device):
    img = td.image((11, 11, 11), spacing=(0.1, 0.1, 0.1), device=device)
    n = img.n_points
    img.point_data["u"] = np.tile([1.0, 0.0, 0.0], (n, 1))
    img.point_data["zero"] = np.zeros((n, 3))
    seeds = np.array([[0.05, 0.5, 0.5], [0.5, 0.5, 0.5], [2.0, 0.5, 0.5]])
    out = td.streamlines(img, "u", seeds, step=0.1, max_steps=100)
    # the third seed is outside: no line; the others run to the boundary x = 1
    assert out.cell_data["SeedIds"].numpy().tolist() == [0, 1]
    assert out.cell_data["ReasonForTermination"].numpy().tolist() == [1, 1]
    off, p = out.offsets.numpy(), out.points.numpy()
    np.testing.assert_allclose(p[off[0]:off[1], 0], 0.05 + 0.1 * np.arange(off[1] - off[0]))
    assert 0.9 < p[off[1] - 1, 0] <= 1.0 and 0.9 < p[off[2] - 1, 0] <= 1.0
    short = td.streamlines(img, "u", seeds[:1], step=0.1, max_steps=3)
    assert short.cell_data["ReasonForTermination"].numpy().tolist() == [5]
    assert short.n_points == 4
    long = td.streamlines(img, "u", seeds[:1], step=0.1, max_length=0.25)
    assert long.cell_data["ReasonForTermination"].numpy().tolist() == [4]
    assert long.n_points == 4  # 0.1, 0.2, then 0.3 >= 0.25
    assert td.streamlines(img, "zero", seeds).n_cells == 0  # stagnant from the start
    with pytest.raises(ValueError, match="3 components"):
        img.point_data["s"] = np.zeros(n)
        td.streamlines(img, "s", seeds)
    with pytest.raises(ValueError, match="method='euler'"):
        td.streamlines(img, "u", seeds, method="euler")
    with pytest.raises(KeyError):
        td.streamlines(img, "nothing", seeds)


def test_streamlines_are_vtks_with_rk4(device):
    v, ns = vtk_modules()
    ds = rotation("image", device)
    seeds = np.array([[0.4, 0.1, 0.1], [-0.2, 0.6, 0.05]])
    ours = td.streamlines(ds, "v", seeds, step=0.02, max_steps=150)
    tracer = v.vtkStreamTracer()
    tracer.SetInputData(td.to_vtk(ds.to("cpu")))
    tracer.SetInputArrayToProcess(0, 0, 0, 0, "v")
    src = v.vtkPolyData()
    sp = v.vtkPoints()
    sp.SetData(ns.numpy_to_vtk(seeds, deep=True))
    src.SetPoints(sp)
    tracer.SetSourceData(src)
    tracer.SetIntegratorTypeToRungeKutta4()
    tracer.SetIntegrationStepUnit(1)  # length
    tracer.SetInitialIntegrationStep(0.02)
    tracer.SetMaximumNumberOfSteps(150)
    tracer.SetMaximumPropagation(1e9)
    tracer.SetIntegrationDirectionToForward()
    tracer.SetComputeVorticity(False)
    tracer.Update()
    res = tracer.GetOutput()
    theirs = ns.vtk_to_numpy(res.GetPoints().GetData())
    lines = res.GetLines()
    assert ours.n_cells == res.GetNumberOfCells() == 2
    off = ours.offsets.numpy()
    voff = ns.vtk_to_numpy(lines.GetOffsetsArray())
    vconn = ns.vtk_to_numpy(lines.GetConnectivityArray())
    for line in range(2):
        mine = ours.points.numpy()[off[line]:off[line + 1]]
        vtks = theirs[vconn[voff[line]:voff[line + 1]]]
        m = min(len(mine), len(vtks))
        assert m >= 100
        np.testing.assert_allclose(mine[:m], vtks[:m], atol=1e-6)


def test_long_bins_and_long_neighbour_lists(device):
    """A bin of 2,000 duplicated points and radii taking 300+ points a query: the lists come
    from sorts, still in increasing id; a hollow point set (a sphere's surface) queried deep
    inside it searches only the rings' shells."""
    rng = np.random.default_rng(8)
    pts = np.concatenate([np.full((2000, 3), 0.5), rng.uniform(0, 1, (1000, 3))])
    q = rng.uniform(0, 1, (50, 3))
    loc = td.PointLocator(tack.array(pts, device=device))
    want, d = brute_nearest(pts, q)
    np.testing.assert_array_equal(loc.nearest(q).numpy(), want)
    offsets, ids = loc.within(q, 0.6)
    offsets, ids = offsets.numpy(), ids.numpy()
    assert np.diff(offsets).max() > 256
    for t in range(len(q)):
        np.testing.assert_array_equal(ids[offsets[t]:offsets[t + 1]],
                                      np.nonzero(d[t] <= 0.36)[0])
    v = rng.standard_normal((20000, 3))
    shell = v / np.linalg.norm(v, axis=1)[:, None]
    inner = np.array([[0.1, 0.2, -0.3], [0.0, -0.05, 0.02]])  # deep in the hollow
    got = td.PointLocator(tack.array(shell, device=device)).nearest(inner).numpy()
    np.testing.assert_array_equal(got, brute_nearest(shell, inner)[0])


def test_more_refusals(device):
    pts, conn, types = mesh("tetra", np.random.default_rng(2))
    ds = unstructured(pts, conn, types, device)
    ds.point_data["v"] = np.tile([1.0, 0.0, 0.0], (len(pts), 1))
    other = unstructured(pts, conn[:10], types[:10], device)
    with pytest.raises(ValueError, match="give a locator made from ds"):
        td.streamlines(ds, "v", np.array([[1.0, 1.0, 1.0]]), locator=td.CellLocator(other))
    with pytest.raises(ValueError, match="more than 2\\^31 points"):
        td.streamlines(ds, "v", np.array([[1.0, 1.0, 1.0]]), max_steps=2 ** 40)
    with pytest.raises(TypeError, match="float points"):
        td.CellLocator(ds).find_cells(np.zeros((2, 3), np.int32))
    with pytest.raises(ValueError, match="over bounds of no extent"):
        td.resample_to_image(ds, (4, 4, 4), bounds=(0, 1, 0, 1, 0.5, 0.5))
    with pytest.raises(KeyError, match="no point or cell field 'w'; the fields are v"):
        td.streamlines(ds, "w", np.array([[1.0, 1.0, 1.0]]))
