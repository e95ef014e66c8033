#!/usr/bin/env bash
# Builds Tack and runs every example in examples/ (C++ and Python) on the default device.
# Installs what it needs first (tools/setup.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash tools/setup.sh
py="$root/.venv/bin/python"
jobs="${TACK_JOBS:-$(nproc)}"
cmake --preset dev -DPython_EXECUTABLE="$py" >/dev/null
cmake --build --preset dev -j "$jobs"

out="$root/build/examples-output"
mkdir -p "$out"
cd "$out"
for exe in "$root"/build/dev/examples/example_*; do
  echo "== $(basename "$exe")"
  "$exe"
done
for script in "$root"/examples/python/*.py; do
  echo "== $(basename "$script")"
  PYTHONPATH="$root/build/dev/python" "$py" "$script"
done
echo "== all examples ran; their output files are in $out"
