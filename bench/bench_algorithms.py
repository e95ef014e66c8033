"""tack.algorithms (issue 11): the deterministic sum, min, max and dot of 64 Mi f32 against NumPy
and vectorized C reductions (`#pragma omp parallel for simd reduction`, -O3 -march=native, built
here with the system compiler), and the inclusive scan of 64 Mi f32 and i32 against np.cumsum and
a two-pass parallel C scan (chunk totals, then each chunk rescanned from its offset), all in one
run; then the sort of 16 Mi u32 and f32 keys against np.sort and a parallel C++ sort (std::sort
per thread's chunk, then std::inplace_merge pairwise, OpenMP), argsort against np.argsort, and
unique and histogram of 16 Mi values against NumPy's. Prints times, GB/s and ratios
(reference / tack; above 1 means Tack is faster).

    PYTHONPATH=build/dev/python .venv/bin/python bench/bench_algorithms.py [n] [--device opencl]

With --device, Tack's arrays live on that device (PoCL: the OpenCL table beside the CPU's); each
timed call ends with tack.sync(), so queued launches are counted.
"""
import ctypes
import os
import sys
import time

import numpy as np

import tack
from _util import best_of, build_reference, record

_argv = sys.argv[1:]
DEVICE = tack.device("cpu")
if "--device" in _argv:
    k = _argv.index("--device")
    DEVICE = tack.device(_argv[k + 1])
    del _argv[k:k + 2]
N = int(_argv[0]) if _argv else 64 * 2**20


def on(x):
    return tack.array(x, device=DEVICE)


def synced(fn):
    def run():
        fn()
        tack.sync()
    return run

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
float vmin(const float* x, long n) {
  float m = INFINITY;
  #pragma omp parallel for simd reduction(min:m)
  for (long i = 0; i < n; ++i) m = x[i] < m ? x[i] : m;
  return m;
}
float dot(const float* x, const float* y, long n) {
  float s = 0.0f;
  #pragma omp parallel for simd reduction(+:s)
  for (long i = 0; i < n; ++i) s += x[i] * y[i];
  return s;
}
#include <omp.h>
#include <stdlib.h>
#define SCAN(NAME, T, ACC)                                                   \
  void NAME(const T* x, ACC* out, long n) {                                 \
    int p = omp_get_max_threads();                                          \
    ACC* totals = calloc(p + 1, sizeof(ACC));                               \
    _Pragma("omp parallel")                                                 \
    {                                                                       \
      int t = omp_get_thread_num(), nt = omp_get_num_threads();             \
      long lo = n * t / nt, hi = n * (t + 1) / nt;                          \
      ACC s = 0;                                                            \
      _Pragma("omp simd reduction(+:s)")                                    \
      for (long i = lo; i < hi; ++i) s += x[i];                             \
      totals[t + 1] = s;                                                    \
      _Pragma("omp barrier")                                                \
      ACC off = 0;                                                          \
      for (int k = 0; k <= t; ++k) off += totals[k];                        \
      for (long i = lo; i < hi; ++i) { off += x[i]; out[i] = off; }         \
    }                                                                       \
    free(totals);                                                           \
  }
