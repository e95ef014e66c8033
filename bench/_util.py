"""What the Python benchmarks share: the best time of several runs, and C or C++ references
built here with the system compiler (-O3 -march=native -fopenmp) and loaded with ctypes.
Not a benchmark itself (tools/run_benchmarks.sh runs it and it prints nothing)."""
import ctypes
import os
import subprocess
import tempfile
import time


def best_of(fn, repeat=7):
    """The shortest of `repeat` timed runs of fn(), after one untimed run."""
    fn()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def build_reference(source, what, cxx=False, libs=()):
    """`source` compiled into a shared library and loaded, or None (with a line saying why) where
    the compiler is missing or fails. `what` names it in that line."""
    d = tempfile.mkdtemp(prefix="tack-bench-")
    src = os.path.join(d, "ref.cpp" if cxx else "ref.c")
    lib = os.path.join(d, "ref.so")
    with open(src, "w") as f:
        f.write(source)
    compiler = os.environ.get("CXX", "c++") if cxx else os.environ.get("CC", "cc")
    try:
        subprocess.run([compiler, "-O3", "-march=native", "-fopenmp", "-fPIC", "-shared", src,
                        "-o", lib, *libs], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"{what} skipped: {e}")
        return None
    return ctypes.CDLL(lib)
