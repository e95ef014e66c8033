"""One peer's version of the peers' kernels, run in a process of its own by bench/peers/run.py:
the STREAM triad, sin(x)*exp(-x*x), a 5-point stencil and the warm dispatch of a 16-element
kernel, each timed (best of several runs after a warm-up) beside the same C loop (built once by
run.py and loaded here with ctypes) and, for the dispatch, NumPy's ufunc call on 16 elements.
Prints one JSON line per kernel: {"kernel", "peer_s", "reference_s", "reference"}.

    python bench/peers/peer.py tack|numba|warp|taichi|drjit REFERENCE_SO
"""
import ctypes
import json
import os
import sys
import time

import numpy as np

N = 1 << 25  # triad: 3 x 128 MiB
N_MATH = 1 << 24
SIDE = 4096  # stencil: 64 MiB in, 64 MiB out


def best(fn, sync, repeat=7, number=1):
    fn()
    sync()
    t_best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        sync()
        t_best = min(t_best, (time.perf_counter() - t0) / number)
    return t_best


def data():
    g = np.random.default_rng(0)
    return {
        "b": g.random(N, dtype=np.float32), "c": g.random(N, dtype=np.float32),
        "x": g.uniform(-4, 4, N_MATH).astype(np.float32),
        "u": g.random((SIDE, SIDE), dtype=np.float32),
        "x16": np.ones(16, np.float32),
    }


def tack_kernels(d):
    import tack

    @tack.kernel
    def triad(a, b, c, s: float):
        for i in range(a.shape[0]):
            a[i] = b[i] + s * c[i]

    @tack.kernel
    def sinexp(x, out):
        for i in range(x.shape[0]):
            out[i] = tack.sin(x[i]) * tack.exp(-x[i] * x[i])

    @tack.kernel
    def stencil(u, v):
        for i, j in tack.ndrange((1, u.shape[0] - 1), (1, u.shape[1] - 1)):
            v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])

    @tack.kernel
    def add_one(x, y):
        for i in range(x.shape[0]):
            y[i] = x[i] + 1.0

    b, c, a = tack.array(d["b"]), tack.array(d["c"]), tack.empty(N, dtype="float32")
    x, out = tack.array(d["x"]), tack.empty(N_MATH, dtype="float32")
    u, v = tack.array(d["u"]), tack.zeros((SIDE, SIDE), dtype="float32")
    x16, y16 = tack.array(d["x16"]), tack.empty(16, dtype="float32")
    return {
        "triad": lambda: triad(a, b, c, 3.0),
        "sinexp": lambda: sinexp(x, out),
        "stencil": lambda: stencil(u, v),
        "dispatch": lambda: add_one(x16, y16),
    }, tack.sync


def numba_kernels(d):
    import numba

    @numba.njit(parallel=True)
    def triad(a, b, c, s):
        for i in numba.prange(a.shape[0]):
            a[i] = b[i] + s * c[i]

    @numba.njit(parallel=True)
    def sinexp(x, out):
        for i in numba.prange(x.shape[0]):
            out[i] = np.sin(x[i]) * np.exp(-x[i] * x[i])

    @numba.njit(parallel=True)
    def stencil(u, v):
        for i in numba.prange(1, u.shape[0] - 1):
            for j in range(1, u.shape[1] - 1):
                v[i, j] = np.float32(0.25) * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])

    @numba.njit
    def add_one(x, y):
        for i in range(x.shape[0]):
            y[i] = x[i] + np.float32(1.0)

    a, out, v, y16 = (np.empty(N, np.float32), np.empty(N_MATH, np.float32),
                      np.zeros((SIDE, SIDE), np.float32), np.empty(16, np.float32))
    s = np.float32(3.0)
    return {
        "triad": lambda: triad(a, d["b"], d["c"], s),
        "sinexp": lambda: sinexp(d["x"], out),
        "stencil": lambda: stencil(d["u"], v),
        "dispatch": lambda: add_one(d["x16"], y16),
    }, lambda: None


