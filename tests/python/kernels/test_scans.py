"""Scans (docs/algorithms.md): inclusive_scan, exclusive_scan and cumsum with add, min and max on
every dtype against NumPy (cumsum, minimum/maximum.accumulate), sizes around the block
boundaries, views, NaN, empty arrays, out= (in place, overlaps refused), bad input, and the
same bits on every device and thread count."""
import os
import subprocess
import sys

import numpy as np
import pytest

import tack
from kutil import ALL_DTYPES, arr, name, rng

SIZES = [1, 7, 4095, 4096, 4097, 2 * 4096 + 1, 4096 * 4096 + 5]


def data(n, dtype, seed=0):
    g = rng(seed)
    if np.issubdtype(dtype, np.integer):
        lo = 0 if np.issubdtype(dtype, np.unsignedinteger) else -9
        return g.integers(lo, 10, n).astype(dtype)
    return g.integers(-9, 10, n).astype(dtype)  # integers in floats: the sums are exact


@pytest.mark.parametrize("n", SIZES)
def test_sizes_around_the_blocks(n):
    x = data(n, np.int32, n)
    a = arr(x)
    np.testing.assert_array_equal(tack.cumsum(a).numpy(), np.cumsum(x))
    e = tack.exclusive_scan(a).numpy()
    assert e[0] == 0
    np.testing.assert_array_equal(e[1:], np.cumsum(x)[:-1])
    np.testing.assert_array_equal(tack.inclusive_scan(a, "max").numpy(), np.maximum.accumulate(x))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_every_dtype_and_numpys_output_dtypes(dtype):
    x = data(9000, dtype, 1)
    a = arr(x)
    c = tack.cumsum(a).numpy()
    assert c.dtype == np.cumsum(x).dtype
    np.testing.assert_array_equal(c, np.cumsum(x))
    for op, uf in [("min", np.minimum), ("max", np.maximum)]:
        r = tack.inclusive_scan(a, op).numpy()
        assert r.dtype == x.dtype
        np.testing.assert_array_equal(r, uf.accumulate(x))
        e = tack.exclusive_scan(a, op).numpy()
        np.testing.assert_array_equal(e[1:], uf.accumulate(x)[:-1])
    info = np.finfo(dtype) if np.issubdtype(dtype, np.floating) else np.iinfo(dtype)
    big = np.inf if np.issubdtype(dtype, np.floating) else info.max
    assert tack.exclusive_scan(a, "min").numpy()[0] == big
    assert tack.exclusive_scan(a, "max").numpy()[0] == (-np.inf if big == np.inf else info.min)


def test_float_sums_are_pairwise_at_block_level():
    x = rng(2).standard_normal(300_000).astype(np.float32)
    c = tack.cumsum(arr(x)).numpy()
    exact = np.cumsum(x.astype(np.float64))
    # Serial inside a block of 4096, pairwise across blocks.
    assert np.abs(c - exact).max() <= 4096 * 1.2e-7 * np.abs(x).sum() / 70


def test_dtype_views_and_shapes():
    x = np.arange(60, dtype=np.int16).reshape(6, 10)
    a = arr(x)
    r = tack.cumsum(a[2:5], dtype=tack.f64)
    assert r.dtype == tack.f64 and r.shape == (30,)  # every element, flattened as NumPy's
    np.testing.assert_array_equal(r.numpy(), np.cumsum(x[2:5], dtype=np.float64))
    np.testing.assert_array_equal(a.cumsum().numpy(), np.cumsum(x))
    assert tack.cumsum(arr(np.zeros(0, np.float32))).shape == (0,)


def test_nan_and_negative_zero():
    x = np.array([1.0, np.nan, -3.0, 2.0] * 3000, np.float32)
    assert np.isnan(tack.cumsum(arr(x)).numpy()[1:]).all()
    np.testing.assert_array_equal(tack.inclusive_scan(arr(x), "min").numpy(),
                                  np.minimum.accumulate(x))
    z = tack.cumsum(arr(np.array([-0.0], np.float32))).numpy()
    assert np.signbit(z[0])  # -0.0 stays itself, as in NumPy's cumsum


def test_out_in_place_and_overlaps():
    x = data(10000, np.int64, 3)
    a = arr(x)
    out = tack.empty(10000, dtype=tack.i64, device=a.device)
    assert tack.inclusive_scan(a, out=out) is out
    np.testing.assert_array_equal(out.numpy(), np.cumsum(x))
    tack.exclusive_scan(a, out=a)  # in place: each element is read before it is written
    np.testing.assert_array_equal(a.numpy()[1:], np.cumsum(x)[:-1])
    b = arr(np.zeros(20, np.int64))
    with pytest.raises(ValueError, match="overlaps"):
        tack.inclusive_scan(b[0:10], out=b[5:15])
    with pytest.raises(ValueError, match="elements"):
        tack.inclusive_scan(b, out=b[0:10])
    i = np.arange(5, dtype=np.int32)
    f = arr(np.zeros(5, np.float32))
    tack.inclusive_scan(arr(i), out=f)  # out's dtype is the accumulator
    np.testing.assert_array_equal(f.numpy(), np.cumsum(i, dtype=np.float32))
    with pytest.raises(TypeError, match="dtype=i64 but out= has dtype f32"):
        tack.inclusive_scan(arr(i), dtype=tack.i64, out=f)
    host = np.zeros(5, np.int64)
    ro = tack.array_from_ptr(host.ctypes.data, tack.i64, (5,), device=tack.device("cpu"))
    with pytest.raises(RuntimeError, match="read-only"):
        tack.inclusive_scan(tack.array(host, device=tack.device("cpu")), out=ro)


