"""tack.dataset.AMR's ghost_cells and average_down in place (docs/design/amr.md) on a synthetic
hierarchy shaped like the "Array views" seed's (five levels, ratio 2, about 15,000 boxes of 8^3 to
16^3 cells, ghost width 2), against, in the same run:
* concatenate-and-copy, the way the seed describes the old code: every box its own array, each
  operation concatenating a level's boxes into one buffer, operating on it, and copying every
  box back (in Tack: the same kernels, plus the concatenation and one copy per box);
* a plain NumPy implementation: per box and neighbour, slices of NumPy views of level buffers.
Prints times, the ratios (reference / in place; the issue's goals: 3 and 10) and the number of
launches (the level buffers' version moves once per launch that writes them: it must not grow
with the number of boxes).

    PYTHONPATH=build/dev/python .venv/bin/python bench/bench_amr.py [--small]
"""
import sys
import time

import numpy as np

import tack
import tack.dataset as td
from _util import best_of, record

SMALL = "--small" in sys.argv
G = 2
R = 2


def tile(lo, hi, size):
    """Boxes of `size` cells tiling [lo, hi] (inclusive) on every axis."""
    edges = [range(lo[a], hi[a] + 1, size) for a in range(3)]
    return [((x, y, z), (x + size - 1, y + size - 1, z + size - 1))
            for z in edges[2] for y in edges[1] for x in edges[0]]


def hierarchy():
    """(levels, tilings): each level a tiling of a cube region by boxes of one size."""
    spec = [((0, 63), 16), ((16, 111), 16), ((64, 191), 16), ((160, 351), 8), ((480, 543), 16)]
    if SMALL:
        spec = [((0, 31), 8), ((8, 55), 8), ((32, 95), 8), ((80, 175), 8), ((176, 207), 8)]
    levels, tilings = [], []
    for (lo, hi), size in spec:
        levels.append(tile((lo,) * 3, (hi,) * 3, size))
        tilings.append((lo, hi, size))
    return levels, tilings


