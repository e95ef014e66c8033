"""tack.dataset.AMR (docs/design/amr.md): level buffers, box views, ghost_cells and average_down
against a NumPy model of the same hierarchy, bit for bit, on every device."""
import numpy as np
import pytest

import tack
import tack.dataset as td


def random_hierarchy(rng, ratio, n_levels, n0=12):
    """Level 0 tiles the domain [0, n0)^3 with a few boxes; each finer level is random boxes,
    each inside one coarser box (so aligned and nested), some touching its edges, some split in
    two so that neighbours share faces, none overlapping."""
    cuts = [sorted(rng.choice(np.arange(3, n0 - 2), size=1, replace=False).tolist())
            for _ in range(3)]
    spans = [[(0, cuts[a][0] - 1), (cuts[a][0], n0 - 1)] for a in range(3)]
    levels = [[((x[0], y[0], z[0]), (x[1], y[1], z[1]))
               for z in spans[2] for y in spans[1] for x in spans[0]]]
    for _ in range(1, n_levels):
        coarse = levels[-1]
        taken = []  # in the coarse index space
        for _ in range(40):
            lo_c, hi_c = coarse[rng.integers(len(coarse))]
            lo, hi = [], []
            for a in range(3):
                n = hi_c[a] - lo_c[a] + 1
                w = int(rng.integers(1, min(n, 4) + 1))
                s = lo_c[a] + int(rng.integers(0, n - w + 1))
                lo.append(s)
                hi.append(s + w - 1)
            if any(all(lo[a] <= t[1][a] and t[0][a] <= hi[a] for a in range(3)) for t in taken):
                continue
            taken.append((tuple(lo), tuple(hi)))
            if len(taken) >= 6:
                break
        fine = []
        for lo, hi in taken:
            flo = [v * ratio for v in lo]
            fhi = [v * ratio + ratio - 1 for v in hi]
            if hi[0] > lo[0] and rng.random() < 0.7:  # two neighbours sharing a face
                mid = (lo[0] + 1) * ratio
                fine.append((tuple(flo), (mid - 1, fhi[1], fhi[2])))
                fine.append(((mid, flo[1], flo[2]), tuple(fhi)))
            else:
                fine.append((tuple(flo), tuple(fhi)))
        levels.append(fine)
    return levels


