"""In-loop reductions (docs/design/kernel_values.md): a kernel that folds `s += x[i]` and
returns s, against tack.sum (the library's vectorized reduction), np.sum, and the pattern users
wrote before, tack.atomic_add into a one-element array; also `lo = min(lo, x[i])` against
tack.min, and an integer fold, `n += x[i] > v` (a count), against np.count_nonzero. 16 Mi f32
by default. Prints times and ratios (reference / kernel; above 1 means the
in-loop reduction is faster).

    PYTHONPATH=build/dev/python .venv/bin/python bench/bench_kernel_values.py [n]
"""
import sys

import numpy as np

import tack
from _util import best_of, record

N = int(sys.argv[1]) if len(sys.argv) > 1 else 16 * 2**20


@tack.kernel
def folded_sum(x):
    s = 0.0
    for i in range(len(x)):
        s += x[i]
    return s


@tack.kernel
def folded_min(x):
    lo = 3.0e38
    for i in range(len(x)):
        lo = min(lo, x[i])
    return lo


@tack.kernel
def folded_count(x, v):
    n = 0
    for i in range(len(x)):
        n += x[i] > v
    return n


@tack.kernel
def atomic_sum(x, out):
    for i in range(len(x)):
        tack.atomic_add(out, 0, x[i])


def main():
    x_np = np.random.default_rng(0).standard_normal(N).astype(np.float32)
    x = tack.array(x_np)
    out = tack.zeros(1)
    folded_sum(x), folded_min(x), folded_count(x, 0.5), atomic_sum(x, out)
    tack.finish_compiles()
    t_fold = best_of(lambda: folded_sum(x))
    t_sum = best_of(lambda: tack.sum(x))
    t_np = best_of(lambda: x_np.sum())
    t_atomic = best_of(lambda: atomic_sum(x, out), repeat=3)
    t_fmin = best_of(lambda: folded_min(x))
    t_min = best_of(lambda: tack.min(x))
    t_count = best_of(lambda: folded_count(x, 0.5))
    t_np_count = best_of(lambda: np.count_nonzero(x_np > 0.5))
    gb = N * 4 / 1e9
    print(f"n = {N} f32, {tack.num_threads() if hasattr(tack, 'num_threads') else '?'} threads")
    for name, t in [("kernel s += x[i]", t_fold), ("tack.sum", t_sum), ("np.sum", t_np),
                    ("kernel atomic_add", t_atomic), ("kernel lo = min(lo, x[i])", t_fmin),
                    ("tack.min", t_min), ("kernel n += x[i] > v", t_count),
                    ("np.count_nonzero(x > v)", t_np_count)]:
        print(f"  {name:28s} {t * 1e3:8.2f} ms  {gb / t:6.1f} GB/s")
    print(f"  tack.sum / kernel sum      {t_sum / t_fold:6.2f}")
    print(f"  np.sum / kernel sum        {t_np / t_fold:6.2f}")
    print(f"  atomic_add / kernel sum    {t_atomic / t_fold:6.2f}")
    print(f"  tack.min / kernel min      {t_min / t_fmin:6.2f}")
    print(f"  numpy count / kernel count {t_np_count / t_count:6.2f}")
    record("bench_kernel_values.py", "in-loop sum", t_sum / t_fold, "tack.sum / kernel")
    record("bench_kernel_values.py", "in-loop sum", t_atomic / t_fold, "atomic_add / kernel")
    record("bench_kernel_values.py", "in-loop min", t_min / t_fmin, "tack.min / kernel")
    record("bench_kernel_values.py", "in-loop count", t_np_count / t_count,
           "np.count_nonzero / kernel")


if __name__ == "__main__":
    main()
