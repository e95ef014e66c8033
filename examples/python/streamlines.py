"""Streamlines with tack.dataset: the ABC flow (Arnold-Beltrami-Childress, a steady swirling
flow with chaotic regions) sampled on a 48^3 image over [0, 2 pi]^3, 96 seeds traced both ways
with adaptive Runge-Kutta (rk45) steps on the device, the lines drawn by a Tack kernel (the
nearest sample to the eye wins each pixel, through an atomic max of depth and shade) and written
as streamlines.png, coloured by the speed carried on each point."""
import math  # noqa: F401 - the kernels' math

import numpy as np

import tack
import tack.dataset as td
from heat import write_png

N, SIZE = 48, 512
A, B, C = 1.0, math.sqrt(2.0 / 3.0), math.sqrt(1.0 / 3.0)


@tack.func
def plot(frame, size: int, x: float, y: float, z: float, shade: int):
    # a point seen along a tilted view: the nearest (largest depth) wins its 2 x 2 pixels; a pixel
    # holds depth (high bits) and shade (low 8 bits)
    x = x / (2.0 * math.pi) - 0.5
    y = y / (2.0 * math.pi) - 0.5
    z = z / (2.0 * math.pi) - 0.5
    u = 0.8 * x - 0.6 * y
    v = 0.35 * (0.6 * x + 0.8 * y) + 0.94 * z
    depth = 0.94 * (0.6 * x + 0.8 * y) - 0.35 * z
    i = tack.i64((u + 0.75) / 1.5 * size)
    j = tack.i64((0.75 - v) / 1.5 * size)
    d = tack.u32(min(max((depth + 1.0) * 0.5, 0.0), 1.0) * 16777215.0)
    for dj in range(2):
        for di in range(2):
            if i + di >= 0 and i + di < size and j + dj >= 0 and j + dj < size:
                tack.atomic_max(frame, (j + dj, i + di), (d << 8) | tack.u32(shade))


@tack.kernel
def draw(points, offsets, speed, frame, size: int, top: float):
    # each line's segments, 24 samples each, shaded by the speed interpolated along them
    for line in range(offsets.shape[0] - 1):
        for m in range(offsets[line], offsets[line + 1] - 1):
            for k in range(24):
                t = k / 24.0
                x = points[m, 0] + t * (points[m + 1, 0] - points[m, 0])
                y = points[m, 1] + t * (points[m + 1, 1] - points[m, 1])
                z = points[m, 2] + t * (points[m + 1, 2] - points[m, 2])
                s = speed[m] + t * (speed[m + 1] - speed[m])
                plot(frame, size, x, y, z, tack.i64(min(s / top, 1.0) * 255.0))


def main():
    h = 2.0 * math.pi / (N - 1)
    ds = td.image((N, N, N), spacing=(h, h, h))
    p = ds.points.numpy()
    x, y, z = p[:, 0], p[:, 1], p[:, 2]
    v = np.stack([A * np.sin(z) + C * np.cos(y), B * np.sin(x) + A * np.cos(z),
                  C * np.sin(y) + B * np.cos(x)], 1)
    ds.point_data["velocity"] = v
    ds.point_data["speed"] = np.linalg.norm(v, axis=1)
    seeds = np.random.default_rng(7).uniform(0.5, 2 * math.pi - 0.5, (96, 3))
    lines = td.streamlines(ds, "velocity", seeds, step=0.05, max_steps=600, method="rk45",
                           direction="both")
    frame = tack.zeros((SIZE, SIZE), dtype=tack.u32)
    speed = lines.point_data["speed"]
    draw(lines.points, lines.offsets, speed, frame, SIZE, float(ds.point_data["speed"].numpy().max()))
    f = frame.numpy()
    shade = (f & 0xFF).astype(np.float64) / 255.0
    lit = 0.35 + 0.65 * ((f >> 8).astype(np.float64) / 16777215.0)
    rgb = np.stack([0.2 + 0.8 * shade, 0.3 + 0.5 * (1 - abs(shade - 0.5) * 2), 1.0 - shade], -1)
    rgb = np.where((f > 0)[..., None], rgb * lit[..., None], 1.0)
    write_png("streamlines.png", (rgb * 255).astype(np.uint8))
    reasons = np.bincount(lines.cell_data["ReasonForTermination"].numpy(), minlength=7)
    print(f"{lines.n_cells} streamlines, {lines.n_points} points on {ds.device} (the ABC flow on "
          f"a {N}^3 image); ended: {reasons[5]} out of steps, {reasons[1]} out of the domain, "
          f"{reasons[6]} stagnant; wrote streamlines.png")


if __name__ == "__main__":
    main()
