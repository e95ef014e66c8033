"""Row views a[i:j]: every rule of the "Array views" seed, through the Python API, on every
device (tests/python/conftest.py); rules about wrapped host memory are marked cpu_only."""
import weakref

import numpy as np
import pytest

import tack

pytestmark = pytest.mark.usefixtures("device")


def test_seed_example():
    rows = tack.zeros((6, 3))
    middle = rows[2:4]
    middle.fill(1.0)
    assert rows.numpy()[3, 0] == 1.0 and rows.numpy()[4, 0] == 0.0


def numbered(n=6, m=3, dtype=np.float32):
    return tack.array(np.arange(n * m, dtype=dtype).reshape(n, m))


def test_view_is_rows_over_the_same_memory():
    a = numbered()
    v = a[2:4]
    assert v.is_view
    assert v.shape == (2, 3)
    assert v.dtype == a.dtype
    np.testing.assert_array_equal(v.numpy(), a.numpy()[2:4])
    assert v[0, 0] == 6.0
    v.fill(-1.0)
    np.testing.assert_array_equal(a.numpy()[2:4], np.full((2, 3), -1.0))
    np.testing.assert_array_equal(a.numpy()[4], [12.0, 13.0, 14.0])


@pytest.mark.parametrize(
    "key, rows",
    [
        (slice(None, None), (0, 6)),
        (slice(2, None), (2, 6)),
        (slice(None, 3), (0, 3)),
        (slice(-2, None), (4, 6)),
        (slice(-4, -1), (2, 5)),
        (slice(4, 100), (4, 6)),
        (slice(-100, 2), (0, 2)),
        (slice(1, 4, 1), (1, 4)),
        (slice(2**80, None), (6, 6)),
        (slice(-(2**80), 2), (0, 2)),
    ],
)
def test_bounds_follow_python(key, rows):
    a = numbered()
    v = a[key]
    expected = np.arange(18, dtype=np.float32).reshape(6, 3)[rows[0]:rows[1]]
    assert v.shape == expected.shape
    np.testing.assert_array_equal(v.numpy(), expected)


@pytest.mark.parametrize("step", [2, -1, 0, 3])
def test_step_other_than_one_is_refused(step):
    a = numbered()
    with pytest.raises(ValueError, match=rf"the step must be 1, got step {step}; "
                                         rf"tack.arrays.Strided\(a, start, {step}\) reads every "
                                         rf"k-th row without copying"):
        a[::step]


@pytest.mark.parametrize("key", [slice(3, 3), slice(5, 2), slice(10, 20), slice(-1, -3)])
def test_empty_range_is_a_new_empty_array(key):
    a = numbered()
    e = a[key]
    assert e.shape == (0, 3)
    assert not e.is_view
    assert e.size == 0
    assert e.numpy().shape == (0, 3)
    before = a.version
    e.fill(1.0)
    assert a.version == before


def test_index_beside_a_slice_is_refused():
    a = numbered()
    with pytest.raises(TypeError, match=r"an index beside the slice is not supported"):
        a[1:3, 0]
    with pytest.raises(TypeError, match=r"an index beside the slice is not supported"):
        a[0, 1:3]
    with pytest.raises(TypeError, match=r"an index beside the slice is not supported"):
        a[1:3, :]


def test_zero_dimensional_array_has_no_rows():
    s = tack.zeros(())
    with pytest.raises(IndexError, match=r"a zero-dimensional array has no rows to slice"):
        s[0:1]


