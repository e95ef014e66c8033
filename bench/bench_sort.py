"""tack.sort against NumPy's np.sort over sizes (issue 33, item 4): 32-bit keys (u32, f32) and
64-bit keys (i64, f64) from 2^8 to 2^26 elements, uniform random keys, 2 threads for Tack,
NumPy's own (single-threaded) sort. Up to 2^13 elements a flat sort runs on the host
(docs/design/algorithms.md, "Small sorts run on the host"), above it as kernels: the table
shows where each path stands and where the crossover is. Goal: >= 2x np.sort for 32-bit keys
and >= 1.5x for 64-bit from 2^16 to 2^26.

    PYTHONPATH=build/dev/python .venv/bin/python bench/bench_sort.py [max_log2]
"""
import os
import sys

import numpy as np

import tack
from _util import best_of, record

MAX_LOG2 = int(sys.argv[1]) if len(sys.argv) > 1 else 26
DTYPES = [np.uint32, np.float32, np.int64, np.float64]


def keys(n, dtype, g):
    if np.issubdtype(dtype, np.floating):
        return (g.standard_normal(n) * 1e6).astype(dtype)
    info = np.iinfo(dtype)
    return g.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


def main():
    g = np.random.default_rng(11)
    print(f"tack.sort / np.sort, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}; "
          "ratio = numpy time / tack time (above 1: Tack is faster)")
    print(f"{'n':>6s}" + "".join(f"{np.dtype(d).name:>22s}" for d in DTYPES))
    for p in range(8, MAX_LOG2 + 1, 2):
        n = 1 << p
        repeat = 3 if p >= 22 else 7
        cells = []
        for dtype in DTYPES:
            x = keys(n, dtype, g)
            a = tack.array(x)
            t = best_of(lambda: tack.sort(a), repeat)
            t_np = best_of(lambda: np.sort(x), repeat)
            cells.append(f"{t * 1e3:9.3f} ms {t_np / t:6.2f}x")
            record("bench_sort.py", f"sort 2^{p} {np.dtype(dtype).name}", t_np / t,
                   "np.sort / tack.sort")
            del a
        path = "host" if n <= (1 << 13) else "kernels"
        print(f"  2^{p:<3d}" + "".join(f"{c:>22s}" for c in cells) + f"   ({path})")


if __name__ == "__main__":
    main()
