"""Comparisons (< <= > >= == !=, chained, mixed signedness, IEEE NaN) and and/or/not with
short-circuit evaluation (the right operand runs only when needed)."""
import numpy as np
import pytest

import tack
from kutil import ALL_DTYPES, FLOAT_DTYPES, arr, interesting_ints, name, random_array, rng, \
    special_floats, zeros


@tack.kernel
def cl_compare(a, b, out):
    for i in range(len(a)):
        out[0, i] = 1 if a[i] < b[i] else 0
        out[1, i] = 1 if a[i] <= b[i] else 0
        out[2, i] = 1 if a[i] > b[i] else 0
        out[3, i] = 1 if a[i] >= b[i] else 0
        out[4, i] = 1 if a[i] == b[i] else 0
        out[5, i] = 1 if a[i] != b[i] else 0


def pairs(dtype, seed):
    if np.issubdtype(dtype, np.floating):
        e = special_floats(dtype)
    else:
        e = interesting_ints(dtype)
    r = rng(seed)
    x = random_array(r, dtype, 500)
    return (np.concatenate([np.repeat(e, len(e)), x, x]),
            np.concatenate([np.tile(e, len(e)), random_array(r, dtype, 500), x]))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_six_comparisons(dtype):
    a, b = pairs(dtype, 70)
    out = zeros((6, len(a)), np.int32)
    cl_compare(arr(a), arr(b), out)
    expected = np.stack([a < b, a <= b, a > b, a >= b, a == b, a != b]).astype(np.int32)
    np.testing.assert_array_equal(out.numpy(), expected)  # NaN: all false except !=


@tack.kernel
def cl_store_bool(a, b, out):
    for i in range(len(a)):
        out[i] = a[i] < b[i]


def test_comparison_stored_as_zero_or_one():
    a = np.array([1, 5, -3, 7], np.int32)
    b = np.array([2, 5, -4, 8], np.int32)
    out = zeros(4, np.int32)
    cl_store_bool(arr(a), arr(b), out)
    assert out.numpy().tolist() == [1, 0, 0, 1]


@tack.kernel
def cl_mixed_sign(s, u, out):
    for i in range(len(s)):
        out[0, i] = 1 if s[i] < u[i] else 0
        out[1, i] = 1 if s[i] == u[i] else 0


@pytest.mark.parametrize("sdt, udt", [(np.int8, np.uint8), (np.int32, np.uint32),
                                      (np.int16, np.uint8), (np.int64, np.uint32)],
                         ids=lambda d: name(d))
def test_signed_with_unsigned_compares_values(sdt, udt):
    # Python compares the values: -1 < 200 holds (C's usual conversions would say no).
    s = np.array([-1, -1, 0, 5, np.iinfo(sdt).min, np.iinfo(sdt).max], sdt)
    u = np.array([np.iinfo(udt).max, 0, 0, 5, 0, np.iinfo(udt).max], udt)
    out = zeros((2, len(s)), np.int32)
    cl_mixed_sign(arr(s), arr(u), out)
    si, ui = [int(v) for v in s], [int(v) for v in u]
    assert out.numpy()[0].tolist() == [int(x < y) for x, y in zip(si, ui)]
    assert out.numpy()[1].tolist() == [int(x == y) for x, y in zip(si, ui)]


@tack.kernel
def cl_int_vs_float_literal(a, out):
    for i in range(len(a)):
        out[i] = 1 if a[i] < 2.5 else 0


def test_int_compared_with_float_literal():
    a = np.array([1, 2, 3, -5], np.int32)
    out = zeros(4, np.int32)
    cl_int_vs_float_literal(arr(a), out)
    assert out.numpy().tolist() == [1, 1, 0, 1]


@tack.kernel
def cl_chained(x, lo, hi, out):
    for i in range(len(x)):
        out[i] = 1 if lo <= x[i] < hi else 0


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64], ids=name)
def test_chained_comparison(dtype):
    x = np.array([-3, 0, 1, 4, 5, 9, 10], dtype)
    out = zeros(len(x), np.int32)
    cl_chained(arr(x), 0, 5, out)
    assert out.numpy().tolist() == [int(0 <= v < 5) for v in x]


@tack.kernel
def cl_chained_middle_once(counter, out):
    for i in range(len(out)):
        out[i] = 1 if -1 < tack.atomic_add(counter, 0, 1) < 1000000 else 0


def test_chained_comparison_evaluates_the_middle_once():
    counter = zeros(1, np.int32)
    out = zeros(100, np.int32)
    cl_chained_middle_once(counter, out)
    assert counter.numpy()[0] == 100
    assert out.numpy().tolist() == [1] * 100


@tack.kernel
def cl_logic(a, b, out):
    for i in range(len(a)):
        p = a[i] > 0
        q = b[i] > 0
        out[0, i] = 1 if p and q else 0
        out[1, i] = 1 if p or q else 0
        out[2, i] = 1 if not p else 0
        out[3, i] = 1 if not (p and not q) or (a[i] == b[i]) else 0
        out[4, i] = 1 if a[i] and b[i] else 0


def test_truth_tables():
    a = np.array([1, 1, -1, -1, 0, 3], np.int32)
    b = np.array([1, -1, 1, -1, 0, 0], np.int32)
    out = zeros((5, len(a)), np.int32)
    cl_logic(arr(a), arr(b), out)
    p, q = a > 0, b > 0
    expected = np.stack([p & q, p | q, ~p, ~(p & ~q) | (a == b), (a != 0) & (b != 0)])
    np.testing.assert_array_equal(out.numpy(), expected.astype(np.int32))


@tack.kernel
def cl_short_circuit_atomics(x, counter):
    for i in range(len(x)):
        if x[i] > 0 and tack.atomic_add(counter, 0, 1) >= 0:
            pass
        if x[i] > 0 or tack.atomic_add(counter, 1, 1) >= 0:
            pass


def test_and_or_short_circuit():
    x = np.array([1.0, -1.0, 2.0, 0.0, 3.0, -4.0, 5.0], np.float32)
    counter = zeros(2, np.int32)
    cl_short_circuit_atomics(arr(x), counter)
    # The atomic of `and` runs only for positives, that of `or` only for non-positives.
    assert counter.numpy().tolist() == [4, 3]


@tack.kernel
def cl_short_circuit_guard(x, out):
    for i in range(len(out)):
        ok = i + 1 < len(x) and x[i + 1] > 0.0
        out[i] = 1 if ok else 0
        out[i] += 2 if i + 1 >= len(x) or x[i + 1] < 0.0 else 0


def test_short_circuit_guards_an_out_of_bounds_load_in_debug_mode():
    # In debug mode every executed load is checked; the guarded loads never run out of bounds.
    tack.set_debug(True)
    x = np.array([1.0, 2.0, -3.0, 4.0], np.float32)
    out = zeros(4, np.int32)
    cl_short_circuit_guard(arr(x), out)
    assert out.numpy().tolist() == [1, 2, 1, 2]


@tack.kernel
def cl_nan_logic(x, out):
    for i in range(len(x)):
        out[0, i] = 1 if not (x[i] == x[i]) else 0
        out[1, i] = 1 if x[i] != x[i] else 0
        out[2, i] = 1 if not x[i] < 0.0 and not x[i] >= 0.0 else 0


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=name)
def test_nan_is_unordered(dtype):
    x = np.array([np.nan, 1.0, -np.inf, -0.0], dtype)
    out = zeros((3, 4), np.int32)
    cl_nan_logic(arr(x), out)
    expected = np.isnan(x).astype(np.int32)
    np.testing.assert_array_equal(out.numpy(), np.stack([expected] * 3))
