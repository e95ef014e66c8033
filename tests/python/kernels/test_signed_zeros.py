"""min and max order -0.0 below +0.0 (IEEE 754-2019 minimum/maximum; docs/language.md, "Builtins",
and docs/algorithms.md): min gives -0.0 and max +0.0 whichever comes first, in kernels (array
values, literals, vectors, block reductions), in tack.min/max/argmin/argmax, along an axis, in
min/max scans and reduce_by_key, the same bits on every block boundary, device and thread count;
the NaN rules are unchanged."""
import os
import subprocess
import sys

import numpy as np
import pytest

import tack
from kutil import FLOAT_DTYPES, arr, name, zeros


def bits(v, dtype):
    return np.asarray(v, dtype).view(np.uint32 if np.dtype(dtype).itemsize == 4 else np.uint64)


def same_bits(got, want, dtype):
    np.testing.assert_array_equal(bits(got, dtype), bits(want, dtype))


@tack.kernel
def sz_pairs(a, b, lo, hi):
    for i in range(len(a)):
        lo[i] = min(a[i], b[i])
        hi[i] = max(a[i], b[i])


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=name)
def test_kernel_min_max_of_two_zeros_in_either_order(dtype):
    a = np.array([0.0, -0.0, -0.0, 0.0, 1.0, -2.0, np.nan, 3.0], dtype)
    b = np.array([-0.0, 0.0, -0.0, 0.0, 1.0, 5.0, 1.0, np.nan], dtype)
    lo, hi = zeros(len(a), dtype), zeros(len(a), dtype)
    sz_pairs(arr(a), arr(b), lo, hi)
    # Python's NaN rule is kept: min(x, nan) is x and min(nan, x) is nan.
    same_bits(lo.numpy(), [-0.0, -0.0, -0.0, 0.0, 1.0, -2.0, np.nan, 3.0], dtype)
    same_bits(hi.numpy(), [0.0, 0.0, -0.0, 0.0, 1.0, 5.0, np.nan, 3.0], dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=name)
def test_kernel_min_max_of_every_pair_of_special_values(dtype):
    # Python's min(x, y) is y only if y < x, max(x, y) only if y > x; of two equal zeros min
    # takes -0.0 and max +0.0. Every pair, repeated to fill vectors (the CPU's vector code).
    special = [np.nan, -np.inf, -1.5, -0.0, 0.0, 2.5, np.inf]
    pairs = [(x, y) for x in special for y in special] * 37
    a = np.array([p[0] for p in pairs], dtype)
    b = np.array([p[1] for p in pairs], dtype)
    lo, hi = zeros(len(a), dtype), zeros(len(a), dtype)
    sz_pairs(arr(a), arr(b), lo, hi)

    def pick(x, y, below):
        if np.isnan(y) or np.isnan(x):
            return x  # a NaN y is not below or above x; a NaN x stays
        if (y < x) if below else (y > x):
            return y
        if y == x and (np.signbit(y) if below else not np.signbit(y)):
            return y
        return x

    want_lo = np.array([pick(x, y, True) for x, y in zip(a, b)], dtype)
    want_hi = np.array([pick(x, y, False) for x, y in zip(a, b)], dtype)
    for got, want in ((lo.numpy(), want_lo), (hi.numpy(), want_hi)):
        nan = np.isnan(want)
        np.testing.assert_array_equal(np.isnan(got), nan)
        same_bits(got[~nan], want[~nan], dtype)


@tack.kernel
def sz_literals(out):
    for i in range(1):
        out[0] = min(0.0, -0.0)
        out[1] = max(-0.0, 0.0)
        out[2] = min(0.0, -0.0, 0.0)
        out[3] = max(-0.0, 0, -0.0)
        out[4] = tack.clamp(-0.0, 0.0, 1.0)


def test_literal_min_max_fold_the_same_way():
    out = zeros(5, np.float32)
    sz_literals(out)
    same_bits(out.numpy(), [-0.0, 0.0, -0.0, 0.0, 0.0], np.float32)


@tack.kernel
def sz_vectors(a, out):
    for i in range(1):
        v = tack.Vector([a[0], a[1], a[2]])
        out[0] = v.min()
        out[1] = v.max()


def test_vector_min_max_methods():
    out = zeros(2, np.float32)
    sz_vectors(arr(np.array([0.0, -0.0, 0.0], np.float32)), out)
    same_bits(out.numpy(), [-0.0, 0.0], np.float32)


