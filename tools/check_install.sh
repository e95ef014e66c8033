#!/usr/bin/env bash
# Installs the dev build into build/install and builds and runs tests/install against it with
# find_package(tack), as a C++ user would.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix="$root/build/install"
cmake --install "$root/build/dev" --prefix "$prefix" >/dev/null
cmake -S "$root/tests/install" -B "$root/build/install-consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_RPATH="$prefix/lib" \
  -DTACK_README="$root/README.md" >/dev/null
cmake --build "$root/build/install-consumer" >/dev/null
"$root/build/install-consumer/consumer"
"$root/build/install-consumer/readme_snippet"
echo "install check: find_package(tack) consumer and the README's C++ snippet built and ran"
