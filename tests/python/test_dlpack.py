"""DLPack both ways: with NumPy, with a ctypes producer whose deleter is tracked, versioned and
legacy capsules, read-only flags, the producer hold, shared marking, copies.

CPU only: every producer here hands over host memory (device type 1) and NumPy's from_dlpack
takes host memory only, so these rules are the CPU's. test_dlpack_devices.py holds the DLPack
rules that hold on every device."""
import ctypes
import sys
import weakref

import numpy as np
import pytest

import tack

pytestmark = [pytest.mark.usefixtures("device"),
              pytest.mark.cpu_only("host producers and NumPy's DLPack take host memory only")]

# ---- DLPack structures (dlpack.h, ABI 1), and capsule helpers --------------------------------


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


VersionedDeleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensorVersioned))
DLManagedTensorVersioned._fields_ = [
    ("version", DLPackVersion),
    ("manager_ctx", ctypes.c_void_p),
    ("deleter", VersionedDeleter),
    ("flags", ctypes.c_uint64),
    ("dl_tensor", DLTensor),
]


class DLManagedTensor(ctypes.Structure):
    pass


LegacyDeleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [
    ("dl_tensor", DLTensor),
    ("manager_ctx", ctypes.c_void_p),
    ("deleter", LegacyDeleter),
]

_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
_capsule_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_name.restype = ctypes.c_char_p
_capsule_name.argtypes = [ctypes.py_object]
# Capsule names must outlive the capsules made with them.
_NAMES = {n: ctypes.create_string_buffer(n) for n in (b"dltensor", b"dltensor_versioned", b"other")}


def capsule_name(capsule):
    return _capsule_name(capsule).decode()


