"""Arrays meet NumPy habits (the first-hour issue): dtypes compare with NumPy's spellings,
`np.dtype(a.dtype)` works, `itemsize`, `len()` of a 0-d array words the error as NumPy does,
reshape views are views, `repr`/`str` show values (summarized for large arrays, reading only
the edges from the device), and NumPy arrays go straight into kernels on the CPU: zero-copy,
read-only when NumPy's array is, refused with what to do beside arrays of another device."""
import numpy as np
import pytest

import tack


@tack.kernel
def nh_double(x, out):
    for i in range(len(x)):
        out[i] = x[i] * 2


@tack.kernel
def nh_add_one(x):
    for i in range(len(x)):
        x[i] = x[i] + 1


def test_dtypes_compare_with_numpys_spellings():
    a = tack.zeros(3)
    assert a.dtype == np.float32 and a.dtype == "float32" and a.dtype == "f32"
    assert a.dtype == np.dtype("f4") and a.dtype == tack.f32
    assert a.dtype != np.float64 and a.dtype != "int32" and a.dtype != "not a dtype"
    assert a.dtype != None  # noqa: E711 - NumPy's dtypes compare unequal to None too
    assert np.dtype(a.dtype) == np.float32
    assert np.dtype(tack.vec(3, tack.f64)) == np.dtype((np.float64, (3,)))
    assert tack.zeros(3, dtype=np.int16).dtype == tack.i16
    assert tack.zeros(3, dtype="uint8").dtype == np.uint8


def test_numpy_attributes():
    a = tack.zeros((4, 5), tack.f64)
    assert (a.ndim, a.size, a.itemsize, a.nbytes, len(a)) == (2, 20, 8, 160, 4)
    assert tack.zeros(2, tack.vec(3, tack.f32)).itemsize == 12
    with pytest.raises(TypeError, match=r"len\(\) of unsized object.* a.size \(C\+\+ a.size\(\)\)"):
        len(tack.zeros(()))
    assert np.asarray(a).shape == (4, 5)


def test_a_reshape_is_a_view_that_still_exports():
    a = tack.zeros(12)
    r = a.reshape(3, 4)
    assert r.is_view and not a.is_view
    r.export_memory()  # a reshape covers the whole allocation: it exports like the root
    with pytest.raises(ValueError):
        a[2:4].export_memory()


def test_repr_and_str_show_values(device):
    a = tack.array(np.arange(6, dtype=np.float32).reshape(2, 3))
    want = "tack.array([[0., 1., 2.],\n            [3., 4., 5.]], dtype=f32, device=" + device.name + ")"
    assert repr(a) == want
    assert str(a) == str(np.arange(6, dtype=np.float32).reshape(2, 3))
    v = tack.array(np.array([[1, 2, 3]], np.int32), dtype=tack.vec(3, tack.i32))
    assert repr(v) == f"tack.array([[1, 2, 3]], dtype=vec(3, i32), device={device.name})"


def test_large_arrays_are_summarized_like_numpys(device):
    x = np.arange(3000 * 7, dtype=np.int64).reshape(3000, 7)
    a = tack.array(x)
    assert str(a) == np.array2string(x)  # NumPy's summary: edges of every long axis
    assert repr(a).startswith("tack.array([[    0,     1,     2, ...,")
    assert repr(a).endswith(f"dtype=i64, device={device.name})")
    big = tack.zeros(10_000_000, tack.u8)  # only the edges are read
    assert str(big) == "[0 0 0 ... 0 0 0]"


def test_numpy_arrays_go_straight_into_kernels_on_the_cpu():
    x = np.arange(8, dtype=np.float32)
    out = np.zeros(8, np.float32)
    nh_double(x, out)  # zero-copy: the kernel wrote NumPy's memory
    np.testing.assert_array_equal(out, x * 2)
    nh_add_one(x)
    np.testing.assert_array_equal(x, np.arange(8) + 1)
    mixed = tack.zeros(8, device="cpu")
    nh_double(x, mixed)  # beside a Tack array
    np.testing.assert_array_equal(mixed.numpy(), (np.arange(8) + 1) * 2)


def test_a_read_only_numpy_array_is_read_but_not_written():
    x = np.arange(4, dtype=np.int32)
    x.flags.writeable = False
    out = np.zeros(4, np.int32)
    nh_double(x, out)
    np.testing.assert_array_equal(out, [0, 2, 4, 6])
    with pytest.raises(ValueError, match=r"read-only"):
        nh_add_one(x)
    np.testing.assert_array_equal(x, [0, 1, 2, 3])


def test_numpy_arrays_get_the_checks_of_any_array():
    with pytest.raises(ValueError, match=r"kernel argument: .* is not C-contiguous.*"
                                         r"np.ascontiguousarray\(x\) \(and copy it back"):
        nh_add_one(np.zeros(8, np.float32)[::2])
    with pytest.raises(TypeError):
        nh_add_one(np.zeros(3, np.bool_))


def test_a_foreign_byte_order_is_refused_not_read_swapped():
    x = np.arange(4, dtype=">f4")
    with pytest.raises(ValueError, match=r"byte order >f4 is not the machine's.*newbyteorder"):
        nh_double(x, np.zeros(4, np.float32))


def test_dtypes_hash_as_numpys():
    assert {np.dtype("float32"): "f"}[tack.f32] == "f"
    assert tack.vec(3, tack.i16) in {np.dtype((np.int16, (3,)))}
    assert len({tack.f32, tack.f32, tack.f64}) == 2


def test_numpy_beside_another_devices_arrays_says_to_copy():
    others = [d for d in tack.devices() if d.kind != "cpu"]
    if not others:
        pytest.skip("only the CPU is present")
    out = tack.zeros(4, device=others[0])
    with pytest.raises(ValueError, match=r"NumPy array is host memory, .* "
                                         rf"tack.array\(x, device=\"{others[0].name}\"\)"):
        nh_double(np.ones(4, np.float32), out)
