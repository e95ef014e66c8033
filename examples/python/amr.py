"""Block-structured AMR with tack.dataset.AMR: a hierarchy of three levels refined round a
feature that moves (a sphere's surface), the field filled box by box by a kernel writing into
each box's view of its level buffer, ghost cells filled and the fine levels averaged down in
place; then the cells no finer box covers as an unstructured grid with the field at its points
(from the cells round them, ghosts included), the contour of the sphere drawn (isosurface.py's
rasterizer) and written as amr.png."""
import math  # noqa: F401 - the kernels' math

import numpy as np

import tack
import tack.dataset as td
from isosurface import draw

N0, BOX, RADIUS = 16, 4, 0.55  # level 0: N0^3 cells over [-1, 1]^3, boxes of BOX^3


@tack.kernel
def inside(box, lo_i: int, lo_j: int, lo_k: int, g: int, h: float, cx: float, radius: float):
    # each cell of the box (ghosts included): how far its centre is inside the sphere
    for k, j, i in tack.ndrange(box.shape[0], box.shape[1], box.shape[2]):
        x = -1.0 + (lo_i - g + i + 0.5) * h - cx
        y = -1.0 + (lo_j - g + j + 0.5) * h
        z = -1.0 + (lo_k - g + k + 0.5) * h
        box[k, j, i] = radius - math.sqrt(x * x + y * y + z * z)


def refined_round(boxes, h, cx):
    """The boxes (refined by 2) whose cells the sphere's surface may cross."""
    out = []
    for lo, hi in boxes:
        c = np.array([(lo[a] + hi[a] + 1) * 0.5 * h - 1.0 for a in range(3)]) - (cx, 0, 0)
        half = (hi[0] - lo[0] + 1) * 0.5 * h * np.sqrt(3.0)
        if abs(np.linalg.norm(c) - RADIUS) <= half:
            out.append((tuple(2 * v for v in lo), tuple(2 * v + 1 for v in hi)))
    return out


def hierarchy(cx):
    level0 = [((i, j, k), (i + BOX - 1, j + BOX - 1, k + BOX - 1))
              for k in range(0, N0, BOX) for j in range(0, N0, BOX) for i in range(0, N0, BOX)]
    h = 2.0 / N0
    level1 = refined_round(level0, h, cx)
    # level 2: each level-1 box split into eight, those near the surface refined
    halves = [((lo[0] + di, lo[1] + dj, lo[2] + dk),
               (lo[0] + di + BOX - 1, lo[1] + dj + BOX - 1, lo[2] + dk + BOX - 1))
              for lo, hi in level1 for dk in (0, BOX) for dj in (0, BOX) for di in (0, BOX)]
    level2 = refined_round(halves, h / 2, cx)
    return [level0, level1, level2]


def main():
    cx = 0.25  # where the feature is now (it moved from the centre)
    levels = hierarchy(cx)
    amr = td.AMR(levels, ratio=2, origin=(-1.0, -1.0, -1.0), spacing=(2.0 / N0,) * 3)
    amr.add_field("inside", dtype=tack.f64, ghost=1)
    for level in range(amr.n_levels):
        h = amr.spacing(level)[0]
        for b, (lo, hi) in enumerate(amr.boxes(level)):
            inside(amr.box_array("inside", level, b), lo[0], lo[1], lo[2], 1, h, cx, RADIUS)
    td.ghost_cells(amr, "inside")
    td.average_down(amr, "inside")

    cells = td.amr_to_unstructured(amr)  # "inside" per cell, and at the points
    surface = td.contour(cells, "inside", 0.0, compute_normals=True)
    draw(surface, "amr.png")
    counts = [len(level) for level in levels]
    print(f"AMR of {counts} boxes on {amr.device}: {cells.n_cells} unblanked cells, "
          f"{surface.n_cells} triangles on the sphere of radius {RADIUS}; wrote amr.png")


if __name__ == "__main__":
    main()
