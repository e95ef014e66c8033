"""Local fixed-size arrays (tack.zeros((n,), dtype) inside a kernel): zero-filled at their
declaration, private to one iteration, 1-D and 2-D, of several types, passed to device
functions. (The loops here take their trip counts from arguments or shapes: loops with
constant bounds are covered, and currently fail, in test_control_flow.py.)"""
import numpy as np
import pytest

import tack
from kutil import arr, rng, zeros


@tack.kernel
def la_reverse(x, out):
    for i in range(x.shape[0]):
        buf = tack.zeros((8,), tack.f32)
        before = 0.0
        for j in range(x.shape[1]):
            before += buf[j]  # zero-filled, whatever another iteration stored
        for j in range(x.shape[1]):
            buf[j] = x[i, j]
        for j in range(x.shape[1]):
            out[i, j] = buf[7 - j] + before


def test_zero_filled_private_reverse():
    x = rng(110).standard_normal((5000, 8)).astype(np.float32)
    out = zeros((5000, 8), np.float32)
    la_reverse(arr(x), out)
    np.testing.assert_array_equal(out.numpy(), x[:, ::-1])


@tack.kernel
def la_sort_rows(x, out):
    for i in range(x.shape[0]):
        buf = tack.zeros((16,), tack.i32)
        n = x.shape[1]
        for j in range(n):
            buf[j] = x[i, j]
        for j in range(1, n):  # insertion sort
            v = buf[j]
            k = j - 1
            while k >= 0 and buf[k] > v:
                buf[k + 1] = buf[k]
                k -= 1
            buf[k + 1] = v
        for j in range(n):
            out[i, j] = buf[j]


@pytest.mark.parametrize("width", [1, 2, 9, 16])
def test_insertion_sort_in_a_local_array(width):
    x = rng(111).integers(-1000, 1000, (3000, width)).astype(np.int32)
    out = zeros((3000, width), np.int32)
    la_sort_rows(arr(x), out)
    np.testing.assert_array_equal(out.numpy(), np.sort(x, axis=1))


@tack.kernel
def la_matrix(a, n, out):
    for i in range(a.shape[0]):
        m = tack.zeros((3, 3), tack.f64)
        for r in range(n):
            for c in range(n):
                m[r, c] = a[i, r * 3 + c]
        for r in range(n):
            for c in range(n):
                s = 0.0
                for k in range(n):
                    s += m[r, k] * m[k, c]
                out[i, r * 3 + c] = s


def test_two_dimensional_local_array():
    a = rng(112).integers(-9, 9, (400, 9)).astype(np.float64)
    out = zeros((400, 9), np.float64)
    la_matrix(arr(a), 3, out)
    m = a.reshape(400, 3, 3)
    np.testing.assert_array_equal(out.numpy(), np.einsum("nrk,nkc->nrc", m, m).reshape(400, 9))


@tack.kernel
def la_digit_histogram(x, out):
    for i in range(len(x)):
        h = tack.zeros((10,), tack.u8)
        v = x[i]
        while v > 0:
            h[v % 10] += 1
            v = v // 10
        for d in range(out.shape[1]):
            out[i, d] = h[d]


def test_integer_local_histogram():
    x = rng(113).integers(0, 2 ** 62, 2000, dtype=np.int64)
    x[:3] = [0, 10, 999999]
    out = zeros((2000, 10), np.uint8)
    la_digit_histogram(arr(x), out)
    expected = np.array([[str(int(v)).count(str(d)) if v > 0 else 0 for d in range(10)]
                         for v in x], np.uint8)
    np.testing.assert_array_equal(out.numpy(), expected)


@tack.kernel
def la_window(x, width, out):
    for i in range(len(out)):
        w = tack.zeros((4,), tack.i64)
        for j in range(width):
            w[j] = x[i + j]
        s = w[0]
        for j in range(1, width):
            s += w[j] * (j + 1)
        out[i] = s


