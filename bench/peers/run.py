"""Tack beside its peers (issue 14): each peer's version of the same kernels (bench/peers/peer.py)
in a process of its own -- Tack, Numba, Warp, Taichi, Dr.Jit, those that install -- each timing
the same C loop (bench/peers/kernels.c, -O3 -march=native -fopenmp, built once here) in its own
process, and one table of ratios: reference time / peer time (above 1: faster than the C loop;
for the dispatch row, NumPy's 16-element ufunc call is the reference). Ratios, not times, are
compared across processes: this machine's speed moves between runs.

    PYTHONPATH=build/dev/python .venv/bin/python bench/peers/run.py [peer ...]
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from _util import build_reference, record  # noqa: E402

PEERS = ["tack", "numba", "warp", "taichi", "drjit"]
KERNELS = ["triad", "sinexp", "stencil", "dispatch"]


def run_peer(name, so_path):
    r = subprocess.run([sys.executable, os.path.join(HERE, "peer.py"), name, so_path],
                       capture_output=True, text=True)
    rows = {}
    for line in r.stdout.splitlines():
        if line.startswith("{"):
            row = json.loads(line)
            rows[row["kernel"]] = row
    if r.returncode != 0 or not rows:
        reason = (r.stderr.strip().splitlines() or ["no output"])[-1]
        print(f"{name}: skipped ({reason[:160]})")
    return rows


def main():
    peers = sys.argv[1:] or PEERS
    with open(os.path.join(HERE, "kernels.c")) as f:
        so = build_reference(f.read(), "C reference", libs=["-lm"])
    if so is None:
        sys.exit("the C reference does not build here: no ratios to print")
    print(f"peers on {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}; "
          "ratio = reference / peer (above 1: faster than the reference)")
    results = {name: run_peer(name, so._name) for name in peers}
    ran = [p for p in peers if results[p]]
    print(f"{'kernel':10s}" + "".join(f"{p:>10s}" for p in ran) + "   reference")
    for k in KERNELS:
        cells, ref = [], ""
        for p in ran:
            row = results[p].get(k)
            if row is None:
                cells.append(f"{'-':>10s}")
                continue
            ratio = row["reference_s"] / row["peer_s"]
            ref = row["reference"]
            cells.append(f"{ratio:10.2f}")
            record("peers/run.py", f"{k} {p}", ratio, f"{ref} / {p}")
        print(f"{k:10s}" + "".join(cells) + f"   {ref}")
    for p in ran:
        t = results[p].get("dispatch")
        if t:
            print(f"  {p} warm dispatch {t['peer_s'] * 1e6:.2f} us")


if __name__ == "__main__":
    main()
