"""tack.dataset's filters on a mesh built in Tack: an unstructured grid of tetrahedra filling a
cylinder gets an elevation field (elevation), cell averages of it (point_to_cell), back to the
points (cell_to_point), its gradient (gradient), the cells of one range (threshold), the
boundary (external_faces), the volume (integrate) and the cell centers (cell_centers); the
centers are then drawn from above, coloured by the cell averages, by a Tack kernel, and written
out as mesh_filters.png."""
import numpy as np

import tack
import tack.dataset as td
from heat import write_png

RINGS, SLICES, LAYERS = 12, 48, 16


def cylinder_tets():
    """A cylinder of radius 1 and height 2 as hexahedra (ring x slice x layer), each split into
    six tetrahedra: (points, offsets, connectivity, types)."""
    r = np.linspace(0.15, 1.0, RINGS + 1)
    t = np.linspace(0.0, 2 * np.pi, SLICES, endpoint=False)
    z = np.linspace(0.0, 2.0, LAYERS + 1)
    R, T, Z = np.meshgrid(r, t, z, indexing="ij")
    points = np.c_[(R * np.cos(T)).ravel(), (R * np.sin(T)).ravel(), Z.ravel()]

    def pid(i, j, k):
        return (i * SLICES + j % SLICES) * (LAYERS + 1) + k

    # six tetrahedra of positive volume (VTK orients a tetrahedron by its first three points)
    six = [(0, 1, 3, 7), (0, 1, 7, 5), (0, 5, 7, 4), (1, 2, 3, 7), (1, 2, 7, 6), (1, 6, 7, 5)]
    tets = []
    for i in range(RINGS):
        for j in range(SLICES):
            for k in range(LAYERS):
                c = [pid(i, j, k), pid(i + 1, j, k), pid(i + 1, j + 1, k), pid(i, j + 1, k),
                     pid(i, j, k + 1), pid(i + 1, j, k + 1), pid(i + 1, j + 1, k + 1),
                     pid(i, j + 1, k + 1)]
                tets += [[c[a] for a in tet] for tet in six]
    conn = np.array(tets, np.int64).ravel()
    offsets = np.arange(0, len(conn) + 1, 4, dtype=np.int64)
    types = np.full(len(tets), td.CELL_TYPES["tetra"], np.uint8)
    return points, offsets, conn, types


@tack.kernel
def draw(centers, value, image, lo, hi):
    for c in range(len(value)):
        px = tack.i64((centers[c, 0] + 1.1) / 2.2 * image.shape[1])
        py = tack.i64((1.1 - centers[c, 1]) / 2.2 * image.shape[0])
        if px >= 0 and px < image.shape[1] and py >= 0 and py < image.shape[0]:
            s = min(max((value[c] - lo) / (hi - lo), 0.0), 1.0)
            image[py, px, 0] = tack.u8(255.0 * s)
            image[py, px, 1] = tack.u8(255.0 * (1.0 - abs(2.0 * s - 1.0)))
            image[py, px, 2] = tack.u8(255.0 * (1.0 - s))


def main():
    ds = td.unstructured(*cylinder_tets())
    ds = td.elevation(ds, low_point=(-1, -1, 0), high_point=(1, 1, 0))
    ds = td.point_to_cell(ds, "elevation")          # a cell field of the same name
    smooth = td.cell_to_point(ds, "elevation")      # and back to the points
    centers = td.cell_centers(ds)                   # carries the cell field
    image = tack.zeros((256, 256, 3), dtype=tack.u8)
    top = centers.points.numpy()[:, 2] > 1.8        # the cells near the top
    pts = tack.array(np.ascontiguousarray(centers.points.numpy()[top]))
    val = tack.array(np.ascontiguousarray(centers.point_data["elevation"].numpy()[top]))
    draw(pts, val, image, 0.0, 1.0)
    write_png("mesh_filters.png", image.numpy())
    diff = np.abs(smooth.point_data["elevation"].numpy() - ds.point_data["elevation"].numpy())
    # elevation is linear in x and y: its gradient is the same everywhere
    g = td.gradient(ds, "elevation").point_data["gradient"].numpy()
    half = td.threshold(ds, "elevation", 0.5, 1.0, association="point")
    skin = td.external_faces(ds)
    volume = td.integrate(ds)["volume"]
    # the tube below the plane z = 0.5: cut cells split, so the volume is a quarter of it
    lower = td.clip(ds, td.Plane(origin=(0, 0, 0.5), normal=(0, 0, 1)), invert=True)
    print(f"gradient {g.mean(axis=0).round(3)} (spread {np.ptp(g, axis=0).max():.1e}); "
          f"threshold keeps {half.n_cells} cells; {skin.n_cells} boundary triangles; "
          f"volume {volume:.3f} (a round tube's: {2 * np.pi * (1 - 0.15 ** 2):.3f}); "
          f"below z = 0.5: {td.integrate(lower)['volume']:.3f} in {lower.n_cells} cells")
    print(f"{ds.n_cells} tetrahedra, {ds.n_points} points on {ds.device}: elevation in "
          f"[{tack.min(ds.point_data['elevation']):.2f}, {tack.max(ds.point_data['elevation']):.2f}]"
          f", point -> cell -> point differs by at most {diff.max():.3f}; wrote mesh_filters.png")


if __name__ == "__main__":
    main()
