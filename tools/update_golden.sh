#!/usr/bin/env bash
# Regenerates the expected outputs of the golden kernel sources (tests/golden/*.py: *.ll, *.cl,
# *.cu) from the current compiler and code generators. Review the diff before
# committing: every change in a golden file is a change in generated code.
# Usage: tools/update_golden.sh [build-dir]   (default: build/dev)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build/dev}"
cmake --build "$build" --target tack_test_golden
TACK_UPDATE_GOLDEN=1 "$build/tests/tack_test_golden" --gtest_filter='Kernels/Golden.*' >/dev/null
echo "updated:"
git -C "$root" status --short -- tests/golden
