#!/usr/bin/env bash
# Installs the dev build into build/install and builds and runs tests/install against it with
# find_package(tack), as a C++ user would.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix="$root/build/install"
# Every page that shows C++: the README and docs/*.md.
pages="$(grep -l '^```cpp' "$root/README.md" "$root"/docs/*.md | paste -sd';')"
cmake --install "$root/build/dev" --prefix "$prefix" >/dev/null
cmake -S "$root/tests/install" -B "$root/build/install-consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_RPATH="$prefix/lib" \
  -DTACK_DOC_PAGES="$pages" >/dev/null
if ! cmake --build "$root/build/install-consumer" >"$root/build/install-consumer/build.log" 2>&1; then
  cat "$root/build/install-consumer/build.log"
  exit 1
fi
"$root/build/install-consumer/consumer"
for page in ${pages//;/ }; do
  "$root/build/install-consumer/snippets_$(basename "$page" .md)"
done
shown="${pages//$root\//}"
echo "install check: find_package(tack) consumer and the C++ snippets of ${shown//;/, } built and ran"
