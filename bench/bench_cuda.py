"""The CUDA device's speed goals (issue 12), each beside its reference in the same run, on the
first CUDA device:

* triad c = a + s*b on 256 Mi f32 against the device's device-to-device copy bandwidth
  (cuMemcpyDtoD through CuPy's memcpy, both counted as bytes moved per second); goal: 85%;
* the host time of a queued launch of a 16-element kernel (goal: under 5 us), beside CuPy's
  launch of an elementwise kernel of the same size.

    PYTHONPATH=build/gpu/python python3 bench/bench_cuda.py

Runs on a GPU machine (tools/check_cuda_gpu.sh); prints one line and exits 0 where there is no
CUDA device."""
import time

import numpy as np

import tack


@tack.kernel
def triad(a, b, c, s):
    for i in range(len(a)):
        c[i] = a[i] + s * b[i]


@tack.kernel
def small(x):
    for i in range(len(x)):
        x[i] = x[i] + 1.0


def best_of(fn, reps):
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main():
    cuda = [d for d in tack.devices() if d.kind == "cuda"]
    if not cuda:
        print("bench_cuda: no CUDA device here; nothing measured")
        return
    d = cuda[0]
    n = 256 * 1024 * 1024
    a = tack.full(n, 1.0, device=d)
    b = tack.full(n, 2.0, device=d)
    c = tack.empty(n, device=d)
    triad(a, b, c, 3.0)
    tack.sync()

    def run_triad():
        triad(a, b, c, 3.0)
        tack.sync()

    t_triad = best_of(run_triad, 10)
    triad_bw = 3 * 4 * n / t_triad
    try:
        import cupy as cp
        src = cp.ones(n, dtype=cp.float32)
        dst = cp.empty_like(src)

        def run_copy():
            cp.cuda.runtime.memcpy(dst.data.ptr, src.data.ptr, 4 * n,
                                   cp.cuda.runtime.memcpyDeviceToDevice)
            cp.cuda.runtime.deviceSynchronize()

        t_copy = best_of(run_copy, 10)
        copy_bw = 2 * 4 * n / t_copy
        print(f"triad 256 Mi f32: {triad_bw / 1e9:.0f} GB/s, cuMemcpyDtoD {copy_bw / 1e9:.0f} GB/s, "
              f"ratio {triad_bw / copy_bw:.2f} (goal 0.85)")
    except ImportError:
        print(f"triad 256 Mi f32: {triad_bw / 1e9:.0f} GB/s (no CuPy: no copy reference)")
    del a, b, c

    x = tack.zeros(16, device=d)
    small(x)
    tack.sync()
    launches = 20000
    t0 = time.perf_counter()
    for _ in range(launches):
        small(x)
    host = (time.perf_counter() - t0) / launches
    tack.sync()
    assert x.numpy()[0] == launches + 1
    line = f"queued launch of a 16-element kernel: {host * 1e6:.2f} us of host time (goal 5 us)"
    try:
        import cupy as cp
        inc = cp.ElementwiseKernel("float32 x", "float32 y", "y = x + 1", "inc")
        y = cp.zeros(16, dtype=cp.float32)
        inc(y, y)
        cp.cuda.runtime.deviceSynchronize()
        t0 = time.perf_counter()
        for _ in range(launches):
            inc(y, y)
        ref = (time.perf_counter() - t0) / launches
        cp.cuda.runtime.deviceSynchronize()
        line += f", CuPy {ref * 1e6:.2f} us, ratio {host / ref:.2f}"
    except ImportError:
        pass
    print(line)


if __name__ == "__main__":
    main()
