"""Sorts (docs/algorithms.md): sort, argsort and sort_by_key against NumPy's stable sort on every
dtype, NaN and signed zeros, duplicate keys (stability), rows of 2-D arrays, views, gather and
scatter, and bad input."""
import numpy as np
import pytest

import tack
from kutil import ALL_DTYPES, FLOAT_DTYPES, arr, name, rng


def data(n, dtype, seed=0):
    g = rng(seed)
    if np.issubdtype(dtype, np.floating):
        x = g.standard_normal(n).astype(dtype) * 1e3
        x[::97] = np.nan
        x[1::101] = -0.0
        x[2::103] = 0.0
        x[3::107] = np.inf
        x[4::109] = -np.inf
        x[5::113] = -np.nan
        return x
    info = np.iinfo(dtype)
    return g.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_sort_and_argsort_match_numpys_stable_sort(dtype):
    x = data(20011, dtype, 1)
    a = arr(x)
    s = tack.sort(a).numpy()
    ref = np.sort(x, kind="stable")
    assert s.dtype == x.dtype
    assert s.tobytes() == ref.tobytes()  # bit for bit: -0.0, NaN payloads, order
    i = tack.argsort(a)
    assert i.dtype == tack.i64
    np.testing.assert_array_equal(i.numpy(), np.argsort(x, kind="stable"))
    np.testing.assert_array_equal(a.argsort().numpy(), np.argsort(x, kind="stable"))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_small_sorts_on_the_host_give_the_kernel_paths_result(dtype):
    # Up to 2^13 elements a flat sort runs on the host (docs/design/algorithms.md, "Small
    # sorts"); across the crossover the results are NumPy's stable sort, bit for bit (zeros of
    # either sign and NaNs in their input order), on every device.
    for n in (2, 3, 100, 8191, 8192, 8193, 12000):
        x = data(n, dtype, n)
        ref = np.sort(x, kind="stable")
        s = tack.sort(arr(x))
        assert s.dtype == x.dtype and s.shape == (n,)
        assert s.numpy().tobytes() == ref.tobytes(), n
    x = data(300, dtype, 9)[:288].reshape(2, 144)  # axis=None of a 2-D array: flat
    assert tack.sort(arr(x), axis=None).numpy().tobytes() == np.sort(x, axis=None, kind="stable").tobytes()
    one = data(1, dtype, 3)
    assert tack.sort(arr(one)).numpy().tobytes() == one.tobytes()


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.float32], ids=name)
def test_duplicates_are_stable(dtype):
    x = rng(2).integers(0, 5, 50000).astype(dtype)
    np.testing.assert_array_equal(tack.argsort(arr(x)).numpy(), np.argsort(x, kind="stable"))


@pytest.mark.parametrize("n", [0, 1, 2, 4095, 4097, 70000])
def test_sizes_and_narrow_spreads(n):
    x = (rng(3).integers(0, 3, n) + 1_000_000).astype(np.int64)  # one digit of spread
    np.testing.assert_array_equal(tack.sort(arr(x)).numpy(), np.sort(x))
    same = np.full(n, 7, np.int32)
    s = tack.sort(arr(same))
    np.testing.assert_array_equal(s.numpy(), same)
    np.testing.assert_array_equal(tack.argsort(arr(same)).numpy(), np.arange(n))


def test_rows_of_a_2d_array_and_views():
    x = rng(4).standard_normal((37, 301)).astype(np.float32)
    a = arr(x)
    assert tack.sort(a).numpy().tobytes() == np.sort(x, axis=-1).tobytes()
    np.testing.assert_array_equal(tack.argsort(a).numpy(), np.argsort(x, kind="stable"))
    np.testing.assert_array_equal(tack.sort(a, axis=None).numpy(), np.sort(x, axis=None))
    np.testing.assert_array_equal(tack.sort(a[5:9], axis=1).numpy(), np.sort(x[5:9], axis=1))
    before = a.numpy().copy()
    tack.sort(a[5:9])
    np.testing.assert_array_equal(a.numpy(), before)  # the input is never written


def test_sort_by_key():
    g = rng(5)
    k = g.integers(0, 100, 5000).astype(np.int32)
    v = g.standard_normal(5000).astype(np.float64)
    order = np.argsort(k, kind="stable")
    sk, sv = tack.sort_by_key(arr(k), arr(v))
    np.testing.assert_array_equal(sk.numpy(), k[order])
    np.testing.assert_array_equal(sv.numpy(), v[order])
    rows = g.standard_normal((5000, 3)).astype(np.float32)
    _, sr = tack.sort_by_key(arr(k), arr(rows))
    np.testing.assert_array_equal(sr.numpy(), rows[order])
    with pytest.raises(ValueError, match="5000 keys but values of shape"):
        tack.sort_by_key(arr(k), arr(v[:10]))


