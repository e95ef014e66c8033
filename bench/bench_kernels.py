"""Kernel benchmarks from Python (issue 3): warm dispatch of a 16-element kernel against a NumPy
ufunc call on the same 16 elements (budget: at most 3x), and the STREAM triad, a sum, a 2-D
5-point stencil and an atomic histogram against NumPy and, where it installs, Numba with
parallel=True -- all in the same run. Prints times and ratios (reference / tack)."""
import os
import time

import numpy as np

import tack
from _util import record

try:
    import numba
except ImportError:  # Numba is optional: tools/run_benchmarks.sh installs it where it can
    numba = None


def best_of(fn, repeat=7, number=1):
    fn()  # warm: compile, first touch
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def report(name, t_tack, refs):
    unit, scale = ("us", 1e6) if t_tack < 1e-3 else ("ms", 1e3)
    parts = [f"{name:<28} tack {t_tack * scale:9.2f} {unit}"]
    for ref_name, t in refs:
        parts.append(f"{ref_name} {t * scale:9.2f} {unit} (ratio {t / t_tack:5.2f})")
        record("bench_kernels.py", name.strip(), t / t_tack, f"{ref_name} / tack")
    print("  ".join(parts))


@tack.kernel
def add_one(x, y):
    for i in range(x.shape[0]):
        y[i] = x[i] + 1.0


ADD_ONE = 1.0  # a module constant (docs/language.md, "Constants"): re-read at every call


@tack.kernel
def add_constant(x, y):
    for i in range(x.shape[0]):
        y[i] = x[i] + ADD_ONE


@tack.kernel
def random_fill(u, key):
    # Every word of each Philox block: four f32 per iteration (NumPy's generator also uses all
    # the bits of its blocks).
    for k in range(u.shape[0] // 4):
        state = tack.random.seed(key, k)
        i = 4 * k
        state, (u[i], u[i + 1], u[i + 2], u[i + 3]) = tack.random.uniform4(state)


@tack.kernel
def triad(a, b, c, s):
    for i in range(a.shape[0]):
        c[i] = a[i] + s * b[i]


@tack.kernel
def partial_sums(x, partial, chunk):
    for c in range(partial.shape[0]):
        s = 0.0
        start = c * chunk
        stop = min(start + chunk, x.shape[0])
        for i in range(start, stop):
            s += x[i]
        partial[c] = s


@tack.kernel
def stencil(u, v):
    for i, j in tack.ndrange((1, u.shape[0] - 1), (1, u.shape[1] - 1)):
        v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])


@tack.kernel
def histogram(values, bins):
    for i in range(values.shape[0]):
        tack.atomic_add(bins, values[i], 1)


def numba_kernels():
    if numba is None:
        return None
    from numba import njit, prange

    @njit(parallel=True)
    def nb_triad(a, b, c, s):
        for i in prange(a.shape[0]):
            c[i] = a[i] + s * b[i]

    @njit(parallel=True)
    def nb_sum(x):
        s = 0.0
        for i in prange(x.shape[0]):
            s += x[i]
        return s

    @njit(parallel=True)
    def nb_stencil(u, v):
        for i in prange(1, u.shape[0] - 1):
            for j in range(1, u.shape[1] - 1):
                v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])

    @njit
    def nb_histogram(values, bins):  # Numba has no CPU atomics: serial
        for i in range(values.shape[0]):
            bins[values[i]] += 1

    return nb_triad, nb_sum, nb_stencil, nb_histogram


def main():
    nb = numba_kernels()

    x16, y16 = tack.ones(16), tack.zeros(16)
    nx16, ny16 = np.ones(16, np.float32), np.zeros(16, np.float32)
    report("launch 16 elements", best_of(lambda: add_one(x16, y16), number=20000),
           [("np.add(x, 1.0, out=y)", best_of(lambda: np.add(nx16, 1.0, out=ny16), number=20000))])
    report("launch, one global constant", best_of(lambda: add_constant(x16, y16), number=20000),
           [("np.add(x, 1.0, out=y)", best_of(lambda: np.add(nx16, 1.0, out=ny16), number=20000)),
            ("the same kernel, literal", best_of(lambda: add_one(x16, y16), number=20000))])

    n = 64 << 20
    a, b, c = tack.full(n, 1.0), tack.full(n, 2.0), tack.zeros(n)
    na, nb_, nc = np.full(n, 1.0, np.float32), np.full(n, 2.0, np.float32), np.zeros(n, np.float32)
    refs = [("numpy", best_of(lambda: np.add(na, np.multiply(nb_, 3.0, out=nc), out=nc)))]
    if nb:
        refs.append(("numba", best_of(lambda: nb[0](na, nb_, nc, np.float32(3.0)))))
    report("triad 64 Mi f32", best_of(lambda: triad(a, b, c, 3.0)), refs)

    gen = np.random.Generator(np.random.Philox(7))
    refs = [("numpy Generator(Philox).random(out=)",
             best_of(lambda: gen.random(out=nc, dtype=np.float32)))]
    t = best_of(lambda: random_fill(c, 7))
    report("tack.random.uniform 64 Mi f32", t, refs)
    threads = int(os.environ.get("TACK_NUM_THREADS", os.cpu_count() or 1))
    print(f"{'':28} tack {n * 4 / t / 1e9:.2f} GB/s on {threads} thread(s) "
          f"({n * 4 / t / 1e9 / threads:.2f} per core); numpy {n * 4 / refs[0][1] / 1e9:.2f} GB/s "
          "on one core")

    chunk = 1 << 16
    partial = tack.zeros((n + chunk - 1) // chunk)

    def tack_sum():
        partial_sums(a, partial, chunk)
        return partial.numpy().sum(dtype=np.float64)

    refs = [("numpy", best_of(lambda: na.sum()))]
    if nb:
        refs.append(("numba", best_of(lambda: nb[1](na))))
    report("sum 64 Mi f32", best_of(tack_sum), refs)

    side = 4096
    u, v = tack.full((side, side), 1.0), tack.zeros((side, side))
    nu, nv = np.ones((side, side), np.float32), np.zeros((side, side), np.float32)

    def np_stencil():
        nv[1:-1, 1:-1] = 0.25 * (nu[:-2, 1:-1] + nu[2:, 1:-1] + nu[1:-1, :-2] + nu[1:-1, 2:])

    refs = [("numpy", best_of(np_stencil))]
    if nb:
        refs.append(("numba", best_of(lambda: nb[2](nu, nv))))
    report("stencil 4096x4096 f32", best_of(lambda: stencil(u, v)), refs)

    rng = np.random.default_rng(7)
    nvalues = rng.integers(0, 256, size=n // 4, dtype=np.int32)
    values, bins = tack.array(nvalues), tack.zeros(256, dtype=tack.i32)

    def tack_hist():
        bins.fill(0)
        histogram(values, bins)

    nbins = np.zeros(256, np.int32)
    refs = [("np.bincount", best_of(lambda: np.bincount(nvalues, minlength=256)))]
    if nb:
        refs.append(("numba (serial)", best_of(lambda: nb[3](nvalues, nbins))))
    report("histogram 16 Mi atomics", best_of(tack_hist), refs)
    print("ratio = reference time / tack time; above 1 means Tack is faster")


if __name__ == "__main__":
    main()
