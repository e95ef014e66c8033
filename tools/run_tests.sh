#!/usr/bin/env bash
# Runs every test: C++ (GoogleTest via CTest) in the dev build, the Python suite (pytest) against
# that build, the C++ suites again under AddressSanitizer + UndefinedBehaviorSanitizer, and a
# bounded fuzzing run of the parser. Installs what it needs first (tools/setup.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash tools/setup.sh
py="$root/.venv/bin/python"
jobs="${TACK_JOBS:-$(nproc)}"
# Each phase says when it starts (seconds since the start), so a slow phase shows in the log.
phase() { echo "== $1 (at ${SECONDS} s)"; }

phase "dev build: C++ and Python tests"
cmake --preset dev -DPython_EXECUTABLE="$py" >/dev/null
cmake --build --preset dev -j "$jobs"
# Every kernel the C++ and Python suites compile, on any device, is also written out as CUDA C++
# (TACK_CUDA_CHECK) and then compiled by NVRTC and assembled for sm_90 below: the CUDA check that
# needs no GPU (docs/design/cuda.md).
cuda_check="$root/build/dev/cuda-check"
rm -rf "$cuda_check"
export TACK_CUDA_CHECK="$cuda_check"
ctest --preset dev -j "$jobs"
# Every test that takes the `device` fixture (the kernel conformance suite: all of it) runs once
# per device present, OpenCL included where PoCL answers (tests/python/conftest.py).
phase "Python suite"
PYTHONPATH="$root/build/dev/python" "$py" -m pytest -q tests/python
unset TACK_CUDA_CHECK
# The Python per-device array tests once more with CUDA as a device, on the stand-in driver
# (tests/cuda/fake_driver.cpp: device memory kept in host memory, no kernels): the CUDA memory
# layer through the binding, DLPack included.
if [ -f build/dev/tests/libtack_fake_cuda.so ]; then
  # It must list cuda:0, or `-k cuda` would select nothing and pass.
  TACK_CUDA_LIBRARY="$root/build/dev/tests/libtack_fake_cuda.so" PYTHONPATH="$root/build/dev/python" \
    "$py" -c "import tack; tack.device('cuda:0')"
  TACK_CUDA_LIBRARY="$root/build/dev/tests/libtack_fake_cuda.so" PYTHONPATH="$root/build/dev/python" \
    "$py" -m pytest -q -p no:cacheprovider -k cuda tests/python/test_views.py \
    tests/python/test_memory_rows.py tests/python/test_constructors.py tests/python/test_copyto.py \
    tests/python/test_dlpack_devices.py tests/python/test_dlpack.py tests/python/test_ownership.py \
    tests/python/test_element_reads.py tests/python/test_devices_and_errors.py \
    tests/python/test_dtypes.py tests/python/test_numpy_habits.py
fi
if [ -x build/dev/tests/tack_cuda_check ]; then
  phase "CUDA: every kernel of the suites through NVRTC and ptxas -arch=sm_90 (no GPU needed)"
  rc=0
  build/dev/tests/tack_cuda_check "$cuda_check" sm_90 || rc=$?
  if [ "$rc" = 77 ]; then
    echo "(the CUDA check was skipped: no NVRTC or ptxas on this machine)"
  elif [ "$rc" != 0 ]; then
    exit "$rc"
  fi
fi
phase "install check"
bash tools/check_install.sh
phase "floor check: the binding against the oldest nanobind and Python the package allows"
bash tools/check_floor.sh
# The wheel from the dev build's objects linked with LLVM's static libraries (about a minute),
# installed and run where LLVM 19, the headers and the compilers are hidden (unshare -m).
phase "wheel check: a wheel installed and run with no LLVM, headers or compiler"
bash tools/check_wheel.sh

phase "asan-ubsan build: C++ tests under AddressSanitizer and UndefinedBehaviorSanitizer"
cmake --preset asan-ubsan >/dev/null
cmake --build --preset asan-ubsan -j "$jobs"
ctest --preset asan-ubsan -j "$jobs"
# The OpenCL and per-device suites under ASan + UBSan + LeakSanitizer, with use_tls=0: PoCL
# leaves a stale dynamic-TLS block behind that LeakSanitizer's scan of thread-local roots
# crashes on ("Tracer caught signal 11"; docs/design/opencl.md, "Sanitizer runs"). Without TLS
# roots LeakSanitizer reports more, never less; tests/lsan.supp names the glibc allocations
# that only TLS reaches.
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  LSAN_OPTIONS="suppressions=$root/tests/lsan.supp:print_suppressions=0:use_tls=0" \
  ctest --test-dir build/asan-ubsan -j "$jobs" --output-on-failure -R "OpenCl|Devices/"

if [ -x tools/fuzz_parser.sh ] || [ -f tools/fuzz_parser.sh ]; then
  phase "parser fuzzing (bounded)"
  bash tools/fuzz_parser.sh "${TACK_FUZZ_SECONDS:-60}"
fi
phase "all tests passed"
