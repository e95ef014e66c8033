"""Array utilities (docs/algorithms.md): arange and linspace give NumPy's values bit for bit,
concat joins along any axis, astype/copy/to copy, and the *_like constructors take dtype= and
device=; bad input gets NumPy's errors."""
import numpy as np
import pytest

import tack
from kutil import ALL_DTYPES, arr, name, rng



@pytest.mark.parametrize("args", [(10,), (2, 11, 3), (5, -5, -2), (1.5,), (0.1, 1.0, 0.1),
                                  (0, 1, 0.3), (-2.5, 7.25, 0.75), (3, 3), (4, 1)], ids=str)
def test_arange_matches_numpy(args):
    t = tack.arange(*args, device=tack.default_device())
    n = np.arange(*args)
    assert t.device == tack.default_device()
    assert t.numpy().dtype == n.dtype and t.numpy().tobytes() == n.tobytes()


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_arange_and_linspace_in_every_dtype(dtype):
    np.testing.assert_array_equal(tack.arange(0, 50, 3, dtype=dtype, device=tack.default_device()).numpy(),
                                  np.arange(0, 50, 3, dtype=dtype))
    t = tack.linspace(0, 100, 13, dtype=dtype, device=tack.default_device()).numpy()
    assert t.tobytes() == np.linspace(0, 100, 13, dtype=dtype).tobytes()
    if np.issubdtype(dtype, np.floating):
        t = tack.arange(0.1, 3, 0.1, dtype=dtype, device=tack.default_device()).numpy()
        assert t.tobytes() == np.arange(0.1, 3, 0.1, dtype=dtype).tobytes()


@pytest.mark.parametrize("args", [(0, 1), (0, 10, 7), (2.5, -3, 11, False), (1, 1, 5),
                                  (3, 7, 1), (3, 7, 1, False), (0, 1, 0), (-1e10, 1e10, 1001)],
                         ids=str)
def test_linspace_matches_numpy(args):
    t = tack.linspace(*args, device=tack.default_device()).numpy()
    assert t.tobytes() == np.linspace(*args).tobytes()


def test_arange_and_linspace_errors():
    with pytest.raises(ValueError, match="nonzero step"):
        tack.arange(0, 10, 0)
    with pytest.raises(ValueError, match="non-negative"):
        tack.linspace(0, 1, -1)
    with pytest.raises(TypeError, match="scalar dtype"):
        tack.arange(4, dtype=tack.vec(2, tack.f32))


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_concat_along_every_axis(axis):
    g = rng(1)
    xs = [g.standard_normal(s).astype(np.float32) for s in
          ([(2, 3, 4), (5, 3, 4)] if axis == 0 else
           [(2, 3, 4), (2, 1, 4), (2, 6, 4)] if axis == 1 else [(2, 3, 4), (2, 3, 2)])]
    t = tack.concat([arr(x) for x in xs], axis=axis)
    np.testing.assert_array_equal(t.numpy(), np.concatenate(xs, axis=axis))


def test_concat_views_vectors_and_errors():
    x = np.arange(20, dtype=np.int32).reshape(10, 2)
    a = arr(x)
    np.testing.assert_array_equal(tack.concat([a[2:4], a[7:9], a[0:0]]).numpy(),
                                  np.concatenate([x[2:4], x[7:9]]))
    v = tack.zeros(3, dtype=tack.vec(3, tack.f32), device=tack.default_device())
    v.fill((1, 2, 3))
    assert tack.concat([v, v]).numpy().shape == (6, 3)
    with pytest.raises(TypeError, match="dtype"):
        tack.concat([a, arr(x.astype(np.int64))])
    with pytest.raises(ValueError, match=r"shape \(10, 3\)"):
        tack.concat([a, arr(np.zeros((10, 3), np.int32))])
    with pytest.raises(IndexError, match="axis 2"):
        tack.concat([a, a], axis=2)
    with pytest.raises(ValueError, match="no arrays"):
        tack.concat([])


def test_copies():
    x = rng(2).standard_normal((4, 5)).astype(np.float32)
    a = arr(x)
    c = a.copy()
    assert c.device == a.device and not c.is_view
    np.testing.assert_array_equal(c.numpy(), x)
    a.fill(0)
    np.testing.assert_array_equal(c.numpy(), x)  # a copy, not a view
    d = c.astype(tack.f64)
    assert d.dtype == tack.f64 and d.device == c.device
    np.testing.assert_array_equal(d.numpy(), x.astype(np.float64))
    for dev in tack.devices():
        m = c.to(dev)
        assert m.device == dev
        np.testing.assert_array_equal(m.numpy(), x)
    np.testing.assert_array_equal(arr(x)[1:3].copy().numpy(), x[1:3])


def test_like_constructors():
    a = arr(np.zeros((2, 3), np.int16))
    for make, value in [(tack.ones_like, 1), (tack.zeros_like, 0)]:
        r = make(a)
        assert r.shape == (2, 3) and r.dtype == tack.i16 and r.device == a.device
        assert (r.numpy() == value).all()
        r = make(a, dtype=tack.f32, device="cpu")
        assert r.dtype == tack.f32 and r.device == tack.device("cpu")
    f = tack.full_like(a, 7, dtype=tack.f64)
    assert f.dtype == tack.f64 and (f.numpy() == 7).all()
    e = tack.empty_like(a, dtype=tack.u8)
    assert e.shape == (2, 3) and e.dtype == tack.u8


def test_arange_edges():
    np.testing.assert_array_equal(tack.arange(0.5, 5, 1.5, dtype=tack.i32, device=tack.default_device()).numpy(),
                                  np.arange(0.5, 5, 1.5, dtype=np.int32))
    with pytest.raises(ValueError, match="2\\*\\*63"):
        tack.arange(-2**63, 2**63 - 1)