def test_view_of_a_view_is_a_view_of_the_root(device):
    a = numbered(8, 2)
    v = a[1:7]
    w = v[2:4]  # rows 3 and 4 of a
    assert w.is_view and w.shape == (2, 2)
    np.testing.assert_array_equal(w.numpy(), a.numpy()[3:5])
    # Its memory is at the root's address plus the offset of row 3 (read through NumPy's
    # zero-copy DLPack import, which takes host memory only).
    if device.kind == "cpu":
        root_address = np.from_dlpack(a).ctypes.data
        assert np.from_dlpack(w).ctypes.data == root_address + 3 * 2 * 4
    # It does not need the intermediate view: drop it and use w.
    del v
    w.fill(0.5)
    np.testing.assert_array_equal(a.numpy()[3:5], np.full((2, 2), 0.5))
    np.testing.assert_array_equal(a.numpy()[5], [10.0, 11.0])


def test_view_keeps_the_root_alive(collect):
    root = tack.full((4, 3), 2.0)
    view = root[1:3]
    del root
    collect()
    np.testing.assert_array_equal(view.numpy(), np.full((2, 3), 2.0))
    view.fill(3.0)
    np.testing.assert_array_equal(view.numpy(), np.full((2, 3), 3.0))


@pytest.mark.cpu_only("wraps host memory")
def test_view_keeps_the_root_and_its_hold_alive(collect):
    backing = np.arange(12, dtype=np.float32)
    alive = weakref.ref(backing)
    root = tack.array_from_ptr(backing, tack.f32, (4, 3), writable=True)
    view = root[2:4]
    del backing, root
    collect()
    assert alive() is not None
    np.testing.assert_array_equal(view.numpy(), np.arange(6, 12).reshape(2, 3))
    del view
    collect()
    assert alive() is None


def test_views_share_the_version():
    a = tack.zeros((6, 3))
    v = a[0:2]
    w = a[4:6]
    start = a.version
    assert v.version == w.version == start
    w.fill(1.0)
    assert a.version == v.version == w.version > start
    mid = a.version
    tack.copyto(v, 5.0)
    assert a.version == w.version > mid
    r = a.reshape(18)
    r.fill(0.0)
    assert v.version == a.version == r.version


def test_views_share_the_shared_flag():
    a = tack.zeros((6, 3))
    v = a[1:3]
    w = a[3:5]
    assert not (a.shared or v.shared or w.shared)
    v.__dlpack__(max_version=(1, 0))  # handed outside Tack through one view
    assert a.shared and v.shared and w.shared
    b = tack.zeros((4, 2))
    b.export_memory()
    assert b[0:1].shared


@pytest.mark.cpu_only("wraps host memory")
def test_views_inherit_read_only():
    backing = np.arange(12, dtype=np.float32)
    ro = tack.array_from_ptr(backing, tack.f32, (4, 3))
    v = ro[1:3]
    assert not v.writable
    assert not v[0:1].writable
    with pytest.raises(RuntimeError, match=r"cannot fill a read-only f32 array of shape \(2, 3\)"):
        v.fill(0.0)
    with pytest.raises(RuntimeError, match=r"cannot copy into a read-only"):
        tack.copyto(v, 1.0)
    frozen = np.arange(6, dtype=np.float64)
    frozen.flags.writeable = False
    imported = tack.from_dlpack(frozen)
    assert not imported.writable and not imported[2:4].writable


def test_views_of_read_only_device_memory_are_read_only(device):
    owner = tack.array(np.arange(12, dtype=np.float32))
    memory = owner.export_memory()
    ro = tack.array_from_ptr(memory.address, tack.f32, (4, 3))
    v = ro[1:3]
    assert not v.writable and not v[0:1].writable
    np.testing.assert_array_equal(v.numpy(), np.arange(3, 9).reshape(2, 3))
    with pytest.raises(RuntimeError, match=r"cannot fill a read-only f32 array of shape \(2, 3\)"):
        v.fill(0.0)
    with pytest.raises(RuntimeError, match=r"cannot copy into a read-only"):
        tack.copyto(v, 1.0)
    imported = tack.from_dlpack(ro)  # a read-only export, imported read-only
    assert not imported.writable and not imported[2:4].writable


