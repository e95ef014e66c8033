"""tack.vec(n, dtype) arrays: a kernel indexes their components with one more index
(p[i, c] for a 1-D array of vectors, p[i, j, c] for 2-D); shape and len count the vectors."""
import math

import numpy as np
import pytest

import tack
from kutil import arr, rng, tdt


def vec_array(data, n, dtype):
    return tack.array(np.ascontiguousarray(data), dtype=tack.vec(n, tdt(dtype)))


def vec_zeros(shape, n, dtype):
    return tack.zeros(shape, dtype=tack.vec(n, tdt(dtype)))


@tack.kernel
def va_norms(p, out):
    for i in range(len(p)):
        out[i] = math.sqrt(p[i, 0] * p[i, 0] + p[i, 1] * p[i, 1] + p[i, 2] * p[i, 2])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_vec3_norms(dtype):
    pts = rng(140).standard_normal((1000, 3)).astype(dtype)
    p = vec_array(pts, 3, dtype)
    out = tack.zeros(1000, dtype=tdt(dtype))
    va_norms(p, out)
    x, y, z = pts[:, 0], pts[:, 1], pts[:, 2]
    np.testing.assert_allclose(out.numpy(), np.sqrt(x * x + y * y + z * z),
                               rtol=1e-6 if dtype == np.float32 else 1e-15)


@tack.kernel
def va_scale_components(p, w, q):
    for i in range(p.shape[0]):
        for c in range(w):
            q[i, c] = p[i, 3 - c] * 2


@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.uint8])
def test_vec4_write_components(dtype):
    data = (rng(141).integers(0, 50, (257, 4))).astype(dtype)
    p = vec_array(data, 4, dtype)
    q = vec_zeros(257, 4, dtype)
    va_scale_components(p, 4, q)
    assert q.numpy().shape == (257, 4)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(q.numpy(), (data[:, ::-1] * 2).astype(dtype))


@tack.kernel
def va_2d(p, out):
    for i, j in tack.ndrange(p.shape[0], p.shape[1]):
        out[i, j] = p[i, j, 0] - p[i, j, 1]


def test_2d_array_of_vec2():
    data = rng(142).integers(-100, 100, (13, 17, 2)).astype(np.int64)
    p = vec_array(data, 2, np.int64)
    assert p.shape == (13, 17)
    out = tack.zeros((13, 17), dtype=tack.i64)
    va_2d(p, out)
    np.testing.assert_array_equal(out.numpy(), data[..., 0] - data[..., 1])


@tack.kernel
def va_wide(p, w, out):
    for i in range(len(p)):
        s = p[i, 0] * 0
        for c in range(w):
            s += p[i, c] * (c + 1)
        out[i] = s


def test_vec16():
    data = rng(143).integers(-10, 10, (100, 16)).astype(np.int32)
    p = vec_array(data, 16, np.int32)
    out = tack.zeros(100, dtype=tack.i32)
    va_wide(p, 16, out)
    np.testing.assert_array_equal(out.numpy(), data @ np.arange(1, 17, dtype=np.int32))


@tack.kernel
def va_cross(a, b, out):
    for i in range(len(a)):
        out[i, 0] = a[i, 1] * b[i, 2] - a[i, 2] * b[i, 1]
        out[i, 1] = a[i, 2] * b[i, 0] - a[i, 0] * b[i, 2]
        out[i, 2] = a[i, 0] * b[i, 1] - a[i, 1] * b[i, 0]


def test_cross_product_vs_numpy():
    g = rng(144)
    a = g.integers(-20, 20, (500, 3)).astype(np.float64)
    b = g.integers(-20, 20, (500, 3)).astype(np.float64)
    out = vec_zeros(500, 3, np.float64)
    va_cross(vec_array(a, 3, np.float64), vec_array(b, 3, np.float64), out)
    np.testing.assert_array_equal(out.numpy(), np.cross(a, b))


@tack.kernel
def va_to_plain(p, out):
    for i in range(len(p)):
        for c in range(out.shape[1]):
            out[i, c] = p[i, c]


def test_vec_array_and_plain_2d_array_agree():
    data = rng(145).standard_normal((50, 3)).astype(np.float32)
    out = tack.zeros((50, 3), dtype=tack.f32)
    va_to_plain(vec_array(data, 3, np.float32), out)
    np.testing.assert_array_equal(out.numpy(), data)


def test_vec_width_is_part_of_the_variant():
    @tack.kernel
    def va_first(p, out):
        for i in range(len(p)):
            out[i] = p[i, 0]

    out = tack.zeros(4, dtype=tack.f32)
    va_first(vec_array(np.ones((4, 2), np.float32), 2, np.float32), out)
    va_first(vec_array(np.full((4, 3), 2.0, np.float32), 3, np.float32), out)
    assert out.numpy().tolist() == [2.0] * 4
    assert va_first.variant_count == 2
    va_first(arr(np.full((4, 5), 3.0, np.float32)), out)  # a plain 2-D array: another variant
    assert out.numpy().tolist() == [3.0] * 4


@tack.kernel
def va_none_index(scale, cam, out, out_v):
    for i in range(len(out)):
        out[i] = scale[None] * float(i)  # the original Tack's one-element ("scalar") arrays
        c = cam[None]
        out_v[i] = c * scale[None]


@tack.kernel
def va_none_store(total, x):
    for i in range(1):
        total[None] = total[None] + x[0]


def test_none_index_is_the_element_of_a_one_element_array():
    scale = arr(np.array([2.5], np.float32))
    cam = vec_array(np.array([[1.0, 2.0, 3.0]], np.float32), 3, np.float32)
    out = arr(np.zeros(4, np.float32))
    out_v = vec_zeros(4, 3, np.float32)
    va_none_index(scale, cam, out, out_v)
    assert out.numpy().tolist() == [0.0, 2.5, 5.0, 7.5]
    assert out_v.numpy()[1].tolist() == [2.5, 5.0, 7.5]
    va_none_store(scale, arr(np.array([1.0], np.float32)))
    assert scale.numpy().tolist() == [3.5]


def test_none_index_alone_or_not_at_all():
    @tack.kernel
    def mixed(scale, out):
        for i in range(len(out)):
            out[i] = scale[None][0]

    with pytest.raises(tack.CompileError, match=r"a\[None\] is the element of a one-element"):
        mixed(arr(np.zeros(1, np.float32)), arr(np.zeros(2, np.float32)))
