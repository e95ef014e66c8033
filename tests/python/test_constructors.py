"""tack.empty / zeros / ones / full / array / empty_like / zeros_like, reshape, attributes."""
import numpy as np
import pytest

import tack

# Every test runs on every device (tests/python/conftest.py), as the default device.
pytestmark = pytest.mark.usefixtures("device")


@pytest.mark.parametrize("shape, expected", [(5, (5,)), ((5,), (5,)), ((2, 3), (2, 3)),
                                             ([2, 3, 4], (2, 3, 4)), ((), ()), ((0, 3), (0, 3))])
def test_shape_is_an_int_or_a_tuple(shape, expected):
    a = tack.empty(shape)
    assert a.shape == expected
    assert a.ndim == len(expected)
    assert a.size == int(np.prod(expected))
    assert a.dtype == tack.f32
    assert a.nbytes == a.size * 4


def test_new_array_attributes(device):
    a = tack.zeros((6, 3), dtype=tack.i16)
    assert a.writable
    assert not a.is_view
    assert not a.shared
    assert a.device == device
    assert a.version >= 0
    assert repr(tack.zeros(4)) == f"tack.array([0., 0., 0., 0.], dtype=f32, device={device.name})"
    assert str(tack.zeros(4)) == "[0. 0. 0. 0.]"


def test_zeros_ones_full_fill():
    np.testing.assert_array_equal(tack.zeros((2, 3)).numpy(), np.zeros((2, 3), np.float32))
    np.testing.assert_array_equal(tack.ones(4, dtype=tack.u8).numpy(), np.ones(4, np.uint8))
    np.testing.assert_array_equal(tack.full((2, 2), 7, dtype=tack.i64).numpy(),
                                  np.full((2, 2), 7, np.int64))
    np.testing.assert_array_equal(tack.full(3, 2.5).numpy(), np.full(3, 2.5, np.float32))
    np.testing.assert_array_equal(tack.full(3, -2.7, tack.i32).numpy(), [-2, -2, -2])
    np.testing.assert_array_equal(tack.full(2, True, tack.u8).numpy(), [1, 1])
    np.testing.assert_array_equal(tack.full(2, np.float32(1.5), tack.f64).numpy(), [1.5, 1.5])
    assert tack.full(1, 2**64 - 1, tack.u64)[0] == 2**64 - 1
    assert tack.full(1, -(2**63), tack.i64)[0] == -(2**63)


def test_fill_value_must_fit():
    with pytest.raises(ValueError, match=r"value 300 does not fit in u8 \(range 0 to 255\)"):
        tack.full(3, 300, tack.u8)
    with pytest.raises(ValueError, match=r"value -1 does not fit in u32"):
        tack.full(3, -1, tack.u32)
    with pytest.raises(ValueError, match=r"does not fit in i64"):
        tack.full(1, 2**70, tack.i64)
    with pytest.raises(ValueError, match=r"value nan does not fit in i32"):
        tack.full(1, float("nan"), tack.i32)
    with pytest.raises(TypeError, match=r"incompatible function arguments"):
        tack.full(3, "seven")


def test_negative_dimension_is_refused():
    with pytest.raises(ValueError, match=r"tack.empty: negative dimension -1 in shape \(2, -1\)"):
        tack.zeros((2, -1))


def test_unknown_device_is_refused(device):
    with pytest.raises(ValueError, match=r"no device named 'nope'; the devices present are 'cpu'"):
        tack.zeros(3, device="nope")
    assert tack.zeros(3, device=device.name).device.name == device.name
    assert tack.zeros(3, device=device).device == tack.default_device()
    for other in tack.devices():  # an explicit device wins over the default
        assert tack.zeros(3, device=other).device == other
        assert tack.array([1, 2], device=other).device == other


@pytest.mark.parametrize(
    "obj, dtype",
    [
        (np.arange(6, dtype=np.float32).reshape(2, 3), tack.f32),
        (np.arange(6, dtype=np.uint16), tack.u16),
        ([[1, 2], [3, 4]], tack.i64),
        ([1.5, 2.5], tack.f64),
        (3.0, tack.f64),
        (7, tack.i64),
    ],
)
def test_array_keeps_the_data_dtype(obj, dtype):
    a = tack.array(obj)
    assert a.dtype == dtype
    expected = np.asarray(obj)
    assert a.shape == expected.shape
    np.testing.assert_array_equal(a.numpy(), expected)


