"""``python -m tack``: what this Tack is and what it finds on this machine -- its version, the
LLVM it carries, the devices (and why a kind has none), threads, the kernel cache, the build's
options. ``python -m tack --check`` also compiles and runs a kernel on every device. The first
thing to run after installing, and what a bug report should include."""
import argparse
import ctypes
import os
import platform
import sys

import numpy as np

import tack
from tack import _tack


def _size(n):
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):.1f} {unit}"
    return f"{n} bytes"


def _cache_summary(path, limit):
    """"<path> (<n> files, <size> of its <limit> limit)" of the kernel cache, or why it is off."""
    if path is None:
        return "off (TACK_CACHE_DIR is empty)"
    files = size = 0
    for root, _, names in os.walk(path):
        for name in names:
            try:
                size += os.lstat(os.path.join(root, name)).st_size
                files += 1
            except OSError:
                pass
    bound = f"limit {_size(limit)}" if limit else "no limit"
    if not os.path.isdir(path):
        return f"{path} (not made yet: the first compile makes it; {bound}, TACK_CACHE_LIMIT)"
    return f"{path} ({files} files, {size / 2**20:.1f} MiB; {bound}, TACK_CACHE_LIMIT)"


def _loads(library):
    try:
        ctypes.CDLL(library)
        return True
    except OSError:
        return False


def _why_none(kind, about):
    """Why this machine shows no device of `kind` (a kind this build registers)."""
    if kind == "opencl":
        if not _loads("libOpenCL.so.1"):
            return ("no OpenCL ICD loader (libOpenCL.so.1); install one (Debian: ocl-icd-libopencl1) "
                    "and a driver (pocl-opencl-icd for the CPU)")
        vendors = os.environ.get("OCL_ICD_VENDORS", "/etc/OpenCL/vendors")
        icds = [f for f in os.listdir(vendors) if f.endswith(".icd")] \
            if os.path.isdir(vendors) else []
        if not icds:
            return (f"no OpenCL driver registered in {vendors}; install one (pocl-opencl-icd "
                    "for the CPU, a GPU vendor's ICD)")
        return f"the OpenCL drivers ({', '.join(sorted(icds))}) list no device"
    if kind == "cuda":
        if not about["cuda"]:
            return "this build has no CUDA support (built without CUDA's headers)"
        driver = os.environ.get("TACK_CUDA_LIBRARY") or "libcuda.so.1"
        if not _loads(driver):
            return f"no CUDA driver ({driver}); install NVIDIA's driver"
        return "the CUDA driver finds no GPU"
    return "none found"


def describe():
    """The report `python -m tack` prints, as lines."""
    a = _tack._about()
    out = [f"Tack {a['version']}",
           f"  Python {platform.python_version()}, NumPy {np.__version__}, "
           f"{platform.system()} {platform.machine()}",
           f"  LLVM {a['llvm_version']} ({'linked into libtack' if a['llvm_static'] else 'the system libLLVM'}), "
           f"compiling for {a['host_cpu']} ({a['host_triple']})"
           f"{', vector math through libmvec' if a['vector_math'] else ''}",
           f"  threads: {a['threads']} (TACK_NUM_THREADS; {os.cpu_count()} CPUs)",
           f"  kernel cache: {_cache_summary(a['cache_directory'], a['cache_limit'])}",
           "  build: " + ", ".join([
               "CUDA headers" if a["cuda"] else "no CUDA",
               (f"libnuma ({a['numa_nodes']} node{'s' if a['numa_nodes'] != 1 else ''})"
                if a["numa"] else "no libnuma"),
               f"Python {sys.version_info.major}.{sys.version_info.minor} module",
           ]),
           ]
    if a["cuda"]:
        nvrtc = _tack._nvrtc()
        out.append(f"  NVRTC {nvrtc['version']} ({nvrtc['path']}; TACK_NVRTC_LIBRARY)"
                   if nvrtc["version"] else f"  NVRTC: none, {nvrtc['why']}")
    out.append("devices:")
    devices = tack.devices()
    default = tack.default_device()
    for kind in a["device_kinds"]:
        mine = [d for d in devices if d.kind == kind]
        if not mine:
            out.append(f"  {kind:10s} none: {_why_none(kind, a)}")
        for d in mine:
            out.append(f"  {d.name:10s} (default)" if d.name == default.name else f"  {d.name}")
    return out


@tack.kernel
def _check_kernel(out, x, a):
    for i in range(len(out)):
        out[i] = a * x[i] + 1.0


def check():
    """Compiles and runs a kernel on every device: (lines, all passed)."""
    lines, ok = [], True
    x = np.arange(1000, dtype=np.float32)
    for d in tack.devices():
        try:
            out = tack.zeros(1000, device=d)
            _check_kernel(out, tack.array(x, device=d), 2.0)
            got = out.numpy()
            if not np.array_equal(got, 2.0 * x + 1.0):
                raise RuntimeError(f"wrong results: {got[:4]} ..., expected {2.0 * x[:4] + 1.0} ...")
            lines.append(f"  {d.name:10s} ok")
        except Exception as e:  # every failure is reported, the other devices still run
            ok = False
            lines.append(f"  {d.name:10s} FAILED: {type(e).__name__}: {e}")
    return lines, ok


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tack", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="also compile and run a kernel on every device")
    args = parser.parse_args(argv)
    print("\n".join(describe()))
    if not args.check:
        return 0
    lines, ok = check()
    print("check:")
    print("\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
