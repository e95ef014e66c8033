"""@tack.func device functions: inlined, with early `return` (also from inside loops), nested
calls, array arguments (read and written: a store through a function's parameter is traced to
the kernel's argument), functions returning nothing, and use before the parallel loop."""
import math

import numpy as np
import pytest

import tack
from kutil import arr, fresh_import, rng, zeros


@tack.func
def df_clamp01(x):
    if x < 0.0:
        return 0.0
    return min(x, 1.0)


@tack.kernel
def df_saxpy(a, x, y, out):
    for i in range(x.shape[0]):
        out[i] = df_clamp01(a * x[i] + y[i])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_early_return(dtype):
    r = rng(120)
    x = r.standard_normal(1000).astype(dtype)
    y = r.standard_normal(1000).astype(dtype)
    out = zeros(1000, dtype)
    df_saxpy(2.0, arr(x), arr(y), out)
    v = dtype(2.0) * x + y
    np.testing.assert_array_equal(out.numpy(), np.where(v < 0, 0, np.where(v > 1, 1, v)))


@tack.func
def df_sign_or_first(m, i, threshold):
    # Returns from inside a loop of a function that takes a 2-D array and a row index.
    for j in range(m.shape[1]):
        if m[i, j] > threshold:
            return j
        if m[i, j] < -threshold:
            return -100 - j
    return -1


@tack.kernel
def df_find(m, threshold, out):
    for i in range(m.shape[0]):
        k = tack.i64(-1)
        for j in range(m.shape[1]):
            if m[i, j] > threshold:
                k = j
                break
        out[i, 0] = k
        out[i, 1] = df_sign_or_first(m, i, threshold)


def test_return_from_inside_a_loop():
    m = rng(121).standard_normal((500, 20))
    out = zeros((500, 2), np.int64)
    df_find(arr(m), 1.5, out)
    exp0, exp1 = [], []
    for row in m:
        hits = np.nonzero(row > 1.5)[0]
        exp0.append(hits[0] if len(hits) else -1)
        r = -1
        for j, v in enumerate(row):
            if v > 1.5:
                r = j
                break
            if v < -1.5:
                r = -100 - j
                break
        exp1.append(r)
    np.testing.assert_array_equal(out.numpy()[:, 0], exp0)
    np.testing.assert_array_equal(out.numpy()[:, 1], exp1)


@tack.func
def df_square(v):
    return v * v


@tack.func
def df_norm2(a, b):
    return df_square(a) + df_square(b)


@tack.func
def df_dist(a, b):
    return math.sqrt(df_norm2(a, b))


@tack.kernel
def df_nested(x, y, out):
    for i in range(len(x)):
        out[i] = df_dist(x[i], y[i]) + df_square(df_square(x[i]))


def test_nested_calls():
    r = rng(122)
    x = r.standard_normal(1000)
    y = r.standard_normal(1000)
    out = zeros(1000, np.float64)
    df_nested(arr(x), arr(y), out)
    np.testing.assert_array_equal(out.numpy(), np.sqrt(x * x + y * y) + (x * x) * (x * x))


@tack.func
def df_row_sum(m, i):
    s = m[i, 0] * 0
    for j in range(m.shape[1]):
        s += m[i, j]
    return s


@tack.func
def df_store(out, i, v):
    out[i] = v


@tack.kernel
def df_array_args(m, out):
    for i in range(m.shape[0]):
        df_store(out, i, df_row_sum(m, i))


def test_array_arguments_read_and_written():
    m = rng(123).integers(-100, 100, (300, 13)).astype(np.int32)
    out = zeros(300, np.int32)
    df_array_args(arr(m), out)
    np.testing.assert_array_equal(out.numpy(), m.sum(axis=1))


@pytest.mark.cpu_only("wraps host memory (array_from_ptr over a host address); OpenCL accepts only its own memory")
def test_store_through_a_function_counts_as_a_write():
    # The read-only check sees through inlining: `out` is written by df_store.
    m = np.ones((4, 3), np.int32)
    backing = np.zeros(4, np.int32)
    ro = tack.array_from_ptr(backing, tack.i32, 4)
    with pytest.raises(ValueError):
        df_array_args(arr(m), ro)
    assert not backing.any()


@tack.func
def df_pick(c, a, b):
    if c:
        return a
    else:
        return b


@tack.func
def df_nothing(out, i):
    out[i] = 7
    return


@tack.kernel
def df_branches(x, out, marks):
    for i in range(len(x)):
        out[i] = df_pick(x[i] > 0, x[i], -x[i])
        df_nothing(marks, i)


def test_returns_in_both_branches_and_bare_return():
    x = np.array([3, -4, 0, 9], np.int32)
    out, marks = zeros(4, np.int32), zeros(4, np.int32)
    df_branches(arr(x), out, marks)
    assert out.numpy().tolist() == [3, 4, 0, 9]
    assert marks.numpy().tolist() == [7] * 4


@tack.func
def df_twice(v):
    return v * 2


@tack.kernel
def df_in_prelude(x, out):
    k = df_twice(len(x))
    for i in range(len(x)):
        out[i] = x[i] + k


