"""The CPU's math accuracy contract (docs/language.md, "Math accuracy"): sin, cos, tan, exp, log
and ** of floats within 4 ulp of a higher-precision reference over each function's whole domain
(the loop vectorizer replaces them by glibc's vector math functions, libmvec), and the special
values (NaN, infinities, signed zeros, overflow, underflow, huge arguments of sin and cos)
exactly as NumPy gives them. Arrays long enough that the vectorized loop body, not only its
scalar remainder, computes most elements."""
import numpy as np
import pytest

import tack
from kutil import FLOAT_DTYPES, name, rng

CPU = tack.device("cpu")
MAX_ULP = 4.0
N = (1 << 16) + 3  # the vector body and a scalar remainder


def unary(fn):
    src = f"""
import tack


@tack.kernel
def k(x, out):
    for i in range(len(x)):
        out[i] = tack.{fn}(x[i])
"""
    return src


_KERNELS = {}


def kernel(fn, tmp_path_factory):
    if fn not in _KERNELS:
        path = tmp_path_factory.mktemp("math") / f"k_{fn}.py"  # kernels are read from a file
        path.write_text(unary(fn))
        ns = {}
        exec(compile(path.read_text(), str(path), "exec"), ns)
        _KERNELS[fn] = ns["k"]
    return _KERNELS[fn]


@tack.kernel
def power(x, y, out):
    for i in range(len(x)):
        out[i] = x[i] ** y[i]


def run(fn, x, tmp_path_factory):
    out = tack.empty(len(x), dtype=tack.f32 if x.dtype == np.float32 else tack.f64, device=CPU)
    kernel(fn, tmp_path_factory)(tack.array(x, device=CPU), out)
    return out.numpy()


def reference_type(dtype):
    return np.float64 if dtype == np.float32 else np.longdouble


def ulp_error(got, ref, dtype):
    """|got - ref| in units of the spacing of ref rounded to dtype; 0 where both are the same
    NaN class or the same infinity (checked separately)."""
    with np.errstate(over="ignore", invalid="ignore"):
        rounded = ref.astype(dtype)
        finite = np.isfinite(rounded) & np.isfinite(got)
        spacing = np.spacing(np.abs(rounded[finite])).astype(ref.dtype)
        err = np.abs(got[finite].astype(ref.dtype) - ref[finite]) / spacing
    assert np.array_equal(np.isnan(got[~finite]), np.isnan(rounded[~finite]))
    assert np.array_equal(got[~finite & ~np.isnan(got)], rounded[~finite & ~np.isnan(got)])
    return err.max(initial=0.0)


def domain(fn, dtype, g):
    info = np.finfo(dtype)
    if fn in ("sin", "cos"):
        huge = 1e30 if dtype == np.float32 else 1e300
        return np.concatenate([g.uniform(-100, 100, N),  # and huge arguments, every octave
                               np.sign(g.standard_normal(N)) * np.exp(g.uniform(0, np.log(huge),
                                                                                N))])
    if fn == "tan":
        return g.uniform(-100, 100, N)
    if fn == "exp":  # through overflow and into subnormal results
        lo, hi = (-104.0, 89.0) if dtype == np.float32 else (-745.0, 710.0)
        return g.uniform(lo, hi, N)
    # log: every positive octave, subnormals included
    return np.exp(g.uniform(np.log(float(info.smallest_subnormal)) + 1,
                            np.log(float(info.max)) - 1, N))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=name)