def warp_kernels(d):
    import warp as wp
    wp.config.quiet = True
    wp.init()

    @wp.kernel
    def triad(a: wp.array(dtype=float), b: wp.array(dtype=float), c: wp.array(dtype=float),
              s: float):
        i = wp.tid()
        a[i] = b[i] + s * c[i]

    @wp.kernel
    def sinexp(x: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        out[i] = wp.sin(x[i]) * wp.exp(-x[i] * x[i])

    @wp.kernel
    def stencil(u: wp.array2d(dtype=float), v: wp.array2d(dtype=float)):
        i, j = wp.tid()
        v[i + 1, j + 1] = 0.25 * (u[i, j + 1] + u[i + 2, j + 1] + u[i + 1, j] + u[i + 1, j + 2])

    @wp.kernel
    def add_one(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = x[i] + 1.0

    dev = "cpu"
    b, c = wp.array(d["b"], device=dev), wp.array(d["c"], device=dev)
    a = wp.empty(N, dtype=float, device=dev)
    x, out = wp.array(d["x"], device=dev), wp.empty(N_MATH, dtype=float, device=dev)
    u, v = wp.array(d["u"], device=dev), wp.zeros((SIDE, SIDE), dtype=float, device=dev)
    x16, y16 = wp.array(d["x16"], device=dev), wp.empty(16, dtype=float, device=dev)
    return {
        "triad": lambda: wp.launch(triad, dim=N, inputs=[a, b, c, 3.0], device=dev),
        "sinexp": lambda: wp.launch(sinexp, dim=N_MATH, inputs=[x, out], device=dev),
        "stencil": lambda: wp.launch(stencil, dim=(SIDE - 2, SIDE - 2), inputs=[u, v], device=dev),
        "dispatch": lambda: wp.launch(add_one, dim=16, inputs=[x16, y16], device=dev),
    }, wp.synchronize


def taichi_kernels(d):
    import taichi as ti
    ti.init(arch=ti.cpu, log_level=ti.ERROR)

    @ti.kernel
    def triad(a: ti.types.ndarray(), b: ti.types.ndarray(), c: ti.types.ndarray(), s: ti.f32):
        for i in range(a.shape[0]):
            a[i] = b[i] + s * c[i]

    @ti.kernel
    def sinexp(x: ti.types.ndarray(), out: ti.types.ndarray()):
        for i in range(x.shape[0]):
            out[i] = ti.sin(x[i]) * ti.exp(-x[i] * x[i])

    @ti.kernel
    def stencil(u: ti.types.ndarray(), v: ti.types.ndarray()):
        for i, j in ti.ndrange((1, u.shape[0] - 1), (1, u.shape[1] - 1)):
            v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])

    @ti.kernel
    def add_one(x: ti.types.ndarray(), y: ti.types.ndarray()):
        for i in range(x.shape[0]):
            y[i] = x[i] + 1.0

    def nd(values):
        arr = ti.ndarray(ti.f32, shape=values.shape)
        arr.from_numpy(values)
        return arr

    b, c, a = nd(d["b"]), nd(d["c"]), ti.ndarray(ti.f32, shape=N)
    x, out = nd(d["x"]), ti.ndarray(ti.f32, shape=N_MATH)
    u, v = nd(d["u"]), ti.ndarray(ti.f32, shape=(SIDE, SIDE))
    x16, y16 = nd(d["x16"]), ti.ndarray(ti.f32, shape=16)
    return {
        "triad": lambda: triad(a, b, c, 3.0),
        "sinexp": lambda: sinexp(x, out),
        "stencil": lambda: stencil(u, v),
        "dispatch": lambda: add_one(x16, y16),
    }, ti.sync


def drjit_kernels(d):
    import drjit as dr
    from drjit.llvm import Float, UInt32

    b, c, x = Float(d["b"]), Float(d["c"]), Float(d["x"])
    u = Float(d["u"].ravel())
    x16 = Float(d["x16"])
    # The stencil as gathers over the interior's flat indices (Dr.Jit is array-programming:
    # a kernel is the traced expression).
    i, j = np.meshgrid(np.arange(1, SIDE - 1), np.arange(1, SIDE - 1), indexing="ij")
    centre = UInt32((i * SIDE + j).ravel().astype(np.uint32))

    def triad():
        dr.eval(b + 3.0 * c)

    def sinexp():
        dr.eval(dr.sin(x) * dr.exp(-x * x))

    def stencil():
        g = lambda k: dr.gather(Float, u, k)  # noqa: E731
        dr.eval(0.25 * (g(centre - SIDE) + g(centre + SIDE) + g(centre - 1) + g(centre + 1)))

    def add_one():
        dr.eval(x16 + 1.0)

    return {"triad": triad, "sinexp": sinexp, "stencil": stencil, "dispatch": add_one}, \
        dr.sync_thread


PEERS = {"tack": tack_kernels, "numba": numba_kernels, "warp": warp_kernels,
         "taichi": taichi_kernels, "drjit": drjit_kernels}


def main():
    name, so_path = sys.argv[1], sys.argv[2]
    so = ctypes.CDLL(so_path)
    vp, lg = ctypes.c_void_p, ctypes.c_long
    so.triad.argtypes = [vp, vp, vp, ctypes.c_float, lg]
    so.sinexp.argtypes = [vp, vp, lg]
    so.stencil.argtypes = [vp, vp, lg, lg]
    so.add_one.argtypes = [vp, vp, lg]
    d = data()
    kernels, sync = PEERS[name](d)
    a, out, v, y16 = (np.empty(N, np.float32), np.empty(N_MATH, np.float32),
                      np.zeros((SIDE, SIDE), np.float32), np.empty(16, np.float32))
    refs = {
        "triad": lambda: so.triad(a.ctypes.data, d["b"].ctypes.data, d["c"].ctypes.data, 3.0, N),
        "sinexp": lambda: so.sinexp(d["x"].ctypes.data, out.ctypes.data, N_MATH),
        "stencil": lambda: so.stencil(d["u"].ctypes.data, v.ctypes.data, SIDE, SIDE),
        "dispatch": lambda: np.add(d["x16"], 1.0, out=y16),
    }
    for kernel, fn in kernels.items():
        number = 2000 if kernel == "dispatch" else 1
        t_peer = best(fn, sync, number=number)
        t_ref = best(refs[kernel], lambda: None, number=number)
        print(json.dumps({"kernel": kernel, "peer_s": t_peer, "reference_s": t_ref,
                          "reference": "numpy ufunc, 16 elements" if kernel == "dispatch"
                          else "C -O3 -fopenmp"}), flush=True)


if __name__ == "__main__":
    os.environ.setdefault("OMP_PROC_BIND", "false")
    main()
