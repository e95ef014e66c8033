"""Math builtins: math.<fn> for the unary and binary float functions, floor/ceil/trunc/round,
abs/min/max (Python's: the first argument wins ties and NaN comparisons), pow, isnan/isinf/
isfinite, math.pi and math.e; f32 and f64, compared with a float64 reference at a few ulps."""
import math

import numpy as np
import pytest

import tack
from kutil import FLOAT_DTYPES, INT_DTYPES, arr, interesting_ints, name, random_ints, rng, zeros


@tack.kernel
def mb_unit_interval(x, out):
    for i in range(len(x)):
        v = x[i]
        out[0, i] = math.sin(v)
        out[1, i] = math.cos(v)
        out[2, i] = math.tan(v)
        out[3, i] = math.asin(v)
        out[4, i] = math.acos(v)
        out[5, i] = math.atan(v)
        out[6, i] = math.sinh(v)
        out[7, i] = math.cosh(v)
        out[8, i] = math.tanh(v)
        out[9, i] = math.asinh(v)
        out[10, i] = math.atanh(v)
        out[11, i] = math.exp(v)
        out[12, i] = math.exp2(v)
        out[13, i] = math.expm1(v)
        out[14, i] = math.erf(v)
        out[15, i] = math.erfc(v)
        out[16, i] = math.cbrt(v)


UNIT_REFS = [np.sin, np.cos, np.tan, np.arcsin, np.arccos, np.arctan, np.sinh, np.cosh, np.tanh,
             np.arcsinh, np.arctanh, np.exp, np.exp2, np.expm1,
             np.vectorize(math.erf), np.vectorize(math.erfc), np.cbrt]


@tack.kernel
def mb_positive(x, out):
    for i in range(len(x)):
        v = x[i]
        out[0, i] = math.sqrt(v)
        out[1, i] = math.log(v)
        out[2, i] = math.log2(v)
        out[3, i] = math.log10(v)
        out[4, i] = math.log1p(v)
        out[5, i] = math.acosh(v + 1.0)


def positive_refs(dtype):
    # v + 1.0 is computed in the kernel's type before acosh sees it.
    return [np.sqrt, np.log, np.log2, np.log10, np.log1p,
            lambda v: np.arccosh((v.astype(dtype) + dtype(1.0)).astype(np.float64))]


def tolerance(dtype):
    return (dict(rtol=4e-6, atol=1e-7) if dtype == np.float32 else dict(rtol=1e-13, atol=1e-15))


def check_rows(out, x, refs, dtype):
    x64 = x.astype(np.float64)
    for row, ref in enumerate(refs):
        np.testing.assert_allclose(out[row], ref(x64), err_msg=f"row {row} ({ref})",
                                   **tolerance(dtype))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=name)
def test_functions_on_the_unit_interval(dtype):
    x = np.concatenate([np.linspace(-0.99, 0.99, 397), [0.0, -0.0, 1e-6, -1e-6]]).astype(dtype)
    out = zeros((len(UNIT_REFS), len(x)), dtype)
    mb_unit_interval(arr(x), out)
    check_rows(out.numpy(), x, UNIT_REFS, dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=name)
def test_functions_of_positive_values(dtype):
    x = np.concatenate([np.geomspace(1e-3, 1e4, 500), [1.0, 2.0, 10.0, 0.5]]).astype(dtype)
    refs = positive_refs(dtype)
    out = zeros((len(refs), len(x)), dtype)
    mb_positive(arr(x), out)
    check_rows(out.numpy(), x, refs, dtype)


@tack.kernel
def mb_special(x, out):
    for i in range(len(x)):
        out[0, i] = math.sqrt(x[i])
        out[1, i] = math.log(x[i])
        out[2, i] = math.exp(x[i])


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=name)
def test_ieee_special_values(dtype):
    x = np.array([-1.0, 0.0, -0.0, np.inf, -np.inf, np.nan, 1000.0, -1000.0], dtype=dtype)
    out = zeros((3, len(x)), dtype)
    mb_special(arr(x), out)
    x64 = x.astype(np.float64)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(out.numpy()[0], np.sqrt(x))  # sqrt is exact in IEEE
        # log and exp: the specials exactly (inf, nan, 0, 1), the rest within an ulp of the
        # correctly rounded value (NumPy's own f32 exp is not always correctly rounded).
        for row, ref in ((1, np.log(x64).astype(dtype)), (2, np.exp(x64).astype(dtype))):
            got = out.numpy()[row]
            special = ~np.isfinite(ref) | (ref == 0) | (ref == 1)
            np.testing.assert_array_equal(got[special], ref[special])
            np.testing.assert_allclose(got[~special], ref[~special], rtol=2 * np.finfo(dtype).eps)


