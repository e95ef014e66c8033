"""tack.copyto and numpy(): dtype conversion, broadcasting, errors, nothing written on failure."""
import numpy as np
import pytest

import tack

# Every test runs on every device (tests/python/conftest.py), as the default device.
pytestmark = pytest.mark.usefixtures("device")


def test_copyto_same_dtype_and_shape():
    a = tack.empty((2, 3), dtype=tack.f64)
    x = np.arange(6, dtype=np.float64).reshape(2, 3)
    tack.copyto(a, x)
    np.testing.assert_array_equal(a.numpy(), x)


@pytest.mark.parametrize(
    "dtype, data, expected",
    [
        (tack.i32, [1.5, -2.5, 3.9], [1, -2, 3]),
        (tack.f32, [1, 2, 3], [1.0, 2.0, 3.0]),
        (tack.u8, np.array([1, 2, 3], dtype=np.int64), [1, 2, 3]),
        (tack.f64, np.array([0.5, 1.5], dtype=np.float32), [0.5, 1.5]),
        (tack.i64, np.array([7, 8], dtype=np.uint16), [7, 8]),
    ],
)
def test_copyto_converts_the_dtype(dtype, data, expected):
    a = tack.empty(len(expected), dtype=dtype)
    tack.copyto(a, data)
    np.testing.assert_array_equal(a.numpy(), expected)
    assert a.numpy().dtype == dtype.numpy


def test_copyto_defines_out_of_range_float_to_int():
    a = tack.empty(4, dtype=tack.u8)
    tack.copyto(a, [np.nan, -5.0, 1e10, 7.9])
    np.testing.assert_array_equal(a.numpy(), [0, 0, 255, 7])


def test_copyto_from_sources_outside_the_ten():
    a = tack.empty(3, dtype=tack.i32)
    tack.copyto(a, np.array([True, False, True]))
    np.testing.assert_array_equal(a.numpy(), [1, 0, 1])
    b = tack.empty(2, dtype=tack.f32)
    tack.copyto(b, np.array([0.25, 8.5], dtype=np.float16))
    np.testing.assert_array_equal(b.numpy(), [0.25, 8.5])


@pytest.mark.parametrize(
    "data, expected",
    [
        (np.array([1.0, 2.0, 3.0]), np.tile([1.0, 2.0, 3.0], (4, 1))),
        (np.array([[1.0], [2.0], [3.0], [4.0]]), np.repeat([[1.0], [2.0], [3.0], [4.0]], 3, 1)),
        (5.0, np.full((4, 3), 5.0)),
        (np.array([[[9.0, 8.0, 7.0]]]), np.tile([9.0, 8.0, 7.0], (4, 1))),
    ],
)
def test_copyto_broadcasts(data, expected):
    a = tack.zeros((4, 3))
    tack.copyto(a, data)
    np.testing.assert_array_equal(a.numpy(), expected)


def test_copyto_from_strided_and_non_native_data():
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    a = tack.empty((4, 3))
    tack.copyto(a, x[:, ::2])
    np.testing.assert_array_equal(a.numpy(), x[:, ::2])
    tack.copyto(a, x[::-1, 1::2].astype(">f8"))
    np.testing.assert_array_equal(a.numpy(), x[::-1, 1::2])