@pytest.mark.parametrize("fn", ["sin", "cos", "tan", "exp", "log"])
def test_within_4_ulp_over_the_domain(fn, dtype, tmp_path_factory):
    x = domain(fn, dtype, rng(hash(fn) % 1000)).astype(dtype)
    got = run(fn, x, tmp_path_factory)
    ref = getattr(np, fn)(x.astype(reference_type(dtype)))
    assert ulp_error(got, ref, dtype) <= MAX_ULP


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=name)
def test_power_within_4_ulp(dtype):
    g = rng(3)
    x = np.exp(g.uniform(np.log(1e-3), np.log(100), N)).astype(dtype)
    y = g.uniform(-20, 20, N).astype(dtype)
    out = tack.empty(N, dtype=tack.f32 if dtype == np.float32 else tack.f64, device=CPU)
    power(tack.array(x, device=CPU), tack.array(y, device=CPU), out)
    ref = np.power(x.astype(reference_type(dtype)), y.astype(reference_type(dtype)))
    assert ulp_error(out.numpy(), ref, dtype) <= MAX_ULP


SPECIALS = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 1e30, -1e30, 1e-40, 5e-324,
            1000.0, -1000.0, 88.8, -104.0]


def tiled(values, dtype):
    # Each special value at several places: in the vector body's lanes and in the remainder.
    with np.errstate(over="ignore"):
        v = np.array(values, dtype=dtype)
    return np.tile(v, 37)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=name)
@pytest.mark.parametrize("fn", ["sin", "cos", "tan", "exp", "log"])
def test_special_values_as_numpy(fn, dtype, tmp_path_factory):
    x = tiled(SPECIALS, dtype)
    got = run(fn, x, tmp_path_factory)
    with np.errstate(all="ignore"):
        want = getattr(np, fn)(x)
    exact = ~np.isfinite(want) | (want == 0) | (x == 0)  # NaN, inf, signed zeros: exactly
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.array_equal(np.signbit(got[exact & ~np.isnan(want)]),
                          np.signbit(want[exact & ~np.isnan(want)])), x[exact]
    assert np.array_equal(got[exact & ~np.isnan(want)], want[exact & ~np.isnan(want)])
    ok = ~exact
    ref = getattr(np, fn)(x[ok].astype(reference_type(dtype)))
    assert ulp_error(got[ok], ref, dtype) <= MAX_ULP


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=name)
def test_power_special_values_as_numpy(dtype):
    pairs = [(2, 3), (-2, 3), (-2, 0.5), (0, -1), (-0.0, -1), (-0.0, 3), (1, np.nan), (np.nan, 0),
             (-1, np.inf), (np.inf, -1), (0, 0), (np.inf, 0.5), (-np.inf, 3), (0.5, np.inf),
             (2, -np.inf), (10, 400), (10, -400), (-8, 1 / 3)]
    x = np.tile(np.array([p[0] for p in pairs], dtype), 37)
    y = np.tile(np.array([p[1] for p in pairs], dtype), 37)
    out = tack.empty(len(x), dtype=tack.f32 if dtype == np.float32 else tack.f64, device=CPU)
    power(tack.array(x, device=CPU), tack.array(y, device=CPU), out)
    got = out.numpy()
    with np.errstate(all="ignore"):
        want = np.power(x, y)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    finite = ~np.isnan(want)
    assert np.array_equal(got[finite], want[finite])
    assert np.array_equal(np.signbit(got[finite]), np.signbit(want[finite]))


def test_the_loop_calls_the_vector_functions(tmp_path_factory):
    # On x86-64 with glibc's libmvec, the vectorized loop calls its 8-lane (AVX2) or 4-lane
    # functions; TACK_VECTOR_MATH=0 keeps the scalar ones.
    import ctypes.util
    import os
    import platform
    if (platform.machine() != "x86_64" or os.environ.get("TACK_VECTOR_MATH") == "0" or
            not ctypes.util.find_library("mvec")):
        pytest.skip("no vector math library here")
    x = tack.zeros(1024, dtype=tack.f32, device=CPU)
    out = tack.empty(1024, dtype=tack.f32, device=CPU)
    text = tack.inspect(kernel("sin", tmp_path_factory), x, out, mode="optimized")
    assert "_ZGV" in text and "v_sinf" in text, text[:2000]
