"""A distributed tack.dataset.AMR under mpirun (tests/python/test_mpi.py, -np 2 and -np 4): every
rank makes the same random hierarchy twice, once in one process (the reference, itself tested
against a NumPy model in tests/python/dataset/test_amr.py) and once with its boxes shared among
the ranks (balanced, random, or all on one rank), with the same values; ghost_cells (constant
and linear), average_down, regrid and blanking give each rank's boxes the reference's values
bit for bit, ratios 2 and 4, ghost widths 1-3, on the CPU and OpenCL."""
import pathlib
import sys

import numpy as np
try:
    from vtkmodules.util.numpy_support import vtk_to_numpy
except ImportError:  # VTK is a test requirement (tools/requirements-dev.txt), not Tack's
    vtk_to_numpy = None

import tack
import tack.dataset as td
from tack import mpi

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python" / "dataset"))
from test_amr import random_hierarchy  # noqa: E402

comm = mpi.Communicator()
rank, size = comm.rank, comm.size
devices = ["cpu"] + [d.name for d in tack.devices() if d.kind == "opencl"][:1]


def pair(levels, ratio, owners, device, seed, fields):
    """The reference and the distributed hierarchy, with the same random values in each box."""
    ref = td.AMR(levels, ratio, device=device)
    dist = td.AMR(levels, ratio, device=device, comm=comm, owners=owners)
    rng = np.random.default_rng(seed)
    for name, dtype, ghost in fields:
        for amr in (ref, dist):
            amr.add_field(name, dtype=dtype, ghost=ghost)
        for level in range(len(levels)):
            n = ref.level_array(name, level).shape[0]
            values = (rng.standard_normal(n) * 100).astype(dtype)
            tack.copyto(ref.level_array(name, level), tack.array(values, device=device))
        copy_boxes(ref, dist, name)
    return ref, dist


def copy_boxes(ref, dist, name):
    for level in range(ref.n_levels):
        for b in dist.local_boxes(level):
            tack.copyto(dist.box_array(name, level, b), ref.box_array(name, level, b))


def check_equal(ref, dist, name, what):
    for level in range(ref.n_levels):
        for b in dist.local_boxes(level):
            got = dist.box_array(name, level, b).numpy()
            want = ref.box_array(name, level, b).numpy()
            assert np.array_equal(got, want, equal_nan=True), \
                (what, name, level, b, np.argwhere(got != want)[:5])


def owners_of(kind, levels, rng):
    if kind == "balanced":
        return None
    if kind == "random":
        return [rng.integers(0, size, len(level)).tolist() for level in levels]
    return [[size - 1] * len(level) for level in levels]  # one rank has everything


