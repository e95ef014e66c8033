"""unique, nonzero, compress, searchsorted and histogram (docs/algorithms.md) against NumPy on
every dtype, NaN, empty inputs, views, and bad input."""
import numpy as np
import pytest

import tack
from kutil import ALL_DTYPES, FLOAT_DTYPES, arr, name, rng


def ints_or_floats(shape, dtype, seed=0, hi=40):
    g = rng(seed)
    x = g.integers(0, hi, shape)
    return x.astype(dtype)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_unique_with_everything(dtype):
    x = ints_or_floats((50, 70), dtype, 1)
    a = arr(x)
    np.testing.assert_array_equal(tack.unique(a).numpy(), np.unique(x))
    got = tack.unique(a, return_index=True, return_inverse=True, return_counts=True)
    want = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    for g, w in zip(got, want):
        assert g.numpy().shape == w.shape
        np.testing.assert_array_equal(g.numpy(), w)
    v, c = tack.unique(a[10:20], return_counts=True)
    wv, wc = np.unique(x[10:20], return_counts=True)
    np.testing.assert_array_equal(v.numpy(), wv)
    np.testing.assert_array_equal(c.numpy(), wc)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=name)
def test_unique_nan_and_signed_zero(dtype):
    x = np.array([1.0, np.nan, -0.0, 0.0, np.nan, 1.0, -np.inf], dtype)
    v, i, inv, c = tack.unique(arr(x), return_index=True, return_inverse=True, return_counts=True)
    wv, wi, winv, wc = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    assert v.numpy().tobytes() == wv.tobytes()
    for g, w in [(i, wi), (inv, winv), (c, wc)]:
        np.testing.assert_array_equal(g.numpy(), w)


def test_unique_empty():
    e = arr(np.zeros((0, 3), np.int32))
    v, inv, c = tack.unique(e, return_inverse=True, return_counts=True)
    assert v.shape == (0,) and c.shape == (0,) and inv.shape == (0, 3)


@pytest.mark.parametrize("shape", [(1000,), (30, 40), (4, 5, 6), (0,)], ids=str)
def test_nonzero(shape):
    x = ints_or_floats(shape, np.float32, 2, hi=3)
    x[..., :1] = np.nan if x.size else x[..., :1]
    got = tack.nonzero(arr(x))
    want = np.nonzero(x)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == tack.i64
        np.testing.assert_array_equal(g.numpy(), w)
    if x.size:
        assert len(arr(x).nonzero()) == len(shape)


def test_compress():
    x = np.arange(60, dtype=np.int16).reshape(12, 5)
    c = (rng(3).integers(0, 2, 12)).astype(np.uint8)
    np.testing.assert_array_equal(tack.compress(arr(c), arr(x), axis=0).numpy(),
                                  np.compress(c, x, axis=0))
    flat = rng(4).integers(0, 2, 60).astype(np.int32)
    np.testing.assert_array_equal(tack.compress(arr(flat), arr(x)).numpy(), np.compress(flat, x))
    short = c[:5]  # NumPy: false past the condition's end
    np.testing.assert_array_equal(tack.compress(arr(short), arr(x), axis=0).numpy(),
                                  np.compress(short, x, axis=0))
    with pytest.raises(ValueError, match="13 entries for an axis of 12"):
        tack.compress(arr(np.ones(13, np.uint8)), arr(x), axis=0)
    with pytest.raises(ValueError, match="axis 0"):
        tack.compress(arr(c[:5]), arr(x), axis=1)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted(dtype, side):
    s = np.sort(ints_or_floats(3000, dtype, 5, hi=100))
    v = ints_or_floats((7, 11), dtype, 6, hi=110)
    got = tack.searchsorted(arr(s), arr(v), side)
    assert got.shape == (7, 11)
    np.testing.assert_array_equal(got.numpy(), np.searchsorted(s, v, side))
    assert tack.searchsorted(arr(s), 50, side) == np.searchsorted(s, 50, side)