def test_array_converts_to_a_given_dtype():
    a = tack.array([[1.7, -2.7], [3.2, 4.9]], dtype=tack.i32)
    assert a.dtype == tack.i32
    np.testing.assert_array_equal(a.numpy(), [[1, -2], [3, 4]])
    b = tack.array(np.array([True, False]), dtype=tack.u8)
    np.testing.assert_array_equal(b.numpy(), [1, 0])
    c = tack.array(np.array([1.5, 2.5], dtype=np.float16), dtype=tack.f32)
    np.testing.assert_array_equal(c.numpy(), [1.5, 2.5])


def test_array_is_a_copy():
    x = np.arange(4, dtype=np.float64)
    a = tack.array(x)
    x[0] = 100.0
    assert a[0] == 0.0


def test_array_of_non_native_byte_order():
    x = np.arange(5, dtype=">f4")
    a = tack.array(x)
    assert a.dtype == tack.f32
    np.testing.assert_array_equal(a.numpy(), [0, 1, 2, 3, 4])


def test_array_without_a_tack_dtype_is_refused():
    with pytest.raises(TypeError, match=r"host data of dtype bool has no Tack dtype"):
        tack.array([True, False])
    with pytest.raises(TypeError, match=r"host data of dtype float16 has no Tack dtype"):
        tack.array(np.zeros(3, np.float16))
    with pytest.raises(TypeError, match=r"host data of dtype complex128 has no Tack dtype"):
        tack.array([1j])


def test_array_of_a_tack_array():
    a = tack.array(tack.full((2, 2), 3.0))
    np.testing.assert_array_equal(a.numpy(), np.full((2, 2), 3.0, np.float32))


def test_like_constructors():
    a = tack.full((3, 2), 5, dtype=tack.i16)
    e = tack.empty_like(a)
    z = tack.zeros_like(a)
    for b in (e, z):
        assert b.shape == (3, 2) and b.dtype == tack.i16 and b.device == a.device
        assert not b.is_view
    np.testing.assert_array_equal(z.numpy(), np.zeros((3, 2), np.int16))
    z.fill(1)
    assert a[0, 0] == 5


def test_vector_arrays(device):
    v3 = tack.vec(3, tack.f32)
    a = tack.zeros(4, dtype=v3)
    assert a.shape == (4,)
    assert a.dtype == v3
    assert a.size == 4
    assert a.nbytes == 48
    assert a.numpy().shape == (4, 3)
    b = tack.array(np.arange(12, dtype=np.float32).reshape(4, 3), dtype=v3)
    assert b.shape == (4,)
    np.testing.assert_array_equal(b.numpy(), np.arange(12).reshape(4, 3))
    assert repr(b).endswith(f"dtype=vec(3, f32), device={device.name})")
    assert repr(b).startswith("tack.array([[ 0.,  1.,  2.],")
    with pytest.raises(ValueError, match=r"its last dimension must be 3"):
        tack.array(np.zeros((4, 2)), dtype=v3)


def test_reshape_forms():
    a = tack.array(np.arange(12, dtype=np.int32))
    assert a.reshape(3, 4).shape == (3, 4)
    assert a.reshape((3, 4)).shape == (3, 4)
    assert a.reshape([2, 6]).shape == (2, 6)
    assert a.reshape(-1, 3).shape == (4, 3)
    assert a.reshape(12).shape == (12,)
    r = a.reshape(3, 4)
    assert r[2, 3] == 11
    with pytest.raises(ValueError, match=r"the element count must stay the same"):
        a.reshape(5, 3)
    with pytest.raises(ValueError, match=r"only one dimension may be -1"):
        a.reshape(-1, -1)


def test_reshape_shares_memory_and_flags():
    a = tack.zeros(6)
    r = a.reshape(2, 3)
    r.fill(4.0)
    assert a[5] == 4.0
    assert r.version == a.version
    memory = a.export_memory()  # a pointer of the device, wrapped read-only
    ro = tack.array_from_ptr(memory.address, tack.f32, 6)
    assert not ro.reshape(3, 2).writable
    assert ro.reshape(3, 2)[2, 1] == 4.0
