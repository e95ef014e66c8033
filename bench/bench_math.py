"""Vectorized math (issue 14): out[i] = sin(x[i]) * exp(-x[i] * x[i]) over 16 Mi f32 (and f64),
Tack on the CPU against the scalar C loop (-O3 -march=native -fopenmp, glibc's scalar sinf and
expf, built here with the system compiler) on the same threads and NumPy's ufuncs, in one run.
Tack's loop calls glibc's vector functions (libmvec) where they load; TACK_VECTOR_MATH=0 gives
the scalar figure. Prints times and ratios (reference / tack; above 1 means Tack is faster).

    PYTHONPATH=build/dev/python .venv/bin/python bench/bench_math.py [n]
"""
import ctypes
import os
import sys

import numpy as np

import tack
from _util import best_of, build_reference, record

N = int(sys.argv[1]) if len(sys.argv) > 1 else 16 * 2**20

C_SOURCE = r"""
#include <math.h>
void sinexp_f32(const float* x, float* out, long n) {
  #pragma omp parallel for
  for (long i = 0; i < n; ++i) out[i] = sinf(x[i]) * expf(-x[i] * x[i]);
}
void sinexp_f64(const double* x, double* out, long n) {
  #pragma omp parallel for
  for (long i = 0; i < n; ++i) out[i] = sin(x[i]) * exp(-x[i] * x[i]);
}
"""


@tack.kernel
def sinexp(x, out):
    for i in range(len(x)):
        out[i] = tack.sin(x[i]) * tack.exp(-x[i] * x[i])


def c_library():
    so = build_reference(C_SOURCE, "C reference", libs=["-lm"])
    if so is not None:
        for f in (so.sinexp_f32, so.sinexp_f64):
            f.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long]
    return so


def main():
    so = c_library()
    vector = os.environ.get("TACK_VECTOR_MATH", "1") != "0"
    print(f"sin(x) * exp(-x*x), {N} elements, {os.cpu_count()} CPUs, vector math "
          f"{'on' if vector else 'off (TACK_VECTOR_MATH=0)'}")
    g = np.random.default_rng(0)
    for dt, c_fn in ((np.float32, so.sinexp_f32 if so else None),
                     (np.float64, so.sinexp_f64 if so else None)):
        x = g.uniform(-4, 4, N).astype(dt)
        out = np.empty_like(x)
        a, o = tack.array(x), tack.empty(N, dtype=tack.f32 if dt == np.float32 else tack.f64)
        t = best_of(lambda: sinexp(a, o))
        t_np = best_of(lambda: np.sin(x) * np.exp(-x * x), 3)
        line = (f"{np.dtype(dt).name:8s} tack {t * 1e3:8.2f} ms  numpy {t_np * 1e3:8.2f} ms "
                f"(ratio {t_np / t:5.2f})")
        if c_fn:
            t_c = best_of(lambda: c_fn(x.ctypes.data, out.ctypes.data, N))
            line += f"  scalar C loop {t_c * 1e3:8.2f} ms (ratio {t_c / t:5.2f})"
            record("bench_math.py", f"sin-exp {np.dtype(dt).name}", t_c / t, "scalar C loop / tack")
        print(line)
        record("bench_math.py", f"sin-exp {np.dtype(dt).name}", t_np / t, "numpy / tack")


if __name__ == "__main__":
    main()
