"""All-pairs N-body (issue 10): one step of gravitational accelerations for 16 Ki bodies in f32,
written with tack.Vector on tack.vec(3) arrays, against the same algorithm in C (-O3 -fopenmp
-march=native, built here with the system compiler and called through ctypes), the same kernel
written on scalar components in Tack, and Numba (parallel=True) and NVIDIA Warp (CPU) where they
install -- all in one run. Prints times, interactions per second and ratios (reference / tack).

    PYTHONPATH=build/release/python .venv/bin/python bench/bench_nbody.py [n]
"""
import ctypes
import os
import sys

import numpy as np

import tack
from _util import best_of, build_reference, record

N = int(sys.argv[1]) if len(sys.argv) > 1 else 16 * 1024
EPS2 = 1e-4  # softening, squared


@tack.kernel
def nbody_vector(pos, mass, acc, eps2):
    for i in range(len(pos)):
        p = pos[i]
        a = tack.Vector([0.0, 0.0, 0.0])
        for j in range(len(pos)):
            d = pos[j] - p
            r2 = d.norm_sqr() + eps2
            inv = 1.0 / tack.sqrt(r2)
            a += d * (mass[j] * inv * inv * inv)
        acc[i] = a


@tack.kernel
def nbody_scalar(pos, mass, acc, eps2):
    for i in range(len(pos)):
        px = pos[i, 0]
        py = pos[i, 1]
        pz = pos[i, 2]
        ax = 0.0
        ay = 0.0
        az = 0.0
        for j in range(len(pos)):
            dx = pos[j, 0] - px
            dy = pos[j, 1] - py
            dz = pos[j, 2] - pz
            r2 = dx * dx + dy * dy + dz * dz + eps2
            inv = 1.0 / tack.sqrt(r2)
            s = mass[j] * inv * inv * inv
            ax += dx * s
            ay += dy * s
            az += dz * s
        acc[i, 0] = ax
        acc[i, 1] = ay
        acc[i, 2] = az


C_SOURCE = r"""
#include <math.h>
void nbody(const float* pos, const float* mass, float* acc, long n, float eps2) {
  #pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) {
    const float px = pos[3 * i], py = pos[3 * i + 1], pz = pos[3 * i + 2];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (long j = 0; j < n; ++j) {
      const float dx = pos[3 * j] - px, dy = pos[3 * j + 1] - py, dz = pos[3 * j + 2] - pz;
      const float r2 = dx * dx + dy * dy + dz * dz + eps2;
      const float inv = 1.0f / sqrtf(r2);
      const float s = mass[j] * inv * inv * inv;
      ax += dx * s;
      ay += dy * s;
      az += dz * s;
    }
    acc[3 * i] = ax;
    acc[3 * i + 1] = ay;
    acc[3 * i + 2] = az;
  }
}
"""


def c_reference():
    """The C loop as a ctypes function, or None when no C compiler is present."""
    so = build_reference(C_SOURCE, "C reference", libs=["-lm"])
    if so is None:
        return None
    fn = so.nbody
    fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long,
                   ctypes.c_float]
    return fn


def numba_reference():
    try:
        import numba
    except ImportError:
        return None

    @numba.njit(parallel=True, fastmath=False)
    def nbody(pos, mass, acc, eps2):
        n = pos.shape[0]
        for i in numba.prange(n):
            px, py, pz = pos[i, 0], pos[i, 1], pos[i, 2]
            ax = np.float32(0.0)
            ay = np.float32(0.0)
            az = np.float32(0.0)
            for j in range(n):
                dx = pos[j, 0] - px
                dy = pos[j, 1] - py
                dz = pos[j, 2] - pz
                r2 = dx * dx + dy * dy + dz * dz + eps2
                inv = np.float32(1.0) / np.sqrt(r2)
                s = mass[j] * inv * inv * inv
                ax += dx * s
                ay += dy * s
                az += dz * s
            acc[i, 0] = ax
            acc[i, 1] = ay
            acc[i, 2] = az

    return nbody


