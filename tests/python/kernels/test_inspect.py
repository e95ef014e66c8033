"""tack.inspect(kernel, *args, mode=...): the Tack IR ("ir"), the backend source ("source": LLVM
IR before optimization on the CPU) and the optimized code ("optimized") of exactly the variant
those arguments would run; it launches nothing; an unknown mode is a ValueError."""
import numpy as np
import pytest

import tack
from kutil import arr, zeros


@tack.kernel
def in_scale(x, s, out):
    for i in range(len(x)):
        out[i] = x[i] * s


@pytest.mark.parametrize("mode", [
    "ir",
    pytest.param("source", marks=pytest.mark.cpu_only("LLVM-specific inspect output: LLVM IR on the CPU, OpenCL C on OpenCL")),
    pytest.param("optimized", marks=pytest.mark.cpu_only("LLVM-specific inspect output: LLVM IR on the CPU, OpenCL C on OpenCL")),
])
def test_modes_return_text(mode):
    x, out = arr(np.arange(4, dtype=np.float32)), zeros(4, np.float32)
    text = tack.inspect(in_scale, x, 2.0, out, mode=mode)
    assert isinstance(text, str) and text.strip()
    if mode != "ir":
        assert "define" in text  # LLVM IR on the CPU


def test_inspect_launches_nothing():
    x, out = arr(np.arange(4, dtype=np.float32)), zeros(4, np.float32)
    v = out.version
    for mode in ["ir", "source", "optimized"]:
        tack.inspect(in_scale, x, 2.0, out, mode=mode)
    assert not out.numpy().any() and out.version == v


def test_unknown_mode_is_a_value_error():
    x, out = arr(np.arange(4, dtype=np.float32)), zeros(4, np.float32)
    with pytest.raises(ValueError, match="mode"):
        tack.inspect(in_scale, x, 2.0, out, mode="assembly")


def test_inspect_shows_the_variant_of_these_arguments():
    x32, o32 = zeros(4, np.float32), zeros(4, np.float32)
    x64, o64 = zeros(4, np.float64), zeros(4, np.float64)
    ir32 = tack.inspect(in_scale, x32, 2.0, o32, mode="ir")
    ir64 = tack.inspect(in_scale, x64, 2.0, o64, mode="ir")
    assert "f32" in ir32 and "f64" in ir64 and ir32 != ir64
    src32 = tack.inspect(in_scale, x32, 2.0, o32, mode="source")
    src64 = tack.inspect(in_scale, x64, 2.0, o64, mode="source")
    assert "float" in src32 and "double" in src64


def test_inspect_in_debug_mode_shows_the_checked_variant():
    x, out = zeros(4, np.float32), zeros(4, np.float32)
    plain = tack.inspect(in_scale, x, 2.0, out, mode="source")
    tack.set_debug(True)
    checked = tack.inspect(in_scale, x, 2.0, out, mode="source")
    assert checked != plain


def test_inspect_checks_arity():
    with pytest.raises(TypeError):
        tack.inspect(in_scale, zeros(4, np.float32), mode="ir")


def test_inspect_reports_compile_errors():
    @tack.kernel
    def in_bad(x, out):
        for i in range(len(x)):
            out[i] = x[i, 0]  # one index too many for a 1-D array

    with pytest.raises(tack.CompileError):
        tack.inspect(in_bad, zeros(4, np.float32), zeros(4, np.float32), mode="ir")


@pytest.mark.cpu_only("checks the CPU's noalias/disjoint-arrays variant")
def test_inspect_is_the_disjoint_variant_only_for_disjoint_arrays():
    x, out = zeros(4, np.float32), zeros(4, np.float32)
    assert "noalias" in tack.inspect(in_scale, x, 2.0, out, mode="source")
    assert "noalias" not in tack.inspect(in_scale, x, 2.0, x, mode="source")
    tack.set_specialize_disjoint(False)
    assert not tack.specialize_disjoint()
    assert "noalias" not in tack.inspect(in_scale, x, 2.0, out, mode="source")


# ---- device="cuda": the CUDA code of the variant, compiled without a GPU --------------------

def _nvrtc_or_skip():
    try:
        tack.inspect(in_scale, arr(np.zeros(1, np.float32)), 1.0, zeros(1, np.float32),
                     mode="ptx", device="cuda")
    except RuntimeError as e:
        pytest.skip(f"no CUDA compile here: {e}")


def test_cuda_source_without_a_gpu():
    x, out = arr(np.arange(4, dtype=np.float32)), zeros(4, np.float32)
    src = tack.inspect(in_scale, x, 2.0, out, mode="source", device="cuda")
    assert 'extern "C" __global__ void tack_in_scale(' in src
    assert "restrict" not in src  # arrays may alias


def test_cuda_ptx_for_a_stated_architecture():
    _nvrtc_or_skip()
    x, out = arr(np.arange(4, dtype=np.float64)), zeros(4, np.float64)
    ptx = tack.inspect(in_scale, x, 2.0, out, mode="ptx", device="cuda")
    assert ".target sm_90" in ptx and ".entry tack_in_scale(" in ptx
    assert ".target sm_80" in tack.inspect(in_scale, x, 2.0, out, mode="ptx", device="cuda",
                                           arch="sm_80")
    with pytest.raises(ValueError, match="sm_90"):
        tack.inspect(in_scale, x, 2.0, out, mode="ptx", device="cuda", arch="sm_2")


def test_ptx_needs_a_cuda_device_or_device_cuda():
    x, out = arr(np.arange(4, dtype=np.float32)), zeros(4, np.float32)
    if tack.default_device().kind == "cuda":
        pytest.skip("the arrays are on a CUDA device: mode='ptx' is theirs")
    with pytest.raises(ValueError, match='device="cuda"'):
        tack.inspect(in_scale, x, 2.0, out, mode="ptx")
    with pytest.raises(ValueError, match="metal"):
        tack.inspect(in_scale, x, 2.0, out, mode="ptx", device="metal")


def test_cuda_code_of_the_debug_variant():
    _nvrtc_or_skip()
    x, out = arr(np.arange(4, dtype=np.int32)), zeros(4, np.int32)
    assert "tack_status" not in tack.inspect(in_scale, x, 3, out, mode="source", device="cuda")
    tack.set_debug(True)
    try:
        src = tack.inspect(in_scale, x, 3, out, mode="source", device="cuda")
        ptx = tack.inspect(in_scale, x, 3, out, mode="ptx", device="cuda")
    finally:
        tack.set_debug(False)
    assert "TackDebugStatus* tack_status" in src  # bounds-checked: the status pointer is last
    assert ".entry tack_in_scale(" in ptx
