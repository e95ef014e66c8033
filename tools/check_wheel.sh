#!/usr/bin/env bash
# The wheel installs and runs where there is no LLVM, no C/C++ headers and no compiler
# (issue 34; docs/design/wheel.md, "How it is tested"):
#
#   tools/check_wheel.sh [WHEEL [PYTHON]]
#
# Without WHEEL it makes one for .venv's Python with tools/build_wheel.sh from the dev build's
# portable libtack (its objects linked with LLVM's static libraries: a link, not a second build).
# PYTHON: the interpreter WHEEL is for (default .venv's); build_wheel.sh must have made its
# build environment (for auditwheel).
# Then:
#  * every ELF file in the wheel needs only glibc, libstdc++/libgcc_s, zlib, libtack and what the
#    wheel bundles in tack.libs/ (never libLLVM); `auditwheel show` finds a manylinux tag for it
#    of glibc 2.35 or older and no library it would still have to bundle; at most 40 MB;
#  * in a mount namespace (unshare -m; -rm, a user namespace, when not root) where LLVM 19 and
#    14 (/usr/lib/llvm-19, /usr/lib/llvm-14, and their libLLVM files), every header (/usr/include,
#    the interpreter's) and the CUDA toolkit are hidden and GCC's compilers proper (cc1, cc1plus)
#    are /dev/null, so no compiler, header or LLVM 19 is left (PoCL keeps its own LLVM 15 and
#    GCC's libgcc, which it links kernels with), a new virtual environment installs the wheel
#    with pip, binaries only (it fetches NumPy, as a user's would); `ldd` resolves every
#    library of the installed package without libLLVM; tack compiles and runs a kernel on the CPU
#    and on every OpenCL device (PoCL), tack.sum, tack.sort and the README's Python snippet agree
#    with NumPy; `python -m tack --check` passes; with CUDA, no NVRTC is found until the
#    toolkit's (staged before it was hidden) is put where pip's nvidia-cuda-nvrtc puts it, which
#    then compiles a kernel to PTX.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$root/build/wheel-check"
py="$root/.venv/bin/python"
fail() { echo "check_wheel: $*" >&2; exit 1; }

