"""The aliasing model (seed "Memory and Aliasing"): array arguments may overlap and program
order within an iteration is preserved, on both CPU variants (the disjoint-arrays
specialization on and off). Each case also checks, with tack.inspect(..., mode="source"), that
the code promises `noalias` only when every written array is disjoint from every other array
argument (read-only arrays may overlap each other), and never with the specialization off."""
import numpy as np
import pytest

import tack
from kutil import arr, has_noalias, rng, zeros


def check_noalias(spec_on, kernel, args, disjoint):
    assert has_noalias(kernel, *args) == (spec_on and disjoint), (
        f"specialization {'on' if spec_on else 'off'}, arrays "
        f"{'disjoint' if disjoint else 'overlapping'}")


@tack.kernel
def al_wwr(a, b, out):
    for i in range(len(out)):
        a[i] = 1.0
        b[i] = 2.0
        out[i] = a[i]


def test_seed_write_1_through_a_write_2_through_b_read_a(both_variants):
    x = zeros(1000, np.float32)
    out = zeros(1000, np.float32)
    al_wwr(x, x, out)
    np.testing.assert_array_equal(out.numpy(), np.full(1000, 2.0, np.float32))
    np.testing.assert_array_equal(x.numpy(), np.full(1000, 2.0, np.float32))
    check_noalias(both_variants, al_wwr, (x, x, out), disjoint=False)


@pytest.mark.cpu_only("checks the CPU's noalias/disjoint-arrays variant")
def test_disjoint_arrays_read_their_own_store(both_variants):
    x, y, out = zeros(1000, np.float32), zeros(1000, np.float32), zeros(1000, np.float32)
    al_wwr(x, y, out)
    np.testing.assert_array_equal(out.numpy(), np.ones(1000, np.float32))
    np.testing.assert_array_equal(y.numpy(), np.full(1000, 2.0, np.float32))
    check_noalias(both_variants, al_wwr, (x, y, out), disjoint=True)


@tack.kernel
def al_wwr_offset(a, b, off, out):
    for i in range(len(out)):
        a[i + off] = 1.0
        b[i] = 2.0
        out[i] = a[i + off]


@tack.kernel
def al_wwr_rows(a, b, off, out):
    for i, j in tack.ndrange(out.shape[0], out.shape[1]):
        a[i + off, j] = 1.0
        b[i, j] = 2.0
        out[i, j] = a[i + off, j]


def test_overlapping_row_views(both_variants):
    root = zeros((10, 3), np.float32)
    a, b = root[0:6], root[4:10]  # rows 4 and 5 are in both
    out = zeros((2, 3), np.float32)
    al_wwr_rows(a, b, 4, out)
    np.testing.assert_array_equal(out.numpy(), np.full((2, 3), 2.0, np.float32))
    expected = np.zeros((10, 3), np.float32)
    expected[4:6] = 2.0
    np.testing.assert_array_equal(root.numpy(), expected)
    check_noalias(both_variants, al_wwr_rows, (a, b, 4, out), disjoint=False)


@pytest.mark.parametrize("split", [(0, 5, 5, 10), (0, 4, 6, 10), (6, 10, 0, 6)])
@pytest.mark.cpu_only("checks the CPU's noalias/disjoint-arrays variant")
def test_disjoint_and_adjacent_row_views(both_variants, split):
    root = zeros((10, 3), np.float32)
    a, b = root[split[0]:split[1]], root[split[2]:split[3]]
    rows = min(a.shape[0], b.shape[0])
    out = zeros((rows, 3), np.float32)
    al_wwr_rows(a, b, 0, out)
    np.testing.assert_array_equal(out.numpy(), np.ones((rows, 3), np.float32))
    expected = np.zeros((10, 3), np.float32)
    expected[split[0]:split[0] + rows] = 1.0
    expected[split[2]:split[2] + rows] = 2.0
    np.testing.assert_array_equal(root.numpy(), expected)
    # Adjacent views ([0, 5) and [5, 10) rows) share no byte: disjoint.
    check_noalias(both_variants, al_wwr_rows, (a, b, 0, out), disjoint=True)