class Producer:
    """A DLPack producer over float32 (or another type's) memory that counts deleter calls."""

    def __init__(self, values, versioned=True, read_only=False, strides=None, code=2, bits=32,
                 old_protocol=False):
        self.values = np.ascontiguousarray(values, dtype=np.float32)
        self.versioned = versioned
        self.read_only = read_only
        self.strides = strides
        self.code, self.bits = code, bits
        self.old_protocol = old_protocol
        self.deleted = 0
        self.max_versions = []
        self._keep = []

    def _deleter(self, _):
        self.deleted += 1

    def capsule(self):
        shape = (ctypes.c_int64 * 1)(len(self.values) if self.strides is None
                                     else len(self.values) // self.strides)
        strides = None if self.strides is None else (ctypes.c_int64 * 1)(self.strides)
        tensor = DLTensor(self.values.ctypes.data, DLDevice(1, 0), 1,
                          DLDataType(self.code, self.bits, 1), shape, strides, 0)
        if self.versioned:
            deleter = VersionedDeleter(self._deleter)
            managed = DLManagedTensorVersioned(DLPackVersion(1, 0), None, deleter,
                                               1 if self.read_only else 0, tensor)
            name = b"dltensor_versioned"
        else:
            deleter = LegacyDeleter(self._deleter)
            managed = DLManagedTensor(tensor, None, deleter)
            name = b"dltensor"
        self._keep.append((shape, strides, deleter, managed))
        return _capsule_new(ctypes.addressof(managed), ctypes.addressof(_NAMES[name]), None)

    def __dlpack__(self, **kwargs):
        if self.old_protocol and "max_version" in kwargs:
            raise TypeError("__dlpack__() got an unexpected keyword argument 'max_version'")
        self.max_versions.append(kwargs.get("max_version"))
        return self.capsule()

    def __dlpack_device__(self):
        return (1, 0)


# ---- Import: the hold on the producer ---------------------------------------------------------


@pytest.mark.parametrize("versioned", [True, False])
def test_import_holds_the_producer_until_the_array_and_every_view_are_gone(versioned, collect):
    p = Producer(np.arange(6), versioned=versioned)
    a = tack.from_dlpack(p)
    assert p.max_versions == [(1, 0)]
    assert a.shape == (6,) and a.dtype == tack.f32 and a.writable and a.shared
    np.testing.assert_array_equal(a.numpy(), np.arange(6))
    view = a[1:3]
    grand = view[1:2]
    reshaped = a.reshape(2, 3)
    del a
    collect()
    assert p.deleted == 0
    assert view.numpy().tolist() == [1.0, 2.0]
    del view, reshaped
    collect()
    assert p.deleted == 0
    assert grand[0] == 2.0
    del grand
    collect()
    assert p.deleted == 1


def test_import_writes_reach_the_producer():
    p = Producer(np.zeros(4))
    a = tack.from_dlpack(p)
    a[2:4].fill(5.0)
    assert p.values.tolist() == [0.0, 0.0, 5.0, 5.0]


def test_old_producer_without_max_version():
    p = Producer(np.arange(3), versioned=False, old_protocol=True)
    a = tack.from_dlpack(p)
    assert p.max_versions == [None]
    assert a.numpy().tolist() == [0.0, 1.0, 2.0]


@pytest.mark.parametrize("versioned, used", [(True, "used_dltensor_versioned"),
                                             (False, "used_dltensor")])
def test_capsule_is_consumed_on_success(versioned, used, collect):
    p = Producer(np.arange(3), versioned=versioned)
    cap = p.capsule()
    a = tack.from_dlpack(cap)
    assert capsule_name(cap) == used
    with pytest.raises(ValueError, match=r"this DLPack capsule was already consumed \(its name "
                                         rf"is '{used}'\)"):
        tack.from_dlpack(cap)
    del cap
    collect()
    assert p.deleted == 0
    del a
    collect()
    assert p.deleted == 1


def test_read_only_producer_imports_read_only():
    p = Producer(np.arange(4), read_only=True)
    a = tack.from_dlpack(p)
    assert not a.writable
    with pytest.raises(RuntimeError, match=r"cannot fill a read-only f32 array"):
        a.fill(0.0)


def test_failed_import_leaves_the_capsule_to_the_producer(collect):
    p = Producer(np.arange(4), code=6, bits=8)  # bool: no Tack dtype
    cap = p.capsule()
    with pytest.raises(TypeError, match=r"DLPack tensor of type code 6, 8 bits, 1 lanes has no "
                                        r"Tack dtype"):
        tack.from_dlpack(cap)
    assert capsule_name(cap) == "dltensor_versioned"
    assert p.deleted == 0
    q = Producer(np.arange(6), strides=2)
    cap = q.capsule()
    with pytest.raises(ValueError, match=r"DLPack tensor of shape \(3,\) is not C-contiguous, and "
                                         r"Tack arrays are; pass copy=True"):
        tack.from_dlpack(cap)
    assert capsule_name(cap) == "dltensor_versioned"
    assert q.deleted == 0


def test_copy_releases_the_producer_at_once():
    p = Producer(np.arange(6), strides=2, read_only=True)
    a = tack.from_dlpack(p, copy=True)
    assert p.deleted == 1
    assert a.writable and not a.shared
    assert a.numpy().tolist() == [0.0, 2.0, 4.0]


def test_not_a_producer_is_a_type_error():
    with pytest.raises(TypeError, match=r"tack.from_dlpack needs an object with __dlpack__ .* "
                                        r"or a DLPack capsule, got int"):
        tack.from_dlpack(5)

    class Bad:
        def __dlpack__(self, **kwargs):
            return "not a capsule"

    with pytest.raises(TypeError, match=r"got an object whose __dlpack__ returned str"):
        tack.from_dlpack(Bad())


def test_capsule_of_another_kind_is_a_value_error():
    other = _capsule_new(ctypes.addressof(_NAMES[b"dltensor"]), ctypes.addressof(_NAMES[b"other"]),
                         None)
    with pytest.raises(ValueError, match=r"a capsule named 'other' is not a DLPack "
                                         r"tensor"):
        tack.from_dlpack(other)


# ---- Import from NumPy -------------------------------------------------------------------------


def test_import_from_numpy_without_a_copy():
    x = np.arange(12, dtype=np.float64).reshape(3, 4)
    a = tack.from_dlpack(x)
    assert a.shape == (3, 4) and a.dtype == tack.f64 and a.writable
    x[1, 1] = -1.0
    assert a[1, 1] == -1.0
    a.fill(2.0)
    assert (x == 2.0).all()


def test_import_from_numpy_holds_it_until_every_view_is_gone(collect):
    x = np.arange(10, dtype=np.int32)
    refs = sys.getrefcount(x)
    alive = weakref.ref(x)
    a = tack.from_dlpack(x)
    assert sys.getrefcount(x) == refs + 1
    v = a[2:5]
    del a
    collect()
    assert sys.getrefcount(x) == refs + 1
    del v
    collect()
    assert sys.getrefcount(x) == refs
    b = tack.from_dlpack(x)[3:4]
    del x
    collect()
    assert alive() is not None and b[0] == 3
    del b
    collect()
    assert alive() is None


def test_read_only_numpy_imports_read_only():
    x = np.arange(4, dtype=np.float32)
    x.flags.writeable = False
    a = tack.from_dlpack(x)
    assert not a.writable
    with pytest.raises(RuntimeError, match=r"cannot copy into a read-only"):
        tack.copyto(a, 1.0)


def test_non_contiguous_numpy_is_refused_unless_copied():
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    with pytest.raises(ValueError, match=r"DLPack tensor of shape \(4, 3\) is not C-contiguous, "
                                         r"and Tack arrays are; pass copy=True"):
        tack.from_dlpack(x[:, ::2])
    a = tack.from_dlpack(x[:, ::2], copy=True)
    np.testing.assert_array_equal(a.numpy(), x[:, ::2])
    a.fill(0.0)
    assert x[0, 2] == 2.0  # a copy


def test_numpy_types_without_a_tack_dtype():
    with pytest.raises(TypeError, match=r"has no Tack dtype"):
        tack.from_dlpack(np.zeros(3, dtype=np.float16))


# ---- Export ------------------------------------------------------------------------------------


def test_numpy_from_tack_shares_memory_and_marks_shared():
    a = tack.zeros((2, 3))
    assert not a.shared
    n = np.from_dlpack(a)
    assert a.shared
    assert n.shape == (2, 3) and n.dtype == np.float32 and n.flags.writeable
    n[1, 2] = 8.0
    assert a[1, 2] == 8.0
    a.fill(1.0)
    assert n[0, 0] == 1.0


def test_export_of_a_view_is_at_its_offset():
    rows = tack.zeros((6, 3))
    middle = np.from_dlpack(rows[2:4])
    middle[:] = 7.0
    assert rows[2, 0] == 7.0 and rows[3, 2] == 7.0 and rows[4, 0] == 0.0
    assert rows.shared


def test_exported_memory_outlives_the_array(collect):
    a = tack.full(5, 3.0, dtype=tack.f64)
    n = np.from_dlpack(a)
    del a
    collect()
    assert n.tolist() == [3.0] * 5


def test_vector_arrays_export_their_numpy_shape():
    a = tack.zeros(4, dtype=tack.vec(3, tack.f32))
    assert np.from_dlpack(a).shape == (4, 3)


def test_read_only_array_exports_read_only():
    backing = np.arange(4, dtype=np.float32)
    ro = tack.array_from_ptr(backing, tack.f32, 4)
    n = np.from_dlpack(ro)
    assert not n.flags.writeable
    assert n.tolist() == [0.0, 1.0, 2.0, 3.0]


@pytest.mark.parametrize("max_version, name", [(None, "dltensor"), ((0, 8), "dltensor"),
                                               ((1, 0), "dltensor_versioned"),
                                               ((1, 3), "dltensor_versioned"),
                                               ((2, 0), "dltensor_versioned")])
def test_capsule_form_follows_max_version(max_version, name, collect):
    a = tack.full(3, 2.0)
    cap = a.__dlpack__(max_version=max_version)
    assert capsule_name(cap) == name
    b = tack.from_dlpack(cap)
    assert capsule_name(cap) == "used_" + name
    b.fill(4.0)
    assert a[0] == 4.0


def test_unconsumed_capsule_releases_the_allocation(collect):
    x = np.arange(3, dtype=np.float32)
    alive = weakref.ref(x)
    a = tack.from_dlpack(x)
    cap = a.__dlpack__(max_version=(1, 0))
    del x, a
    collect()
    assert alive() is not None  # the capsule holds the allocation, which holds x
    del cap
    collect()
    assert alive() is None


def test_legacy_export_of_a_read_only_array():
    ro = tack.array_from_ptr(np.arange(3, dtype=np.float32), tack.f32, 3)
    with pytest.raises(BufferError, match=r"this array is read-only, and the legacy DLPack form "
                                          r".* cannot mark a tensor read-only"):
        ro.__dlpack__()
    copy = tack.from_dlpack(ro.__dlpack__(copy=True))
    assert copy.writable and copy.numpy().tolist() == [0.0, 1.0, 2.0]


def test_export_copy():
    a = tack.full(3, 1.0)
    b = tack.from_dlpack(a.__dlpack__(max_version=(1, 0), copy=True))
    b.fill(9.0)
    assert a[0] == 1.0


def test_stream_and_device_arguments():
    a = tack.zeros(3)
    assert a.__dlpack_device__() == (1, 0)
    assert capsule_name(a.__dlpack__(stream=None)) == "dltensor"
    assert capsule_name(a.__dlpack__(stream=-1, max_version=(1, 0))) == "dltensor_versioned"
    assert capsule_name(a.__dlpack__(dl_device=(1, 0), copy=False)) == "dltensor"
    with pytest.raises(ValueError, match=r"the CPU has no streams, so stream must be None "
                                         r"\(or -1\), got 1"):
        a.__dlpack__(stream=1)
    with pytest.raises(TypeError, match=r"stream must be None or an integer, got str"):
        a.__dlpack__(stream="default")
    with pytest.raises(BufferError, match=r"dl_device \(2, 0\) is not the array's device \(1, 0\)"):
        a.__dlpack__(dl_device=(2, 0))
    with pytest.raises(TypeError):
        a.__dlpack__(None)  # keyword-only, as the specification says


def test_round_trip_tack_numpy_tack():
    a = tack.array(np.arange(6, dtype=np.int16))
    b = tack.from_dlpack(np.from_dlpack(a))
    b[1:2].fill(-5)
    assert a[1] == -5
    assert np.from_dlpack(b).tolist() == [0, -5, 2, 3, 4, 5]


def test_np_from_dlpack_with_copy():
    a = tack.full(2, 1.0)
    n = np.from_dlpack(a, copy=True)
    n[:] = 0.0
    assert a[0] == 1.0


@pytest.mark.parametrize("versioned", [True, False])
def test_a_reshape_alone_keeps_the_import_held(versioned, collect):
    # Reshape: "If the original holds a DLPack import, the reshaped array holds it too --
    # otherwise dropping the original would release memory the view still uses."
    p = Producer(np.arange(6), versioned=versioned)
    r = tack.from_dlpack(p).reshape(2, 3)  # the imported array itself is dropped at once
    collect()
    assert p.deleted == 0
    np.testing.assert_array_equal(r.numpy(), np.arange(6).reshape(2, 3))
    del r
    collect()
    assert p.deleted == 1


def test_writable_false_imports_read_only_whatever_the_producer_says():
    x = np.arange(4, dtype=np.float32)  # writable, as PyTorch's and JAX's tensors say nothing
    a = tack.from_dlpack(x, writable=False)
    assert not a.writable
    with pytest.raises(RuntimeError, match=r"read-only"):
        a.fill(0.0)
    np.testing.assert_array_equal(a.numpy(), np.arange(4))
    assert tack.from_dlpack(x).writable  # the default keeps the producer's word


def test_writable_true_refuses_a_read_only_tensor_unless_copied():
    p = Producer(np.arange(4), read_only=True)
    with pytest.raises(ValueError, match=r"writable=True, but the producer marked this tensor "
                                         r"read-only"):
        tack.from_dlpack(p, writable=True)
    assert p.deleted == 0  # refused before the import: the producer still owns it
    c = tack.from_dlpack(p, writable=True, copy=True)
    assert c.writable
    np.testing.assert_array_equal(c.numpy(), np.arange(4))
