"""Casts: tack.<type>(x) for all ten types, int(x), float(x). int -> int truncates or extends by
the source's signedness; int -> float and float -> float round to nearest; float -> int
truncates toward zero and saturates at the target's range, NaN -> 0."""
import math

import numpy as np
import pytest

import tack
from kutil import ALL_DTYPES, INT_DTYPES, arr, interesting_ints, name, random_floats, \
    random_ints, rng, saturating_cast, zeros


@tack.kernel
def cv_i8(x, out):
    for i in range(len(x)):
        out[i] = tack.i8(x[i])


@tack.kernel
def cv_i16(x, out):
    for i in range(len(x)):
        out[i] = tack.i16(x[i])


@tack.kernel
def cv_i32(x, out):
    for i in range(len(x)):
        out[i] = tack.i32(x[i])


@tack.kernel
def cv_i64(x, out):
    for i in range(len(x)):
        out[i] = tack.i64(x[i])


@tack.kernel
def cv_u8(x, out):
    for i in range(len(x)):
        out[i] = tack.u8(x[i])


@tack.kernel
def cv_u16(x, out):
    for i in range(len(x)):
        out[i] = tack.u16(x[i])


@tack.kernel
def cv_u32(x, out):
    for i in range(len(x)):
        out[i] = tack.u32(x[i])


@tack.kernel
def cv_u64(x, out):
    for i in range(len(x)):
        out[i] = tack.u64(x[i])


@tack.kernel
def cv_f32(x, out):
    for i in range(len(x)):
        out[i] = tack.f32(x[i])


@tack.kernel
def cv_f64(x, out):
    for i in range(len(x)):
        out[i] = tack.f64(x[i])


CAST = {
    np.dtype(np.int8): cv_i8, np.dtype(np.int16): cv_i16, np.dtype(np.int32): cv_i32,
    np.dtype(np.int64): cv_i64, np.dtype(np.uint8): cv_u8, np.dtype(np.uint16): cv_u16,
    np.dtype(np.uint32): cv_u32, np.dtype(np.uint64): cv_u64, np.dtype(np.float32): cv_f32,
    np.dtype(np.float64): cv_f64,
}


def source_values(src):
    r = rng(50)
    if np.issubdtype(src, np.integer):
        return np.concatenate([interesting_ints(src), random_ints(r, src, 2000)])
    big = [127.9, -128.9, 128.0, -129.0, 255.5, 256.0, -0.5, -0.99, 0.99, 65535.7, 65536.0,
           -32768.9, 2.0 ** 31, -2.0 ** 31 - 4096, 2.0 ** 32, 2.0 ** 63, -2.0 ** 63,
           2.0 ** 64, 1e30, -1e30, np.inf, -np.inf, np.nan, -0.0, 3.999, -3.999, 1e-40]
    v = np.concatenate([np.array(big), random_floats(r, np.float64, 1000, 1e3),
                        random_floats(r, np.float64, 1000, 1e12)])
    with np.errstate(all="ignore"):
        return v.astype(src)


def expected_cast(x, src, dst):
    src, dst = np.dtype(src), np.dtype(dst)
    if np.issubdtype(src, np.floating) and np.issubdtype(dst, np.integer):
        return np.array([saturating_cast(float(v), dst) for v in x], dtype=dst)
    with np.errstate(all="ignore"):
        return x.astype(dst)  # NumPy: int->int wraps, ->float rounds to nearest


@pytest.mark.parametrize("dst", ALL_DTYPES, ids=name)
@pytest.mark.parametrize("src", [np.int64, np.uint64, np.int8, np.uint32, np.float64,
                                 np.float32], ids=name)
def test_cast_to_every_type(src, dst):
    x = source_values(src)
    out = zeros(len(x), dst)
    CAST[np.dtype(dst)](arr(x), out)
    np.testing.assert_array_equal(out.numpy(), expected_cast(x, src, dst))


@tack.kernel
def cv_int_float(f, i, out_i, out_f):
    for k in range(len(f)):
        out_i[k] = int(f[k])
        out_f[k] = float(i[k])


@pytest.mark.parametrize("fdtype", [np.float32, np.float64], ids=name)
def test_python_int_and_float(fdtype):
    r = rng(51)
    f = np.concatenate([np.array([2.9, -2.9, 0.5, -0.5, 1e6 + 0.75, -1e6 - 0.75, 0.0]),
                        random_floats(r, np.float64, 500, 1e5)]).astype(fdtype)
    i = random_ints(r, np.int32, len(f))
    out_i, out_f = zeros(len(f), np.int64), zeros(len(f), np.float64)
    cv_int_float(arr(f), arr(i), out_i, out_f)
    np.testing.assert_array_equal(out_i.numpy(), np.trunc(f).astype(np.int64))
    np.testing.assert_array_equal(out_f.numpy(), i.astype(np.float64))


@tack.kernel
def cv_literals(outi, outf):
    for k in range(1):
        outi[0] = tack.u8(300)
        outi[1] = tack.i8(200)
        outi[2] = tack.i32(2.9)
        outi[3] = tack.i32(-2.9)
        outi[4] = int(-3.7)
        outi[5] = tack.u16(-1)
        outf[0] = tack.f32(0.1)
        outf[1] = float(3)
        outf[2] = tack.f64(tack.f32(1e40))


def test_casts_of_literals():
    outi, outf = zeros(6, np.int64), zeros(3, np.float64)
    cv_literals(outi, outf)
    assert outi.numpy().tolist() == [44, -56, 2, -2, -3, 65535]
    assert outf.numpy()[0] == float(np.float32(0.1))
    assert outf.numpy()[1] == 3.0
    assert outf.numpy()[2] == math.inf


@tack.kernel
def cv_cast_then_mix(a, b, out):
    for k in range(len(a)):
        out[k] = tack.f32(a[k]) + b[k]


def test_cast_rounds_before_mixing():
    # tack.f32 rounds the f64 first; the sum is then f64 (f32 with f64).
    r = rng(52)
    a = random_floats(r, np.float64, 500, 1.0)
    b = random_floats(r, np.float64, 500, 1.0)
    out = zeros(500, np.float64)
    cv_cast_then_mix(arr(a), arr(b), out)
    np.testing.assert_array_equal(out.numpy(), a.astype(np.float32).astype(np.float64) + b)


@pytest.mark.parametrize("dst", INT_DTYPES, ids=name)
def test_nan_and_infinities_to_int(dst):
    x = np.array([np.nan, np.inf, -np.inf, -np.nan], dtype=np.float64)
    out = zeros(4, dst)
    CAST[np.dtype(dst)](arr(x), out)
    info = np.iinfo(dst)
    assert out.numpy().tolist() == [0, info.max, info.min, 0]
