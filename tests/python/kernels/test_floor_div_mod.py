"""`//` and `%` floor toward -infinity and take the divisor's sign, for ints and floats, as in
Python; integer division by zero gives 0 (no trap), INT_MIN // -1 wraps; float // 0.0 is x / 0.0
and float % 0.0 is NaN, as NumPy."""
import math

import numpy as np
import pytest

import tack
from kutil import FLOAT_DTYPES, INT_DTYPES, arr, interesting_ints, name, random_ints, rng, \
    special_floats, wrap_int, zeros


@tack.kernel
def fd_divmod(a, b, q, r):
    for i in range(len(a)):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]


@tack.kernel
def fd_augmented(a, b, q, r):
    for i in range(len(a)):
        x = a[i]
        x //= b[i]
        q[i] = x
        y = a[i]
        y %= b[i]
        r[i] = y


def python_int_divmod(x, y, dtype):
    if y == 0:
        return 0, 0
    return wrap_int(x // y, dtype), wrap_int(x % y, dtype)


def int_pairs(dtype, seed):
    e = interesting_ints(dtype)
    r = rng(seed)
    small = random_ints(r, dtype, 2000, max(np.iinfo(dtype).min, -50), 50)
    a = np.concatenate([np.repeat(e, len(e)), random_ints(r, dtype, 2000), small])
    b = np.concatenate([np.tile(e, len(e)), random_ints(r, dtype, 2000), small[::-1].copy()])
    return a, b


@pytest.mark.parametrize("kernel", [fd_divmod, fd_augmented], ids=["binary", "augmented"])
@pytest.mark.parametrize("dtype", INT_DTYPES, ids=name)
def test_integer_floor_division_and_modulo(dtype, kernel):
    a, b = int_pairs(dtype, 30)
    q, r = zeros(len(a), dtype), zeros(len(a), dtype)
    kernel(arr(a), arr(b), q, r)
    exp = [python_int_divmod(int(x), int(y), dtype) for x, y in zip(a, b)]
    np.testing.assert_array_equal(q.numpy(), np.array([e[0] for e in exp], dtype=dtype))
    np.testing.assert_array_equal(r.numpy(), np.array([e[1] for e in exp], dtype=dtype))


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=name)
def test_integer_division_matches_numpy(dtype):
    a, b = int_pairs(dtype, 31)
    q, r = zeros(len(a), dtype), zeros(len(a), dtype)
    fd_divmod(arr(a), arr(b), q, r)
    with np.errstate(all="ignore"):
        # NumPy: x // 0 == 0 and x % 0 == 0 for integers; INT_MIN // -1 wraps.
        np.testing.assert_array_equal(q.numpy(), np.floor_divide(a, b))
        np.testing.assert_array_equal(r.numpy(), np.remainder(a, b))


def test_signed_table():
    cases = [(7, 2), (-7, 2), (7, -2), (-7, -2), (0, 3), (0, -3), (6, 3), (-6, 3), (1, 0),
             (-1, 0), (0, 0), (-2 ** 31, -1), (-2 ** 31, 1), (2 ** 31 - 1, -1), (5, -7)]
    a = np.array([c[0] for c in cases], np.int32)
    b = np.array([c[1] for c in cases], np.int32)
    q, r = zeros(len(a), np.int32), zeros(len(a), np.int32)
    fd_divmod(arr(a), arr(b), q, r)
    assert q.numpy().tolist() == [python_int_divmod(x, y, np.int32)[0] for x, y in cases]
    assert r.numpy().tolist() == [python_int_divmod(x, y, np.int32)[1] for x, y in cases]
    assert q.numpy()[11] == -2 ** 31 and r.numpy()[11] == 0  # INT_MIN // -1 wraps, % is 0


@tack.kernel
def fd_literal_divisor(a, q, r):
    for i in range(len(a)):
        q[i] = a[i] // -3
        r[i] = a[i] % -3


def test_literal_negative_divisor():
    a = np.arange(-20, 21, dtype=np.int16)
    q, r = zeros(len(a), np.int16), zeros(len(a), np.int16)
    fd_literal_divisor(arr(a), q, r)
    np.testing.assert_array_equal(q.numpy(), a // np.int16(-3))
    np.testing.assert_array_equal(r.numpy(), a % np.int16(-3))


def float_pairs(dtype, seed):
    e = special_floats(dtype)
    r = rng(seed)
    x = (r.standard_normal(4000) * 50).astype(dtype)
    y = (r.standard_normal(4000) * 5).astype(dtype)
    y[::7] = np.round(y[::7])  # exact multiples and integer divisors
    y[y == 0] = 1
    ints = r.integers(-30, 30, 1000).astype(dtype)
    a = np.concatenate([np.repeat(e, len(e)), x, ints])
    b = np.concatenate([np.tile(e, len(e)), y, np.roll(ints, 1)])
    return a, b


@pytest.mark.parametrize("kernel", [fd_divmod, fd_augmented], ids=["binary", "augmented"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=name)
def test_float_floor_division_and_modulo_match_numpy(dtype, kernel):
    a, b = float_pairs(dtype, 32)
    q, r = zeros(len(a), dtype), zeros(len(a), dtype)
    kernel(arr(a), arr(b), q, r)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(q.numpy(), np.floor_divide(a, b))
        np.testing.assert_array_equal(r.numpy(), np.remainder(a, b))
    # The remainder takes the divisor's sign, as in Python (where it is not NaN or zero).
    rr = r.numpy()
    nz = np.isfinite(rr) & (rr != 0)
    assert (np.sign(rr[nz]) == np.sign(b[nz])).all()


def test_float64_matches_python_operators():
    vals = [7.5, -7.5, 2.0, -2.0, 0.3, -0.3, 1e300, -1e-300, 5.0, -0.0, 0.0, 3.0]
    a = np.array([x for x in vals for _ in vals])
    b = np.array([y for _ in vals for y in vals])
    keep = b != 0
    a, b = a[keep], b[keep]
    q, r = zeros(len(a), np.float64), zeros(len(a), np.float64)
    fd_divmod(arr(a), arr(b), q, r)
    for x, y, gq, gr in zip(a, b, q.numpy(), r.numpy()):
        eq, er = float(x) // float(y), float(x) % float(y)
        assert gq == eq and math.copysign(1, gq) == math.copysign(1, eq), (x, y, gq, eq)
        assert gr == er and math.copysign(1, gr) == math.copysign(1, er), (x, y, gr, er)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=name)
def test_float_division_by_zero(dtype):
    a = np.array([1.0, -1.0, 0.0, np.inf, np.nan, -2.5], dtype=dtype)
    b = np.array([0.0, 0.0, 0.0, 0.0, 0.0, -0.0], dtype=dtype)
    q, r = zeros(len(a), dtype), zeros(len(a), dtype)
    fd_divmod(arr(a), arr(b), q, r)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(q.numpy(), a / b)  # x // 0.0 == x / 0.0
    assert np.isnan(r.numpy()).all()  # x % 0.0 is NaN


@tack.kernel
def fd_mixed(a, q, r):
    for i in range(len(a)):
        q[i] = a[i] // 2.5
        r[i] = a[i] % 2.5


def test_int_floor_divided_by_float_literal_is_float():
    a = np.arange(-10, 11, dtype=np.int32)
    q, r = zeros(len(a), np.float32), zeros(len(a), np.float32)
    fd_mixed(arr(a), q, r)
    af = a.astype(np.float32)
    np.testing.assert_array_equal(q.numpy(), np.floor_divide(af, np.float32(2.5)))
    np.testing.assert_array_equal(r.numpy(), np.remainder(af, np.float32(2.5)))
