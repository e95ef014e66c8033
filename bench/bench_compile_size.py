"""Compile time against kernel size (docs/design/robustness.md, "Huge kernels").

A kernel whose body is N straight-line statements, compiled on the CPU with the disk cache off.
The reference in the same run is the front end alone (parse, check, lower and type: inspect's
"ir" mode), which is linear; the ratios say how much the whole compile costs per line relative
to the smallest size (1.0 means linear growth) and relative to the front end.

    PYTHONPATH=build/release/python python bench/bench_compile_size.py [max_lines]
"""
import os
import sys
import time

os.environ["TACK_CACHE_DIR"] = ""  # every size compiles

import tack  # noqa: E402


def source(n, tag):
    body = "".join("        t = t * 1.0001 + x[i] * %d.0\n" % (j % 7) for j in range(n))
    return ("def big_%s(x, out):\n    for i in range(x.shape[0]):\n        t = 0.0\n" % tag
            + body + "        out[i] = t\n")


def main():
    top = int(sys.argv[1]) if len(sys.argv) > 1 else 40000
    sizes = [n for n in (2500, 5000, 10000, 20000, 40000, 100000) if n <= top]
    x, out = tack.ones(16), tack.zeros(16)
    tack.kernel_from_source(source(8, "warm"), "big_warm")(x, out)  # the JIT itself
    print(f"{'lines':>7} {'compile s':>10} {'front end s':>12} {'per-line vs first':>18} "
          f"{'compile / front end':>20}")
    first = None
    for n in sizes:
        src = source(n, str(n))
        t0 = time.perf_counter()
        tack.inspect(tack.kernel_from_source(src, "big_%d" % n), x, out, mode="ir")
        front = time.perf_counter() - t0
        k = tack.kernel_from_source(src, "big_%d" % n)
        t0 = time.perf_counter()
        k(x, out)
        total = time.perf_counter() - t0
        per_line = total / n
        first = first or per_line
        print(f"{n:>7} {total:>10.2f} {front:>12.2f} {per_line / first:>18.2f} "
              f"{total / front:>20.2f}")


if __name__ == "__main__":
    main()
