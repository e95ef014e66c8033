"""Volume rendering through a 3-D texture: one ray per pixel marches through a gyroid sampled on
a 64^3 grid, reads the field with tex.sample (trilinear, clamped to the edge), maps it to colour
and opacity and composites front to back. Written out as volume.png."""
import math
import time

import numpy as np

import tack
from heat import write_png

N = 64           # grid points per axis
SIZE = 256       # image width and height
STEPS = 256      # samples per ray across the unit cube's diagonal


@tack.kernel
def gyroid(field, n):
    for k, j, i in tack.ndrange(n, n, n):
        x = 2.0 * math.pi * i / (n - 1)
        y = 2.0 * math.pi * j / (n - 1)
        z = 2.0 * math.pi * k / (n - 1)
        field[k, j, i] = math.sin(x) * math.cos(y) + math.sin(y) * math.cos(z) + \
            math.sin(z) * math.cos(x)


@tack.func
def transfer(s):
    """Colour and opacity of a field value in [-1.5, 1.5]: blue below zero, orange above, the
    zero surface itself transparent."""
    t = min(max(s / 1.5, -1.0), 1.0)
    a = 0.08 * t * t
    if t < 0.0:
        return 0.2, 0.4, 1.0, a
    return 1.0, 0.55, 0.1, a


@tack.kernel
def render(tex, rgb, eye, steps):
    for py, px in tack.ndrange(rgb.shape[0], rgb.shape[1]):
        # A pinhole camera at `eye` looking at the cube's centre (0.5, 0.5, 0.5), z up.
        fx, fy, fz = 0.5 - eye[0], 0.5 - eye[1], 0.5 - eye[2]
        fl = math.sqrt(fx * fx + fy * fy + fz * fz)
        fx, fy, fz = fx / fl, fy / fl, fz / fl
        rx, ry = fy, -fx
        rl = math.sqrt(rx * rx + ry * ry)
        rx, ry = rx / rl, ry / rl
        ux, uy, uz = -fz * ry, fz * rx, fx * ry - fy * rx
        sx = (2.0 * (px + 0.5) / rgb.shape[1] - 1.0) * 0.45
        sy = (1.0 - 2.0 * (py + 0.5) / rgb.shape[0]) * 0.45
        dx, dy, dz = fx + sx * rx + sy * ux, fy + sx * ry + sy * uy, fz + sy * uz
        dl = math.sqrt(dx * dx + dy * dy + dz * dz)
        dx, dy, dz = dx / dl, dy / dl, dz / dl
        # Where the ray enters and leaves the unit cube (slabs).
        t0 = 0.0
        t1 = 1.0e30
        for axis in range(3):
            o = eye[axis]
            d = dx if axis == 0 else (dy if axis == 1 else dz)
            if abs(d) > 1.0e-8:
                ta = (0.0 - o) / d
                tb = (1.0 - o) / d
                t0 = max(t0, min(ta, tb))
                t1 = min(t1, max(ta, tb))
        r, g, b, alpha = 0.0, 0.0, 0.0, 0.0
        step = math.sqrt(3.0) / steps
        t = t0
        while t < t1 and alpha < 0.99:
            s = tex.sample(eye[0] + t * dx, eye[1] + t * dy, eye[2] + t * dz)
            cr, cg, cb, ca = transfer(s)
            r += (1.0 - alpha) * ca * cr
            g += (1.0 - alpha) * ca * cg
            b += (1.0 - alpha) * ca * cb
            alpha += (1.0 - alpha) * ca
            t += step
        background = 0.08 + 0.12 * py / rgb.shape[0]
        rgb[py, px, 0] = tack.u8(255.0 * min(r + (1.0 - alpha) * background, 1.0))
        rgb[py, px, 1] = tack.u8(255.0 * min(g + (1.0 - alpha) * background, 1.0))
        rgb[py, px, 2] = tack.u8(255.0 * min(b + (1.0 - alpha) * background, 1.0))


def main():
    field = tack.zeros((N, N, N))   # field[z, y, x]
    gyroid(field, N)
    tex = tack.texture3d(field)      # extent (N, N, N); u, v, w in [0, 1] span the cube
    rgb = tack.zeros((SIZE, SIZE, 3), dtype=tack.u8)
    eye = tack.array(np.array([2.2, 1.6, 1.4], np.float32))
    render(tex, rgb, eye, STEPS)     # compiles
    start = time.perf_counter()
    render(tex, rgb, eye, STEPS)
    image = rgb.numpy()              # waits for the launch
    seconds = time.perf_counter() - start
    write_png("volume.png", image)
    print(f"{SIZE}x{SIZE} rays through a {N}^3 gyroid texture on {tex.device}: "
          f"{SIZE * SIZE / seconds / 1e6:.2f} Mrays/s, mean colour "
          f"{image.reshape(-1, 3).mean(axis=0).round(1).tolist()}; wrote volume.png")


if __name__ == "__main__":
    main()