# Sizes across the reductions' block (4096) and lane (16) boundaries.
SIZES = [2, 17, 4097, 3 * 4096 + 5]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=name)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("neg_at", ["first", "middle", "last"])
def test_whole_array_min_max_argmin_argmax(dtype, n, neg_at):
    x = np.zeros(n, dtype)
    k = {"first": 0, "middle": n // 2, "last": n - 1}[neg_at]
    x[k] = -0.0
    a = arr(x)
    same_bits(tack.min(a), -0.0, dtype)
    same_bits(tack.max(a), 0.0, dtype)
    assert tack.argmin(a) == k
    assert tack.argmax(a) == (1 if k == 0 else 0)
    y = -x  # all -0.0 but one +0.0
    b = arr(y)
    same_bits(tack.min(b), -0.0, dtype)
    same_bits(tack.max(b), 0.0, dtype)
    assert tack.argmax(b) == k
    assert tack.argmin(b) == (1 if k == 0 else 0)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=name)
def test_nan_rules_are_unchanged(dtype):
    x = np.array([-0.0, np.nan, 0.0, 1.0], dtype)
    assert np.isnan(tack.min(arr(x))) and np.isnan(tack.max(arr(x)))
    assert tack.argmin(arr(x)) == 1 and tack.argmax(arr(x)) == 1


def test_along_an_axis():
    x = np.zeros((3, 4100), np.float32)
    x[0, 4099] = -0.0
    x[1, 0] = -0.0
    x[2, :] = -0.0
    a = arr(x)
    same_bits(tack.min(a, axis=1).numpy(), [-0.0, -0.0, -0.0], np.float32)
    same_bits(tack.max(a, axis=1).numpy(), [0.0, 0.0, -0.0], np.float32)
    np.testing.assert_array_equal(tack.argmin(a, axis=1).numpy(), [4099, 0, 0])
    np.testing.assert_array_equal(tack.argmax(a, axis=1).numpy(), [0, 1, 0])
    same_bits(tack.min(a.reshape((3 * 4100,)).reshape((3, 4100)), axis=0).numpy()[:2],
              [-0.0, -0.0], np.float32)


def test_min_max_scans_and_reduce_by_key():
    x = np.array([0.0, -0.0, 0.0, 1.0, -0.0], np.float32)
    same_bits(tack.inclusive_scan(arr(x), "min").numpy(), [0.0, -0.0, -0.0, -0.0, -0.0],
              np.float32)
    same_bits(tack.inclusive_scan(arr(-x), "max").numpy(), [-0.0, 0.0, 0.0, 0.0, 0.0],
              np.float32)
    keys = arr(np.array([1, 1, 2, 2, 2], np.int32))
    _, lo = tack.reduce_by_key(keys, arr(x), "min")
    same_bits(lo.numpy(), [-0.0, -0.0], np.float32)


def test_the_same_bits_on_one_thread_and_on_every_device():
    code = ("import numpy as np, tack\n"
            "x = np.zeros(5 * 4096, np.float32); x[3 * 4096 + 7] = -0.0\n"
            "a, b = (tack.array(v, device=tack.device('cpu')) for v in (x, -x))\n"
            "print(tack.min(a).tobytes().hex(), tack.max(b).tobytes().hex(), tack.argmin(a))\n")
    env = dict(os.environ, TACK_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    neg, pos = np.float32(-0.0).tobytes().hex(), np.float32(0.0).tobytes().hex()
    assert out == [neg, pos, str(3 * 4096 + 7)]
    x = np.zeros(5 * 4096, np.float32)
    x[3 * 4096 + 7] = -0.0
    for d in tack.devices():
        a = tack.array(x, device=d)
        assert tack.min(a).tobytes().hex() == neg, d.name
        assert tack.argmin(a) == 3 * 4096 + 7, d.name


@tack.kernel
def sz_block(data, out, n):
    for i in range(n):
        lo = tack.block_min(data[i])
        hi = tack.block_max(data[i])
        if tack.thread_id() == 0:
            out[0] = lo
            out[1] = hi


@pytest.mark.workgroups_only("block reductions run on devices with workgroups")
def test_block_reductions():
    d = np.zeros(256, np.float32)
    d[100] = -0.0
    out = zeros(2, np.float32)
    sz_block(arr(d), out, 256)
    same_bits(out.numpy(), [-0.0, 0.0], np.float32)