def test_export_memory_is_refused_on_a_view():
    a = tack.zeros((4, 2))
    with pytest.raises(ValueError, match=r"export_memory\(\) needs the array that owns the "
                                         r"allocation, and this array is a view"):
        a[1:3].export_memory()
    with pytest.raises(ValueError, match=r"export the root array, or a copy"):
        a[0:4].export_memory()
    assert a.export_memory().nbytes == a.nbytes


def test_slice_assignment_is_refused_with_the_alternative_named():
    a = tack.zeros((4, 2))
    with pytest.raises(TypeError, match=r"write with tack.copyto\(a\[i:j\], x\) for rows, "
                                        r"a.fill\(value\), or a kernel"):
        a[1:3] = np.ones((2, 2))
    assert a.numpy().sum() == 0.0


def test_views_of_vector_arrays():
    v3 = tack.vec(3, tack.f32)
    a = tack.array(np.arange(15, dtype=np.float32).reshape(5, 3), dtype=v3)
    v = a[1:3]
    assert v.dtype == v3 and v.shape == (2,)
    np.testing.assert_array_equal(v.numpy(), [[3, 4, 5], [6, 7, 8]])
    v.fill(0.0)
    assert a[1] == (0.0, 0.0, 0.0) and a[3] == (9.0, 10.0, 11.0)


def test_views_of_one_dimensional_and_multidimensional_arrays():
    a = tack.array(np.arange(10, dtype=np.int64))
    assert a[3:6].numpy().tolist() == [3, 4, 5]
    b = tack.array(np.arange(24, dtype=np.int16).reshape(4, 3, 2))
    np.testing.assert_array_equal(b[1:3].numpy(), np.arange(24).reshape(4, 3, 2)[1:3])
    assert b[1:3][1, 2, 1] == b[2, 2, 1]


def test_reshape_of_a_view():
    a = numbered()
    r = a[2:4].reshape(6)
    assert r.is_view
    np.testing.assert_array_equal(r.numpy(), np.arange(6, 12))
    r.fill(0.0)
    assert a[2, 0] == 0.0 and a[4, 0] == 12.0


def test_soa_slices_component_by_component(device):
    x = tack.array(np.arange(6, dtype=np.float32))
    ids = tack.array(np.arange(10, 16, dtype=np.int32))
    s = tack.soa([x, ids])
    assert s.shape == (6,)
    assert len(s) == 6
    assert s.dtypes == [tack.f32, tack.i32]
    t = s[2:4]
    assert isinstance(t, tack.SoaArray)
    assert t.shape == (2,)
    assert all(c.is_view for c in t.components)
    assert [c.numpy().tolist() for c in t.components] == [[2.0, 3.0], [12, 13]]
    t.components[1].fill(0)
    assert s.numpy()[1].tolist() == [10, 11, 0, 0, 14, 15]
    assert s[-2:].numpy()[0].tolist() == [4.0, 5.0]
    assert repr(t) == f"tack.SoaArray(shape=(2,), dtypes=[f32, i32], device={device.name})"
    with pytest.raises(ValueError, match=r"the step must be 1, got step 2"):
        s[::2]


def test_soa_constructors_and_refusals():
    e = tack.empty_soa((4, 2), [tack.f32, np.int64])
    assert e.shape == (4, 2)
    assert [c.dtype for c in e.components] == [tack.f32, tack.i64]
    with pytest.raises(ValueError, match=r"components must share one shape; got \(3,\) and \(4,\)"):
        tack.soa([tack.zeros(3), tack.zeros(4)])
    with pytest.raises(ValueError, match=r"needs at least one component array"):
        tack.soa([])


def test_none_key_adds_a_first_axis_as_numpy():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    a = tack.array(x)
    v = a[None]
    assert v.shape == x[None].shape == (1, 2, 3)
    assert v.is_view
    np.testing.assert_array_equal(v.numpy(), x[None])
    assert tack.array(np.array([2.5], np.float32))[None].numpy().tolist() == [[2.5]]
