#!/usr/bin/env bash
# Builds Tack and runs every example in examples/ (C++ and Python) on every device present.
# Installs what it needs first (tools/setup.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash tools/setup.sh
py="$root/.venv/bin/python"
jobs="${TACK_JOBS:-$(nproc)}"
cmake --preset dev -DPython_EXECUTABLE="$py" >/dev/null
cmake --build --preset dev -j "$jobs"

# Every example runs once per device present, with that device as the default (TACK_DEVICE);
# its output files go to build/examples-output/<device>/.
devices="$(PYTHONPATH="$root/build/dev/python" "$py" -c "import tack; print(' '.join(d.name for d in tack.devices()))")"
for dev in $devices; do
  out="$root/build/examples-output/${dev//:/_}"
  mkdir -p "$out"
  cd "$out"
  for exe in "$root"/build/dev/examples/example_*; do
    echo "== $(basename "$exe") on $dev"
    TACK_DEVICE="$dev" "$exe"
  done
  for script in "$root"/examples/python/*.py; do
    echo "== $(basename "$script") on $dev"
    TACK_DEVICE="$dev" PYTHONPATH="$root/build/dev/python" "$py" "$script"
  done
done
echo "== all examples ran on every device ($devices); their output files are in $root/build/examples-output"
