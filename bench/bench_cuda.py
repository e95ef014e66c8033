"""The CUDA device's speed goals (issue 12), each beside its reference in the same run, on the
first CUDA device:

* triad c = a + s*b on 256 Mi f32 against the device's device-to-device copy bandwidth
  (cuMemcpyDtoD through CuPy's memcpy, both counted as bytes moved per second); goal: 85%;
* the host time of a queued launch of a 16-element kernel (goal: under 5 us), beside CuPy's
  launch of an elementwise kernel of the same size.

    PYTHONPATH=build/gpu/python python3 bench/bench_cuda.py         # on a GPU
    PYTHONPATH=build/dev/python .venv/bin/python bench/bench_cuda.py --fake

--fake measures Tack's own host time per queued CUDA launch where no GPU is: the stand-in driver
(tests/cuda/fake_driver.cpp with TACKFAKE_NOOP_KERNELS=1) takes each launch and runs nothing, so
what remains is Tack's dispatch, argument packing and driver calls, beside the same launch queued
on OpenCL (PoCL) and run on the CPU in the same process. Without a CUDA device (and without
--fake) it prints one line and exits 0."""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from _util import best_of  # noqa: E402

LAUNCHES = 20000


def host_time_per_launch(kernel, x):
    """Seconds of host time per call of kernel(x), queued calls not waited for."""
    import tack
    kernel(x)
    tack.sync()
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(LAUNCHES):
            kernel(x)
        best = min(best, (time.perf_counter() - t0) / LAUNCHES)
        tack.sync()
    return best


def kernels():
    import tack

    @tack.kernel
    def triad(a, b, c, s):
        for i in range(len(a)):
            c[i] = a[i] + s * b[i]

    @tack.kernel
    def small(x):
        for i in range(len(x)):
            x[i] = x[i] + 1.0

    return triad, small


def fake():
    lib = os.environ.get("TACK_CUDA_LIBRARY") or os.path.join(
        HERE, "..", "build", "dev", "tests", "libtack_fake_cuda.so")
    if not os.path.exists(lib):
        print(f"bench_cuda --fake: no stand-in driver at {lib} (build the dev preset first)")
        return
    os.environ["TACK_CUDA_LIBRARY"] = lib
    os.environ["TACKFAKE_NOOP_KERNELS"] = "1"
    import tack
    _, small = kernels()
    line = []
    for kind in ["cuda", "opencl", "cpu"]:
        ds = [d for d in tack.devices() if d.kind == kind]
        if not ds:
            continue
        t = host_time_per_launch(small, tack.zeros(16, device=ds[0]))
        line.append((kind, t))
    ref = dict(line).get("opencl")
    parts = [f"{k} {t * 1e6:.2f} us" for k, t in line]
    ratio = f", CUDA/OpenCL {dict(line)['cuda'] / ref:.2f}" if ref and "cuda" in dict(line) else ""
    print("host time of a 16-element launch (CUDA: stand-in driver, launches run nothing; "
          "OpenCL queued on PoCL; CPU run): " + ", ".join(parts) + ratio)


def gpu():
    import tack
    triad, small = kernels()
    cuda = [d for d in tack.devices() if d.kind == "cuda"]
    if not cuda:
        print("bench_cuda: no CUDA device here; nothing measured (--fake measures Tack's host "
              "time with the stand-in driver)")
        return
    d = cuda[0]
    n = 256 * 1024 * 1024
    a = tack.full(n, 1.0, device=d)
    b = tack.full(n, 2.0, device=d)
    c = tack.empty(n, device=d)

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
        del src, dst
    except ImportError:
        print(f"triad 256 Mi f32: {triad_bw / 1e9:.0f} GB/s (no CuPy: no copy reference)")
    del a, b, c

    x = tack.zeros(16, device=d)
    host = host_time_per_launch(small, x)
    line = f"queued launch of a 16-element kernel: {host * 1e6:.2f} us of host time (goal 5 us)"
    try:
        import cupy as cp
        inc = cp.ElementwiseKernel("float32 x", "float32 y", "y = x + 1", "inc")
        y = cp.zeros(16, dtype=cp.float32)
        inc(y, y)
        cp.cuda.runtime.deviceSynchronize()
        t0 = time.perf_counter()
        for _ in range(LAUNCHES):
            inc(y, y)
        ref = (time.perf_counter() - t0) / LAUNCHES
        cp.cuda.runtime.deviceSynchronize()
        line += f", CuPy {ref * 1e6:.2f} us, ratio {host / ref:.2f}"
    except ImportError:
        pass
    print(line)


if __name__ == "__main__":
    fake() if "--fake" in sys.argv else gpu()