checked = 0
for device in devices:
    for case, (ratio, ghost, kind) in enumerate([(2, 1, "balanced"), (2, 2, "random"),
                                                 (4, 1, "random"), (2, 3, "balanced"),
                                                 (4, 2, "one"), (2, 2, "one")]):
        rng = np.random.default_rng(100 + case)  # the same on every rank
        levels = random_hierarchy(rng, ratio, 3 if ratio == 2 else 2)
        owners = owners_of(kind, levels, rng)
        fields = [("u", np.float64, ghost), ("v", np.float32, ghost), ("n", np.int32, ghost)]
        ref, dist = pair(levels, ratio, owners, device, 7 + case, fields)
        if owners is not None:
            assert [dist.owners(level) for level in range(len(levels))] == owners
        mine = sum(len(dist.local_boxes(level)) for level in range(len(levels)))
        total = comm.allreduce(tack.array(np.array([mine], np.int64)))
        assert total.numpy()[0] == sum(len(level) for level in levels)  # each box once

        # regrid before any ghost_cells (the ghosts random, so where a coarse cell is read from
        # matters): the finest level onto every cell of the level above it, across ranks
        last = len(levels) - 1
        cover = [(tuple(v * ratio for v in lo), tuple(v * ratio + ratio - 1 for v in hi))
                 for lo, hi in levels[last - 1]]
        cover_owners = None if kind == "balanced" else rng.integers(0, size, len(cover)).tolist()
        for name, _, _ in fields:
            check_equal(ref.regrid(last, cover), dist.regrid(last, cover, owners=cover_owners),
                        name, "regrid onto stale ghosts")

        for name, _, _ in fields:
            before = dist.level_array(name, len(levels) - 1).version
            td.ghost_cells(ref, name)
            td.ghost_cells(dist, name)
            check_equal(ref, dist, name, "ghost_cells")
            mine_last = dist.local_boxes(len(levels) - 1)
            if mine_last:  # an in-place fill moves the buffer's version
                assert dist.level_array(name, len(levels) - 1).version != before
        for name in ("u", "v"):
            ref2, dist2 = pair(levels, ratio, owners, device, 50 + case, [(name, np.float64
                                                                           if name == "u" else
                                                                           np.float32, ghost)])
            td.ghost_cells(ref2, name, interpolation="linear")
            td.ghost_cells(dist2, name, interpolation="linear")
            check_equal(ref2, dist2, name, "linear")
            td.average_down(ref2, name)
            td.average_down(dist2, name)
            check_equal(ref2, dist2, name, "average_down")

        # regrid the finest level: its boxes in another order, one dropped, new owners
        last = len(levels) - 1
        new = list(reversed(levels[last]))[:-1] or levels[last]
        new_owners = None if kind == "balanced" else rng.integers(0, size, len(new)).tolist()
        ref_r = ref.regrid(last, new)
        dist_r = dist.regrid(last, new, owners=new_owners)
        for name, _, _ in fields:
            check_equal(ref_r, dist_r, name, "regrid")
        # and a middle level, whose finer boxes stay nested
        ref_m = ref.regrid(1, levels[1])
        dist_m = dist.regrid(1, levels[1], owners=None)
        check_equal(ref_m, dist_m, "u", "regrid level 1")

        ref.add_blanking("blanked")
        dist.add_blanking("blanked")
        check_equal(ref, dist, "blanked", "blanking")
        cells = len(td.amr_to_unstructured(dist, ["u"]).cell_data["u"])
        cells = comm.allreduce(tack.array(np.array([cells], np.int64))).numpy()[0]
        assert cells == len(td.amr_to_unstructured(ref, ["u"]).cell_data["u"])
        if vtk_to_numpy and device == "cpu" and case == 0:  # VTK's parallel convention: every box, own grids
            v = td.to_vtk(dist)
            for level in range(len(levels)):
                here = set(dist.local_boxes(level))
                for b in range(len(levels[level])):
                    grid = v.GetDataSetAsImageData(level, b)
                    assert (grid is not None) == (b in here), (level, b)
                    if grid is not None:
                        want = ref.box_array("u", level, b).numpy()[ghost:-ghost, ghost:-ghost,
                                                                     ghost:-ghost]
                        got = vtk_to_numpy(grid.GetCellData().GetArray("u"))
                        assert np.array_equal(got, want.ravel())
        checked += 1

# A box of another rank is not here; owners must be one rank per box.
levels = random_hierarchy(np.random.default_rng(1), 2, 2)
dist = td.AMR(levels, 2, comm=comm, owners=[[0] * len(level) for level in levels])
dist.add_field("u", ghost=1)
if rank != 0:
    try:
        dist.box_array("u", 0, 0)
        raise AssertionError("box_array of rank 0's box on rank %d" % rank)
    except ValueError as e:
        assert "owned by rank 0" in str(e), e
for bad in ([[0] * len(levels[0])], [[0] * len(levels[0]), [size] * len(levels[1])]):
    try:
        td.AMR(levels, 2, comm=comm, owners=bad)
        raise AssertionError(f"owners {bad} accepted")
    except ValueError as e:
        assert "owners" in str(e) or "ranks from 0" in str(e), e

comm.barrier()
print(f"rank {rank} of {size}: amr ok ({checked} hierarchies)", flush=True)