def test_copyto_vector_array_uses_the_numpy_shape():
    a = tack.zeros(2, dtype=tack.vec(3, tack.f32))
    tack.copyto(a, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(a.numpy(), [[1, 2, 3], [1, 2, 3]])
    with pytest.raises(ValueError,
                       match=r"does not match or broadcast to the array's shape \(2, 3\)"):
        tack.copyto(a, [1.0, 2.0])


def test_copyto_shape_mismatch_is_a_value_error_and_writes_nothing():
    a = tack.full((4, 3), 5.0)
    before = a.version
    with pytest.raises(ValueError, match=r"tack.copyto: data of shape \(4,\) does not match or "
                                         r"broadcast to the array's shape \(4, 3\)"):
        tack.copyto(a, np.arange(4.0))
    with pytest.raises(ValueError, match=r"data of shape \(2, 4, 3\) does not match"):
        tack.copyto(a, np.zeros((2, 4, 3)))
    np.testing.assert_array_equal(a.numpy(), np.full((4, 3), 5.0))
    assert a.version == before


def test_copyto_unsupported_source_writes_nothing():
    a = tack.full(2, 5.0)
    with pytest.raises((TypeError, ValueError)):
        tack.copyto(a, ["x", "y"])
    np.testing.assert_array_equal(a.numpy(), [5.0, 5.0])


@pytest.mark.cpu_only("wraps NumPy's host memory")
def test_copyto_read_only_is_a_runtime_error_and_writes_nothing():
    backing = np.full(4, 2.0, dtype=np.float32)
    ro = tack.array_from_ptr(backing, tack.f32, 4)
    before = ro.version
    with pytest.raises(RuntimeError,
                       match=r"cannot copy into a read-only f32 array of shape \(4,\)"):
        tack.copyto(ro, [1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(backing, [2.0] * 4)
    assert ro.version == before


def test_copyto_into_read_only_device_memory_writes_nothing():
    owner = tack.full(4, 2.0)
    memory = owner.export_memory()  # the device's own pointer, wrapped read-only below
    ro = tack.array_from_ptr(memory.address, tack.f32, 4)
    assert ro.device == owner.device and not ro.writable
    before = ro.version
    with pytest.raises(RuntimeError,
                       match=r"cannot copy into a read-only f32 array of shape \(4,\)"):
        tack.copyto(ro, [1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(owner.numpy(), [2.0] * 4)
    assert ro.version == before


def test_copyto_counts_a_write():
    a = tack.zeros(3)
    before = a.version
    tack.copyto(a, [1.0, 2.0, 3.0])
    assert a.version > before


def test_copyto_into_rows_of_a_view():
    a = tack.zeros((5, 2), dtype=tack.i32)
    tack.copyto(a[1:3], [[1, 2], [3, 4]])
    np.testing.assert_array_equal(a.numpy(), [[0, 0], [1, 2], [3, 4], [0, 0], [0, 0]])


def test_numpy_is_a_new_copy():
    a = tack.full((2, 3), 1.5, dtype=tack.f64)
    n = a.numpy()
    assert isinstance(n, np.ndarray)
    assert n.shape == (2, 3) and n.dtype == np.float64
    assert n.flags.c_contiguous and n.flags.writeable and n.flags.owndata
    n[0, 0] = 9.0
    assert a[0, 0] == 1.5
    assert a.numpy() is not a.numpy()


@pytest.mark.parametrize("dtype", [tack.i8, tack.i16, tack.i32, tack.i64, tack.u8, tack.u16,
                                   tack.u32, tack.u64, tack.f32, tack.f64])
def test_round_trip_every_dtype(dtype):
    x = (np.arange(24) % 100).astype(dtype.numpy).reshape(2, 3, 4)
    a = tack.array(x)
    assert a.dtype == dtype
    np.testing.assert_array_equal(a.numpy(), x)
    assert a.numpy().dtype == x.dtype


def test_numpy_of_empty_and_zero_dimensional_arrays():
    assert tack.zeros((0, 3)).numpy().shape == (0, 3)
    s = tack.full((), 4.0)
    assert s.numpy().shape == ()
    assert s.numpy()[()] == 4.0


def test_asarray_protocol():
    a = tack.full((2, 2), 3, dtype=tack.i32)
    n = np.asarray(a)
    assert n.dtype == np.int32 and n.shape == (2, 2)
    np.testing.assert_array_equal(np.asarray(a, dtype=np.float64), np.full((2, 2), 3.0))
    np.testing.assert_array_equal(np.asarray(a, dtype=bool), np.full((2, 2), True))
    np.testing.assert_array_equal(np.array(a), np.full((2, 2), 3))
    with pytest.raises(ValueError, match=r"cannot be viewed as a NumPy array without a copy"):
        a.__array__(copy=False)
    with pytest.raises(ValueError, match=r"np.from_dlpack\(a\) to share the memory"):
        np.asarray(a, copy=False)


def test_array_of_a_tack_array_copies_it_onto_any_device(device):
    src = tack.array(np.array([[1.5, -2.5], [3.5, 4.5]], dtype=np.float32))
    for other in tack.devices():
        b = tack.array(src, device=other)
        assert b.device == other and b.dtype == tack.f32 and b.shape == (2, 2)
        np.testing.assert_array_equal(b.numpy(), src.numpy())
        c = tack.array(src, dtype=tack.i64, device=other)
        assert c.numpy().tolist() == [[1, -2], [3, 4]]
    assert tack.array(src).device == device  # no device: the default, as for host data


def test_copyto_between_tack_arrays_of_any_devices(device):
    src = tack.array(np.arange(3, dtype=np.int32))
    for other in tack.devices():
        dst = tack.zeros((2, 3), dtype=tack.f64, device=other)
        v = dst.version
        tack.copyto(dst, src)  # converted and broadcast, as host data is
        assert dst.numpy().tolist() == [[0.0, 1.0, 2.0]] * 2
        assert dst.version > v
        with pytest.raises(ValueError, match=r"does not match or broadcast"):
            tack.copyto(dst, tack.zeros(4, device=device))
        assert dst.numpy().tolist() == [[0.0, 1.0, 2.0]] * 2


def test_copyto_between_overlapping_views_reads_the_source_first():
    a = tack.array(np.arange(8, dtype=np.int32).reshape(8, 1))
    tack.copyto(a[1:], a[:7])
    assert a.numpy().ravel().tolist() == [0, 0, 1, 2, 3, 4, 5, 6]
