"""Array benchmarks from Python (issue 2): view creation and element reads (ns per call, with
NumPy's own as a reference), and copyto from NumPy / numpy() of 256 MiB against a memcpy
(np.copyto between two NumPy arrays) in the same run. Prints ratios: reference / tack."""
import sys
import time

import numpy as np

import tack
from _util import record


def best_of(fn, repeat, number):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def row(name, t_tack, t_ref, nbytes=None):
    ratio = t_ref / t_tack
    record("bench_arrays.py", name.strip(), ratio, "reference / tack")
    extra = ""
    if nbytes:
        extra = f"  tack {nbytes / t_tack / 1e9:6.1f} GB/s  reference {nbytes / t_ref / 1e9:6.1f} GB/s"
    unit, scale = ("ns", 1e9) if t_tack < 1e-5 else ("ms", 1e3)
    print(f"{name:<34} tack {t_tack * scale:10.1f} {unit}  reference {t_ref * scale:10.1f} {unit}"
          f"  ratio {ratio:5.2f}{extra}")


def main():
    small = tack.zeros((1024, 16))
    small_np = np.zeros((1024, 16), dtype=np.float32)
    row("view a[100:200]", best_of(lambda: small[100:200], 5, 20000),
        best_of(lambda: small_np[100:200], 5, 20000))
    row("element read a[7, 3]", best_of(lambda: small[7, 3], 5, 20000),
        best_of(lambda: small_np[7, 3], 5, 20000))

    n = (256 << 20) // 4
    src = np.full(n, 2.0, dtype=np.float32)
    dst = np.empty_like(src)
    big = tack.empty(n)
    t_in = best_of(lambda: tack.copyto(big, src), 5, 1)
    t_memcpy = best_of(lambda: np.copyto(dst, src), 5, 1)
    row("copyto 256 MiB from NumPy", t_in, t_memcpy, n * 4)
    t_out = best_of(lambda: big.numpy(), 5, 1)
    t_copy = best_of(lambda: src.copy(), 5, 1)
    row("numpy() 256 MiB", t_out, t_copy, n * 4)
    print("ratio = reference / tack; above 1 means Tack is faster", file=sys.stderr)


if __name__ == "__main__":
    main()