def test_sliding_window():
    x = rng(114).integers(-1000, 1000, 1003).astype(np.int64)
    out = zeros(1000, np.int64)
    la_window(arr(x), 4, out)
    expected = x[:-3] + 2 * x[1:-2] + 3 * x[2:-1] + 4 * x[3:]
    np.testing.assert_array_equal(out.numpy(), expected)


@tack.func
def la_sum_local(buf, n):
    s = buf[0] * 0
    for j in range(n):
        s += buf[j]
    return s


@tack.func
def la_fill_local(buf, n, v):
    for j in range(n):
        buf[j] = v + j


@tack.kernel
def la_through_funcs(x, n, out):
    for i in range(len(x)):
        buf = tack.zeros((6,), tack.i32)
        la_fill_local(buf, n, x[i])
        out[i] = la_sum_local(buf, n)


def test_local_array_passed_to_device_functions():
    x = np.arange(-50, 50, dtype=np.int32)
    out = zeros(100, np.int32)
    la_through_funcs(arr(x), 6, out)
    np.testing.assert_array_equal(out.numpy(), 6 * x + 15)


@tack.kernel
def la_redeclared_in_loop(x, reps, out):
    for i in range(len(x)):
        total = 0
        for rep in range(reps):
            b = tack.zeros((2,), tack.i32)
            b[0] += x[i]
            b[1] += rep
            total += b[0] + b[1]
        out[i] = total


def test_local_array_is_zeroed_at_each_declaration():
    x = np.array([1, 2, 3], np.int32)
    out = zeros(3, np.int32)
    la_redeclared_in_loop(arr(x), 3, out)
    np.testing.assert_array_equal(out.numpy(), 3 * x + 3)


def test_too_large_local_array_is_a_compile_error_not_a_crash():
    @tack.kernel
    def la_huge(x, out):
        for i in range(len(x)):
            buf = tack.zeros((1_000_000,), tack.f32)
            buf[i % 7] = x[i]
            out[i] = buf[i % 7]

    with pytest.raises(tack.CompileError, match="local array"):
        la_huge(zeros(100, np.float32), zeros(100, np.float32))


def test_largest_local_arrays_work_on_the_workers():
    # 16 KiB of f32 per iteration, many iterations fanned out over the worker threads.
    @tack.kernel
    def la_big(x, out):
        for i in range(len(x)):
            buf = tack.zeros((4096,), tack.f32)
            buf[i % 4096] = x[i]
            out[i] = buf[i % 4096] + buf[(i + 1) % 4096]

    x = rng(115).standard_normal(200_000).astype(np.float32)
    out = zeros(200_000, np.float32)
    la_big(arr(x), out)
    np.testing.assert_array_equal(out.numpy(), x)


LA_PAIR = 2  # a module constant: local array shapes may use it


@tack.kernel
def la_original_names(data, out):
    for i in range(data.shape[0]):
        tmp = tack.local_array(tack.i32, LA_PAIR)
        copy = tack.local_array_like(data, (LA_PAIR, LA_PAIR * 2))
        tmp[0] = tack.i32(data[i])
        tmp[1] = tmp[0] * 2
        copy[1, 3] = tmp[1]
        out[i] = copy[1, 3] + copy[0, 0]  # zero-filled, as tack.zeros


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_local_array_and_local_array_like(dtype):
    x = np.arange(-5, 6).astype(dtype)
    out = zeros(11, dtype)
    la_original_names(arr(x), out)
    np.testing.assert_array_equal(out.numpy(), (x.astype(np.int32) * 2).astype(dtype))


def test_local_array_like_needs_an_array():
    @tack.kernel
    def la_like_number(x, n):
        for i in range(len(x)):
            b = tack.local_array_like(n, 4)
            x[i] = b[0]

    with pytest.raises(tack.CompileError, match=r"tack.local_array_like\(\) needs an array"):
        la_like_number(zeros(2, np.float32), 3)


def test_local_array_shape_must_be_a_constant():
    @tack.kernel
    def la_runtime_shape(x):
        for i in range(len(x)):
            b = tack.local_array(tack.f32, len(x))
            x[i] = b[0]

    with pytest.raises(tack.CompileError, match="must be positive integer constants"):
        la_runtime_shape(zeros(2, np.float32))