class Model:
    """The hierarchy's fields as NumPy blocks, one per box (with ghosts, (k, j, i) order)."""

    def __init__(self, levels, ratio, ghost, rng, dtype):
        self.levels, self.r, self.g = levels, ratio, ghost
        self.blocks = [[rng.standard_normal(self.shape(b)).astype(dtype) for b in level]
                       for level in levels]

    def shape(self, box):
        lo, hi = box
        return tuple(hi[a] - lo[a] + 1 + 2 * self.g for a in (2, 1, 0))

    def buffer(self, level):
        return np.concatenate([b.ravel() for b in self.blocks[level]])

    def size(self, level):
        return self.r ** level * 12

    def dense(self, level):
        """The level's valid values over its index space (NaN where no box is)."""
        n, g = self.size(level), self.g
        d = np.full((n, n, n), np.nan)
        for (lo, hi), blk in zip(self.levels[level], self.blocks[level]):
            d[lo[2]:hi[2] + 1, lo[1]:hi[1] + 1, lo[0]:hi[0] + 1] = \
                blk[g:blk.shape[0] - g, g:blk.shape[1] - g, g:blk.shape[2] - g]
        return d

    def dense_with_ghosts(self, level):
        """dense(level), and where no box is, what a box's (filled) ghost cell there holds."""
        n, g = self.size(level), self.g
        d = self.dense(level)
        for (lo, hi), blk in zip(self.levels[level], self.blocks[level]):
            k, j, i = np.meshgrid(*[np.arange(lo[a] - g, hi[a] + g + 1) for a in (2, 1, 0)],
                                  indexing="ij")
            inside = (k >= 0) & (k < n) & (j >= 0) & (j < n) & (i >= 0) & (i < n)
            empty = np.zeros(k.shape, bool)
            empty[inside] = np.isnan(d[k[inside], j[inside], i[inside]])
            d[k[empty], j[empty], i[empty]] = blk[empty]
        return d

    def linear(self, coarse, k, j, i):
        """The linear interpolation at fine cells (k, j, i) from the coarse values (NaN where
        there are none), NaN where the coarse cell itself has none."""
        r, n = self.r, coarse.shape[0]
        ck, cj, ci = k // r, j // r, i // r

        def at(a, b, c):
            ok = (a >= 0) & (a < n) & (b >= 0) & (b < n) & (c >= 0) & (c < n)
            v = np.full(a.shape, np.nan)
            v[ok] = coarse[a[ok], b[ok], c[ok]]
            return v, ~np.isnan(v)

        c, okc = at(ck, cj, ci)
        out = c.copy()

        def slope(m, p):
            (vm, okm), (vp, okp) = m, p
            return np.where(okm & okp, (vp - vm) * 0.5,
                            np.where(okp, vp - c, np.where(okm, c - vm, 0.0)))

        sx = slope(at(ck, cj, ci - 1), at(ck, cj, ci + 1))
        sy = slope(at(ck, cj - 1, ci), at(ck, cj + 1, ci))
        sz = slope(at(ck - 1, cj, ci), at(ck + 1, cj, ci))
        tx = ((i - ci * r).astype(np.float64) + 0.5) / r - 0.5
        ty = ((j - cj * r).astype(np.float64) + 0.5) / r - 0.5
        tz = ((k - ck * r).astype(np.float64) + 0.5) / r - 0.5
        out = c + tx * sx + ty * sy + tz * sz
        out[~okc] = np.nan
        return out

    def ghost_cells(self, interpolation="constant"):
        g, r = self.g, self.r
        for level in range(len(self.levels)):
            same = self.dense(level)
            coarse = self.dense_with_ghosts(level - 1) if level > 0 else None
            for (lo, hi), blk in zip(self.levels[level], self.blocks[level]):
                k, j, i = np.meshgrid(*[np.arange(lo[a] - g, hi[a] + g + 1) for a in (2, 1, 0)],
                                      indexing="ij")
                ghost = ~((k >= lo[2]) & (k <= hi[2]) & (j >= lo[1]) & (j <= hi[1]) &
                          (i >= lo[0]) & (i <= hi[0]))
                n = self.size(level)
                inside = (k >= 0) & (k < n) & (j >= 0) & (j < n) & (i >= 0) & (i < n)
                if coarse is not None and interpolation == "linear":
                    v = np.full(k.shape, np.nan)
                    v[ghost & inside] = self.linear(coarse, k[ghost & inside], j[ghost & inside],
                                                    i[ghost & inside])
                    take = ghost & inside & ~np.isnan(v)
                    blk[take] = v[take]
                elif coarse is not None:
                    kc, jc, ic = k // r, j // r, i // r
                    nc = self.size(level - 1)
                    ok = ghost & (kc >= 0) & (kc < nc) & (jc >= 0) & (jc < nc) & \
                        (ic >= 0) & (ic < nc)
                    v = np.full(k.shape, np.nan)
                    v[ok] = coarse[kc[ok], jc[ok], ic[ok]]
                    take = ok & ~np.isnan(v)
                    blk[take] = v[take]
                v = np.full(k.shape, np.nan)
                v[inside] = same[k[inside], j[inside], i[inside]]
                take = ghost & inside & ~np.isnan(v)
                blk[take] = v[take]

    def average_down(self):
        g, r = self.g, self.r
        for level in range(len(self.levels) - 1, 0, -1):
            dense = self.dense(level - 1)
            for (lo, hi), blk in zip(self.levels[level], self.blocks[level]):
                valid = blk[g:blk.shape[0] - g, g:blk.shape[1] - g, g:blk.shape[2] - g]
                s = np.zeros(tuple(s // r for s in valid.shape))
                for dk in range(r):
                    for dj in range(r):
                        for di in range(r):
                            s = s + valid[dk::r, dj::r, di::r].astype(np.float64)
                dense[lo[2] // r:(hi[2] + 1) // r, lo[1] // r:(hi[1] + 1) // r,
                      lo[0] // r:(hi[0] + 1) // r] = s / float(r ** 3)
            for (lo, hi), blk in zip(self.levels[level - 1], self.blocks[level - 1]):
                blk[g:blk.shape[0] - g, g:blk.shape[1] - g, g:blk.shape[2] - g] = \
                    dense[lo[2]:hi[2] + 1, lo[1]:hi[1] + 1, lo[0]:hi[0] + 1]


def loaded(levels, ratio, ghost, seed, dtype=np.float64):
    rng = np.random.default_rng(seed)
    amr = td.AMR(levels, ratio=ratio)
    amr.add_field("u", dtype=dtype, ghost=ghost)
    model = Model(levels, ratio, ghost, rng, dtype)
    for level in range(len(levels)):
        tack.copyto(amr.level_array("u", level), model.buffer(level))
    return amr, model


@pytest.mark.parametrize("ratio, ghost, seed", [(2, 1, 0), (2, 2, 1), (2, 3, 2), (4, 1, 3),
                                                (4, 2, 4), (4, 3, 5)])
def test_ghost_cells_are_the_models(ratio, ghost, seed, device):
    levels = random_hierarchy(np.random.default_rng(100 + seed), ratio, 3 if ratio == 2 else 2)
    amr, model = loaded(levels, ratio, ghost, seed)
    versions = [amr.level_array("u", level).version for level in range(amr.n_levels)]
    td.ghost_cells(amr, "u")
    model.ghost_cells()
    for level in range(amr.n_levels):
        np.testing.assert_array_equal(amr.level_array("u", level).numpy(), model.buffer(level))
    # every level has neighbours or a coarser level to read, so every buffer was written
    assert all(amr.level_array("u", level).version > versions[level]
               for level in range(amr.n_levels))


@pytest.mark.parametrize("ratio, ghost, seed", [(2, 1, 40), (2, 2, 41), (4, 1, 42), (4, 3, 43)])
def test_linear_ghost_cells_are_the_models(ratio, ghost, seed, device):
    levels = random_hierarchy(np.random.default_rng(300 + seed), ratio, 3 if ratio == 2 else 2)
    amr, model = loaded(levels, ratio, ghost, seed)
    td.ghost_cells(amr, "u", interpolation="linear")
    model.ghost_cells("linear")
    for level in range(amr.n_levels):
        np.testing.assert_array_equal(amr.level_array("u", level).numpy(), model.buffer(level))


def test_linear_ghost_cells_are_exact_for_a_linear_field():
    """A linear field's ghosts from the coarser level are the field at their centres (one-sided
    slopes at the domain's edge included); constant interpolation is not."""
    levels = [[((0, 0, 0), (7, 7, 7))], [((0, 2, 4), (5, 9, 11))]]
    amr = td.AMR(levels, ratio=2)
    amr.add_field("u", ghost=2)

    def f(lo, hi, h, g):
        k, j, i = np.meshgrid(*[np.arange(lo[a] - g, hi[a] + g + 1) for a in (2, 1, 0)],
                              indexing="ij")
        return 0.5 + 2.0 * (i + 0.5) * h - 1.5 * (j + 0.5) * h + 0.25 * (k + 0.5) * h
    tack.copyto(amr.level_array("u", 0), f(*levels[0][0], 1.0, 2).ravel())
    td.ghost_cells(amr, "u", interpolation="linear")
    box = amr.box_array("u", 1, 0).numpy()
    want = f(*levels[1][0], 0.5, 2)
    k, j, i = np.meshgrid(*[np.arange(levels[1][0][0][a] - 2, levels[1][0][1][a] + 3)
                            for a in (2, 1, 0)], indexing="ij")
    ghost_in_domain = ((i < 0) | (i > 5) | (j < 2) | (j > 9) | (k < 4) | (k > 11)) & \
        (i >= 0) & (i < 16) & (j >= 0) & (j < 16) & (k >= 0) & (k < 16)
    np.testing.assert_allclose(box[ghost_in_domain], want[ghost_in_domain], rtol=0, atol=1e-12)
    td.ghost_cells(amr, "u")
    assert np.abs(amr.box_array("u", 1, 0).numpy()[ghost_in_domain] -
                  want[ghost_in_domain]).max() > 0.1
    amr.add_field("n", dtype=tack.i32, ghost=1)
    with pytest.raises(TypeError, match="float fields"):
        td.ghost_cells(amr, "n", interpolation="linear")
    with pytest.raises(ValueError, match="'constant'"):
        td.ghost_cells(amr, "u", interpolation="cubic")


@pytest.mark.parametrize("ratio, seed, dtype", [(2, 6, np.float64), (2, 7, np.float32),
                                                (4, 8, np.float64)])
def test_average_down_is_the_models(ratio, seed, dtype, device):
    levels = random_hierarchy(np.random.default_rng(200 + seed), ratio, 3 if ratio == 2 else 2)
    amr, model = loaded(levels, ratio, 2, seed, dtype)
    td.average_down(amr, "u")
    model.average_down()
    for level in range(amr.n_levels):
        np.testing.assert_array_equal(amr.level_array("u", level).numpy(), model.buffer(level))


def test_a_box_array_is_a_view_of_its_level_buffer(device):
    amr = td.AMR([[((0, 0, 0), (3, 3, 3)), ((4, 0, 0), (7, 3, 3))]], ratio=2)
    amr.add_field("u", ghost=1)
    box = amr.box_array("u", 0, 1)
    assert box.shape == (6, 6, 6) and box.is_view
    tack.copyto(box, np.arange(216, dtype=np.float64).reshape(6, 6, 6))
    level = amr.level_array("u", 0).numpy()
    np.testing.assert_array_equal(level[216:], np.arange(216))
    np.testing.assert_array_equal(level[:216], np.zeros(216))
    tack.copyto(amr.level_array("u", 0), np.full(432, 7.0))
    np.testing.assert_array_equal(box.numpy(), np.full((6, 6, 6), 7.0))


def test_the_launches_do_not_grow_with_the_boxes(device):
    """One launch per level and pass, whatever the number of boxes: each launch that writes a
    level buffer moves its version once, and 30 + 60 boxes move it as much as 2 + 4 do."""
    moved = []
    for split in (2, 30):
        xs = np.linspace(0, 60, split + 1).astype(int)
        level0 = [((int(a), 0, 0), (int(b) - 1, 3, 3)) for a, b in zip(xs[:-1], xs[1:])]
        level1 = [((x, 0, 0), (x + 1, 7, 7)) for x in range(0, 4 * split, 2)]
        amr = td.AMR([level0, level1], ratio=2)
        amr.add_field("u", ghost=1)
        before = [amr.level_array("u", level).version for level in range(2)]
        td.ghost_cells(amr, "u")
        td.average_down(amr, "u")
        moved.append([amr.level_array("u", level).version - before[level] for level in range(2)])
    assert moved[0] == moved[1]
    # level 1: from level 0, then from its own boxes; level 0: from its own boxes, then averaged
    assert moved[0] == [2, 2]


def test_errors_name_the_level_and_box():
    with pytest.raises(ValueError, match="ratio of 3"):
        td.AMR([[((0, 0, 0), (3, 3, 3))]], ratio=3)
    with pytest.raises(ValueError, match="level 0 box 0 .* overlaps box 1"):
        td.AMR([[((0, 0, 0), (3, 3, 3)), ((3, 0, 0), (5, 3, 3))]])
    with pytest.raises(ValueError, match="level 1 box 0 .* not aligned to the ratio 2"):
        td.AMR([[((0, 0, 0), (3, 3, 3))], [((1, 0, 0), (4, 3, 3))]])
    with pytest.raises(ValueError, match="level 1 box 0 .* not properly nested"):
        td.AMR([[((0, 0, 0), (3, 3, 3))], [((6, 0, 0), (9, 3, 3))]])
    with pytest.raises(ValueError, match="lo > hi"):
        td.AMR([[((0, 0, 0), (-1, 3, 3))]])
    with pytest.raises(ValueError, match="no boxes on level 0"):
        td.AMR([])
    with pytest.raises(ValueError, match="level 0 must tile the domain"):
        td.AMR([[((0, 0, 0), (3, 3, 3)), ((4, 4, 0), (7, 7, 3))]])
    amr = td.AMR([[((0, 0, 0), (3, 3, 3))]])
    with pytest.raises(ValueError, match="ghost width of -1"):
        amr.add_field("u", ghost=-1)
    amr.add_field("n", dtype=tack.i32, ghost=1)
    with pytest.raises(KeyError, match="no field 'v'.*'n'"):
        amr.level_array("v", 0)
    with pytest.raises(IndexError, match="level 2 of a hierarchy of 1 levels"):
        amr.level_array("n", 2)
    with pytest.raises(IndexError, match="box 3 of level 0"):
        amr.box_array("n", 0, 3)
    with pytest.raises(TypeError, match="float field"):
        td.average_down(amr, "n")
    td.ghost_cells(amr, "n")  # any dtype: copies


def test_in_one_process_every_box_is_rank_zeros():
    """The distributed surface without a communicator (tests/mpi/check_amr.py runs it under
    mpirun): one rank, owning every box; owners other than rank 0 are refused."""
    levels = [[((0, 0, 0), (1, 3, 3)), ((2, 0, 0), (3, 3, 3))], [((0, 0, 0), (3, 3, 3))]]
    amr = td.AMR(levels, owners=[[0, 0], [0]])
    assert (amr.rank, amr.n_ranks) == (0, 1)
    assert amr.local_boxes(0) == [0, 1] and amr.owners(1) == [0]
    with pytest.raises(ValueError, match="level 0 box 1 .* owned by rank 1 of a job of 1 ranks"):
        td.AMR(levels, owners=[[0, 1], [0]])
    with pytest.raises(ValueError, match="level 1 has 1 boxes and 2 owners"):
        td.AMR(levels, owners=[[0, 0], [0, 0]])
    with pytest.raises(ValueError, match="owners for 1 levels of a hierarchy of 2"):
        td.AMR(levels, owners=[[0, 0]])
    with pytest.raises(IndexError, match="level 2 of a hierarchy of 2 levels"):
        amr.owners(2)


def test_a_field_from_values_per_box_and_the_wrong_shape_named(device):
    levels = [[((0, 0, 0), (3, 3, 3))], [((0, 0, 0), (3, 1, 1)), ((4, 0, 0), (7, 1, 1))]]
    amr = td.AMR(levels, device=device)
    rng = np.random.default_rng(3)
    coarse = rng.standard_normal((4, 4, 4)).astype(np.float32)
    fine = [rng.standard_normal((4, 4, 6)).astype(np.float32),  # with its ghosts
            rng.standard_normal(2 * 2 * 4).astype(np.float32)]   # its cells, flat
    amr.add_field("u", ghost=1, values=[[coarse], fine])
    assert amr.level_array("u", 0).dtype == tack.f32  # the values' dtype
    assert np.array_equal(interior(amr, "u", 0, 0), coarse)
    assert np.array_equal(amr.box_array("u", 1, 0).numpy(), fine[0])
    b1 = amr.box_array("u", 1, 1).numpy()
    assert np.array_equal(b1[1:-1, 1:-1, 1:-1].ravel(), fine[1]) and b1[0].sum() == 0
    with pytest.raises(ValueError, match=r"level 1 box 1 \(4, 0, 0\)-\(7, 1, 1\) has \(2, 2, 4\)"
                                         r" cells .* of shape \(2, 2, 5\)"):
        amr.add_field("v", ghost=1, values=[[coarse], [fine[0], np.zeros((2, 2, 5))]])
    with pytest.raises(ValueError, match="1 arrays for level 1's 2 boxes"):
        amr.add_field("v", ghost=1, values=[[coarse], [fine[0]]])
    with pytest.raises(ValueError, match="values for 1 levels of a hierarchy of 2"):
        amr.add_field("v", values=[[coarse]])
    with pytest.raises(TypeError, match="level 0 box 0 gets float32 values for a field of int32"):
        amr.add_field("v", dtype=tack.i32, values=[[coarse], fine])


def interior(amr, name, level, b):
    g = amr.ghost(name)
    a = amr.box_array(name, level, b).numpy()
    return a[g:a.shape[0] - g, g:a.shape[1] - g, g:a.shape[2] - g]


def test_blanking_is_vtks():
    """add_blanking marks the cells a finer box covers: VTK's HIDDENCELL bit of vtkGhostType
    (vtkAMRUtilities.BlankCells) on the same hierarchy, box by box."""
    ns = pytest.importorskip("vtkmodules.util.numpy_support")
    levels = random_hierarchy(np.random.default_rng(7), 2, 3)
    amr = td.AMR(levels, ratio=2, origin=(0.5, -1.0, 2.0), spacing=(0.1, 0.2, 0.3))
    amr.add_field("u", ghost=1)
    out = td.to_vtk(amr)
    amr.add_blanking("blanked")
    assert amr.ghost("blanked") == 0
    for level in range(amr.n_levels):
        for b, (lo, hi) in enumerate(amr.boxes(level)):
            ghost = out.GetDataSetAsImageData(level, b).GetCellData().GetArray("vtkGhostType")
            shape = tuple(hi[a] - lo[a] + 1 for a in (2, 1, 0))
            hidden = (ns.vtk_to_numpy(ghost).reshape(shape) & 8) != 0
            np.testing.assert_array_equal(amr.box_array("blanked", level, b).numpy() == 1,
                                          hidden, err_msg=f"level {level} box {b}")
    assert amr.level_array("blanked", 0).numpy().any()


def test_vtk_round_trip_through_a_file(tmp_path):
    """to_vtk writes a vtkOverlappingAMR (boxes, origin, spacing, ratio, a vtkUniformGrid per
    box with the fields' values); VTK's XML writer and reader keep it; from_vtk reads it back
    into the same hierarchy and values (the ghost width its own)."""
    vtk = pytest.importorskip("vtkmodules.all")
    levels = random_hierarchy(np.random.default_rng(11), 2, 3)
    amr, model = loaded(levels, 2, 2, 12)
    amr.add_field("n", dtype=tack.i32, ghost=1)
    tack.copyto(amr.level_array("n", 1),
                np.arange(amr.level_array("n", 1).shape[0], dtype=np.int32))
    path = str(tmp_path / "h.vthb")
    w = vtk.vtkXMLUniformGridAMRWriter()
    w.SetInputData(td.to_vtk(amr))
    w.SetFileName(path)
    assert w.Write() == 1
    r = vtk.vtkXMLUniformGridAMRReader()
    r.SetFileName(path)
    r.Update()
    back = td.from_vtk(r.GetOutput(), ghost=3)
    assert back.n_levels == amr.n_levels and back.ratio == 2
    assert back.origin == amr.origin and back.spacing(2) == amr.spacing(2)
    assert sorted(back.fields) == ["n", "u"] and back.ghost("u") == 3
    for level in range(amr.n_levels):
        assert back.boxes(level) == amr.boxes(level)
        for b in range(len(amr.boxes(level))):
            for name in ("u", "n"):
                np.testing.assert_array_equal(interior(back, name, level, b),
                                              interior(amr, name, level, b))
    assert back.level_array("n", 0).dtype == tack.i32


def test_from_vtk_splits_vector_arrays_and_checks_the_ratio():
    vtk = pytest.importorskip("vtkmodules.all")
    ns = pytest.importorskip("vtkmodules.util.numpy_support")
    amr = td.AMR([[((0, 0, 0), (3, 3, 3))], [((2, 2, 2), (5, 5, 5))]], ratio=2,
                 spacing=(1.0, 2.0, 3.0))
    amr.add_field("a", ghost=0)
    out = td.to_vtk(amr)
    for level in range(2):
        grid = out.GetDataSetAsImageData(level, 0)
        v = ns.numpy_to_vtk(np.arange(64 * 3, dtype=np.float32).reshape(64, 3) + level, deep=True)
        v.SetName("velocity")
        grid.GetCellData().AddArray(v)
    back = td.from_vtk(out)
    assert sorted(back.fields) == ["a", "velocity_0", "velocity_1", "velocity_2"]
    np.testing.assert_array_equal(interior(back, "velocity_2", 1, 0).ravel(),
                                  np.arange(64, dtype=np.float32) * 3 + 2 + 1)
    assert back.spacing(1) == (0.5, 1.0, 1.5)
    out2 = vtk.vtkOverlappingAMR()
    out2.Initialize([1, 1, 1])
    for level, r in enumerate((2, 4, 2)):
        out2.SetRefinementRatio(level, r)
        out2.SetSpacing(level, (1.0, 1.0, 1.0))
    for level, box in enumerate((((0, 0, 0), (3, 3, 3)), ((0, 0, 0), (1, 1, 1)),
                                 ((0, 0, 0), (1, 1, 1)))):
        out2.SetAMRBox(level, 0, vtk.vtkAMRBox(*box))
    with pytest.raises(ValueError, match="one ratio"):
        td.from_vtk(out2)
    # an array some blocks lack
    out.GetDataSetAsImageData(1, 0).GetCellData().RemoveArray("velocity")
    with pytest.raises(ValueError, match="level 1 box 0 .* no cell array 'velocity'"):
        td.from_vtk(out)


def test_geometry_is_checked():
    with pytest.raises(ValueError, match="positive, finite spacing"):
        td.AMR([[((0, 0, 0), (3, 3, 3))]], spacing=(1.0, 0.0, 1.0))
    amr = td.AMR([[((0, 0, 0), (3, 3, 3))], [((0, 0, 0), (3, 3, 3))]], ratio=4,
                 origin=(1, 2, 3), spacing=(1.0, 2.0, 4.0))
    assert amr.origin == (1.0, 2.0, 3.0) and amr.spacing(1) == (0.25, 0.5, 1.0)


def test_to_unstructured_keeps_the_uncovered_cells_and_meets_at_shared_faces(device):
    """The cells no finer box covers, as voxels: their volumes fill the domain once, their cell
    values are the boxes'; the field at the points (the eight cells round each, ghosts included)
    is the same on both sides of a face two boxes share once ghost_cells has run."""
    levels = random_hierarchy(np.random.default_rng(21), 2, 3)
    amr, model = loaded(levels, 2, 1, 22)
    td.ghost_cells(amr, "u")
    cells = td.amr_to_unstructured(amr)
    assert abs(td.integrate(cells)["volume"] - 12.0 ** 3) < 1e-9
    blanked = [b.numpy() for b in amr._a.blanking()]
    expected = []
    for level in range(amr.n_levels):
        at = 0
        for b, (lo, hi) in enumerate(amr.boxes(level)):
            n = tuple(hi[a] - lo[a] + 1 for a in (2, 1, 0))
            keep = blanked[level][at:at + np.prod(n)].reshape(n) == 0
            at += int(np.prod(n))
            expected.append(interior(amr, "u", level, b)[keep])
    np.testing.assert_array_equal(cells.cell_data["u"].numpy(), np.concatenate(expected))
    # points at one place on one level carry one value, whichever box they belong to (but on
    # the domain's boundary, whose ghosts are never filled)
    pts, vals = cells.points.numpy(), cells.point_data["u"].numpy()
    level_of_point = np.concatenate([
        np.full((hi[0] - lo[0] + 2) * (hi[1] - lo[1] + 2) * (hi[2] - lo[2] + 2), level)
        for level in range(amr.n_levels) for lo, hi in amr.boxes(level)])
    seen = {}
    for p, v, level in zip(np.round(pts * 4.0 ** 2).astype(np.int64), vals, level_of_point):
        if p.min() > 0 and p.max() < 12 * 16:
            seen.setdefault((level, tuple(p)), set()).add(v)
    assert len(seen) > 1000
    differing = [v for v in seen.values() if len(v) > 1]
    assert not differing, f"{len(differing)} shared points with differing values"
    kept = td.threshold(cells, "u", 0.0, 10.0, association="cell")
    assert kept.n_cells == np.count_nonzero(cells.cell_data["u"].numpy() >= 0.0)


def test_regrid_keeps_values_and_fills_new_cells_from_the_coarser_level(device):
    """Level 1 regridded: a box grown and one added; the cells that were there keep their
    values, new ones take their coarse cell's, the other levels' buffers are copies; the finer
    level must still nest."""
    levels = [[((0, 0, 0), (7, 7, 7))], [((4, 4, 4), (7, 7, 7))], [((10, 10, 10), (13, 13, 13))]]
    amr, model = loaded(levels, 2, 1, 31)
    new1 = [((2, 4, 4), (7, 7, 7)), ((8, 4, 4), (11, 7, 7))]
    out = amr.regrid(1, new1)
    assert out.boxes(1) == new1 and out.boxes(2) == amr.boxes(2) and out.fields == ["u"]
    for level in (0, 2):
        np.testing.assert_array_equal(out.level_array("u", level).numpy(),
                                      amr.level_array("u", level).numpy())
    old = interior(amr, "u", 1, 0)   # cells x 4..7 of the old box
    coarse = interior(amr, "u", 0, 0)
    for b, (lo, hi) in enumerate(new1):
        got = interior(out, "u", 1, b)
        for (k, j, i), v in np.ndenumerate(got):
            x, y, z = lo[0] + i, lo[1] + j, lo[2] + k
            want = old[z - 4, y - 4, x - 4] if 4 <= x <= 7 else coarse[z // 2, y // 2, x // 2]
            assert v == want, (b, x, y, z)
    # the regridded hierarchy fills its ghosts like any other
    td.ghost_cells(out, "u")
    left, right = out.box_array("u", 1, 0).numpy(), interior(out, "u", 1, 1)
    np.testing.assert_array_equal(left[1:-1, 1:-1, -1], right[:, :, 0])  # x = 8, in box 1
    with pytest.raises(ValueError, match="level 2 box 0 .* not properly nested"):
        amr.regrid(1, [((0, 0, 0), (3, 3, 3))])
