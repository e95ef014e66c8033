#!/usr/bin/env bash
# For a machine with an NVIDIA GPU but no LLVM 19: builds the OpenCL runtime and C-printer
# tests (no LLVM needed) with g++ and runs them on NVIDIA's OpenCL platform only.
set -u
mkdir -p /tmp/o && cd "$(dirname "$0")/.."
srcs="src/support/*.cpp src/memory/*.cpp src/runtime/*.cpp src/runtime/cpu/*.cpp src/runtime/opencl/*.cpp src/ir/*.cpp src/analysis/*.cpp src/codegen/kernel_abi.cpp src/codegen/c_style/*.cpp src/codegen/opencl/*.cpp tests/e2e/opencl_codegen_test.cpp tests/unit/runtime/opencl_test.cpp"
ls $srcs | xargs -P 16 -I{} sh -c 'g++ -std=c++20 -O1 -fopenmp -Iinclude -Isrc -Itests -DTACK_VERSION=\"0.1.0\" -DTACK_LLVM_VERSION=\"19\" -DTACK_HAVE_NUMA=1 -DTACK_SOURCE_DIR=\"$PWD\" -DTACK_TEST_DATA_DIR=\"$PWD/tests\" -c {} -o /tmp/o/$(echo {} | tr / _).o' 2>&1 | grep -E "error" | head -20
g++ -fopenmp /tmp/o/*.o -o /tmp/ocl_tests -lgtest -lgtest_main -lnuma -ldl -lpthread 2>&1 | grep -E "undefined reference" | sed 's/.*undefined reference to//' | sort -u | head -20
echo "libnvidia-opencl.so.1" > /tmp/nv.icd
# Debian's ICD loader honours OCL_ICD_VENDORS (NVIDIA's own loader lists every platform).
export TACK_OPENCL_LIBRARY=/lib/x86_64-linux-gnu/libOpenCL.so.1 OCL_ICD_VENDORS=/tmp/nv.icd TACK_CACHE_DIR=/tmp/tack-gpu-cache
echo "== on NVIDIA's OpenCL only"
timeout 300 /tmp/ocl_tests 2>&1 | grep -E "^\[  (PASSED|FAILED|SKIPPED) |OK \]|FAILED \]|Failure|skipped|error" | head -80
