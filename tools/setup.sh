#!/usr/bin/env bash
# Installs what Tack needs on a fresh Debian 12 machine, idempotently: Debian packages (only the
# missing ones), a project-local Python environment in .venv, and a configured build.
# Usage: tools/setup.sh [preset]   (sourced by run_tests.sh and run_examples.sh)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

debian_packages=(
  cmake ninja-build g++ pkg-config python3-venv python3-dev
  llvm-19-dev libzstd-dev zlib1g-dev libnuma-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  pocl-opencl-icd ocl-icd-opencl-dev opencl-headers
  clang libclang-rt-14-dev
  libopenmpi-dev openmpi-bin
)
missing=()
for p in "${debian_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "tack setup: installing Debian packages: ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi

venv="$root/.venv"
requirements="$root/tools/requirements-dev.txt"
stamp="$venv/.tack-requirements"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
if ! cmp -s "$requirements" "$stamp" 2>/dev/null; then
  "$venv/bin/python" -m pip install -q --upgrade pip
  "$venv/bin/python" -m pip install -q -r "$requirements"
  cp "$requirements" "$stamp"
fi
