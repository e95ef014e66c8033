"""Whole-array reductions (docs/algorithms.md): tack.sum/prod/min/max and the methods, against
NumPy on every dtype, views and sizes around the block boundaries; NumPy's accumulator types,
NaN and empty rules; the same bits on every device and on any thread count (one defined order,
docs/design/algorithms.md)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import tack
from kutil import ALL_DTYPES, FLOAT_DTYPES, arr, name, rng

SIZES = [1, 15, 16, 17, 4095, 4096, 4097, 3 * 4096 + 5, 70000]


@pytest.mark.parametrize("n", SIZES)
def test_float_sums_match_numpy_within_pairwise_error(n):
    x = rng(n).standard_normal(n).astype(np.float32)
    s = tack.sum(arr(x))
    assert isinstance(s, np.float32)
    exact = x.astype(np.float64).sum()
    assert abs(float(s) - exact) <= 1e-6 * np.abs(x).sum() + 1e-6


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_every_dtype_and_numpys_accumulators(dtype):
    r = rng(3)
    if np.issubdtype(dtype, np.integer):
        lo, hi = (0, 50) if np.issubdtype(dtype, np.unsignedinteger) else (-50, 50)
        x = r.integers(lo, hi, 5000).astype(dtype)
        small = r.integers(1, 3, 20).astype(dtype)
    else:
        x = r.standard_normal(5000).astype(dtype)
        small = r.uniform(0.5, 1.5, 20).astype(dtype)
    a = arr(x)
    s = tack.sum(a)
    assert type(s) is type(x.sum())  # i64/u64 for integers, the float itself
    if np.issubdtype(dtype, np.integer):
        assert s == x.sum()
        assert tack.prod(arr(small)) == small.prod()
    else:
        np.testing.assert_allclose(s, x.sum(), rtol=1e-5)
        np.testing.assert_allclose(tack.prod(arr(small)), small.prod(), rtol=1e-5)
    assert tack.min(a) == x.min() and tack.max(a) == x.max()
    assert a.min() == x.min() and a.max() == x.max() and a.sum() == s


def test_views_and_dtype_argument():
    x = np.arange(60, dtype=np.int32).reshape(6, 10)
    a = arr(x)
    assert tack.sum(a) == x.sum()  # a 2-D array: every element
    assert tack.sum(a[2:4]) == x[2:4].sum()  # a view
    f = tack.sum(arr(np.full(1000, 0.1, np.float32)), dtype=tack.f64)
    assert isinstance(f, np.float64)
    assert abs(f - 100.0) < 1e-5


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=name)
def test_nan_propagates_and_empty_arrays(dtype):
    x = rng(4).standard_normal(9000).astype(dtype)
    x[5000] = np.nan
    a = arr(x)
    assert np.isnan(tack.min(a)) and np.isnan(tack.max(a)) and np.isnan(tack.sum(a))
    e = arr(np.zeros(0, dtype))
    assert tack.sum(e) == 0 and tack.prod(e) == 1
    with pytest.raises(ValueError, match="empty"):
        tack.min(e)
    with pytest.raises(ValueError, match="empty"):
        tack.max(e)


def test_vector_arrays_are_refused():
    with pytest.raises(TypeError, match="vec"):
        tack.sum(tack.zeros(4, dtype=tack.vec(3, tack.f32)))


def test_the_same_bits_on_every_device():
    x = rng(5).standard_normal(100_003).astype(np.float32)
    cpu = tack.sum(tack.array(x, device=tack.device("cpu")))
    for d in tack.devices():
        a = tack.array(x, device=d)
        assert tack.sum(a).tobytes() == cpu.tobytes(), d.name
        assert tack.prod(tack.array(x[:40], device=d)).tobytes() == \
            tack.prod(tack.array(x[:40])).tobytes(), d.name


def test_the_same_bits_on_one_thread():
    x = rng(6).standard_normal(300_001).astype(np.float32)
    here = tack.sum(tack.array(x, device=tack.device("cpu"))).tobytes().hex()
    code = ("import numpy as np, tack, sys\n"
            f"x = np.random.default_rng(6).standard_normal(300_001).astype(np.float32)\n"
            "print(tack.sum(tack.array(x, device=tack.device('cpu'))).tobytes().hex())\n")
    env = dict(os.environ, TACK_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == here