def test_pure_function_before_the_parallel_loop():
    x = np.arange(5, dtype=np.int64)
    out = zeros(5, np.int64)
    df_in_prelude(arr(x), out)
    np.testing.assert_array_equal(out.numpy(), x + 10)


@tack.func
def df_shadow(v):
    i = v + 1  # the same names as the caller's locals: no clash after inlining
    s = i * 2
    return s


@tack.kernel
def df_name_clash(x, out):
    for i in range(len(x)):
        s = x[i]
        out[i] = df_shadow(s) + s + i


def test_local_names_do_not_clash_after_inlining():
    x = np.array([10, 20, 30], np.int64)
    out = zeros(3, np.int64)
    df_name_clash(arr(x), out)
    assert out.numpy().tolist() == [(10 + 1) * 2 + 10 + 0, (20 + 1) * 2 + 20 + 1,
                                     (30 + 1) * 2 + 30 + 2]


@tack.func
def df_generic_add(a, b):
    return a + b


@tack.kernel
def df_generic(xi, xf, oi, of):
    for i in range(len(xi)):
        oi[i] = df_generic_add(xi[i], xi[i])
        of[i] = df_generic_add(xf[i], 0.25)


def test_one_function_at_two_types():
    xi = np.array([1, 2, 127], np.int8)
    xf = np.array([1.5, -2.0, 0.0], np.float32)
    oi, of = zeros(3, np.int8), zeros(3, np.float32)
    df_generic(arr(xi), arr(xf), oi, of)
    assert oi.numpy().tolist() == [2, 4, -2]
    assert of.numpy().tolist() == [1.75, -1.75, 0.25]


@tack.func
def df_atomic_count(h, b):
    return tack.atomic_add(h, b, 1)


@tack.kernel
def df_hist(x, h):
    for i in range(len(x)):
        df_atomic_count(h, x[i])


def test_atomic_inside_a_device_function():
    x = rng(124).integers(0, 5, 100_000).astype(np.int32)
    h = zeros(5, np.int32)
    df_hist(arr(x), h)
    np.testing.assert_array_equal(h.numpy(), np.bincount(x, minlength=5))



LATE_MODULE = """
import tack


@tack.kernel
def late_kernel(x, out):
    for i in range(len(x)):
        out[i] = late_helper(x[i])


@tack.func
def late_helper(v):
    return v * 3
"""


def test_function_defined_after_the_kernel(tmp_path, monkeypatch):
    # Python resolves a name when the code runs, so a helper may follow the kernel that calls
    # it in a module; Tack must not refuse that program.
    (tmp_path / "df_late_module.py").write_text(LATE_MODULE)
    mod = fresh_import(monkeypatch, tmp_path, "df_late_module")
    out = zeros(3, np.int32)
    mod.late_kernel(arr(np.array([1, 2, 3], np.int32)), out)
    assert out.numpy().tolist() == [3, 6, 9]


HELPER_MODULE = """import tack


@tack.func
def df_other_file_scale(v, k):
    return v * k + 1
"""

KERNEL_MODULE = """import tack
from df_helpers_b import df_other_file_scale


@tack.kernel
def df_cross_file(x, out):
    for i in range(len(x)):
        out[i] = df_other_file_scale(x[i], 3)
"""


def test_function_imported_from_another_module(tmp_path, monkeypatch):
    (tmp_path / "df_helpers_b.py").write_text(HELPER_MODULE)
    (tmp_path / "df_kernel_a.py").write_text(KERNEL_MODULE)
    mod = fresh_import(monkeypatch, tmp_path, "df_kernel_a", "df_helpers_b")
    out = zeros(4, np.int64)
    mod.df_cross_file(arr(np.arange(4, dtype=np.int64)), out)
    assert out.numpy().tolist() == [1, 4, 7, 10]


def test_function_defined_in_an_enclosing_function():
    @tack.func
    def df_local_triple(v):
        return v * 3

    @tack.kernel
    def df_uses_local(x, out):
        for i in range(len(x)):
            out[i] = df_local_triple(x[i])

    out = zeros(3, np.int32)
    df_uses_local(arr(np.array([1, 2, 3], np.int32)), out)
    assert out.numpy().tolist() == [3, 6, 9]


@tack.func
def df_never_called(v):
    try:  # no statement of the kernel language: a CompileError in any kernel that holds it
        return v
    except ValueError:
        return v


@tack.kernel
def df_names_in_comments(x):
    for i in range(len(x)):
        # df_never_called(x[i]) is only mentioned here
        x[i] = x[i] + 1.0  # and "df_never_called(1)" in a comment, not called


def test_a_function_named_only_in_a_comment_is_not_compiled():
    # The device functions are the calls the front end parses (tack::called_names), not every
    # name in the text: a helper mentioned in a comment stays out of the kernel (it once came
    # in, and its `try` failed the kernel).
    x = arr(np.zeros(3, np.float32))
    df_names_in_comments(x)
    assert x.numpy().tolist() == [1.0, 1.0, 1.0]