def warp_reference():
    try:
        import warp as wp
    except ImportError:
        return None
    wp.config.quiet = True
    wp.init()

    @wp.kernel
    def nbody(pos: wp.array(dtype=wp.vec3), mass: wp.array(dtype=float),
              acc: wp.array(dtype=wp.vec3), eps2: float):
        i = wp.tid()
        p = pos[i]
        a = wp.vec3(0.0, 0.0, 0.0)
        for j in range(pos.shape[0]):
            d = pos[j] - p
            r2 = wp.dot(d, d) + eps2
            inv = 1.0 / wp.sqrt(r2)
            a = a + d * (mass[j] * inv * inv * inv)
        acc[i] = a

    return wp, nbody


def main():
    rng = np.random.default_rng(0)
    P = rng.standard_normal((N, 3)).astype(np.float32)
    Mass = rng.uniform(0.5, 1.5, N).astype(np.float32)
    pos = tack.array(P, dtype=tack.vec(3, tack.f32))
    mass = tack.array(Mass)
    acc = tack.zeros(N, dtype=tack.vec(3, tack.f32))
    pairs = float(N) * N

    def run_tack(kernel):
        kernel(pos, mass, acc, EPS2)
        tack.sync()

    t_vec = best_of(lambda: run_tack(nbody_vector), 5)
    A = acc.numpy()
    t_sca = best_of(lambda: run_tack(nbody_scalar), 5)
    np.testing.assert_allclose(acc.numpy(), A, rtol=1e-5, atol=1e-4)
    print(f"N-body all-pairs, {N} bodies, f32, {os.cpu_count()} CPUs "
          f"(tack threads: {os.environ.get('TACK_NUM_THREADS', 'default')})")
    print(f"tack vector  {t_vec * 1e3:9.2f} ms  {pairs / t_vec / 1e9:6.2f} G interactions/s")
    print(f"tack scalar  {t_sca * 1e3:9.2f} ms  ratio vector/scalar code {t_sca / t_vec:5.2f}")
    c = c_reference()
    if c is not None:
        out = np.zeros((N, 3), np.float32)
        t_c = best_of(lambda: c(P.ctypes.data, Mass.ctypes.data, out.ctypes.data, N, EPS2), 5)
        np.testing.assert_allclose(out, A, rtol=1e-3, atol=1e-3)
        print(f"C -O3 -fopenmp {t_c * 1e3:9.2f} ms  ratio C/tack {t_c / t_vec:5.2f}")
        record("bench_nbody.py", "all pairs f32", t_c / t_vec, "C -O3 -fopenmp / tack")
    nb = numba_reference()
    if nb is not None:
        out = np.zeros((N, 3), np.float32)
        t_nb = best_of(lambda: nb(P, Mass, out, np.float32(EPS2)), 5)
        np.testing.assert_allclose(out, A, rtol=1e-3, atol=1e-3)
        print(f"Numba        {t_nb * 1e3:9.2f} ms  ratio numba/tack {t_nb / t_vec:5.2f}")
        record("bench_nbody.py", "all pairs f32", t_nb / t_vec, "numba / tack")
    else:
        print("Numba: not installed (pip install numba)")
    w = warp_reference()
    if w is not None:
        wp, kernel = w
        wpos = wp.array(P, dtype=wp.vec3, device="cpu")
        wmass = wp.array(Mass, dtype=float, device="cpu")
        wacc = wp.zeros(N, dtype=wp.vec3, device="cpu")

        def run_warp():
            wp.launch(kernel, dim=N, inputs=[wpos, wmass, wacc, EPS2], device="cpu")
            wp.synchronize()

        t_wp = best_of(run_warp, repeat=3)
        np.testing.assert_allclose(wacc.numpy(), A, rtol=1e-3, atol=1e-3)
        print(f"Warp (CPU)   {t_wp * 1e3:9.2f} ms  ratio warp/tack {t_wp / t_vec:5.2f}")
        record("bench_nbody.py", "all pairs f32", t_wp / t_vec, "warp (CPU) / tack")
    else:
        print("Warp: not installed (pip install warp-lang)")


if __name__ == "__main__":
    main()
