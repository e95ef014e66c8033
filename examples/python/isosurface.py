"""An isosurface with tack.dataset.contour: three blobs as a field on a 96^3 image, contoured at
one value with normals; the triangles are then drawn by a Tack kernel (one work-item per
triangle, its pixels depth-tested through an atomic minimum of depth and shade) and written out
as isosurface.png."""
import math  # noqa: F401 - the kernels' math

import numpy as np

import tack
import tack.dataset as td
from heat import write_png

N, SIZE = 96, 320
BLOBS = np.array([(-0.4, -0.25, 0.0, 0.3), (0.4, -0.2, 0.1, 0.26), (0.0, 0.4, -0.1, 0.24)])


@tack.kernel
def raster(points, normals, conn, frame, size: int):
    # one work-item per triangle: the pixels whose centres it covers, seen down the z axis,
    # each kept if nearer than what the frame holds (an atomic minimum of depth and shade)
    for q in range(len(conn) // 3):
        a = conn[3 * q]
        b = conn[3 * q + 1]
        c = conn[3 * q + 2]
        ax = (points[a, 0] + 1.0) * 0.5 * size
        ay = (1.0 - points[a, 1]) * 0.5 * size
        bx = (points[b, 0] + 1.0) * 0.5 * size
        by = (1.0 - points[b, 1]) * 0.5 * size
        cx = (points[c, 0] + 1.0) * 0.5 * size
        cy = (1.0 - points[c, 1]) * 0.5 * size
        area = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
        if area != 0.0:
            # light from the viewer's upper left
            nx = normals[a, 0] + normals[b, 0] + normals[c, 0]
            ny = normals[a, 1] + normals[b, 1] + normals[c, 1]
            nz = normals[a, 2] + normals[b, 2] + normals[c, 2]
            ln = math.sqrt(nx * nx + ny * ny + nz * nz) + 1e-12
            shade = max((-0.4 * nx + 0.5 * ny - 0.77 * nz) / ln, 0.0)
            level = tack.i64(1023.0 * min(0.15 + 0.85 * shade, 1.0))
            x0 = max(tack.i64(min(ax, min(bx, cx))), tack.i64(0))
            x1 = min(tack.i64(max(ax, max(bx, cx))) + 1, tack.i64(size))
            y0 = max(tack.i64(min(ay, min(by, cy))), tack.i64(0))
            y1 = min(tack.i64(max(ay, max(by, cy))) + 1, tack.i64(size))
            for py in range(y0, y1):
                for px in range(x0, x1):
                    sx = px + 0.5
                    sy = py + 0.5
                    u = ((bx - sx) * (cy - sy) - (by - sy) * (cx - sx)) / area
                    v = ((cx - sx) * (ay - sy) - (cy - sy) * (ax - sx)) / area
                    w = 1.0 - u - v
                    if u >= 0.0 and v >= 0.0 and w >= 0.0:
                        z = u * points[a, 2] + v * points[b, 2] + w * points[c, 2]
                        packed = tack.i64((z + 2.0) * 1.0e6) * 1024 + level
                        tack.atomic_min(frame, py * size + px, packed)


@tack.kernel
def colour(frame, empty: int, rgb):
    for p in range(len(frame)):
        v = frame[p]
        py = p // rgb.shape[1]
        px = p % rgb.shape[1]
        if v == empty:
            rgb[py, px, 0] = tack.u8(20)
            rgb[py, px, 1] = tack.u8(24)
            rgb[py, px, 2] = tack.u8(32)
        else:
            s = tack.f64(v % 1024) / 1023.0
            rgb[py, px, 0] = tack.u8(40.0 + 200.0 * s)
            rgb[py, px, 1] = tack.u8(60.0 + 150.0 * s)
            rgb[py, px, 2] = tack.u8(90.0 + 110.0 * s)


def draw(surface, path):
    """Writes the triangles of `surface` (with "Normals") seen down the z axis as a PNG."""
    empty = np.iinfo(np.int64).max
    frame = tack.full(SIZE * SIZE, empty, dtype=tack.i64)
    raster(surface.points, surface.point_data["Normals"], surface.connectivity, frame, SIZE)
    rgb = tack.zeros((SIZE, SIZE, 3), dtype=tack.u8)
    colour(frame, empty, rgb)
    write_png(path, rgb.numpy())


def main():
    ds = td.image((N, N, N), origin=(-1, -1, -1), spacing=(2 / (N - 1),) * 3)
    p = ds.points.numpy()
    field = sum(r * r / np.maximum(np.sum((p - c) ** 2, axis=1), 1e-9)
                for *c, r in BLOBS)                        # metaballs
    ds.point_data["blobs"] = field
    surface = td.contour(ds, "blobs", 1.0, compute_normals=True)
    draw(surface, "isosurface.png")
    area = td.integrate(surface)["area"]
    print(f"{surface.n_cells} triangles, {surface.n_points} points on {surface.device} "
          f"(the contour of a {N}^3 field); area {area:.3f}; wrote isosurface.png")


if __name__ == "__main__":
    main()
