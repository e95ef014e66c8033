"""A small galaxy: bodies drawn on a rotating disk (tack.random), integrated with all-pairs
gravity and leapfrog steps written with vector values (tack.Vector, vec(3) arrays, .norm_sqr(),
'@'), then seen through a tilted camera (a rotation matrix) and splatted into a picture written
as nbody.pgm. Same picture on every device and thread count, up to float rounding."""
import math

import numpy as np

import tack

N = 4096  # bodies
STEPS = 24
DT = 0.002
EPS2 = 1e-3  # softening, squared
SIZE = 256  # picture side, in pixels
SEED = 7
TILT = 1.0  # radians: the camera looks at the disk from above and a little to the side


@tack.kernel
def start(pos, vel, mass):
    for i in range(len(pos)):
        state = tack.random.seed(SEED, i)
        state, u = tack.random.uniform(state)
        state, d = tack.random.direction2(state)  # a vec2 on the unit circle
        r = 0.1 + 0.9 * tack.sqrt(u)  # denser in the middle
        state, z = tack.random.normal(state)
        p = tack.Vector([r * d.x, r * d.y, 0.02 * z])
        pos[i] = p
        # Circular speed around the centre for the mass inside r, about r: a rotating disk.
        speed = tack.sqrt(0.6 * r)
        vel[i] = [-d.y * speed, d.x * speed, 0.0]
        mass[i] = 1.0 / len(pos)


@tack.kernel
def accelerate(pos, mass, acc):
    for i in range(len(pos)):
        p = pos[i]
        a = tack.Vector([0.0, 0.0, 0.0])
        for j in range(len(pos)):
            d = pos[j] - p
            inv = 1.0 / tack.sqrt(d.norm_sqr() + EPS2)
            a += d * (mass[j] * inv * inv * inv)
        acc[i] = a


@tack.kernel
def kick_drift(pos, vel, acc, dt):
    for i in range(len(pos)):
        v = vel[i] + acc[i] * dt
        vel[i] = v
        pos[i] += v * dt


@tack.kernel
def splat(pos, view, counts):
    for i in range(len(pos)):
        q = view[0] @ pos[i]  # the camera's frame
        px = tack.i32(tack.math.clamp((0.5 + 0.42 * q.x) * SIZE, 0, SIZE - 1))
        py = tack.i32(tack.math.clamp((0.5 - 0.42 * q.y) * SIZE, 0, SIZE - 1))
        tack.atomic_add(counts, (py, px), 1)


@tack.kernel
def tone(counts, grey, scale):
    for i, j in tack.ndrange(counts.shape[0], counts.shape[1]):
        t = tack.math.saturate(tack.sqrt(counts[i, j] * scale))
        grey[i, j] = tack.u8(255.0 * tack.math.mix(0.04, 1.0, t))


def main():
    pos = tack.zeros(N, dtype=tack.vec(3, tack.f32))
    vel = tack.zeros(N, dtype=tack.vec(3, tack.f32))
    acc = tack.zeros(N, dtype=tack.vec(3, tack.f32))
    mass = tack.zeros(N, dtype=tack.f32)
    start(pos, vel, mass)
    accelerate(pos, mass, acc)
    for _ in range(STEPS):  # leapfrog (kick-drift, then the new acceleration)
        kick_drift(pos, vel, acc, DT)
        accelerate(pos, mass, acc)
    c, s = math.cos(TILT), math.sin(TILT)
    view = tack.array(np.array([[[1, 0, 0], [0, c, -s], [0, s, c]]], np.float32),
                      dtype=tack.mat(3, 3, tack.f32))
    counts = tack.zeros((SIZE, SIZE), dtype=tack.i32)
    splat(pos, view, counts)
    grey = tack.zeros((SIZE, SIZE), dtype=tack.u8)
    tone(counts, grey, 1.0 / 6.0)
    with open("nbody.pgm", "wb") as f:
        f.write(b"P5 %d %d 255\n" % (SIZE, SIZE))
        f.write(grey.numpy().tobytes())
    p, v = pos.numpy(), vel.numpy()
    assert counts.numpy().sum() == N and np.isfinite(p).all()
    # The disk keeps turning one way: the angular momentum about z stays positive.
    lz = (p[:, 0] * v[:, 1] - p[:, 1] * v[:, 0]).mean()
    assert lz > 0, lz
    print(f"{N} bodies, {STEPS} steps on {tack.default_device().name}: mean radius "
          f"{np.linalg.norm(p[:, :2], axis=1).mean():.3f}, angular momentum {lz:.4f}; "
          "wrote nbody.pgm")


if __name__ == "__main__":
    main()