@tack.kernel
def mb_rounding(x, out):
    for i in range(len(x)):
        out[0, i] = math.floor(x[i])
        out[1, i] = math.ceil(x[i])
        out[2, i] = math.trunc(x[i])
        out[3, i] = round(x[i])
        out[4, i] = abs(x[i])


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=name)
def test_rounding_functions(dtype):
    halves = np.arange(-10, 10) + 0.5  # round is half to even, as Python's round
    x = np.concatenate([halves, rng(60).uniform(-1000, 1000, 500), [0.0, -0.0, 0.49999997, -3.7]])
    x = x.astype(dtype)
    out = zeros((5, len(x)), dtype)
    mb_rounding(arr(x), out)
    o = out.numpy()
    np.testing.assert_array_equal(o[0], np.floor(x))
    np.testing.assert_array_equal(o[1], np.ceil(x))
    np.testing.assert_array_equal(o[2], np.trunc(x))
    np.testing.assert_array_equal(o[3], np.array([round(float(v)) for v in x], dtype=dtype))
    np.testing.assert_array_equal(o[4], np.abs(x))


@tack.kernel
def mb_floor_as_index(x, table, out):
    for i in range(len(x)):
        out[i] = table[math.floor(x[i])]


def test_floor_result_indexes_an_array():
    x = np.array([0.2, 1.9, 2.5, 3.0, 4.99], np.float32)
    table = np.array([10, 11, 12, 13, 14], np.int32)
    out = zeros(5, np.int32)
    mb_floor_as_index(arr(x), arr(table), out)
    assert out.numpy().tolist() == [10, 11, 12, 13, 14]


@tack.kernel
def mb_binary(x, y, out):
    for i in range(len(x)):
        out[0, i] = math.atan2(x[i], y[i])
        out[1, i] = math.fmod(x[i], y[i])
        out[2, i] = math.copysign(x[i], y[i])
        out[3, i] = math.hypot(x[i], y[i])
        out[4, i] = pow(abs(x[i]), y[i])
        out[5, i] = min(x[i], y[i])
        out[6, i] = max(x[i], y[i])


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=name)
def test_binary_functions(dtype):
    r = rng(61)
    x = (r.standard_normal(1000) * 3).astype(dtype)
    y = (r.standard_normal(1000) * 3).astype(dtype)
    x[:10] = [0.0, -0.0, 1.0, -1.0, 2.0, 5.5, -5.5, 3.0, 7.0, -7.0]
    y[:10] = [1.0, 1.0, -0.0, 0.0, 2.0, 2.0, 2.0, -3.0, 7.0, 7.0]
    out = zeros((7, 1000), dtype)
    mb_binary(arr(x), arr(y), out)
    o = out.numpy()
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    tol = tolerance(dtype)
    np.testing.assert_allclose(o[0], np.arctan2(x64, y64), **tol)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(o[1], np.fmod(x, y))  # exact, sign of the dividend
    np.testing.assert_array_equal(o[2], np.copysign(x, y))
    np.testing.assert_array_equal(np.signbit(o[2]), np.signbit(y))
    np.testing.assert_allclose(o[3], np.hypot(x64, y64), **tol)
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(o[4], np.power(np.abs(x64), y64), **tol)
    np.testing.assert_array_equal(o[5], np.where(y < x, y, x))
    np.testing.assert_array_equal(o[6], np.where(y > x, y, x))


@tack.kernel
def mb_math_pow(x, y, out):
    for i in range(len(x)):
        out[i] = math.pow(x[i], y[i])


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=name)
def test_math_pow(dtype):
    r = rng(64)
    x = (0.1 + np.abs(r.standard_normal(500) * 3)).astype(dtype)
    y = (r.standard_normal(500) * 3).astype(dtype)
    out = zeros(500, dtype)
    mb_math_pow(arr(x), arr(y), out)
    np.testing.assert_allclose(out.numpy(), np.power(x.astype(np.float64), y.astype(np.float64)),
                               **tolerance(dtype))


