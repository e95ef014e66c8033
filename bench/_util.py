"""What the Python benchmarks share: the best time of several runs, C or C++ references
built here with the system compiler (-O3 -march=native -fopenmp) and loaded with ctypes, and the
record of a run's figures for the dated table (bench/write_table.py). Not a benchmark itself
(tools/run_benchmarks.sh runs it and it prints nothing)."""
import ctypes
import json
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


def record(bench, case, value, meaning):
    """Keeps one figure of this run for the dated table in docs/performance.md: appended as a
    JSON line to the file TACK_BENCH_RECORD names (tools/run_benchmarks.sh sets it); nothing
    when it is unset. `meaning` says what the value is ("numpy / tack", "ms", ...)."""
    path = os.environ.get("TACK_BENCH_RECORD")
    if not path:
        return
    with open(path, "a") as f:
        f.write(json.dumps({"bench": bench, "case": case, "value": value,
                            "meaning": meaning}) + "\n")
