"""tack.ndrange: the 2-D and 3-D parallel loop (and its 1-D form), non-square and degenerate
shapes, every (i, j[, k]) visited exactly once, sequential loops inside."""
import numpy as np
import pytest

import tack
from kutil import ALL_DTYPES, arr, name, random_array, rng, zeros


@tack.kernel
def nd_transpose(a, out):
    for i, j in tack.ndrange(a.shape[0], a.shape[1]):
        out[j, i] = a[i, j]


@pytest.mark.parametrize("shape", [(1, 1), (1, 37), (37, 1), (5, 7), (64, 64), (300, 17),
                                   (0, 5), (5, 0), (1000, 999)])
def test_transpose_2d(shape):
    a = rng(100).standard_normal(shape).astype(np.float32)
    out = zeros(shape[::-1], np.float32)
    nd_transpose(arr(a), out)
    np.testing.assert_array_equal(out.numpy(), a.T)


@tack.kernel
def nd_count2(out):
    for i, j in tack.ndrange(out.shape[0], out.shape[1]):
        out[i, j] += 1


@tack.kernel
def nd_count3(out):
    for i, j, k in tack.ndrange(out.shape[0], out.shape[1], out.shape[2]):
        out[i, j, k] += 1


@pytest.mark.parametrize("shape", [(3, 4), (1, 1000), (1000, 1), (513, 257)])
def test_each_pair_once(shape):
    out = zeros(shape, np.int32)
    nd_count2(out)
    np.testing.assert_array_equal(out.numpy(), np.ones(shape, np.int32))


@pytest.mark.parametrize("shape", [(2, 3, 4), (1, 1, 1), (7, 1, 9), (64, 65, 66), (0, 3, 3)])
def test_each_triple_once(shape):
    out = zeros(shape, np.int32)
    nd_count3(out)
    np.testing.assert_array_equal(out.numpy(), np.ones(shape, np.int32))


@tack.kernel
def nd_3d_formula(a, out):
    for i, j, k in tack.ndrange(a.shape[0], a.shape[1], a.shape[2]):
        out[i, j, k] = a[i, j, k] * 2 + i * 10000 + j * 100 + k


@pytest.mark.parametrize("shape", [(3, 5, 7), (10, 1, 20), (40, 30, 20)])
def test_3d_indices(shape):
    a = rng(101).integers(-1000, 1000, shape).astype(np.int64)
    out = zeros(shape, np.int64)
    nd_3d_formula(arr(a), out)
    i, j, k = np.indices(shape)
    np.testing.assert_array_equal(out.numpy(), a * 2 + i * 10000 + j * 100 + k)


@tack.kernel
def nd_matmul(a, b, c):
    for i, j in tack.ndrange(a.shape[0], b.shape[1]):
        s = tack.i64(0)
        for k in range(a.shape[1]):
            s += a[i, k] * b[k, j]
        c[i, j] = s


def test_matmul_with_inner_loop():
    r = rng(102)
    a = r.integers(-50, 50, (33, 47)).astype(np.int64)
    b = r.integers(-50, 50, (47, 29)).astype(np.int64)
    c = zeros((33, 29), np.int64)
    nd_matmul(arr(a), arr(b), c)
    np.testing.assert_array_equal(c.numpy(), a @ b)


@tack.kernel
def nd_one_extent(out):
    for i in tack.ndrange(len(out)):
        out[i] = i * 2


def test_ndrange_with_one_extent():
    out = zeros(100, np.int64)
    nd_one_extent(out)
    np.testing.assert_array_equal(out.numpy(), np.arange(100) * 2)


@tack.kernel
def nd_scalar_extents(n, m, out):
    for i, j in tack.ndrange(n, m):
        out[i, j] = i - j


def test_extents_from_scalars_cover_a_sub_block():
    out = arr(np.full((6, 6), 99, np.int32))
    nd_scalar_extents(4, 3, out)
    expected = np.full((6, 6), 99, np.int32)
    for i in range(4):
        for j in range(3):
            expected[i, j] = i - j
    np.testing.assert_array_equal(out.numpy(), expected)


@tack.kernel
def nd_copy3(src, dst):
    for i, j, k in tack.ndrange(src.shape[0], src.shape[1], src.shape[2]):
        dst[i, j, k] = src[i, j, k]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_3d_copy_every_type(dtype):
    x = random_array(rng(103), dtype, 4 * 5 * 6).reshape(4, 5, 6)
    dst = zeros((4, 5, 6), dtype)
    nd_copy3(arr(x), dst)
    np.testing.assert_array_equal(dst.numpy(), x)


@tack.kernel
def nd_stencil(a, out):
    for i, j in tack.ndrange(a.shape[0] - 2, a.shape[1] - 2):
        out[i + 1, j + 1] = (a[i, j + 1] + a[i + 2, j + 1] + a[i + 1, j] + a[i + 1, j + 2]
                             - 4.0 * a[i + 1, j + 1])


def test_five_point_stencil():
    a = rng(104).standard_normal((200, 300))
    out = zeros((200, 300), np.float64)
    nd_stencil(arr(a), out)
    expected = np.zeros_like(a)
    expected[1:-1, 1:-1] = (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:]
                            - 4.0 * a[1:-1, 1:-1])
    np.testing.assert_array_equal(out.numpy(), expected)


@tack.kernel
def nd_scalar_count(n, m, out):
    for i, j in tack.ndrange(n, m):
        out[i, j] += 1


@pytest.mark.parametrize("n, m", [(2000, 2000), (1, 3_000_000), (3_000_000, 1), (1733, 2111)])
def test_large_2d_launch_with_i32_extents_each_pair_once(n, m):
    out = zeros((n, m), np.int8)
    nd_scalar_count(n, m, out)
    got = out.numpy()
    assert got.min() == 1 and got.max() == 1


@tack.kernel
def nd_scalar_count3(n, m, p, out):
    for i, j, k in tack.ndrange(n, m, p):
        out[i, j, k] += 1


@pytest.mark.parametrize("shape", [(100, 100, 300), (3, 1_000_001, 1), (1, 1, 2_000_000),
                                   (301, 7, 999)])
def test_large_3d_launch_with_i32_extents_each_triple_once(shape):
    out = zeros(shape, np.int8)
    nd_scalar_count3(*shape, out)
    got = out.numpy()
    assert got.min() == 1 and got.max() == 1