class NumpyAmr:
    """The same hierarchy as NumPy level buffers and box views, filled per box and neighbour."""

    def __init__(self, levels, tilings, buffers):
        self.levels, self.tilings = levels, tilings
        self.buffers = buffers
        self.views = []
        for level, boxes in enumerate(levels):
            at, views = 0, []
            for lo, hi in boxes:
                shape = tuple(hi[a] - lo[a] + 1 + 2 * G for a in (2, 1, 0))
                n = shape[0] * shape[1] * shape[2]
                views.append(buffers[level][at:at + n].reshape(shape))
                at += n
            self.views.append(views)

    def box_at(self, level, cell):
        """The index of level's box holding `cell` (i, j, k), or None."""
        lo, hi, size = self.tilings[level]
        if any(c < lo or c > hi for c in cell):
            return None
        n = (hi - lo + 1) // size
        t = [(c - lo) // size for c in cell]
        return t[0] + n * (t[1] + n * t[2])

    def boxes_in(self, level, lo, hi):
        """The boxes of `level` meeting [lo, hi]."""
        tlo, thi, size = self.tilings[level]
        a = [max(lo[x], tlo) for x in range(3)]
        b = [min(hi[x], thi) for x in range(3)]
        if any(a[x] > b[x] for x in range(3)):
            return []
        n = (thi - tlo + 1) // size
        rng = [range((a[x] - tlo) // size, (b[x] - tlo) // size + 1) for x in range(3)]
        return [i + n * (j + n * k) for k in rng[2] for j in rng[1] for i in rng[0]]

    def put(self, level, b, lo, hi, values):
        """Box b's cells [lo, hi] (level index space) = values ((k, j, i) order)."""
        blo = self.levels[level][b][0]
        s = tuple(slice(lo[a] - blo[a] + G, hi[a] - blo[a] + G + 1) for a in (2, 1, 0))
        self.views[level][b][s] = values

    def get(self, level, b, lo, hi):
        blo = self.levels[level][b][0]
        s = tuple(slice(lo[a] - blo[a] + G, hi[a] - blo[a] + G + 1) for a in (2, 1, 0))
        return self.views[level][b][s]

    def ghost_cells(self):
        for level, boxes in enumerate(self.levels):
            for b, (lo, hi) in enumerate(boxes):
                glo, ghi = [v - G for v in lo], [v + G for v in hi]
                if level > 0:  # from the coarser level, piecewise constant
                    for c in self.boxes_in(level - 1, [v // R for v in glo], [v // R for v in ghi]):
                        clo, chi = self.levels[level - 1][c]
                        flo = [max(glo[a], clo[a] * R) for a in range(3)]
                        fhi = [min(ghi[a], chi[a] * R + R - 1) for a in range(3)]
                        coarse = self.get(level - 1, c, [v // R for v in flo],
                                          [v // R for v in fhi])
                        fine = coarse.repeat(R, 0).repeat(R, 1).repeat(R, 2)
                        off = [flo[a] - (flo[a] // R) * R for a in range(3)]
                        fine = fine[off[2]:off[2] + fhi[2] - flo[2] + 1,
                                    off[1]:off[1] + fhi[1] - flo[1] + 1,
                                    off[0]:off[0] + fhi[0] - flo[0] + 1]
                        inner = self.get(level, b, flo, fhi).copy()  # the box's own cells stay
                        self.put(level, b, flo, fhi, fine)
                        vlo = [max(flo[a], lo[a]) for a in range(3)]
                        vhi = [min(fhi[a], hi[a]) for a in range(3)]
                        if all(vlo[a] <= vhi[a] for a in range(3)):
                            s = tuple(slice(vlo[a] - flo[a], vhi[a] - flo[a] + 1)
                                      for a in (2, 1, 0))
                            self.put(level, b, vlo, vhi, inner[s])
                for c in self.boxes_in(level, glo, ghi):  # from the same level
                    if c == b:
                        continue
                    clo, chi = self.levels[level][c]
                    rlo = [max(glo[a], clo[a]) for a in range(3)]
                    rhi = [min(ghi[a], chi[a]) for a in range(3)]
                    self.put(level, b, rlo, rhi, self.get(level, c, rlo, rhi))

    def average_down(self):
        for level in range(len(self.levels) - 1, 0, -1):
            for b, (lo, hi) in enumerate(self.levels[level]):
                v = self.get(level, b, lo, hi)
                n = [s // R for s in v.shape]
                mean = v.reshape(n[0], R, n[1], R, n[2], R).mean(axis=(1, 3, 5))
                clo, chi = [x // R for x in lo], [(x + 1) // R - 1 for x in hi]
                c = self.box_at(level - 1, clo)
                self.put(level - 1, c, clo, chi, mean)


def main():
    levels, tilings = hierarchy()
    n_boxes = sum(len(level) for level in levels)
    amr = td.AMR(levels, ratio=R)
    amr.add_field("u", dtype=tack.f64, ghost=G)
    rng = np.random.default_rng(0)
    for level in range(amr.n_levels):
        buf = amr.level_array("u", level)
        tack.copyto(buf, rng.standard_normal(buf.shape[0]))
    cells = sum(amr.level_array("u", level).shape[0] for level in range(amr.n_levels))
    print(f"{amr.n_levels} levels, {n_boxes} boxes, {cells / 1e6:.1f} M values with ghosts "
          f"(ratio {R}, ghost width {G}), Tack on {tack.default_device()}")

    t0 = time.perf_counter()
    td.ghost_cells(amr, "u")
    td.average_down(amr, "u")
    tack.sync()
    first = (time.perf_counter() - t0) * 1e3
    print(f"  first calls (regions planned, kernels compiled): {first:.0f} ms")
    tack.finish_compiles()
    versions = [amr.level_array("u", level).version for level in range(amr.n_levels)]
    td.ghost_cells(amr, "u")
    td.average_down(amr, "u")
    launches = [amr.level_array("u", level).version - versions[level]
                for level in range(amr.n_levels)]
    t_ghost = best_of(lambda: (td.ghost_cells(amr, "u"), tack.sync()))
    t_avg = best_of(lambda: (td.average_down(amr, "u"), tack.sync()))
    td.ghost_cells(amr, "u", interpolation="linear")
    t_linear = best_of(lambda: (td.ghost_cells(amr, "u", interpolation="linear"), tack.sync()))

    # Concatenate and copy: every box its own array; per operation, each level's boxes
    # concatenated into one buffer, the operation on it, every box copied back.
    own = [[amr.box_array("u", level, b).numpy().copy() for b in range(len(boxes))]
           for level, boxes in enumerate(levels)]
    own = [[tack.array(a) for a in level] for level in own]

    def concatenated(op):
        for level in range(amr.n_levels):
            tack.copyto(amr.level_array("u", level),
                        tack.concat([a.reshape((-1,)) for a in own[level]]))
        op(amr, "u")
        for level in range(amr.n_levels):
            for b, a in enumerate(own[level]):
                tack.copyto(a, amr.box_array("u", level, b))
        tack.sync()
    t_cat_ghost = best_of(lambda: concatenated(td.ghost_cells), repeat=3)
    t_cat_avg = best_of(lambda: concatenated(td.average_down), repeat=3)

    # NumPy: the same values, per box and neighbour.
    ref = NumpyAmr(levels, tilings, [amr.level_array("u", level).numpy().copy()
                                     for level in range(amr.n_levels)])
    t_np_ghost = best_of(ref.ghost_cells, repeat=3)
    t_np_avg = best_of(ref.average_down, repeat=3)
    # (the same values as Tack's, to rounding: NumPy's mean sums in its own order)
    td.ghost_cells(amr, "u")
    td.average_down(amr, "u")
    check = NumpyAmr(levels, tilings, [amr.level_array("u", level).numpy().copy()
                                       for level in range(amr.n_levels)])
    check.ghost_cells()
    check.average_down()
    td.ghost_cells(amr, "u")
    td.average_down(amr, "u")
    worst = max(float(np.max(np.abs(amr.level_array("u", level).numpy() - check.buffers[level])))
                for level in range(amr.n_levels))

    for name, t, cat, npy in (("ghost_cells", t_ghost, t_cat_ghost, t_np_ghost),
                              ("average_down", t_avg, t_cat_avg, t_np_avg)):
        print(f"  {name:13s} in place {t * 1e3:8.2f} ms | concatenate-and-copy "
              f"{cat * 1e3:8.2f} ms: {cat / t:6.1f}x | NumPy {npy * 1e3:9.1f} ms: {npy / t:6.1f}x")
        record("bench_amr.py", f"{name} ({n_boxes} boxes)", round(cat / t, 2),
               "concatenate-and-copy / in place")
        record("bench_amr.py", f"{name} ({n_boxes} boxes)", round(npy / t, 2), "NumPy / in place")
    print(f"  ghost_cells with linear interpolation from the coarser levels: {t_linear * 1e3:.2f} ms")
    print(f"  launches writing each level (coarsest first) in one call of both: {launches} "
          f"(the same for any number of boxes); NumPy's values within {worst:.1e} of Tack's")


if __name__ == "__main__":
    main()
