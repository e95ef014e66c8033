"""Debug mode (tack.set_debug(True)): every array index is checked against the array's own
shape (a view's, not its root's); an out-of-bounds access is skipped (a load gives 0, a store or
an atomic does nothing) and the call raises IndexError naming the kernel, the array, the index
and the shape. In-bounds kernels run normally; debug mode is part of the variant key."""
import re

import numpy as np
import pytest

import tack
from kutil import arr, zeros


@tack.kernel
def dm_shift_load(a, out):
    for i in range(len(out)):
        out[i] = a[i + 1]


def test_out_of_bounds_load_is_skipped_and_raises():
    tack.set_debug(True)
    a = arr(np.arange(1, 9, dtype=np.float32))
    out = arr(np.full(8, -1.0, np.float32))
    with pytest.raises(IndexError) as ei:
        dm_shift_load(a, out)
    msg = str(ei.value)
    assert "dm_shift_load" in msg and "'a'" in msg
    assert re.search(r"\b8\b", msg)  # the index
    assert "(8,)" in msg or "[8]" in msg  # the shape
    # The other iterations ran; the out-of-bounds load gave 0.
    np.testing.assert_array_equal(out.numpy(), [2, 3, 4, 5, 6, 7, 8, 0])


@tack.kernel
def dm_shift_store(a, n):
    for i in range(n):
        a[i + 2] = 5.0


def test_out_of_bounds_store_past_a_views_rows_inside_its_root():
    tack.set_debug(True)
    root = zeros(10, np.float32)
    view = root[2:6]  # 4 rows; root rows 6.. lie beyond the view
    with pytest.raises(IndexError) as ei:
        dm_shift_store(view, 4)  # stores view[2..5]: 4 and 5 are outside the view
    msg = str(ei.value)
    assert "dm_shift_store" in msg and "'a'" in msg and "(4,)" in msg
    assert re.search(r"\b[45]\b", msg)
    # In bounds stores happened; the skipped ones did not reach the root.
    np.testing.assert_array_equal(root.numpy(), [0, 0, 0, 0, 5, 5, 0, 0, 0, 0])


@tack.kernel
def dm_rows(m, r):
    for i, j in tack.ndrange(r, m.shape[1]):
        m[i, j] = 1


def test_view_rows_of_a_2d_root():
    tack.set_debug(True)
    root = zeros((6, 5), np.int32)
    view = root[1:4]  # shape (3, 5)
    with pytest.raises(IndexError) as ei:
        dm_rows(view, 4)
    msg = str(ei.value)
    assert "dm_rows" in msg and "'m'" in msg and "(3, 5)" in msg and re.search(r"\b3\b", msg)
    expected = np.zeros((6, 5), np.int32)
    expected[1:4] = 1
    np.testing.assert_array_equal(root.numpy(), expected)


@tack.kernel
def dm_col(m, j, out):
    for i in range(m.shape[0]):
        out[i] = m[i, j]


def test_each_axis_is_checked_not_the_flat_extent():
    # m[0, 5] of a (4, 4) array lies inside the 16 elements but outside axis 1.
    tack.set_debug(True)
    m = arr(np.arange(16, dtype=np.int32).reshape(4, 4))
    out = arr(np.full(4, -1, np.int32))
    with pytest.raises(IndexError) as ei:
        dm_col(m, 5, out)
    msg = str(ei.value)
    assert "dm_col" in msg and "'m'" in msg and "5" in msg and "(4, 4)" in msg
    assert out.numpy().tolist() == [0, 0, 0, 0]


@tack.kernel
def dm_negative(a, out):
    for i in range(len(out)):
        out[i] = a[i - 1]


def test_negative_index_is_out_of_bounds():
    tack.set_debug(True)
    a = arr(np.arange(1, 5, dtype=np.int64))
    out = arr(np.full(4, 9, np.int64))
    with pytest.raises(IndexError, match="dm_negative"):
        dm_negative(a, out)
    assert out.numpy().tolist() == [0, 1, 2, 3]