def test_searchsorted_nan_order_and_errors():
    s = np.array([1.0, 2.0, 2.0, np.nan, np.nan])
    v = np.array([np.nan, 2.0, 0.0, 3.0])
    for side in ["left", "right"]:
        np.testing.assert_array_equal(tack.searchsorted(arr(s), arr(v), side).numpy(),
                                      np.searchsorted(s, v, side))
    with pytest.raises(ValueError, match="'left' or 'right'"):
        tack.searchsorted(arr(s), arr(v), "middle")
    with pytest.raises(ValueError, match="1-D"):
        tack.searchsorted(arr(np.zeros((2, 2))), arr(v))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_histogram_matches_numpy(dtype):
    g = rng(7)
    if np.issubdtype(dtype, np.floating):
        x = (g.standard_normal(50000) * 10).astype(dtype)
    else:
        x = ints_or_floats(50000, dtype, 8, hi=100)
    for bins, r in [(10, None), (7, (-3.0, 40.0)), (1, None), (64, (0, 50))]:
        c, e = tack.histogram(arr(x), bins, r)
        wc, we = np.histogram(x, bins, r)
        assert c.dtype == tack.i64
        np.testing.assert_array_equal(c.numpy(), wc)
        assert e.numpy().dtype == we.dtype and e.numpy().tobytes() == we.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_histogram_out_of_range_clamp_counts_outside_values_in_the_end_bins(dtype):
    x = np.array([-5, 0, 1, 2, 3, 4, 9, 100, -1], dtype)
    drop, _ = tack.histogram(arr(x), 4, (0, 4))
    np.testing.assert_array_equal(drop.numpy(), np.histogram(x, 4, (0, 4))[0])
    clamp, e = tack.histogram(arr(x), 4, (0, 4), out_of_range="clamp")
    np.testing.assert_array_equal(clamp.numpy(), np.histogram(np.clip(x, 0, 4), 4, (0, 4))[0])
    assert clamp.numpy().sum() == len(x)
    np.testing.assert_array_equal(e.numpy(), np.histogram(x, 4, (0, 4))[1])
    if np.issubdtype(dtype, np.floating):  # NaN is in no bin, either way
        c, _ = tack.histogram(arr(np.array([np.nan, 1.0], dtype)), 2, (0, 2),
                              out_of_range="clamp")
        np.testing.assert_array_equal(c.numpy(), [0, 1])
    with pytest.raises(ValueError, match="'drop'.*'clamp'"):
        tack.histogram(arr(x), 4, (0, 4), out_of_range="wrap")


def test_histogram_edges_cases_and_errors():
    c, e = tack.histogram(arr(np.full(100, 3.0, np.float32)), 4)
    wc, we = np.histogram(np.full(100, 3.0, np.float32), 4)
    np.testing.assert_array_equal(c.numpy(), wc)
    np.testing.assert_array_equal(e.numpy(), we)
    c, _ = tack.histogram(arr(np.zeros(0, np.float64)), 3)
    np.testing.assert_array_equal(c.numpy(), [0, 0, 0])
    with pytest.raises(ValueError, match="positive number of bins"):
        tack.histogram(arr(np.zeros(5)), 0)
    with pytest.raises(ValueError, match="max must be larger than min"):
        tack.histogram(arr(np.zeros(5)), 3, (2.0, 1.0))
    with pytest.raises(ValueError, match="not finite"):
        tack.histogram(arr(np.array([1.0, np.nan])), 3)


def test_searchsorted_compares_in_the_common_type():
    s = arr(np.array([1, 2, 3], np.int32))
    assert tack.searchsorted(s, 2.5) == np.searchsorted(np.array([1, 2, 3], np.int32), 2.5) == 2
    u = arr(np.array([1, 2, 3], np.uint8))
    assert tack.searchsorted(u, -1) == 0 and tack.searchsorted(u, 300) == 3
    big = np.array([2**40, 2**41], np.int64)
    v = np.array([2**40 + 1], np.float32)  # compared in f64, not f32
    np.testing.assert_array_equal(tack.searchsorted(arr(big), arr(v)).numpy(),
                                  np.searchsorted(big, v))
