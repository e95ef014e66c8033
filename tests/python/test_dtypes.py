"""tack.i8 ... tack.f64, tack.vec(n, dtype), and NumPy dtypes wherever a dtype is taken."""
import numpy as np
import pytest

import tack

SCALARS = {
    "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
    "f32": np.float32, "f64": np.float64,
}


@pytest.mark.parametrize("name", sorted(SCALARS))
def test_scalar_dtype_attributes(name):
    d = getattr(tack, name)
    assert isinstance(d, tack.DType)
    assert repr(d) == f"tack.{name}"
    assert d.name == name
    assert d.numpy == np.dtype(SCALARS[name])
    assert d.itemsize == np.dtype(SCALARS[name]).itemsize
    assert d.vector_n == 0
    assert d.scalar == d


def test_equality_and_hash():
    assert tack.f32 == tack.f32
    assert tack.f32 != tack.f64
    assert tack.vec(3, tack.f32) == tack.vec(3, tack.f32)
    assert tack.vec(3, tack.f32) != tack.vec(2, tack.f32)
    assert tack.vec(3, tack.f32) != tack.f32
    assert len({tack.f32, tack.f32, tack.i32, tack.vec(3, tack.f32), tack.vec(3, tack.f32)}) == 3
    assert {tack.f64: "double"}[tack.f64] == "double"
    # NumPy's spellings of the same type compare equal, as with NumPy's own dtypes.
    assert (tack.f32 == "f32") is True and (tack.f32 == "float32") is True
    assert (tack.f32 == np.float32) is True and (tack.f32 == np.float64) is False
    assert (tack.vec(3, tack.f32) == np.float32) is False
    assert (tack.f32 == "no such type") is False and (tack.f32 != "no such type") is True


def test_vec():
    v = tack.vec(3, tack.f32)
    assert repr(v) == "tack.vec(3, tack.f32)"
    assert v.name == "vec(3, f32)"
    assert v.itemsize == 12
    assert v.vector_n == 3
    assert v.scalar == tack.f32
    assert v.numpy == np.dtype(np.float32)
    assert tack.vec(2, np.float64) == tack.vec(2, tack.f64)


def test_vec_refusals():
    with pytest.raises(ValueError, match=r"needs 1 <= n <= 16, got n=17"):
        tack.vec(17, tack.f32)
    with pytest.raises(ValueError, match=r"needs 1 <= n <= 16, got n=0"):
        tack.vec(0, tack.f32)
    with pytest.raises(TypeError, match=r"needs a scalar dtype, got vec\(2, f32\)"):
        tack.vec(3, tack.vec(2, tack.f32))


@pytest.mark.parametrize(
    "spec, expected",
    [
        (np.float64, tack.f64),
        (np.dtype("float32"), tack.f32),
        (np.dtype("<i2"), tack.i16),
        ("float64", tack.f64),
        ("f64", tack.f64),
        ("u8", tack.u8),
        ("uint32", tack.u32),
        ("f4", tack.f32),
        (float, tack.f64),
        (np.uint64, tack.u64),
    ],
)
def test_numpy_dtypes_accepted_where_a_dtype_is(spec, expected, device):
    assert tack.zeros(3, dtype=spec).dtype == expected
    assert tack.empty((2,), spec).dtype == expected
    assert tack.array([1, 2], dtype=spec).dtype == expected


@pytest.mark.parametrize("spec", [bool, np.float16, np.complex64, "nonsense", 7])
def test_dtype_outside_the_ten_is_a_type_error(spec):
    with pytest.raises(TypeError, match=r"is not a Tack dtype; use one of tack.i8"):
        tack.zeros(3, dtype=spec)


def test_none_means_the_default_dtype():
    assert tack.zeros(3, dtype=None).dtype == tack.f32
    assert tack.full(2, 1, dtype=None).dtype == tack.f32


def test_comparison_with_other_objects():
    assert (tack.f32 == None) is False  # noqa: E711
    assert tack.f32 != None  # noqa: E711
    assert tack.f32 != 3
