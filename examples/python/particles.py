"""Particles in a box: random starts (tack.random), a few hundred steps of gravity with bouncing
walls (tuples, module constants, tack.math), then a density picture splatted with atomics and
tone-mapped, written out as particles.pgm. Every draw is reproducible: the same picture on every
device and thread count."""
import numpy as np

import tack

N = 1 << 16  # particles
SIZE = 256  # picture side, in pixels
GRAVITY = -9.81
DT = 0.002
RESTITUTION = 0.8  # the share of speed a bounce keeps
SEED = 2026


@tack.kernel
def start(pos, vel):
    for i in range(pos.shape[0]):
        state = tack.random.seed(SEED, i)
        state, (u, v, w, s) = tack.random.uniform4(state)
        state, (dx, dy) = tack.random.direction2(state)
        pos[i, 0], pos[i, 1] = 0.25 + 0.5 * u, 0.5 + 0.45 * v  # a block in the upper middle
        speed = 0.5 + 1.5 * w * s
        vel[i, 0], vel[i, 1] = speed * dx, speed * dy


@tack.func
def bounce(x, v):
    # A wall at 0 and at 1: reflect the position, lose some speed.
    if x < 0.0:
        return -x, -v * RESTITUTION
    if x > 1.0:
        return 2.0 - x, -v * RESTITUTION
    return x, v


@tack.kernel
def step(pos, vel):
    for i in range(pos.shape[0]):
        x, y = pos[i, 0], pos[i, 1]
        vx, vy = vel[i, 0], vel[i, 1] + GRAVITY * DT
        x, vx = bounce(x + vx * DT, vx)
        y, vy = bounce(y + vy * DT, vy)
        pos[i, 0], pos[i, 1] = x, y
        vel[i, 0], vel[i, 1] = vx, vy


@tack.kernel
def splat(pos, counts):
    for i in range(pos.shape[0]):
        px = tack.i32(tack.math.clamp(pos[i, 0] * SIZE, 0, SIZE - 1))
        py = tack.i32(tack.math.clamp((1.0 - pos[i, 1]) * SIZE, 0, SIZE - 1))
        tack.atomic_add(counts, (py, px), 1)


@tack.kernel
def tone(counts, grey, scale):
    for i, j in tack.ndrange(counts.shape[0], counts.shape[1]):
        t = tack.math.saturate(counts[i, j] * scale)
        grey[i, j] = tack.u8(255.0 * tack.math.mix(0.05, 1.0, tack.math.smoothstep(0.0, 1.0, t)))


def main():
    pos = tack.zeros(N, dtype=tack.vec(2, tack.f32))
    vel = tack.zeros(N, dtype=tack.vec(2, tack.f32))
    start(pos, vel)
    for _ in range(400):
        step(pos, vel)
    counts = tack.zeros((SIZE, SIZE), dtype=tack.i32)
    splat(pos, counts)
    grey = tack.zeros((SIZE, SIZE), dtype=tack.u8)
    tone(counts, grey, 1.0 / 8.0)
    with open("particles.pgm", "wb") as f:
        f.write(b"P5 %d %d 255\n" % (SIZE, SIZE))
        f.write(grey.numpy().tobytes())
    p = pos.numpy()
    assert counts.numpy().sum() == N  # every particle landed in a pixel
    assert (p >= 0).all() and (p <= 1).all()
    print(f"{N} particles, 400 steps: mean height {p[:, 1].mean():.3f}, "
          f"busiest pixel {counts.numpy().max()} particles; wrote particles.pgm")


if __name__ == "__main__":
    main()