if [ "${1:-}" = "--inside" ]; then
  # In the namespace: hide LLVM, headers and compilers, then install and run.
  wheel="$2"
  py="$3"
  # Every LLVM but the one the OpenCL driver links (PoCL 3 runs LLVM 15 in the process and links
  # each kernel with GCC's libgcc: it is the device's compiler, not Tack's), so also Debian's
  # clang (LLVM 14's); every header; the CUDA toolkit; and GCC's compilers proper (cc1, cc1plus:
  # gcc and g++ cannot compile without them), leaving GCC's libraries that PoCL links with.
  pocl_llvm="$(ldd /usr/lib/x86_64-linux-gnu/libpocl.so.2 2>/dev/null |
    sed -n 's/.*libLLVM-\([0-9]*\)\.so.*/\1/p' | head -1 || true)"
  python_headers="$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')"
  for d in /usr/lib/llvm-* /usr/include /usr/local/cuda* "$python_headers"; do
    if [ -d "$d" ] && [ "$d" != "/usr/lib/llvm-$pocl_llvm" ]; then
      mount -t tmpfs -o size=64k,mode=0755 tmpfs "$d"
    fi
  done
  # The shared libLLVMs themselves (the folders above hold links to them), but PoCL's.
  for f in /usr/lib/x86_64-linux-gnu/libLLVM*.so.*; do
    if [ -f "$f" ] && [ ! -L "$f" ] && [[ "$f" != *"libLLVM-$pocl_llvm.so"* ]]; then
      mount --bind /dev/null "$f"
    fi
  done
  for f in /usr/lib/gcc/*/*/cc1*; do
    if [ -f "$f" ]; then mount --bind /dev/null "$f"; fi
  done
  for f in /usr/include/stdio.h "$python_headers/Python.h"; do
    [ ! -e "$f" ] || fail "$f is still visible in the namespace"
  done
  ! "$py" -c 'import ctypes; ctypes.CDLL("libLLVM.so.19.1")' 2>/dev/null ||
    fail "the loader still finds libLLVM.so.19.1 in the namespace"
  ! echo 'int main(void) { return 0; }' | cc -x c - -o "$work/a.out" 2>/dev/null ||
    fail "cc still compiles in the namespace"
  ! echo 'int main() { return 0; }' | clang -x c++ - -o "$work/a.out" 2>/dev/null ||
    fail "clang still compiles in the namespace"
  venv="$work/venv"
  "$py" -m venv "$venv"
  # Binaries only: pip may not build anything (and could not: no compiler, no headers).
  "$venv/bin/python" -m pip install -q --only-binary :all: "$wheel"
  package="$("$venv/bin/python" -c 'import os, tack; print(os.path.dirname(tack.__file__))')"
  [[ "$package" == "$venv"/* ]] || fail "tack imported from $package, not from the new environment"
  while IFS= read -r elf; do
    resolved="$(ldd "$elf")"
    if grep -q 'not found' <<<"$resolved"; then fail "ldd $elf: $(grep 'not found' <<<"$resolved")"; fi
    if grep -qi 'libLLVM' <<<"$resolved"; then fail "ldd $elf names libLLVM"; fi
  done < <(find "$package" "$package/../tack.libs" -name '*.so*' -type f 2>/dev/null)
  unset TACK_NVRTC_LIBRARY TACK_CUDA_LIBRARY  # the search itself is checked below
  # NVRTC from pip (nvidia-cuda-nvrtc's layout), staged from the toolkit before it was hidden:
  # first none is found, then the one in the environment's site-packages is (its builtins
  # library found beside it: pip's has no RUNPATH, and the toolkit's folder is hidden).
  if [ -d "$work/nvrtc" ] && "$venv/bin/python" -c 'import sys; from tack import _tack; sys.exit(not _tack._about()["cuda"])'; then
    "$venv/bin/python" -c 'from tack import _tack; v = _tack._nvrtc(); assert not v["version"], v' ||
      fail "an NVRTC is found with the CUDA toolkit hidden (or the search failed): see above"
    site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')"
    major="$(cat "$work/nvrtc/major")"
    case "$major" in
      13) folder="$site/nvidia/cu13/lib" ;;  # nvidia-cuda-nvrtc 13
      12) folder="$site/nvidia/cuda_nvrtc/lib" ;;  # nvidia-cuda-nvrtc-cu12
      *) fail "no pip layout known for libnvrtc.so.$major" ;;
    esac
    mkdir -p "$folder" && mv "$work"/nvrtc/libnvrtc* "$folder/"
    export CHECK_PIP_NVRTC="$site/nvidia/"
  fi
  mkdir -p "$work/run" && cd "$work/run"
  export TACK_CACHE_DIR="$work/cache"  # a fresh cache: every kernel below is compiled here
  rm -rf "$TACK_CACHE_DIR"
  unset PYTHONPATH TACK_CUDA_CHECK
  # A file, as a user's kernels are (tack reads a kernel's source through inspect).
  cat >"$work/run/smoke.py" <<'EOF'
import numpy as np
import tack
from tack import _tack

about = _tack._about()
assert about["llvm_static"], "the wheel's libtack does not have LLVM linked in"

@tack.kernel
def axpy(a, x, out):
    for i in range(x.shape[0]):
        out[i] = a * x[i] + 1.0

x_host = np.linspace(-3.0, 3.0, 1001, dtype=np.float32)
devices = [tack.device("cpu")] + [d for d in tack.devices() if d.kind == "opencl"]
for device in devices:
    x = tack.array(x_host, device=device)
    out = tack.zeros(x_host.shape, device=device)
    axpy(np.float32(2.5), x, out)
    np.testing.assert_allclose(out.numpy(), 2.5 * x_host + 1.0, rtol=1e-6)
    total = float(tack.sum(x))
    assert abs(total - float(x_host.sum(dtype=np.float64))) < 1e-3, (device, total)
    keys = np.random.default_rng(7).integers(-10**6, 10**6, 5000).astype(np.int32)
    ordered = tack.sort(tack.array(keys, device=device))
    assert np.array_equal(ordered.numpy(), np.sort(keys)), device
    print(f"  {device}: a kernel, tack.sum and tack.sort agree with NumPy")

import os
if os.environ.get("CHECK_PIP_NVRTC"):
    nvrtc = _tack._nvrtc()
    assert nvrtc["path"].startswith(os.environ["CHECK_PIP_NVRTC"]), nvrtc
    ptx = tack.inspect(axpy, np.float32(2.5), x, out, mode="ptx", device="cuda")
    assert ".entry" in ptx, ptx[:400]
    print(f"  NVRTC {nvrtc['version']} from pip's folder ({nvrtc['path']}) compiled the kernel")

EOF
  "$venv/bin/python" "$work/run/smoke.py"
  # The README's first Python snippet, as a file of its own.
  "$venv/bin/python" - "$root/README.md" "$work/run/readme.py" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
open(sys.argv[2], "w").write(re.search(r"^```python\n(.*?)^```", text, re.S | re.M).group(1))
EOF
  "$venv/bin/python" "$work/run/readme.py"
  echo "  the README's Python snippet ran"
  "$venv/bin/python" -m tack --check
  exit 0
fi

[ -x "$py" ] || fail "no .venv: run tools/setup.sh first"
rm -rf "$work" && mkdir -p "$work"
if (($#)); then
  wheel="$(readlink -f "$1")"
  if (($# > 1)); then py="$(readlink -f "$2")"; fi
else
  cmake --build --preset dev --target tack_portable >/dev/null
  bash "$root/tools/build_wheel.sh" --lib "$root/build/dev/portable/libtack.so.0" \
    --out "$work/dist" "$py"
  wheel="$(ls "$work"/dist/tack-*.whl)"
fi
[ -f "$wheel" ] || fail "no wheel at $wheel"

# What the wheel's files link.
mkdir -p "$work/unpacked"
"$py" -m zipfile -e "$wheel" "$work/unpacked"
# glibc, the GCC runtime, libtack itself, and zlib: every manylinux policy lists libz.so.1 (and
# auditwheel leaves it out), and a Python that pip runs in has it loaded (CPython's zlib module;
# pip cannot unpack a wheel without it). Debian's libz.a is not position-independent code.
allowed='^(libc\.so\.6|libm\.so\.6|libdl\.so\.2|libpthread\.so\.0|librt\.so\.1|ld-linux-x86-64\.so\.2|libstdc\+\+\.so\.6|libgcc_s\.so\.1|libz\.so\.1|libtack\.so\.0)$'
bundled="$(ls "$work/unpacked/tack.libs" 2>/dev/null || true)"
count=0
while IFS= read -r elf; do
  count=$((count + 1))
  while IFS= read -r needed; do
    if grep -qE "$allowed" <<<"$needed" || grep -qxF "$needed" <<<"$bundled"; then continue; fi
    fail "${elf#"$work/unpacked/"} needs $needed, which is neither a manylinux system library nor bundled"
  done < <(readelf -d "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
done < <(find "$work/unpacked" -type f -name '*.so*')
((count >= 2)) || fail "found $count shared libraries in the wheel (expected _tack and libtack at least)"
# auditwheel from build_wheel.sh's environment for this Python; its report joined on one line.
tag="$("$py" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')"
show="$("$root/build/wheel/venv-$tag/bin/auditwheel" show "$wheel" 2>&1 | tr -s ' \n' ' ')" ||
  fail "auditwheel show failed: $show"
glibc="$(grep -o 'consistent with the following platform tag: "manylinux_2_[0-9]*' <<<"$show" |
  grep -o '[0-9]*$' || true)"
[ -n "$glibc" ] || fail "auditwheel finds no manylinux tag: $show"
# The glibc floor docs/design/wheel.md promises (src/portable/glibc_floor.cpp keeps LLVM's
# arc4random, glibc 2.36, out of it).
((glibc <= 35)) || fail "the wheel needs glibc 2.$glibc; it should run on 2.35 (Ubuntu 22.04): $show"
! grep -q 'external shared libraries are required' <<<"$show" ||
  fail "auditwheel lists libraries the wheel needs but does not bundle: $show"
size_mb="$(du -m "$wheel" | cut -f1)"
((size_mb <= 40)) || fail "the wheel is $size_mb MB; the goal is at most 40 MB"
echo "check_wheel: $(basename "$wheel"), $size_mb MB, $count shared libraries," \
  "bundled: ${bundled//$'\n'/ }"
echo "check_wheel: $(grep -o 'consistent with the following platform tag: "[^"]*"' <<<"$show")"

# NVRTC to install inside as pip's nvidia-cuda-nvrtc would (the toolkit is hidden there), when
# the toolkit has one: the library and its builtins (CUDA 12's builtins name is a link).
nvrtc="$(ls /usr/local/cuda/lib64/libnvrtc.so.* 2>/dev/null | grep -E 'libnvrtc\.so\.[0-9]+$' |
  sort -V | tail -1 || true)"
if [ -n "$nvrtc" ]; then
  major="${nvrtc##*.so.}"
  builtins="$( (ls "$(dirname "$nvrtc")"/libnvrtc-builtins.so."$major".* 2>/dev/null || true) |
    grep -E '\.so\.[0-9]+\.[0-9]+$' | head -1 || true)"
  [ -n "$builtins" ] || fail "no libnvrtc-builtins.so.$major.<minor> beside $nvrtc"
  mkdir -p "$work/nvrtc"
  cp -L "$nvrtc" "$builtins" "$work/nvrtc/"
  echo "$major" >"$work/nvrtc/major"
else
  echo "check_wheel: no NVRTC in /usr/local/cuda/lib64: NVRTC from pip is not checked"
fi

# The install and the runs, with LLVM, headers and compilers hidden.
# Root makes a mount namespace; anyone else a user namespace with one (where the kernel allows).
namespace=(unshare -m --propagation private)
[ "$(id -u)" -eq 0 ] || namespace=(unshare -rm --propagation private)
"${namespace[@]}" bash "${BASH_SOURCE[0]}" --inside "$wheel" "$py"
echo "check_wheel: the wheel installed without a build step and ran with no LLVM, headers or compiler"
