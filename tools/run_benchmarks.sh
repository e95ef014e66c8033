#!/usr/bin/env bash
# Builds the release preset and runs every benchmark in bench/ (C++ and Python), each with its
# reference in the same run. Installs Numba and Warp into .venv where they install, for the comparisons.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash tools/setup.sh
py="$root/.venv/bin/python"
"$py" -m pip install -q numba || echo "numba does not install here; its comparisons are skipped"
"$py" -m pip install -q warp-lang || echo "warp-lang does not install here; its comparisons are skipped"
cmake --preset release -DPython_EXECUTABLE="$py" >/dev/null
cmake --build --preset release -j "${TACK_JOBS:-$(nproc)}"
export TACK_CACHE_DIR="${TACK_CACHE_DIR:-$root/build/bench-cache}"
for exe in build/release/bench/bench_*; do
  echo "== $(basename "$exe")"
  "$exe" --benchmark_min_time=0.5
done
for script in bench/*.py; do
  echo "== $(basename "$script")"
  PYTHONPATH="$root/build/release/python" "$py" "$script"
done