SCAN(scan_f32, float, float)
SCAN(scan_i32, int, long)
"""


CXX_SOURCE = r"""
#include <algorithm>
#include <cstdint>
#include <omp.h>
template <class T>
static void par_sort(T* x, long n) {
  int p = 1;
  while (p * 2 <= omp_get_max_threads()) p *= 2;
  #pragma omp parallel for num_threads(p)
  for (int t = 0; t < p; ++t) std::sort(x + n * t / p, x + n * (t + 1) / p);
  for (int w = 1; w < p; w *= 2) {
    #pragma omp parallel for num_threads(p / (2 * w))
    for (int t = 0; t < p; t += 2 * w)
      std::inplace_merge(x + n * t / p, x + n * (t + w) / p, x + n * (t + 2 * w) / p);
  }
}
extern "C" void sort_u32(uint32_t* x, long n) { par_sort(x, n); }
extern "C" void sort_f32(float* x, long n) { par_sort(x, n); }
"""


def cxx_reference():
    so = build_reference(CXX_SOURCE, "C++ sort reference", cxx=True)
    if so is None:
        return None
    for f in (so.sort_u32, so.sort_f32):
        f.argtypes = [ctypes.c_void_p, ctypes.c_long]
        f.restype = None
    return so


def sorts():
    n = N // 4
    cxx = cxx_reference()
    g = np.random.default_rng(3)
    print(f"sorts of {n} elements, {os.cpu_count()} CPUs, Tack on {DEVICE.name}")
    for name, x, c_fn in [("u32", g.integers(0, 2**32, n, dtype=np.uint32),
                           cxx.sort_u32 if cxx else None),
                          ("f32", g.standard_normal(n).astype(np.float32),
                           cxx.sort_f32 if cxx else None)]:
        a = on(x)
        work = x.copy()

        def c_sort():
            np.copyto(work, x)  # the C++ sort is in place: each run sorts fresh data
            c_fn(work.ctypes.data, n)

        t_copy = best_of(lambda: np.copyto(work, x))
        t = best_of(synced(lambda: tack.sort(a)), 3)
        t_np = best_of(lambda: np.sort(x), 3)
        line = f"sort {name}     tack {t * 1e3:8.2f} ms  numpy {t_np * 1e3:8.2f} ms (ratio {t_np / t:5.2f})"
        if c_fn:
            t_c = best_of(c_sort, 3) - t_copy
            line += f"  C++ parallel sort {t_c * 1e3:8.2f} ms (ratio {t_c / t:5.2f})"
            record("bench_algorithms.py", f"sort {name}", t_c / t, "C++ parallel sort / tack")
        print(line)
        record("bench_algorithms.py", f"sort {name}", t_np / t, "numpy / tack")
        t = best_of(synced(lambda: tack.argsort(a)), 3)
        t_np = best_of(lambda: np.argsort(x), 3)
        print(f"argsort {name}  tack {t * 1e3:8.2f} ms  numpy {t_np * 1e3:8.2f} ms (ratio "
              f"{t_np / t:5.2f})")
        record("bench_algorithms.py", f"argsort {name}", t_np / t, "numpy / tack")
    v = g.integers(0, 1000, n).astype(np.int32)
    b = on(v)
    t = best_of(synced(lambda: tack.unique(b)), 3)
    t_np = best_of(lambda: np.unique(v), 3)
    print(f"unique i32    tack {t * 1e3:8.2f} ms  numpy {t_np * 1e3:8.2f} ms (ratio {t_np / t:5.2f})")
    record("bench_algorithms.py", "unique i32", t_np / t, "numpy / tack")
    h = g.standard_normal(n).astype(np.float32)
    c = on(h)
    t = best_of(synced(lambda: tack.histogram(c, 100)), 3)
    t_np = best_of(lambda: np.histogram(h, 100), 3)
    print(f"histogram f32 tack {t * 1e3:8.2f} ms  numpy {t_np * 1e3:8.2f} ms (ratio {t_np / t:5.2f})")
    record("bench_algorithms.py", "histogram f32", t_np / t, "numpy / tack")


def c_reference():
    so = build_reference(C_SOURCE, "C reference")
    if so is None:
        return None
    for f in (so.sum, so.vmax, so.vmin):
        f.argtypes = [ctypes.c_void_p, ctypes.c_long]
        f.restype = ctypes.c_float
    so.dot.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long]
    so.dot.restype = ctypes.c_float
    for f in (so.scan_f32, so.scan_i32):
        f.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long]
        f.restype = None
    return so


def row(name, gb, t_fn, np_fn, c_fn, c_name):
    t = best_of(synced(t_fn))
    line = f"{name:<12} tack {t * 1e3:8.2f} ms {gb / t:6.2f} GB/s"
    t_np = best_of(np_fn)
    line += f"  numpy {t_np * 1e3:8.2f} ms (ratio {t_np / t:5.2f})"
    record("bench_algorithms.py", name, t_np / t, "numpy / tack")
    if c_fn:
        t_c = best_of(c_fn)
        line += f"  {c_name} {t_c * 1e3:8.2f} ms (ratio {t_c / t:5.2f})"
        record("bench_algorithms.py", name, t_c / t, f"{c_name} / tack")
    print(line)


def main():
    x = np.random.default_rng(0).random(N, dtype=np.float32)
    y = np.random.default_rng(1).random(N, dtype=np.float32)
    xi = np.random.default_rng(2).integers(-100, 100, N, dtype=np.int32)
    a, b, ai = on(x), on(y), on(xi)
    gb = x.nbytes / 1e9
    c = c_reference()
    print(f"reductions and scans of {N} elements ({x.nbytes >> 20} MiB), {os.cpu_count()} CPUs, "
          f"Tack on {DEVICE.name}")
    row("sum", gb, lambda: tack.sum(a), lambda: x.sum(),
        (lambda: c.sum(x.ctypes.data, N)) if c else None, "C omp simd")
    row("max", gb, lambda: tack.max(a), lambda: x.max(),
        (lambda: c.vmax(x.ctypes.data, N)) if c else None, "C omp simd")
    row("min", gb, lambda: tack.min(a), lambda: x.min(),
        (lambda: c.vmin(x.ctypes.data, N)) if c else None, "C omp simd")
    row("dot", 2 * gb, lambda: tack.dot(a, b), lambda: np.dot(x, y),
        (lambda: c.dot(x.ctypes.data, y.ctypes.data, N)) if c else None, "C omp simd")
    # Scans write their output: GB/s counts the input read and the output written. The C scan
    # and Tack's out= write into one reused output; np.cumsum and tack.cumsum allocate theirs.
    out_f = tack.empty(N, dtype=tack.f32, device=DEVICE)
    out_i = tack.empty(N, dtype=tack.i64, device=DEVICE)
    c_out_f = np.empty(N, np.float32)
    c_out_i = np.empty(N, np.int64)
    row("scan f32 out", 2 * gb, lambda: tack.inclusive_scan(a, out=out_f), lambda: np.cumsum(x),
        (lambda: c.scan_f32(x.ctypes.data, c_out_f.ctypes.data, N)) if c else None,
        "C 2-pass")
    row("cumsum f32", 2 * gb, lambda: tack.cumsum(a), lambda: np.cumsum(x), None, "")
    row("scan i32 out", 3 * gb, lambda: tack.inclusive_scan(ai, out=out_i), lambda: np.cumsum(xi),
        (lambda: c.scan_i32(xi.ctypes.data, c_out_i.ctypes.data, N)) if c else None,
        "C 2-pass")
    ocl = [d for d in tack.devices() if d.kind == "opencl"]
    if ocl and DEVICE.kind == "cpu":
        o = tack.array(x, device=ocl[0])
        t = best_of(lambda: tack.sum(o))
        same = tack.sum(o).tobytes() == tack.sum(a).tobytes()
        print(f"sum on {ocl[0].name}: {t * 1e3:8.2f} ms {gb / t:6.2f} GB/s; the same bits as the "
              f"CPU: {same}")
        out_o = tack.empty(N, dtype=tack.f32, device=ocl[0])
        t = best_of(lambda: (tack.inclusive_scan(o, out=out_o), tack.sync()))
        print(f"scan on {ocl[0].name}: {t * 1e3:8.2f} ms {2 * gb / t:6.2f} GB/s")


if __name__ == "__main__":
    main()
    sorts()
