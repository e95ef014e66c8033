#!/usr/bin/env bash
# The floors of the Python package (issue 34): the binding's sources compile against the oldest
# nanobind pyproject.toml allows, with the oldest Python it allows where that interpreter is on
# the machine (else this one). Only the binding is compiled (libtack is the dev build's concern):
# a throwaway virtual environment in build/floor-venv, a configure in build/floor.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
nanobind="$(sed -n 's/.*"nanobind>=\([0-9][0-9.]*\)".*/\1/p' "$root/pyproject.toml" | head -1)"
python="$(sed -n 's/^requires-python = ">=\([0-9][0-9.]*\)".*/\1/p' "$root/pyproject.toml")"
if [ -z "$nanobind" ] || [ -z "$python" ]; then
  echo "check_floor: pyproject.toml names no nanobind or Python floor" >&2
  exit 1
fi
# That Python on PATH or under pyenv, else the dev interpreter.
source "$root/tools/find_python.sh"
interpreter="$(find_python "$python")"
[ -n "$interpreter" ] || interpreter="$root/.venv/bin/python"
venv="$root/build/floor-venv"
rm -rf "$venv" "$root/build/floor"
"$interpreter" -m venv "$venv"
"$venv/bin/python" -m pip install -q "nanobind==$nanobind"
cmake -S "$root" -B "$root/build/floor" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DPython_EXECUTABLE="$venv/bin/python" -DTACK_TESTS=OFF -DTACK_BENCHMARKS=OFF \
  -DTACK_EXAMPLES=OFF -DTACK_FUZZ=OFF >/dev/null
objects="$(ninja -C "$root/build/floor" -t targets all |
  grep -o '^python/CMakeFiles/_tack.dir/src/[a-z_]*\.cpp\.o' | sort -u)"
if [ -z "$objects" ]; then
  echo "check_floor: found none of the binding's objects to build" >&2
  exit 1
fi
# shellcheck disable=SC2086
ninja -C "$root/build/floor" -j "${TACK_JOBS:-$(nproc)}" $objects >/dev/null
echo "floor check: the binding compiles with nanobind $nanobind and" \
  "Python $("$venv/bin/python" -c 'import platform; print(platform.python_version())')"
