#!/usr/bin/env bash
# Builds the libFuzzer target over the front end with clang in build/fuzz and runs it for a
# bounded time over the seed corpus in tests/fuzz/corpus. Usage: tools/fuzz_parser.sh [seconds]
# (default 60). New inputs go to build/fuzz/corpus; a crash leaves its input in build/fuzz/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build/fuzz"
seconds="${1:-60}"

CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTACK_FUZZ=ON -DTACK_PYTHON=OFF -DTACK_EXAMPLES=OFF -DTACK_TESTS=ON -DTACK_SANITIZE=OFF
cmake --build "$build" --target tack_fuzz_parser
mkdir -p "$build/corpus"
exec "$build/tests/fuzz/tack_fuzz_parser" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
  -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/" \
  -dict="$root/tests/fuzz/parser.dict" "$build/corpus" "$root/tests/fuzz/corpus"
