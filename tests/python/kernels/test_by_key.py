"""Scans and reductions by key (docs/algorithms.md, "By key"): runs of equal consecutive keys,
against a serial reference and np.add.reduceat, around the block boundaries, with float values
the same bits on every device, and bad input."""
import numpy as np
import pytest

import tack
from kutil import arr, rng


def reference_scan(k, v, op, exclusive, acc):
    out = np.empty(len(k), acc)
    floats = np.issubdtype(acc, np.floating)
    ident = {"add": 0,
             "min": np.inf if floats else np.iinfo(acc).max,
             "max": -np.inf if floats else np.iinfo(acc).min}[op]
    f = {"add": lambda x, y: x + y, "min": min, "max": max}[op]
    a = None
    for i in range(len(k)):
        start = i == 0 or k[i] != k[i - 1]
        if exclusive:
            out[i] = ident if start else a
        a = acc(v[i]) if start else f(a, acc(v[i]))
        if not exclusive:
            out[i] = a
    return out


@pytest.mark.parametrize("n", [1, 10, 4096, 4097, 9000, 13000])
@pytest.mark.parametrize("op", ["add", "min", "max"])
def test_scans_by_key(n, op):
    g = rng(n)
    k = np.sort(g.integers(0, max(n // 300, 1), n)).astype(np.int32)
    if n == 9000:
        k[:] = 5  # one run over three blocks
    v = g.integers(-50, 50, n).astype(np.int16)
    acc = np.int64 if op == "add" else np.int16
    for exclusive, f in [(False, tack.inclusive_scan_by_key), (True, tack.exclusive_scan_by_key)]:
        got = f(arr(k), arr(v), op).numpy()
        assert got.dtype == acc
        np.testing.assert_array_equal(got, reference_scan(k, v, op, exclusive, acc))


def test_reduce_by_key_matches_reduceat():
    g = rng(1)
    k = np.sort(g.integers(0, 500, 30000)).astype(np.int64)
    v = g.standard_normal(30000)
    rk, rv = tack.reduce_by_key(arr(k), arr(v))
    uk, starts = np.unique(k, return_index=True)
    np.testing.assert_array_equal(rk.numpy(), uk)
    np.testing.assert_allclose(rv.numpy(), np.add.reduceat(v, starts), rtol=1e-12)
    mk, mv = tack.reduce_by_key(arr(k), arr(v), "max")
    np.testing.assert_array_equal(mv.numpy(), np.maximum.reduceat(v, starts))
    # Unsorted keys: runs, not groups.
    rk, rv = tack.reduce_by_key(arr(np.array([1, 1, 2, 1], np.int32)),
                                arr(np.array([1, 2, 3, 4], np.int32)))
    np.testing.assert_array_equal(rk.numpy(), [1, 2, 1])
    np.testing.assert_array_equal(rv.numpy(), [3, 3, 4])


def test_float_values_the_same_bits_on_every_device():
    g = rng(2)
    k = np.sort(g.integers(0, 7, 50000)).astype(np.int32)
    v = g.standard_normal(50000).astype(np.float32)
    cpu = tack.inclusive_scan_by_key(tack.array(k, device=tack.device("cpu")),
                                     tack.array(v, device=tack.device("cpu"))).numpy().tobytes()
    for d in tack.devices():
        got = tack.inclusive_scan_by_key(tack.array(k, device=d), tack.array(v, device=d))
        assert got.numpy().tobytes() == cpu, d.name


def test_empty_and_bad_input():
    e = arr(np.zeros(0, np.int32))
    assert tack.inclusive_scan_by_key(e, e).shape == (0,)
    rk, rv = tack.reduce_by_key(e, e)
    assert rk.shape == (0,) and rv.shape == (0,)
    a = arr(np.zeros(5, np.int32))
    with pytest.raises(ValueError, match="5 keys and 4 values"):
        tack.reduce_by_key(a, arr(np.zeros(4, np.int32)))
    with pytest.raises(ValueError, match="'add', 'min' or 'max'"):
        tack.inclusive_scan_by_key(a, a, "mul")
    with pytest.raises(TypeError, match="vec"):
        tack.reduce_by_key(a, tack.zeros(5, dtype=tack.vec(2, tack.f32), device=a.device))


def test_reduce_by_key_gives_each_runs_first_key():
    rk, rv = tack.reduce_by_key(arr(np.array([0.0, -0.0, 1.0])), arr(np.array([1, 2, 3])))
    assert not np.signbit(rk.numpy()[0])
    np.testing.assert_array_equal(rv.numpy(), [3, 3])


@pytest.mark.parametrize("n", [0, 1, 4097, 20000])
@pytest.mark.parametrize("ordered", [True, False], ids=["sorted ids", "unsorted ids"])
def test_segmented_sum(n, ordered):
    g = rng(n + ordered)
    ids = g.integers(0, 50, n)
    if ordered:
        ids.sort()
    v = g.integers(-9, 10, n).astype(np.int32)
    want = np.zeros(53, np.int64)
    np.add.at(want, ids, v)
    got = tack.segmented_sum(arr(v), arr(ids), 53)  # segments 50-52 have no element: 0
    assert got.dtype == tack.i64  # tack.sum's accumulator
    np.testing.assert_array_equal(got.numpy(), want)
    f = g.standard_normal(n).astype(np.float32)
    s = tack.segmented_sum(arr(f), arr(ids.astype(np.uint16)), 53, dtype=tack.f64).numpy()
    # Each segment adds its values in their order: a serial f64 sum per segment.
    ref = np.zeros(53)
    for i, x in zip(ids, f):
        ref[i] += np.float64(x)
    np.testing.assert_array_equal(s, ref)


def test_segmented_sum_the_same_bits_on_every_device_and_bad_input():
    g = rng(5)
    ids = g.integers(0, 1000, 30000)
    f = g.standard_normal(30000).astype(np.float32)
    ref = tack.segmented_sum(tack.array(f), tack.array(ids), 1000).numpy().tobytes()
    for d in tack.devices():
        got = tack.segmented_sum(tack.array(f, device=d), tack.array(ids, device=d), 1000)
        assert got.numpy().tobytes() == ref, d.name
    with pytest.raises(IndexError, match=r"segment id 999 is outside \[0, 999\)"):
        tack.segmented_sum(arr(f), arr(ids), 999)  # the ids go up to 999
    with pytest.raises(IndexError, match="segment id -1"):
        tack.segmented_sum(arr(f[:2]), arr(np.array([0, -1])), 5)
    with pytest.raises(TypeError, match="integers"):
        tack.segmented_sum(arr(f), arr(f), 5)
    with pytest.raises(ValueError, match="num_segments is -1"):
        tack.segmented_sum(arr(f), arr(ids), -1)
    with pytest.raises(ValueError):
        tack.segmented_sum(arr(f[:5]), arr(ids), 1000)  # lengths differ


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.float32, np.float64, np.int64])
@pytest.mark.parametrize("n", [1, 5, 4095, 4097, 20000])
def test_run_length_encode_matches_a_python_loop(dtype, n):
    x = (np.random.default_rng(n).integers(0, 3, n) // 2).astype(dtype)  # long runs of 0 and 1
    values, counts = tack.run_length_encode(arr(x))
    assert counts.dtype == tack.i64 and values.dtype == arr(x).dtype
    want_v, want_c = [], []
    for v in x:
        if want_v and want_v[-1] == v:
            want_c[-1] += 1
        else:
            want_v.append(v)
            want_c.append(1)
    np.testing.assert_array_equal(values.numpy(), np.array(want_v, dtype))
    np.testing.assert_array_equal(counts.numpy(), want_c)


def test_run_length_encode_edge_cases():
    v, c = tack.run_length_encode(arr(np.zeros(0, np.int32)))
    assert v.shape == (0,) and c.shape == (0,)
    x = np.array([[1.0, 1.0], [np.nan, np.nan], [-0.0, 0.0]], np.float32)  # flattened, C order
    v, c = tack.run_length_encode(arr(x))
    got = v.numpy()
    assert got[0] == 1.0 and np.isnan(got[1]) and np.isnan(got[2])
    assert got[3] == 0.0 and np.signbit(got[3])  # the run's first element
    np.testing.assert_array_equal(c.numpy(), [2, 1, 1, 2])
    with pytest.raises(TypeError, match="scalar array"):
        tack.run_length_encode(tack.zeros(3, dtype=tack.vec(3, tack.f32)))