@tack.kernel
def mb_minmax(x, y, out):
    for i in range(len(x)):
        out[0, i] = min(x[i], y[i])
        out[1, i] = max(x[i], y[i])


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=name)
def test_min_max_nan_follow_python_and_zeros_ieee(dtype):
    # min(a, b) is (b < a) ? b : a: the first argument wins ties and NaN comparisons; but -0.0
    # is below +0.0 (IEEE 754-2019), whichever argument it is.
    pairs = [(np.nan, 1.0), (1.0, np.nan), (0.0, -0.0), (-0.0, 0.0), (np.nan, np.nan),
             (-np.inf, np.nan), (2.0, 2.0), (-1.0, 3.0)]
    x = np.array([p[0] for p in pairs], dtype)
    y = np.array([p[1] for p in pairs], dtype)
    out = zeros((2, len(pairs)), dtype)
    mb_minmax(arr(x), arr(y), out)
    emin = np.array([min(float(a), float(b)) for a, b in pairs], dtype)
    emax = np.array([max(float(a), float(b)) for a, b in pairs], dtype)
    emin[2], emax[3] = -0.0, 0.0  # Python: min(0.0, -0.0) is 0.0, max(-0.0, 0.0) is -0.0
    np.testing.assert_array_equal(out.numpy()[0], emin)
    np.testing.assert_array_equal(out.numpy()[1], emax)
    np.testing.assert_array_equal(np.signbit(out.numpy()[0]), np.signbit(emin))
    np.testing.assert_array_equal(np.signbit(out.numpy()[1]), np.signbit(emax))


@tack.kernel
def mb_int_abs_min_max(x, y, out):
    for i in range(len(x)):
        out[0, i] = abs(x[i])
        out[1, i] = min(x[i], y[i])
        out[2, i] = max(x[i], y[i])


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=name)
def test_integer_abs_min_max(dtype):
    e = interesting_ints(dtype)
    x = np.concatenate([e, random_ints(rng(62), dtype, 500)])
    y = np.concatenate([e[::-1], random_ints(rng(63), dtype, 500)])
    out = zeros((3, len(x)), dtype)
    mb_int_abs_min_max(arr(x), arr(y), out)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(out.numpy()[0], np.abs(x))  # abs(INT_MIN) wraps to INT_MIN
    np.testing.assert_array_equal(out.numpy()[1], np.minimum(x, y))
    np.testing.assert_array_equal(out.numpy()[2], np.maximum(x, y))


@tack.kernel
def mb_predicates(x, out):
    for i in range(len(x)):
        out[0, i] = 1 if math.isnan(x[i]) else 0
        out[1, i] = 1 if math.isinf(x[i]) else 0
        out[2, i] = 1 if math.isfinite(x[i]) else 0


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=name)
def test_predicates(dtype):
    x = np.array([0.0, -1.5, np.inf, -np.inf, np.nan, np.finfo(dtype).max,
                  np.finfo(dtype).smallest_subnormal], dtype)
    out = zeros((3, len(x)), np.int32)
    mb_predicates(arr(x), out)
    np.testing.assert_array_equal(out.numpy()[0], np.isnan(x).astype(np.int32))
    np.testing.assert_array_equal(out.numpy()[1], np.isinf(x).astype(np.int32))
    np.testing.assert_array_equal(out.numpy()[2], np.isfinite(x).astype(np.int32))


@tack.kernel
def mb_constants(x, out):
    for i in range(len(x)):
        out[0, i] = x[i] * math.pi
        out[1, i] = x[i] + math.e


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=name)
def test_math_constants(dtype):
    x = np.linspace(-2, 2, 9).astype(dtype)
    out = zeros((2, 9), dtype)
    mb_constants(arr(x), out)
    np.testing.assert_array_equal(out.numpy()[0], x * dtype(math.pi))
    np.testing.assert_array_equal(out.numpy()[1], x + dtype(math.e))


@tack.kernel
def mb_min_max_3(x, y, z, out):
    for i in range(len(x)):
        out[0, i] = min(x[i], y[i], z[i])
        out[1, i] = max(x[i], y[i], z[i])


@pytest.mark.parametrize("dtype", [np.int32, np.float64], ids=name)
def test_min_max_of_three(dtype):
    r = rng(65)
    x, y, z = (r.integers(-5, 5, 300).astype(dtype) for _ in range(3))
    if dtype == np.float64:
        x[:3], y[:3], z[:3] = [np.nan, 1.0, 2.0], [1.0, np.nan, 0.0], [0.0, 0.0, np.nan]
    out = zeros((2, 300), dtype)
    mb_min_max_3(arr(x), arr(y), arr(z), out)
    emin = np.array([min(a, b, c) for a, b, c in zip(x.tolist(), y.tolist(), z.tolist())], dtype)
    emax = np.array([max(a, b, c) for a, b, c in zip(x.tolist(), y.tolist(), z.tolist())], dtype)
    np.testing.assert_array_equal(out.numpy()[0], emin)
    np.testing.assert_array_equal(out.numpy()[1], emax)