def test_gather_and_scatter():
    x = np.arange(30, dtype=np.float32).reshape(10, 3)
    a = arr(x)
    idx = np.array([[3, -1], [0, 9]])
    np.testing.assert_array_equal(tack.gather(a, arr(idx)).numpy(), x[idx])
    out = arr(np.zeros((10, 3), np.float32))
    tack.scatter(arr(x[:2]), arr(np.array([7, -2])), out)
    expect = np.zeros((10, 3), np.float32)
    expect[[7, -2]] = x[:2]
    np.testing.assert_array_equal(out.numpy(), expect)
    with pytest.raises(IndexError, match="index 10 is out of bounds"):
        tack.gather(a, arr(np.array([10])))
    with pytest.raises(IndexError, match="-11"):
        tack.scatter(arr(x[:1]), arr(np.array([-11])), out)
    with pytest.raises(TypeError, match="integer"):
        tack.gather(a, arr(np.array([1.0])))
    with pytest.raises(ValueError, match="shape"):
        tack.scatter(arr(x[:3]), arr(np.array([1, 2])), out)


def test_bad_input():
    v = tack.zeros(5, dtype=tack.vec(2, tack.f32))
    with pytest.raises(TypeError, match="vec"):
        tack.sort(v)
    with pytest.raises(ValueError, match="last axis"):
        tack.sort(arr(np.zeros((3, 4), np.float32)), axis=0)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=name)
def test_the_same_result_on_every_device(dtype):
    x = data(30000, dtype, 6)
    ref = np.sort(x, kind="stable").tobytes()
    for d in tack.devices():
        assert tack.sort(tack.array(x, device=d)).numpy().tobytes() == ref, d.name


def test_large_sorts_take_wider_digits():
    # From 4 Mi keys the sort takes 11-bit digits over larger blocks: the same results.
    n = 4 * 2**20 + 3
    g = rng(7)
    u = g.integers(0, 2**32, n, dtype=np.uint32)
    np.testing.assert_array_equal(tack.sort(arr(u)).numpy(), np.sort(u))
    f = g.standard_normal(n).astype(np.float32)
    f[::1001] = np.nan
    f[1::999] = 0.0
    assert tack.sort(arr(f)).numpy().tobytes() == np.sort(f, kind="stable").tobytes()
    d = g.integers(0, 1000, n).astype(np.int64)
    np.testing.assert_array_equal(tack.argsort(arr(d)).numpy(), np.argsort(d, kind="stable"))
    rows = g.integers(-5, 5, (2, n // 2)).astype(np.int16)
    np.testing.assert_array_equal(tack.argsort(arr(rows)).numpy(),
                                  np.argsort(rows, kind="stable"))


def test_unsigned_indices():
    x = np.arange(5, dtype=np.float32)
    idx = np.array([4, 0], np.uint64)
    np.testing.assert_array_equal(tack.gather(arr(x), arr(idx)).numpy(), x[idx])


def msd_cases():
    # Flat sorts of 1 Mi keys or more whose spread is 16 bits or more go most significant digit
    # first: one pass into buckets, then every bucket sorted in cache (docs/design/algorithms.md).
    g = rng(11)
    n = 2**20
    yield "u32 uniform", g.integers(0, 2**32, n + 5, dtype=np.uint32)
    yield "u32 below the threshold", g.integers(0, 2**32, n - 1, dtype=np.uint32)
    yield "u32 spread of 16 bits", g.integers(0, 2**16, n, dtype=np.uint32)
    yield "i32 few distinct wide values", g.choice(
        g.integers(-2**31, 2**31, 3000, dtype=np.int32), n)
    skew = g.integers(0, 2**32, n, dtype=np.uint32)
    skew[: n * 9 // 10] = 7  # one bucket holds 90% of the keys
    g.shuffle(skew)
    yield "u32 one huge bucket", skew
    yield "u64 full width", g.integers(0, 2**64, n, dtype=np.uint64)
    yield "i64", g.integers(-2**62, 2**62, n, dtype=np.int64)
    f = g.random(n).astype(np.float32)  # [0, 1): most keys in a few buckets
    f[::1003] = np.nan
    f[1::1009] = -0.0
    yield "f32 in [0, 1)", f
    yield "f64", data(n, np.float64, 12)


@pytest.mark.parametrize("case", list(msd_cases()), ids=lambda c: c[0])
def test_most_significant_digit_first_sorts(case):
    _, x = case
    a = arr(x)
    before = x.copy()
    assert tack.sort(a).numpy().tobytes() == np.sort(x, kind="stable").tobytes()
    np.testing.assert_array_equal(tack.argsort(a).numpy(), np.argsort(x, kind="stable"))
    assert a.numpy().tobytes() == before.tobytes()  # the keys are read in place, never written
    v = np.arange(len(x), dtype=np.float32)[::-1].copy()
    k, s = tack.sort_by_key(a, arr(v))
    order = np.argsort(x, kind="stable")
    assert k.numpy().tobytes() == x[order].tobytes()
    np.testing.assert_array_equal(s.numpy(), v[order])