@pytest.mark.cpu_only("wraps host memory (array_from_ptr over a host address); OpenCL accepts only its own memory")
def test_wrapped_pointers_that_partially_overlap(both_variants):
    buf = np.zeros(16, np.float32)
    a = tack.array_from_ptr(buf[0:8], tack.f32, 8, writable=True)
    b = tack.array_from_ptr(buf[4:12], tack.f32, 8, writable=True)
    out = zeros(4, np.float32)
    al_wwr_offset(a, b, 4, out)
    np.testing.assert_array_equal(out.numpy(), np.full(4, 2.0, np.float32))
    np.testing.assert_array_equal(buf, [0] * 4 + [2] * 4 + [0] * 8)
    check_noalias(both_variants, al_wwr_offset, (a, b, 4, out), disjoint=False)


@pytest.mark.cpu_only("wraps host memory (array_from_ptr over a host address); OpenCL accepts only its own memory")
def test_wrapped_integer_addresses_that_partially_overlap(both_variants):
    buf = np.zeros(16, np.float64)
    base = buf.ctypes.data
    a = tack.array_from_ptr(base, tack.f64, 8, writable=True)
    b = tack.array_from_ptr(base + 3 * 8, tack.f64, 8, writable=True)
    out = zeros(5, np.float64)
    al_wwr_offset(a, b, 3, out)
    np.testing.assert_array_equal(out.numpy(), np.full(5, 2.0))
    np.testing.assert_array_equal(buf, [0] * 3 + [2] * 5 + [0] * 8)
    check_noalias(both_variants, al_wwr_offset, (a, b, 3, out), disjoint=False)
    # The same memory wrapped without overlap is disjoint.
    c = tack.array_from_ptr(base + 8 * 8, tack.f64, 8, writable=True)
    check_noalias(both_variants, al_wwr_offset, (a, c, 0, out), disjoint=True)


@tack.kernel
def al_flat_and_2d(flat, m, out):
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            m[i, j] = 7.0 + j
            flat[i * m.shape[1] + j] = flat[i * m.shape[1] + j] * 2.0
            out[i, j] = m[i, j]


def test_two_reshape_views_of_one_buffer(both_variants):
    root = zeros(12, np.float32)
    m = root.reshape(3, 4)
    out = zeros((3, 4), np.float32)
    al_flat_and_2d(root, m, out)
    expected = np.tile((7.0 + np.arange(4)) * 2.0, (3, 1)).astype(np.float32)
    np.testing.assert_array_equal(out.numpy(), expected)
    np.testing.assert_array_equal(root.numpy(), expected.reshape(12))
    check_noalias(both_variants, al_flat_and_2d, (root, m, out), disjoint=False)


