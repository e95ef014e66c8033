"""A fresh process's costs (issue 14, item 3), each step timed inside its own new process and
repeated: `import numpy` (the unit), `import tack`, the first kernel compiled in a process with
an empty disk cache, and the same kernel loaded from the disk cache by a second process. Numba's
`@njit(cache=True)` does the same two steps in the same run where it installs. Prints the median
and best of each and the ratios the issue sets goals for.

    PYTHONPATH=build/dev/python .venv/bin/python bench/bench_cold_start.py [repeat]
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

from _util import record

REPEAT = int(sys.argv[1]) if len(sys.argv) > 1 else 9

# Each child prints one JSON object of milliseconds. The kernel is a file's function, as a
# user's is; a seed in its body makes each repetition's kernel new to the cache.
CHILD = r'''
import json, sys, time
T = time.perf_counter
t0 = T()
import numpy
t1 = T()
what = sys.argv[1]
out = {"import numpy": (t1 - t0) * 1e3}
if what == "tack":
    import tack
    t2 = T()
    out["import tack"] = (t2 - t1) * 1e3
    x, y = tack.ones(1000), tack.zeros(1000)

    @tack.kernel
    def saxpy(out, x, a: float):
        for i in range(out.shape[0]):
            out[i] = a * x[i] + SEED

    t3 = T()
    saxpy(y, x, 2.0)
    out["first call"] = (T() - t3) * 1e3
else:
    import numba
    x, y = numpy.ones(1000, numpy.float32), numpy.zeros(1000, numpy.float32)
    t2 = T()

    @numba.njit(cache=True)
    def saxpy(out, x, a):
        for i in range(out.shape[0]):
            out[i] = a * x[i] + SEED

    t3 = T()
    saxpy(y, x, numpy.float32(2.0))
    out["first call"] = (T() - t3) * 1e3
print(json.dumps(out))
'''


def run_child(script, what, env):
    r = subprocess.run([sys.executable, script, what], env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{what} child failed: {r.stderr.strip()[-400:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def steps(what, work):
    """Per repetition: a fresh process on an empty cache, then a second one on its entry."""
    fresh, cached, imports = [], [], []
    for k in range(REPEAT):
        script = os.path.join(work, f"child_{what}_{k}.py")
        with open(script, "w") as f:
            f.write(CHILD.replace("SEED", f"{k + 0.5}"))
        cache = tempfile.mkdtemp(dir=work)
        os.chmod(cache, 0o700)
        env = dict(os.environ, TACK_CACHE_DIR=cache, NUMBA_CACHE_DIR=cache)
        first = run_child(script, what, env)
        second = run_child(script, what, env)
        fresh.append(first["first call"])
        cached.append(second["first call"])
        imports.append(second)
    return fresh, cached, imports


def line(name, values, unit=None):
    med, best = statistics.median(values), min(values)
    ratio = f"  {med / unit:6.2f}x import numpy" if unit else ""
    print(f"{name:34s} median {med:8.2f} ms  best {best:8.2f} ms{ratio}")
    return med


def main():
    work = tempfile.mkdtemp(prefix="tack-cold-")
    print(f"cold start, {REPEAT} fresh processes per step, {os.cpu_count()} CPUs, "
          f"load {os.getloadavg()[0]:.2f}")
    fresh, cached, runs = steps("tack", work)
    numpy_ms = [r["import numpy"] for r in runs]
    unit = line("import numpy", numpy_ms)
    tack_ms = [r["import numpy"] + r["import tack"] for r in runs]
    med_import = line("import tack (numpy included)", tack_ms, unit)
    # Each process's own ratio (its tack import over its numpy import): the goal holds in every
    # run, so the worst process is printed too.
    per_process = [t / n for t, n in zip(tack_ms, numpy_ms)]
    print(f"{'  per process, import tack/numpy':34s} median {statistics.median(per_process):8.2f}x"
          f"     worst {max(per_process):8.2f}x")
    med_fresh = line("tack first call, empty cache", fresh)
    med_cached = line("tack first call, from the cache", cached)
    record("bench_cold_start.py", "import tack / import numpy", med_import / unit, "goal <= 1.5")
    record("bench_cold_start.py", "first compile (ms)", med_fresh, "goal <= 10 ms")
    record("bench_cold_start.py", "cache load (ms)", med_cached, "goal <= 0.5 ms")
    try:
        import numba  # noqa: F401  (only whether it installs)
    except ImportError:
        print("numba is not installed: its steps are skipped")
        return
    n_fresh, n_cached, _ = steps("numba", work)
    n_med_fresh = line("numba first call, empty cache", n_fresh)
    n_med_cached = line("numba first call, from the cache", n_cached)
    print(f"ratios numba / tack: first compile {n_med_fresh / med_fresh:.2f}x, "
          f"cache load {n_med_cached / med_cached:.2f}x (above 1: Tack is faster)")
    record("bench_cold_start.py", "first compile vs numba", n_med_fresh / med_fresh, "numba / tack")
    record("bench_cold_start.py", "cache load vs numba", n_med_cached / med_cached, "numba / tack")


if __name__ == "__main__":
    main()