def test_bad_input():
    a = arr(np.zeros(5, np.float32))
    with pytest.raises(ValueError, match="'add', 'min' or 'max', got 'mul'"):
        tack.inclusive_scan(a, "mul")
    with pytest.raises(TypeError, match="vec"):
        tack.cumsum(tack.zeros(4, dtype=tack.vec(2, tack.f32)))


def test_the_same_bits_on_every_device_and_thread_count():
    x = rng(4).standard_normal(3 * 4096 * 4096 // 1000).astype(np.float32)
    cpu = tack.cumsum(tack.array(x, device=tack.device("cpu"))).numpy().tobytes()
    for d in tack.devices():
        assert tack.cumsum(tack.array(x, device=d)).numpy().tobytes() == cpu, d.name
    code = ("import numpy as np, tack, hashlib\n"
            f"x = np.random.default_rng(4).standard_normal({x.size}).astype(np.float32)\n"
            "r = tack.cumsum(tack.array(x, device=tack.device('cpu'))).numpy()\n"
            "print(hashlib.sha256(r.tobytes()).hexdigest())\n")
    import hashlib
    env = dict(os.environ, TACK_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == hashlib.sha256(cpu).hexdigest()


def test_min_max_scans_in_another_dtype():
    x = np.arange(10000, dtype=np.uint64)
    r = tack.inclusive_scan(arr(x), "max", dtype=tack.i64).numpy()
    assert r.dtype == np.int64 and r[-1] == 9999


GROUP_CASES = [(np.int32, "add"), (np.uint8, "add"), (np.int64, "max"), (np.uint64, "min"),
               (np.float32, "min"), (np.float64, "max")]


@pytest.mark.parametrize("dtype,op", GROUP_CASES, ids=lambda c: name(c) if isinstance(c, type)
                         else c)
def test_workgroup_scans_give_the_serial_scans_bits(monkeypatch, dtype, op):
    # Devices that want coalesced access scan exact folds by workgroups (docs/design/
    # algorithms.md); TACK_SCAN_KERNEL forces either kernel where workgroups exist (PoCL here).
    groups = [d for d in tack.devices() if d.kind == "opencl"]
    if not groups:
        pytest.skip("no device with workgroups")
    g = rng(21)
    for n in [1, 255, 256, 257, 4096, 4097, 5 * 4096 + 300]:
        x = g.integers(-1000, 1000, n).astype(dtype)
        if np.issubdtype(dtype, np.floating) and n > 8:
            x[::37] = np.nan
            x[1::41] = -0.0
            x[2::43] = 0.0
        for scan in (tack.inclusive_scan, tack.exclusive_scan):
            want = scan(tack.array(x), op).numpy().tobytes()  # the CPU's serial pass
            for kernel in ("portable", "workgroup"):
                monkeypatch.setenv("TACK_SCAN_KERNEL", kernel)
                got = scan(tack.array(x, device=groups[0]), op).numpy().tobytes()
                assert got == want, (n, scan.__name__, kernel)


def test_workgroup_scans_of_two_levels(monkeypatch):
    # More than 4096 blocks: the blocks' offsets are scanned by the same kernel, recursively.
    groups = [d for d in tack.devices() if d.kind == "opencl"]
    if not groups:
        pytest.skip("no device with workgroups")
    x = data(4096 * 4096 + 4097, np.int32, 3)
    monkeypatch.setenv("TACK_SCAN_KERNEL", "workgroup")
    np.testing.assert_array_equal(tack.cumsum(tack.array(x, device=groups[0])).numpy(),
                                  np.cumsum(x))


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.float32], ids=name)
def test_scans_past_the_streaming_threshold(dtype):
    # An integer scan past tack.streaming_threshold() writes its output around the caches
    # (docs/design/streaming_stores.md); a float scan keeps ordinary stores. The same values
    # either way, inclusive and exclusive, into a new array and into out=.
    before = tack.streaming_threshold()
    tack.set_streaming_threshold(0)
    try:
        x = rng(12).integers(0, 100, 3 * 4096 + 17).astype(dtype)
        a = arr(x)
        np.testing.assert_array_equal(tack.cumsum(a).numpy(), np.cumsum(x))
        out = tack.zeros(len(x), dtype=tack.cumsum(a).dtype)
        tack.exclusive_scan(a, out=out)
        np.testing.assert_array_equal(out.numpy(), np.concatenate([[0], np.cumsum(x)[:-1]]))
    finally:
        tack.set_streaming_threshold(before)
