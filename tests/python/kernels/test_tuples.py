"""Tuples (docs/design/tuples.md, docs/language.md "Tuples"): swaps and rotations with the right
side evaluated first, element swaps in arrays, tuple locals, device functions returning tuples
(types merged per element), tuple arguments, nested unpacking; the misuse errors. Written once,
run on every device (the `device` fixture)."""
import numpy as np
import pytest

import tack
from kutil import arr, rng, zeros


@tack.kernel
def tu_rotate(x, y, z):
    for i in range(len(x)):
        a, b, c = x[i], y[i], z[i]
        a, b, c = c, a, b
        x[i], y[i], z[i] = a, b, c


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_rotation_evaluates_the_right_side_first(dtype):
    r = rng(300)
    x, y, z = (r.integers(-50, 50, 257).astype(dtype) for _ in range(3))
    tx, ty, tz = arr(x), arr(y), arr(z)
    tu_rotate(tx, ty, tz)
    np.testing.assert_array_equal(tx.numpy(), z)
    np.testing.assert_array_equal(ty.numpy(), x)
    np.testing.assert_array_equal(tz.numpy(), y)


@tack.kernel
def tu_swap_pairs(x):
    for k in range(len(x) // 2):
        i = 2 * k
        x[i], x[i + 1] = x[i + 1], x[i]


def test_element_swap_in_one_array():
    x = np.arange(100, dtype=np.float32)
    t = arr(x)
    tu_swap_pairs(t)
    np.testing.assert_array_equal(t.numpy(), x.reshape(-1, 2)[:, ::-1].ravel())


@tack.func
def tu_order(a, b):
    if a <= b:
        return a, b, 0
    return b, a, 1.5


@tack.kernel
def tu_sort2(x, y, lo, hi, flag):
    for i in range(len(x)):
        low, high, f = tu_order(x[i], y[i])
        lo[i], hi[i] = low, high
        flag[i] = f


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_function_returns_a_tuple_with_merged_element_types(dtype):
    r = rng(301)
    x = r.standard_normal(500).astype(dtype)
    y = r.standard_normal(500).astype(dtype)
    lo, hi, flag = zeros(500, dtype), zeros(500, dtype), zeros(500, dtype)
    tu_sort2(arr(x), arr(y), lo, hi, flag)
    np.testing.assert_array_equal(lo.numpy(), np.minimum(x, y))
    np.testing.assert_array_equal(hi.numpy(), np.maximum(x, y))
    np.testing.assert_array_equal(flag.numpy(), np.where(x <= y, 0, 1.5).astype(dtype))


@tack.func
def tu_divmod(a, b):
    return a // b, a % b


@tack.func
def tu_swapped(p):
    return p[1], p[0]


@tack.kernel
def tu_tuple_values(x, q, r, s):
    for i in range(len(x)):
        t = tu_divmod(x[i], 7)
        q[i], r[i] = t
        u = tu_swapped(t)
        (m, n), w = u, len(u)
        s[i] = m * 100 + n * 10 + w


def test_tuple_locals_arguments_and_nested_unpacking():
    x = np.arange(-40, 60, dtype=np.int32)
    q, r, s = zeros(100, np.int32), zeros(100, np.int32), zeros(100, np.int32)
    tu_tuple_values(arr(x), q, r, s)
    np.testing.assert_array_equal(q.numpy(), x // 7)
    np.testing.assert_array_equal(r.numpy(), x % 7)
    np.testing.assert_array_equal(s.numpy(), (x % 7) * 100 + (x // 7) * 10 + 2)


@tack.kernel
def tu_branch(x, out):
    for i in range(len(x)):
        if x[i] > 0:
            t = (1, x[i])
        else:
            t = (-1, -x[i])
        out[i] = t[0] * t[1]


def test_tuple_first_assigned_in_branches():
    x = rng(302).standard_normal(300).astype(np.float32)
    out = zeros(300, np.float32)
    tu_branch(arr(x), out)
    np.testing.assert_array_equal(out.numpy(), np.where(x > 0, x, x))


def test_unpacking_the_wrong_count_is_a_compile_error():
    @tack.kernel
    def tu_bad_count(x):
        for i in range(len(x)):
            a, b = x[i], 1.0, 2.0
            x[i] = a + b

    with pytest.raises(tack.CompileError, match="cannot unpack a tuple of 3 elements"):
        tu_bad_count(zeros(4, np.float32))


def test_a_tuple_is_not_a_number():
    @tack.kernel
    def tu_bad_sum(x):
        for i in range(len(x)):
            t = (x[i], 1.0)
            x[i] = t * 2

    with pytest.raises(tack.CompileError, match=r"is not a number; a number is needed here"):
        tu_bad_sum(zeros(4, np.float32))

