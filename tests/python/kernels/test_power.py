"""`**`: floats call pow (IEEE, as C's pow); integers multiply by repeated squaring and wrap; a
negative integer exponent gives the truncated value of 1 / x**|n| (1 for x == 1, +-1 for
x == -1, 0 otherwise, 0 ** -n == 0); `**` is right-associative and binds tighter than a unary
minus on its left."""
import numpy as np
import pytest

import tack
from kutil import FLOAT_DTYPES, INT_DTYPES, SIGNED_DTYPES, arr, interesting_ints, name, \
    random_ints, rng, wrap_int, zeros


@tack.kernel
def pw_pow(a, b, out):
    for i in range(len(a)):
        out[i] = a[i] ** b[i]


@tack.kernel
def pw_pow_aug(a, b, out):
    for i in range(len(a)):
        v = a[i]
        v **= b[i]
        out[i] = v


def python_int_pow(x, n, dtype):
    if n >= 0:
        return wrap_int(pow(x, n, 1 << np.iinfo(dtype).bits), dtype)
    if x == 1:
        return 1
    if x == -1:
        return -1 if n % 2 else 1
    return 0


@pytest.mark.parametrize("kernel", [pw_pow, pw_pow_aug], ids=["binary", "augmented"])
@pytest.mark.parametrize("dtype", INT_DTYPES, ids=name)
def test_integer_power_wraps(dtype, kernel):
    r = rng(40)
    e = interesting_ints(dtype)
    base = np.concatenate([e, e, random_ints(r, dtype, 1000), random_ints(r, dtype, 500, 0, 5)])
    exps = random_ints(r, dtype, len(base), 0, min(70, np.iinfo(dtype).max))
    exps[: len(e)] = 0
    exps[len(e): 2 * len(e)] = 1
    out = zeros(len(base), dtype)
    kernel(arr(base), arr(exps), out)
    expected = [python_int_pow(int(x), int(n), dtype) for x, n in zip(base, exps)]
    np.testing.assert_array_equal(out.numpy(), np.array(expected, dtype=dtype))


@pytest.mark.parametrize("dtype", SIGNED_DTYPES, ids=name)
def test_integer_negative_exponents(dtype):
    info = np.iinfo(dtype)
    bases = [1, -1, 0, 2, -2, 3, info.max, info.min]
    exps = [-1, -2, -3, -64 if info.bits > 8 else -100, info.min]
    a = np.array([x for x in bases for _ in exps], dtype=dtype)
    b = np.array([n for _ in bases for n in exps], dtype=dtype)
    out = zeros(len(a), dtype)
    pw_pow(arr(a), arr(b), out)
    expected = [python_int_pow(int(x), int(n), dtype) for x, n in zip(a, b)]
    np.testing.assert_array_equal(out.numpy(), np.array(expected, dtype=dtype))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=name)
def test_float_power(dtype):
    r = rng(41)
    base = (0.1 + np.abs(r.standard_normal(2000) * 10)).astype(dtype)
    exps = (r.standard_normal(2000) * 3).astype(dtype)
    # Negative bases with integral exponents, and the special cases of C's pow.
    nb = -(0.1 + np.abs(r.standard_normal(500) * 4)).astype(dtype)
    ne = r.integers(-6, 7, 500).astype(dtype)
    sa = np.array([0.0, 0.0, -0.0, 1.0, np.nan, -1.0, 2.0, np.inf, -8.0, 0.0], dtype=dtype)
    sb = np.array([0.0, -1.0, 3.0, np.nan, 0.0, np.inf, -np.inf, -0.5, 1.0 / 3.0, 0.5],
                  dtype=dtype)
    a, b = np.concatenate([base, nb, sa]), np.concatenate([exps, ne, sb])
    out = zeros(len(a), dtype)
    pw_pow(arr(a), arr(b), out)
    with np.errstate(all="ignore"):
        expected = np.power(a.astype(np.float64), b.astype(np.float64)).astype(dtype)
    tol = 4e-6 if dtype == np.float32 else 1e-14
    np.testing.assert_allclose(out.numpy(), expected, rtol=tol, atol=0)
    got = out.numpy()[-len(sa):]
    np.testing.assert_array_equal(got, expected[-len(sa):])  # the special cases are exact


@tack.kernel
def pw_literals(x, out):
    for i in range(len(x)):
        out[i, 0] = x[i] ** 2
        out[i, 1] = -x[i] ** 2
        out[i, 2] = x[i] ** 0.5
        out[i, 3] = 2.0 ** x[i]
        out[i, 4] = 2 ** 3 ** 2 + x[i] * 0.0
        out[i, 5] = (-x[i]) ** 3


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=name)
def test_precedence_and_literals(dtype):
    x = np.linspace(0.25, 6.0, 100).astype(dtype)
    out = zeros((100, 6), dtype)
    pw_literals(arr(x), out)
    x64 = x.astype(np.float64)
    expected = np.stack([x64 ** 2, -(x64 ** 2), np.sqrt(x64), 2.0 ** x64, np.full(100, 512.0),
                         (-x64) ** 3], axis=1).astype(dtype)
    tol = 4e-6 if dtype == np.float32 else 1e-14
    np.testing.assert_allclose(out.numpy(), expected, rtol=tol)
    np.testing.assert_array_equal(out.numpy()[:, 1], -out.numpy()[:, 0])  # -x**2 == -(x**2)


@tack.kernel
def pw_int_literal_exponent(a, out):
    for i in range(len(a)):
        out[i] = a[i] ** 3


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=name)
def test_integer_power_with_literal_exponent(dtype):
    a = np.concatenate([interesting_ints(dtype), random_ints(rng(42), dtype, 500)])
    out = zeros(len(a), dtype)
    pw_int_literal_exponent(arr(a), out)
    expected = [python_int_pow(int(x), 3, dtype) for x in a]
    np.testing.assert_array_equal(out.numpy(), np.array(expected, dtype=dtype))
