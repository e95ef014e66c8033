"""Atomics under contention: tack.atomic_add/atomic_min/atomic_max with many iterations hitting
few bins (large launches fan out over the workers), compared with np.bincount, np.add.at,
np.minimum.at and np.maximum.at; integer and tuple indices; the returned old value; float
min/max ignore NaN operands (IEEE minNum/maxNum)."""
import itertools

import numpy as np
import pytest

import tack
from kutil import arr, name, rng, zeros

N = 1_000_000


@tack.kernel
def at_hist(bins, h):
    for i in range(len(bins)):
        tack.atomic_add(h, bins[i], 1)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32, np.uint64, np.float32,
                                   np.float64], ids=name)
@pytest.mark.parametrize("nbins", [1, 4, 1000])
def test_histogram_under_contention(dtype, nbins):
    bins = rng(130).integers(0, nbins, N).astype(np.int32)
    h = zeros(nbins, dtype)
    at_hist(arr(bins), h)
    np.testing.assert_array_equal(h.numpy(), np.bincount(bins, minlength=nbins).astype(dtype))


@tack.kernel
def at_add_values(bins, x, h):
    for i in range(len(bins)):
        tack.atomic_add(h, bins[i], x[i])


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32, np.uint64, np.float64],
                         ids=name)
def test_add_values_wraps_like_numpy(dtype):
    r = rng(131)
    bins = r.integers(0, 8, N).astype(np.int64)
    if np.issubdtype(dtype, np.integer):
        x = r.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, N, dtype=dtype, endpoint=True)
    else:
        x = r.integers(-1000, 1000, N).astype(dtype)  # integral: every order sums exactly
    h = zeros(8, dtype)
    at_add_values(arr(bins), arr(x), h)
    expected = np.zeros(8, dtype)
    with np.errstate(all="ignore"):
        np.add.at(expected, bins, x)  # integer sums wrap at the width
    np.testing.assert_array_equal(h.numpy(), expected)


@tack.kernel
def at_min_max(bins, x, lo, hi):
    for i in range(len(bins)):
        tack.atomic_min(lo, bins[i], x[i])
        tack.atomic_max(hi, bins[i], x[i])


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32, np.uint64, np.float32,
                                   np.float64], ids=name)
def test_min_max_under_contention(dtype):
    r = rng(132)
    bins = r.integers(0, 16, N).astype(np.int32)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        x = r.integers(info.min, info.max, N, dtype=dtype, endpoint=True)  # unsigned: high bit
        lo0, hi0 = info.max, info.min
    else:
        x = r.standard_normal(N).astype(dtype) * 1e3
        lo0, hi0 = np.inf, -np.inf
    lo = arr(np.full(16, lo0, dtype))
    hi = arr(np.full(16, hi0, dtype))
    at_min_max(arr(bins), arr(x), lo, hi)
    elo = np.full(16, lo0, dtype)
    ehi = np.full(16, hi0, dtype)
    np.minimum.at(elo, bins, x)
    np.maximum.at(ehi, bins, x)
    np.testing.assert_array_equal(lo.numpy(), elo)
    np.testing.assert_array_equal(hi.numpy(), ehi)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=name)
def test_float_min_max_ignore_nan_operands(dtype):
    bins = np.zeros(6, np.int32)
    x = np.array([np.nan, 3.0, np.nan, -2.0, 7.0, np.nan], dtype)
    lo, hi = arr(np.full(1, 5.0, dtype)), arr(np.full(1, 5.0, dtype))
    at_min_max(arr(bins), arr(x), lo, hi)
    assert lo.numpy()[0] == -2.0 and hi.numpy()[0] == 7.0


@tack.kernel
def at_tickets(counter, slots):
    for i in range(len(slots)):
        old = tack.atomic_add(counter, 0, 1)
        slots[old] = i


def test_returns_the_old_value():
    n = 200_000
    counter = zeros(1, np.int64)
    slots = arr(np.full(n, -1, np.int64))
    at_tickets(counter, slots)
    assert counter.numpy()[0] == n
    # Every ticket was handed out once: the slots hold a permutation of the iterations.
    np.testing.assert_array_equal(np.sort(slots.numpy()), np.arange(n))


@tack.kernel
def at_old_of_max(x, m, olds):
    for i in range(len(x)):
        olds[i] = tack.atomic_max(m, 0, x[i])


def test_atomic_max_old_values():
    x = np.array([5, 1, 9, 3], np.int32)
    m = arr(np.array([4], np.int32))
    olds = zeros(4, np.int32)
    at_old_of_max(arr(x), m, olds)
    assert m.numpy()[0] == 9
    # Iterations run in some order; the old values must be those of one sequential order.
    got = olds.numpy().tolist()
    possible = []
    for order in itertools.permutations(range(4)):
        cur, seq = 4, [0] * 4
        for k in order:
            seq[k] = cur
            cur = max(cur, int(x[k]))
        possible.append(seq)
    assert got in possible


@tack.kernel
def at_hist2d(r, c, h):
    for i in range(len(r)):
        tack.atomic_add(h, (r[i], c[i]), 1)


def test_tuple_index_2d():
    g = rng(133)
    r = g.integers(0, 3, N).astype(np.int32)
    c = g.integers(0, 5, N).astype(np.int64)
    h = zeros((3, 5), np.int32)
    at_hist2d(arr(r), arr(c), h)
    expected = np.zeros((3, 5), np.int32)
    np.add.at(expected, (r, c), 1)
    np.testing.assert_array_equal(h.numpy(), expected)


@tack.kernel
def at_hist3d(h):
    for i, j, k in tack.ndrange(40, 50, 60):
        tack.atomic_add(h, (i % 2, j % 3, k % 4), 1)


def test_tuple_index_3d_inside_ndrange():
    h = zeros((2, 3, 4), np.int64)
    at_hist3d(h)
    i, j, k = np.meshgrid(np.arange(40), np.arange(50), np.arange(60), indexing="ij")
    expected = np.zeros((2, 3, 4), np.int64)
    np.add.at(expected, (i % 2, j % 3, k % 4), 1)
    np.testing.assert_array_equal(h.numpy(), expected)


@tack.kernel
def at_in_inner_loop(x, h):
    for i in range(len(x)):
        for k in range(x[i]):
            tack.atomic_add(h, k % 4, 1)


def test_atomics_in_variable_length_inner_loops():
    x = rng(134).integers(0, 30, 50_000).astype(np.int32)
    h = zeros(4, np.int64)
    at_in_inner_loop(arr(x), h)
    expected = np.zeros(4, np.int64)
    for v in range(30):
        cnt = int((x == v).sum())
        for k in range(v):
            expected[k % 4] += cnt
    np.testing.assert_array_equal(h.numpy(), expected)


@tack.kernel
def at_all_in_one(h):
    for i in range(2_000_000):
        tack.atomic_add(h, 0, 1)


def test_single_element_heavy_contention():
    h = zeros(1, np.uint32)
    at_all_in_one(h)
    assert h.numpy()[0] == 2_000_000