@tack.kernel
def al_reshape_pair(a2, b3, out):
    for i in range(a2.shape[0]):
        for j in range(a2.shape[1]):
            a2[i, j] = 5.0
        for j in range(a2.shape[1]):
            b3[i, j // 2, j % 2] = b3[i, j // 2, j % 2] + 1.0
        s = 0.0
        for j in range(a2.shape[1]):
            s += a2[i, j]
        out[i] = s


def test_reshape_views_of_different_ranks(both_variants):
    root = zeros(24, np.float64)
    a2 = root.reshape(6, 4)
    b3 = root.reshape(6, 2, 2)
    out = zeros(6, np.float64)
    al_reshape_pair(a2, b3, out)
    np.testing.assert_array_equal(out.numpy(), np.full(6, 24.0))
    np.testing.assert_array_equal(root.numpy(), np.full(24, 6.0))
    check_noalias(both_variants, al_reshape_pair, (a2, b3, out), disjoint=False)


@tack.kernel
def al_axpy(x, y, out):
    for i in range(len(out)):
        out[i] = 2.0 * x[i] + y[i]


def test_the_same_array_passed_three_times(both_variants):
    a0 = rng(150).standard_normal(5000).astype(np.float32)
    a = arr(a0)
    al_axpy(a, a, a)
    np.testing.assert_array_equal(a.numpy(), np.float32(2.0) * a0 + a0)
    check_noalias(both_variants, al_axpy, (a, a, a), disjoint=False)


def test_in_place_update(both_variants):
    r = rng(151)
    a0 = r.standard_normal(5000).astype(np.float32)
    b0 = r.standard_normal(5000).astype(np.float32)
    a, b = arr(a0), arr(b0)
    al_axpy(a, b, a)  # f(a, ..., a): out is x
    np.testing.assert_array_equal(a.numpy(), np.float32(2.0) * a0 + b0)
    check_noalias(both_variants, al_axpy, (a, b, a), disjoint=False)
    al_axpy(b, a, a)  # out is y
    np.testing.assert_array_equal(a.numpy(), np.float32(2.0) * b0 + (np.float32(2.0) * a0 + b0))


@pytest.mark.cpu_only("wraps host memory (array_from_ptr over a host address); OpenCL accepts only its own memory; checks the CPU's noalias/disjoint-arrays variant")
def test_read_only_arrays_may_overlap_each_other(both_variants):
    x = arr(rng(152).standard_normal(100).astype(np.float32))
    out = zeros(100, np.float32)
    al_axpy(x, x, out)  # dot(x, x)-like: only `out` is written, and it overlaps nothing
    np.testing.assert_array_equal(out.numpy(), np.float32(2.0) * x.numpy() + x.numpy())
    check_noalias(both_variants, al_axpy, (x, x, out), disjoint=True)
    buf = np.arange(20, dtype=np.float32)
    r1 = tack.array_from_ptr(buf[0:10], tack.f32, 10)
    r2 = tack.array_from_ptr(buf[5:15], tack.f32, 10)
    out10 = zeros(10, np.float32)
    al_axpy(r1, r2, out10)
    np.testing.assert_array_equal(out10.numpy(), 2.0 * buf[0:10] + buf[5:15])
    check_noalias(both_variants, al_axpy, (r1, r2, out10), disjoint=True)


@tack.kernel
def al_prefix(a, b):
    for t in range(1):
        for j in range(1, len(b)):
            b[j] = a[j - 1] + b[j]


def reference_prefix(a, b):
    for j in range(1, len(b)):
        b[j] = a[j - 1] + b[j]


@pytest.mark.parametrize("oa, ob", [(0, 0), (0, 1), (1, 0), (0, 3), (5, 2), (0, 5000),
                                    (4000, 0), (2, 2)])
@pytest.mark.cpu_only("checks the CPU's noalias/disjoint-arrays variant")
def test_sequential_dependence_through_overlapping_views(both_variants, oa, ob):
    # One iteration walks the array: a store through b must be seen by the next load through a
    # whenever the views overlap. A noalias promise here would let the vectorizer break it.
    n = 4000
    r = rng(153 + oa + 7 * ob)
    root0 = r.integers(-5, 5, 10000).astype(np.float64)
    root = arr(root0)
    a, b = root.reshape(10000)[oa:oa + n], root[ob:ob + n]
    al_prefix(a, b)
    ref = root0.copy()
    reference_prefix(ref[oa:oa + n], ref[ob:ob + n])
    np.testing.assert_array_equal(root.numpy(), ref)
    disjoint = oa + n <= ob or ob + n <= oa
    check_noalias(both_variants, al_prefix, (a, b), disjoint=disjoint)


@pytest.mark.cpu_only("wraps host memory (array_from_ptr over a host address); OpenCL accepts only its own memory")
def test_sequential_dependence_through_wrapped_pointers(both_variants):
    n = 3000
    buf = rng(154).integers(-5, 5, n + 2).astype(np.int64)
    ref = buf.copy()
    a = tack.array_from_ptr(buf[0:n], tack.i64, n, writable=True)
    b = tack.array_from_ptr(buf[1:n + 1], tack.i64, n, writable=True)
    al_prefix(a, b)
    reference_prefix(ref[0:n], ref[1:n + 1])
    np.testing.assert_array_equal(buf, ref)
    check_noalias(both_variants, al_prefix, (a, b), disjoint=False)


@pytest.mark.cpu_only("counts the CPU's two variants (aliased/disjoint)")
def test_alternating_aliased_and_disjoint_calls_reuse_two_codes(both_variants):
    @tack.kernel
    def al_alternate(x, y, out):
        for i in range(len(out)):
            out[i] = x[i] + y[i]

    x = arr(np.arange(8, dtype=np.float32))
    y = arr(np.ones(8, np.float32))
    for _ in range(3):
        out = zeros(8, np.float32)
        al_alternate(x, y, out)
        np.testing.assert_array_equal(out.numpy(), np.arange(8) + 1.0)
        z = arr(np.arange(8, dtype=np.float32))
        al_alternate(z, y, z)
        np.testing.assert_array_equal(z.numpy(), np.arange(8) + 1.0)
    assert al_alternate.variant_count == (2 if both_variants else 1)
