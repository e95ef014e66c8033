#!/usr/bin/env bash
# The CUDA device on a real NVIDIA GPU, in two steps (docs/design/cuda.md, "How it is tested"):
#
#   bash tools/check_cuda_gpu.sh pack   # here, where LLVM 19 is: builds libtack with LLVM linked
#                                       # statically (TACK_LLVM_STATIC), writes build/gpu-pack/
#   bash tools/check_cuda_gpu.sh        # on the GPU machine (no LLVM 19; nvcc, CMake, ninja,
#                                       # Python 3.12 with nanobind, CuPy, PyTorch): carry
#                                       # build/gpu-pack there (the device tool's `carry`)
#
# The second step builds the Python binding and the test suites against the carried library
# (TACK_PREBUILT_LIBRARY), then runs, with CUDA as the device: the per-device C++ suites (every
# test instantiated on cuda_0), the CUDA suite, the Python conformance suite (TACK_TEST_DEVICE=
# cuda), the Python per-device tests on cuda:0, the CuPy/PyTorch DLPack exchange, and the
# benchmark (bench/bench_cuda.py). It stays within about 8 minutes on 16 cores and prints one
# summary line per step; results go to $OUT (or build/gpu-results) for docs/devices.md.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
pack="$root/build/gpu-pack"

if [ "${1:-}" = "pack" ]; then
  set -e
  mkdir -p build
  cmake -S . -B build/gpu-lib -G Ninja -DCMAKE_BUILD_TYPE=Release -DTACK_LLVM_STATIC=ON \
    -DTACK_PYTHON=OFF -DTACK_TESTS=OFF -DTACK_EXAMPLES=OFF -DTACK_BENCHMARKS=OFF -DTACK_MPI=OFF \
    > build/gpu-lib.configure.txt
  grep -q "CUDA device built: ON" build/gpu-lib.configure.txt ||
    { echo "CMake found no CUDA toolkit headers: the pack would have no CUDA device"; exit 1; }
  cmake --build build/gpu-lib -j "${TACK_JOBS:-$(nproc)}" --target tack
  rm -rf "$pack" && mkdir -p "$pack"
  lib="$(readlink -f build/gpu-lib/src/libtack.so)"
  strip --strip-unneeded -o "$pack/libtack.so.0" "$lib"
  xz -T0 -6 -f "$pack/libtack.so.0"
  ls -la "$pack"
  echo "== carry build/gpu-pack to the GPU machine and run: bash tools/check_cuda_gpu.sh"
  exit 0
fi

out="${OUT:-$root/build/gpu-results}"
mkdir -p "$out"
log="$out/check_cuda_gpu.log"
start=$(date +%s)
step() { echo "== [$(( $(date +%s) - start )) s] $*"; }
status=0
fail() { echo "FAILED: $*"; status=1; }

main() {
step "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || fail "nvidia-smi"
python3 --version
python3 -c "import nanobind, numpy, pytest" || { echo "needs nanobind, NumPy and pytest"; return 2; }
python3 -c "import cupy; print('CuPy', cupy.__version__)" || echo "no CuPy: its exchange tests will skip"
python3 -c "import torch; print('PyTorch', torch.__version__, torch.cuda.is_available())" ||
  echo "no PyTorch: its exchange tests will skip"

step "unpack the carried libtack"
[ -f "$pack/libtack.so.0.xz" ] || { echo "no $pack/libtack.so.0.xz: run 'tools/check_cuda_gpu.sh pack' first and carry build/gpu-pack"; return 2; }
xz -dkf "$pack/libtack.so.0.xz"
ldd "$pack/libtack.so.0" | grep "not found" && fail "libtack's libraries"

step "build the binding and the suites against it"
py="$(command -v python3)"
export CUDA_PATH="${CUDA_PATH:-/usr/local/cuda}"
export PATH="$CUDA_PATH/bin:$PATH"
cmake -S . -B build/gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DTACK_PREBUILT_LIBRARY="$pack/libtack.so.0" -DPython_EXECUTABLE="$py" \
  -DTACK_EXAMPLES=OFF -DTACK_BENCHMARKS=OFF -DTACK_MPI=OFF >/dev/null || fail "configure"
# -k 0: one failed target (the stubs) must not leave the test binaries unbuilt.
cmake --build build/gpu -j "$(nproc)" -- -k 0 > "$out/build.txt" 2>&1 || fail "build"
grep -E "error|FAILED" "$out/build.txt" | head -40
[ -f build/gpu/tests/tack_test_e2e ] || fail "build"

export TACK_CACHE_DIR=/tmp/tack-gpu-cache LD_LIBRARY_PATH="$pack:${LD_LIBRARY_PATH:-}"
step "devices"
PYTHONPATH=build/gpu/python "$py" -c "import tack; print(tack.devices()); tack.device('cuda:0')" || {
  echo "Tack lists no CUDA device here: nothing below would test CUDA"; return 1; }

step "C++: the CUDA suite and every per-device suite on cuda_0"
for t in build/gpu/tests/tack_test_cuda build/gpu/tests/tack_test_e2e build/gpu/tests/tack_test_unit_memory \
         build/gpu/tests/tack_test_unit_runtime build/gpu/tests/tack_test_error; do
  [ -x "$t" ] || continue
  filter='*/cuda_0:Cuda*'
  [ "$(basename "$t")" = tack_test_cuda ] && filter='*'
  timeout 300 "$t" --gtest_filter="$filter" --gtest_brief=1 > "$out/$(basename "$t").txt" 2>&1 \
    || fail "$(basename "$t")"
  grep -E "^\[  (PASSED|FAILED) |tests? ran" "$out/$(basename "$t").txt" | tail -3
  grep -E "^\[  FAILED  \]" "$out/$(basename "$t").txt" | head -20
done

step "Python: the conformance suite with CUDA as the device"
TACK_TEST_DEVICE=cuda PYTHONPATH=build/gpu/python timeout 400 "$py" -m pytest -q -x -p no:cacheprovider \
  tests/python/kernels > "$out/pytest_kernels.txt" 2>&1 || fail "Python conformance suite on cuda"
tail -5 "$out/pytest_kernels.txt"

step "Python: per-device tests on cuda:0, DLPack with CuPy and PyTorch"
PYTHONPATH=build/gpu/python timeout 300 "$py" -m pytest -q -p no:cacheprovider -k "cuda" \
  tests/python/test_dlpack_devices.py tests/python/test_dlpack_cuda.py tests/python/test_views.py \
  tests/python/test_memory_rows.py tests/python/test_ownership.py tests/python/test_devices_and_errors.py \
  > "$out/pytest_devices.txt" 2>&1 || fail "Python per-device tests on cuda"
tail -5 "$out/pytest_devices.txt"

step "benchmark"
PYTHONPATH=build/gpu/python timeout 120 "$py" bench/bench_cuda.py | tee "$out/bench_cuda.txt" || fail "benchmark"

step "done, status $status"
return $status
}
main 2>&1 | tee "$log"
exit "${PIPESTATUS[0]}"
