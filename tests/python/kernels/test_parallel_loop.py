"""The top-level parallel loop: range(stop), range(start, stop), range(start, stop, step) with
any sign of step, empty and large launches (large ones fan out over the workers), prelude
statements before the loop, and the launch length never recompiling."""
import numpy as np
import pytest

import tack
from kutil import arr, rng, zeros


@tack.kernel
def pl_mark(out):
    for i in range(len(out)):
        out[i] += 1


@pytest.mark.parametrize("n", [0, 1, 2, 15, 16, 17, 511, 512, 513, 4097, 1_000_003])
def test_every_iteration_runs_exactly_once(n):
    out = zeros(n, np.int32)
    pl_mark(out)
    np.testing.assert_array_equal(out.numpy(), np.ones(n, np.int32))


def test_launch_length_does_not_recompile():
    @tack.kernel
    def pl_mark_local(out):
        for i in range(len(out)):
            out[i] += 1

    for n in [1, 7, 100, 5000, 3]:
        pl_mark_local(zeros(n, np.int32))
    assert pl_mark_local.variant_count == 1


@tack.kernel
def pl_index(n, out):
    for i in range(n):
        out[i] = i * 3


def test_range_of_a_scalar():
    out = arr(np.full(10, -1, np.int32))
    pl_index(7, out)
    assert out.numpy().tolist() == [0, 3, 6, 9, 12, 15, 18, -1, -1, -1]


@tack.kernel
def pl_start_stop_step(start, stop, step, out):
    for i in range(start, stop, step):
        out[i] = out[i] + 1


@pytest.mark.parametrize("start, stop, step", [
    (0, 20, 1), (3, 20, 1), (3, 20, 4), (19, -1, -1), (19, 2, -5), (5, 5, 1), (10, 2, 1),
    (2, 10, -1), (0, 20, 100), (19, -1, -100), (0, 20, 0),
])
def test_range_start_stop_step(start, stop, step):
    out = zeros(20, np.int32)
    pl_start_stop_step(start, stop, step, out)
    expected = np.zeros(20, np.int32)
    if step != 0:  # step 0 runs no iteration
        for i in range(start, stop, step):
            expected[i] += 1
    np.testing.assert_array_equal(out.numpy(), expected)


@tack.kernel
def pl_two_args(x, out):
    for i in range(2, len(x)):
        out[i] = x[i] + x[i - 1] + x[i - 2]


def test_range_start_stop():
    x = rng(90).integers(-100, 100, 1000).astype(np.int64)
    out = zeros(1000, np.int64)
    pl_two_args(arr(x), out)
    expected = np.zeros(1000, np.int64)
    expected[2:] = x[2:] + x[1:-1] + x[:-2]
    np.testing.assert_array_equal(out.numpy(), expected)


@tack.kernel
def pl_prelude(x, scale, out):
    n = len(x)
    half = n // 2
    s2 = scale * 2.0
    off = min(half, 3)
    for i in range(half):
        out[i] = x[i + half] * s2 + off


def test_prelude_statements():
    x = np.arange(10, dtype=np.float32)
    out = zeros(5, np.float32)
    pl_prelude(arr(x), 0.5, out)
    np.testing.assert_array_equal(out.numpy(), x[5:] * 1.0 + 3)


@tack.kernel
def pl_shape(x, out):
    for i in range(x.shape[0]):
        out[i] = x.shape[0] * 1000 + x.shape[1] * 10 + x.shape[2] + len(x)


def test_shape_and_len():
    x = zeros((4, 5, 6), np.int8)
    out = zeros(4, np.int64)
    pl_shape(x, out)
    assert out.numpy().tolist() == [4 * 1000 + 50 + 6 + 4] * 4


@tack.kernel
def pl_heavy_iterations(n_inner, out):
    for i in range(len(out)):
        s = tack.i64(0)
        for k in range(n_inner):
            s += (k ^ i) & 7
        out[i] = s


def test_few_iterations_with_heavy_bodies():
    # 16 iterations that each loop long: the threading policy may fan out; results must match.
    out = zeros(16, np.int64)
    pl_heavy_iterations(200_000, out)
    k = np.arange(200_000, dtype=np.int64)
    expected = [int(((k ^ i) & 7).sum()) for i in range(16)]
    np.testing.assert_array_equal(out.numpy(), expected)


def test_large_launch_matches_numpy():
    @tack.kernel
    def pl_saxpy(a, x, y, out):
        for i in range(len(x)):
            out[i] = a * x[i] + y[i]

    r = rng(91)
    x = r.standard_normal(3_000_000).astype(np.float32)
    y = r.standard_normal(3_000_000).astype(np.float32)
    out = zeros(3_000_000, np.float32)
    for _ in range(3):  # the first call probes, later ones run with the measured policy
        pl_saxpy(2.5, arr(x), arr(y), out)
        np.testing.assert_array_equal(out.numpy(), np.float32(2.5) * x + y)
    assert pl_saxpy.variant_count == 1


@tack.kernel
def pl_positions(start, stop, step, out):
    for i in range(start, stop, step):
        out[(i - start) // step] += 1


@pytest.mark.parametrize("start, stop, step", [
    (0, 3_000_000, 1), (5, 9_000_005, 3), (8_999_999, -1, -3), (-4_000_000, 4_000_000, 7),
    (2147483647 - 6_000_000, 2147483647, 2), (2147483647, 2147483647 - 6_000_000, -5),
    (-2147483648, -2147483648 + 5_000_000, 4), (-2147483648 + 5_000_000, -2147483648, -1),
])
def test_large_i32_ranges_fan_out(start, stop, step):
    # Python ints are i32 here: the loop variable is an i32 near the ends of its range, and the
    # launch is split into chunks over the workers; every position is visited once.
    r = range(start, stop, step)
    out = zeros(len(r), np.int32)
    pl_positions(start, stop, step, out)
    np.testing.assert_array_equal(out.numpy(), np.ones(len(r), np.int32))


@tack.kernel
def pl_value_at(start, stop, step, out):
    for i in range(start, stop, step):
        out[(i - start) // step] = i


@pytest.mark.parametrize("start, stop, step", [
    (2147483647 - 3_000_000, 2147483647, 3), (2147483646, 2147483646 - 3_000_000, -7),
])
def test_large_i32_range_values(start, stop, step):
    r = range(start, stop, step)
    out = zeros(len(r), np.int32)
    pl_value_at(start, stop, step, out)
    np.testing.assert_array_equal(out.numpy(), np.arange(start, stop, step, dtype=np.int64))


@tack.kernel
def pl_assign_loop_var(n, out):
    for i in range(n):
        j = i
        i = i * 2
        if i > 10:
            continue
        out[j] = i


@pytest.mark.parametrize("n", [5, 3_000_000])
def test_assigning_the_loop_variable_does_not_change_the_iteration(n):
    out = zeros(n, np.int32)
    pl_assign_loop_var(n, out)
    expected = np.arange(n, dtype=np.int64) * 2
    expected[expected > 10] = 0
    np.testing.assert_array_equal(out.numpy(), expected)


@tack.kernel
def pl_assign_nd_vars(out):
    for i, j in tack.ndrange(out.shape[0], out.shape[1]):
        a = i
        b = j
        i = 0
        j = 0
        out[a, b] = a * 1000 + b + i + j


def test_assigning_ndrange_variables():
    out = zeros((700, 900), np.int64)
    pl_assign_nd_vars(out)
    i, j = np.indices((700, 900))
    np.testing.assert_array_equal(out.numpy(), i * 1000 + j)
