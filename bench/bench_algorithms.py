"""tack.algorithms (issue 11): the deterministic sum, min and max of 64 Mi f32 against NumPy and
a vectorized C reduction (`#pragma omp parallel for simd reduction`, -O3 -march=native, built
here with the system compiler), all in one run. Prints times, GB/s and ratios (reference / tack).

    PYTHONPATH=build/release/python .venv/bin/python bench/bench_algorithms.py [n]
"""
import ctypes
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

import tack

N = int(sys.argv[1]) if len(sys.argv) > 1 else 64 * 2**20

C_SOURCE = r"""
#include <math.h>
float sum(const float* x, long n) {
  float s = 0.0f;
  #pragma omp parallel for simd reduction(+:s)
  for (long i = 0; i < n; ++i) s += x[i];
  return s;
}
float vmax(const float* x, long n) {
  float m = -INFINITY;
  #pragma omp parallel for simd reduction(max:m)
  for (long i = 0; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}
"""


def c_reference():
    d = tempfile.mkdtemp(prefix="tack-reduce-")
    src, lib = os.path.join(d, "reduce.c"), os.path.join(d, "reduce.so")
    with open(src, "w") as f:
        f.write(C_SOURCE)
    try:
        subprocess.run([os.environ.get("CC", "cc"), "-O3", "-march=native", "-fopenmp", "-fPIC",
                        "-shared", src, "-o", lib], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"C reference skipped: {e}")
        return None
    so = ctypes.CDLL(lib)
    for f in (so.sum, so.vmax):
        f.argtypes = [ctypes.c_void_p, ctypes.c_long]
        f.restype = ctypes.c_float
    return so


def best_of(fn, repeat=7):
    fn()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main():
    x = np.random.default_rng(0).random(N, dtype=np.float32)
    a = tack.array(x)
    gb = x.nbytes / 1e9
    c = c_reference()
    print(f"reductions of {N} f32 ({x.nbytes >> 20} MiB), {os.cpu_count()} CPUs")
    for name, t_fn, np_fn, c_fn in [
        ("sum", lambda: tack.sum(a), lambda: x.sum(),
         (lambda: c.sum(x.ctypes.data, N)) if c else None),
        ("max", lambda: tack.max(a), lambda: x.max(),
         (lambda: c.vmax(x.ctypes.data, N)) if c else None),
        ("min", lambda: tack.min(a), lambda: x.min(), None),
    ]:
        t = best_of(t_fn)
        line = f"{name:<4} tack {t * 1e3:8.2f} ms {gb / t:6.2f} GB/s"
        t_np = best_of(np_fn)
        line += f"  numpy {t_np * 1e3:8.2f} ms (ratio {t_np / t:5.2f})"
        if c_fn:
            t_c = best_of(c_fn)
            line += f"  C omp simd {t_c * 1e3:8.2f} ms (ratio {t_c / t:5.2f})"
        print(line)
    ocl = [d for d in tack.devices() if d.kind == "opencl"]
    if ocl:
        b = tack.array(x, device=ocl[0])
        t = best_of(lambda: tack.sum(b))
        same = tack.sum(b).tobytes() == tack.sum(a).tobytes()
        print(f"sum on {ocl[0].name}: {t * 1e3:8.2f} ms {gb / t:6.2f} GB/s; the same bits as the "
              f"CPU: {same}")


if __name__ == "__main__":
    main()
