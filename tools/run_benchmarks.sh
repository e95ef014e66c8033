#!/usr/bin/env bash
# Builds the release preset and runs every benchmark in bench/ (C++ and Python) and the peers'
# comparison (bench/peers/run.py), each with its reference in the same run, then writes the
# run's figures as a dated table into docs/performance.md (bench/write_table.py). Installs
# Numba, Warp, Taichi and Dr.Jit into .venv where they install, for the comparisons.
#   TACK_BENCH_TABLE=0   run and print only; docs/performance.md is left as it is
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash tools/setup.sh
py="$root/.venv/bin/python"
for peer in numba warp-lang taichi drjit; do
  "$py" -m pip install -q "$peer" || echo "$peer does not install here; its comparisons are skipped"
done
cmake --preset release -DPython_EXECUTABLE="$py" >/dev/null
cmake --build --preset release -j "${TACK_JOBS:-$(nproc)}"
export TACK_CACHE_DIR="${TACK_CACHE_DIR:-$root/build/bench-cache}"
record="$root/build/bench-record.jsonl"
: > "$record"
export TACK_BENCH_RECORD="$record"
load_before="$(cut -d' ' -f1 /proc/loadavg)"
for exe in build/release/bench/bench_*; do
  echo "== $(basename "$exe")"
  "$exe" --benchmark_min_time=0.5
done
for script in bench/bench_*.py bench/peers/run.py; do
  echo "== ${script#bench/}"
  PYTHONPATH="$root/build/release/python" "$py" "$script"
done
if [[ "${TACK_BENCH_TABLE:-1}" != 0 ]]; then
  "$py" bench/write_table.py "$record" "$load_before"
fi
