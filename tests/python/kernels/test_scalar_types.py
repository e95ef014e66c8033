"""Every one of the ten scalar types through a copy kernel and an add kernel, compared with NumPy
on the same dtype (integers wrap at their width), also over wrapped buffers at odd byte offsets
(CPU loads and stores promise only byte alignment)."""
import numpy as np
import pytest

import tack
from kutil import ALL_DTYPES, FLOAT_DTYPES, arr, interesting_ints, name, random_array, rng, \
    special_floats, tdt, zeros


@tack.kernel
def st_copy(src, dst):
    for i in range(len(src)):
        dst[i] = src[i]


@tack.kernel
def st_add(a, b, out):
    for i in range(len(a)):
        out[i] = a[i] + b[i]


@tack.kernel
def st_copy2d(src, dst):
    for i, j in tack.ndrange(src.shape[0], src.shape[1]):
        dst[i, j] = src[i, j]


def edge_values(dtype):
    if np.dtype(dtype) in map(np.dtype, FLOAT_DTYPES):
        return special_floats(dtype)
    return interesting_ints(dtype)


def same_bits(x, y):
    x, y = np.ascontiguousarray(x), np.ascontiguousarray(y)
    assert x.dtype == y.dtype and x.shape == y.shape
    np.testing.assert_array_equal(x.view(np.uint8), y.view(np.uint8))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_copy_every_type(dtype):
    x = np.concatenate([edge_values(dtype), random_array(rng(1), dtype, 1000)])
    dst = zeros(len(x), dtype)
    st_copy(arr(x), dst)
    assert dst.dtype == tdt(dtype)
    same_bits(dst.numpy(), x)  # bit for bit: NaN, -0.0 and denormals pass through unchanged


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_add_every_type(dtype):
    r = rng(2)
    e = edge_values(dtype)
    a = np.concatenate([np.repeat(e, len(e)), random_array(r, dtype, 2000)])
    b = np.concatenate([np.tile(e, len(e)), random_array(r, dtype, 2000)])
    out = zeros(len(a), dtype)
    st_add(arr(a), arr(b), out)
    with np.errstate(all="ignore"):
        expected = a + b  # NumPy wraps integer arrays at their width, as Tack must
    np.testing.assert_array_equal(out.numpy(), expected)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_copy_2d_every_type(dtype):
    x = random_array(rng(3), dtype, 7 * 5).reshape(7, 5)
    dst = zeros((7, 5), dtype)
    st_copy2d(arr(x), dst)
    same_bits(dst.numpy(), x)


def misaligned(backing, offset, x):
    """A NumPy view of `backing` (bytes) at `offset` holding x's bytes."""
    view = backing[offset:offset + x.nbytes]
    view[:] = x.view(np.uint8)
    return view


@pytest.mark.parametrize("offset", [1, 3])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
@pytest.mark.cpu_only("wraps host memory (array_from_ptr over a host address); OpenCL accepts only its own memory")
def test_copy_and_add_at_odd_byte_offsets(dtype, offset):
    r = rng(4)
    n = 257
    a = random_array(r, dtype, n)
    b = random_array(r, dtype, n)
    item = np.dtype(dtype).itemsize
    raw_a = np.zeros(n * item + 16, np.uint8)
    raw_b = np.zeros(n * item + 16, np.uint8)
    raw_out = np.zeros(n * item + 16, np.uint8)
    va = misaligned(raw_a, offset, a)
    vb = misaligned(raw_b, offset + 2, b)
    vout = raw_out[offset:offset + n * item]
    ta = tack.array_from_ptr(va, tdt(dtype), n)          # read-only inputs
    tb = tack.array_from_ptr(vb, tdt(dtype), n)
    tout = tack.array_from_ptr(vout, tdt(dtype), n, writable=True)
    st_copy(ta, tout)
    same_bits(vout.view(dtype), a)
    st_add(ta, tb, tout)
    with np.errstate(all="ignore"):
        expected = a + b
    np.testing.assert_array_equal(vout.view(dtype), expected)
    # Bytes around the output stay untouched.
    assert not raw_out[:offset].any() and not raw_out[offset + n * item:].any()


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_each_type_is_its_own_variant(dtype):
    @tack.kernel
    def st_copy_local(src, dst):
        for i in range(len(src)):
            dst[i] = src[i]

    x = random_array(rng(5), dtype, 10)
    dst = zeros(10, dtype)
    st_copy_local(arr(x), dst)
    st_copy_local(arr(x), dst)
    assert st_copy_local.variant_count == 1
    other = np.float64 if np.dtype(dtype) != np.dtype(np.float64) else np.int8
    st_copy_local(arr(x.astype(other)), zeros(10, other))
    assert st_copy_local.variant_count == 2