@tack.kernel
def dm_atomic(bins, h):
    for i in range(len(bins)):
        tack.atomic_add(h, bins[i], 1)


def test_out_of_bounds_atomic_is_skipped():
    tack.set_debug(True)
    h = zeros(4, np.int32)
    with pytest.raises(IndexError, match="'h'"):
        dm_atomic(arr(np.array([0, 1, 4, 3, 1, 100], np.int32)), h)
    assert h.numpy().tolist() == [1, 2, 0, 1]


@tack.kernel
def dm_ok(x, out):
    for i in range(len(x)):
        out[i] = x[i] * 2 + x[len(x) - 1 - i]


def test_a_kernel_on_16_elements_works():
    tack.set_debug(True)
    x = np.arange(16, dtype=np.float32)
    out = zeros(16, np.float32)
    dm_ok(arr(x), out)
    np.testing.assert_array_equal(out.numpy(), x * 2 + x[::-1])


def test_large_in_bounds_kernel_in_debug_mode():
    tack.set_debug(True)
    x = np.arange(1_000_000, dtype=np.float32)
    out = zeros(1_000_000, np.float32)
    dm_ok(arr(x), out)
    np.testing.assert_array_equal(out.numpy(), x * 2 + x[::-1])


def test_debug_mode_is_part_of_the_variant_key():
    @tack.kernel
    def dm_keyed(x, out):
        for i in range(len(x)):
            out[i] = x[i + 1]

    x = arr(np.arange(5, dtype=np.float32))
    out = zeros(4, np.float32)
    dm_keyed(x, out)
    assert dm_keyed.variant_count == 1
    tack.set_debug(True)
    bigger_out = zeros(5, np.float32)
    with pytest.raises(IndexError):
        dm_keyed(x, bigger_out)
    assert dm_keyed.variant_count == 2
    tack.set_debug(False)
    dm_keyed(x, out)
    assert dm_keyed.variant_count == 2
    np.testing.assert_array_equal(out.numpy(), [1, 2, 3, 4])


def test_debug_switch_reads_back():
    tack.set_debug(True)
    assert tack.debug()
    tack.set_debug(False)
    assert not tack.debug()


def test_no_error_after_a_failed_debug_call():
    tack.set_debug(True)
    a = arr(np.arange(4, dtype=np.float32))
    with pytest.raises(IndexError):
        dm_shift_load(a, zeros(4, np.float32))
    out = zeros(3, np.float32)
    dm_shift_load(a, out)  # the next, in-bounds call does not report the old violation
    assert out.numpy().tolist() == [1, 2, 3]


def test_violation_found_in_a_parallel_launch():
    # 2M iterations fan out over the workers; the one bad access is still reported.
    tack.set_debug(True)
    n = 2_000_000
    a = arr(np.ones(n, np.float32))
    out = zeros(n, np.float32)
    with pytest.raises(IndexError, match=r"index 2000000\b"):
        dm_shift_load(a, out)
    got = out.numpy()
    assert got[:-1].all() and got[-1] == 0


@tack.kernel
def dm_local(x, n, out):
    for i in range(len(x)):
        buf = tack.zeros((4,), tack.f32)
        for j in range(n):
            buf[j] = x[i] + 1.0
        out[i] = buf[n - 1]


def test_local_array_index_is_checked_too():
    tack.set_debug(True)
    x = arr(np.arange(3, dtype=np.float32))
    out = arr(np.full(3, -1.0, np.float32))
    with pytest.raises(IndexError, match="dm_local"):
        dm_local(x, 6, out)  # buf[4], buf[5] are skipped, buf[5] loads 0
    assert out.numpy().tolist() == [0.0, 0.0, 0.0]
    out2 = zeros(3, np.float32)
    dm_local(x, 4, out2)
    assert out2.numpy().tolist() == [1.0, 2.0, 3.0]
