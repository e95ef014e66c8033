"""Ownership: owned arrays, array_from_ptr over NumPy arrays and integer addresses, read-only
wrapped memory, export_memory, memory_space.

Tests taking `device` run on every device (tests/python/conftest.py); wrapping host memory
(NumPy arrays, ctypes buffers) is a CPU rule, marked cpu_only: a device accepts only pointers of
its own memory, which the *_device_memory tests wrap instead."""
import ctypes
import sys
import weakref

import numpy as np
import pytest

import tack


def test_owned_arrays_are_not_shared(device):
    a = tack.zeros(4)
    assert a.writable and not a.shared and not a.is_view


@pytest.mark.cpu_only("wraps host memory")
def test_wrap_numpy_array_read_only_by_default(collect, device):
    backing = np.arange(12, dtype=np.float32)
    a = tack.array_from_ptr(backing, tack.f32, (3, 4))
    assert a.shape == (3, 4) and a.dtype == tack.f32
    assert not a.writable
    assert a.shared  # wrapped memory is shared from the start
    np.testing.assert_array_equal(a.numpy(), backing.reshape(3, 4))
    backing[0] = 42.0  # the same memory, not a copy
    assert a[0, 0] == 42.0
    with pytest.raises(RuntimeError, match=r"cannot fill a read-only f32 array of shape \(3, 4\) "
                                           r"\(wrapped or imported read-only\)"):
        a.fill(0.0)
    with pytest.raises(RuntimeError, match=r"cannot copy into a read-only"):
        tack.copyto(a, np.zeros((3, 4)))
    assert backing[0] == 42.0 and backing[1] == 1.0


@pytest.mark.cpu_only("wraps host memory")
def test_wrap_numpy_array_writable(device):
    backing = np.zeros(6, dtype=np.int32)
    a = tack.array_from_ptr(backing, tack.i32, (2, 3), writable=True)
    assert a.writable
    a.fill(7)
    np.testing.assert_array_equal(backing, [7] * 6)
    tack.copyto(a[1:2], [1, 2, 3])
    np.testing.assert_array_equal(backing, [7, 7, 7, 1, 2, 3])


@pytest.mark.cpu_only("wraps host memory")
def test_wrap_reinterprets_bytes(device):
    backing = np.zeros(4, dtype=np.float64)  # 32 bytes
    a = tack.array_from_ptr(backing, tack.u8, 32, writable=True)
    a.fill(0)
    b = tack.array_from_ptr(backing, tack.i32, (2, 2))
    assert b.shape == (2, 2)


@pytest.mark.cpu_only("wraps host memory")
def test_wrapped_numpy_array_is_kept_alive(collect, device):
    backing = np.arange(4, dtype=np.float64)
    alive = weakref.ref(backing)
    refs = sys.getrefcount(backing)
    a = tack.array_from_ptr(backing, tack.f64, 4)
    assert sys.getrefcount(backing) == refs + 1
    del backing
    collect()
    assert alive() is not None
    assert a[3] == 3.0
    del a
    collect()
    assert alive() is None


@pytest.mark.cpu_only("wraps host memory")
def test_wrap_numpy_array_refusals(device):
    x = np.zeros((4, 6), dtype=np.float32)
    with pytest.raises(ValueError, match=r"tack.array_from_ptr: a NumPy array of shape \(4, 3\) "
                                         r"and dtype float32 is not C-contiguous"):
        tack.array_from_ptr(x[:, ::2], tack.f32, 12)
    with pytest.raises(ValueError, match=r"holds 96 bytes, fewer than the 100 that shape \(25,\) "
                                         r"of f32 needs"):
        tack.array_from_ptr(x, tack.f32, 25)
    frozen = np.zeros(4, dtype=np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match=r"is read-only, so it cannot be wrapped with "
                                         r"writable=True"):
        tack.array_from_ptr(frozen, tack.f32, 4, writable=True)
    assert not tack.array_from_ptr(frozen, tack.f32, 4).writable


@pytest.mark.cpu_only("wraps host memory")
def test_wrap_integer_address(device):
    storage = np.zeros(8, dtype=np.float64)
    address = storage.ctypes.data
    refs = sys.getrefcount(storage)
    ro = tack.array_from_ptr(address, tack.f64, (2, 4))
    assert sys.getrefcount(storage) == refs  # an address holds nothing
    assert not ro.writable and ro.shared
    storage[5] = 3.0
    assert ro[1, 1] == 3.0
    with pytest.raises(RuntimeError, match=r"cannot fill a read-only f64 array"):
        ro.fill(1.0)
    rw = tack.array_from_ptr(address, tack.f64, (2, 4), writable=True)
    rw.fill(2.0)
    np.testing.assert_array_equal(storage, [2.0] * 8)
    del ro, rw  # never freed by Tack: the memory stays the caller's
    storage[0] = 1.0
    assert storage[0] == 1.0


@pytest.mark.cpu_only("wraps host memory")
def test_wrap_ctypes_memory_and_numpy_integer_address(device):
    buf = (ctypes.c_int16 * 6)(*range(6))
    a = tack.array_from_ptr(np.uint64(ctypes.addressof(buf)), tack.i16, 6, writable=True)
    assert a.numpy().tolist() == [0, 1, 2, 3, 4, 5]
    a[2:4].fill(-1)
    assert list(buf) == [0, 1, -1, -1, 4, 5]


@pytest.mark.parametrize("ptr, name", [("0x1000", "str"), (1.5, "float"), (None, "NoneType"),
                                       (-1, "int"), (2**64, "int"), ([1], "list")])
def test_not_an_address_is_a_type_error(ptr, name, device):
    with pytest.raises(TypeError, match=r"tack.array_from_ptr needs an address \(an integer in "
                                        r"\[0, 2\*\*64\)\) or a NumPy array, got " + name):
        tack.array_from_ptr(ptr, tack.f32, 4)


def test_null_address(device):
    # The CPU names the null pointer; a device that tells memory spaces apart refuses it first
    # as memory outside its own.
    with pytest.raises(ValueError, match=r"address 0 (\(a null pointer\) cannot hold 4 elements|"
                                         r"is cpu memory, but device)"):
        tack.array_from_ptr(0, tack.f32, 4)
    if device.kind == "cpu":
        # Zero elements at the null pointer: the CPU wraps them. A device checks the pointer's
        # memory space before the size, so it refuses even an empty wrap of address 0.
        assert tack.array_from_ptr(0, tack.f32, 0).size == 0


def test_export_memory_of_a_root(collect, device):
    a = tack.full(4, 7.0, dtype=tack.f32)
    m = a.export_memory()
    assert isinstance(m, tack.ExportedMemory)
    assert m.nbytes == 16
    assert m.device == device
    assert a.shared
    assert "nbytes=16" in repr(m)
    assert tack.memory_space(m.address, device) == device.kind
    del a
    collect()
    # The exported object keeps the allocation alive: wrapped again, it still reads 7.
    assert tack.array_from_ptr(m.address, tack.f32, 4)[3] == 7.0
    if device.kind == "cpu":
        assert (ctypes.c_float * 4).from_address(m.address)[3] == 7.0
    reshaped = tack.zeros(6).reshape(2, 3)
    assert reshaped.export_memory().nbytes == 24  # reshape covers the whole allocation


def test_memory_space():
    x = np.zeros(3)
    assert tack.memory_space(x.ctypes.data) == "cpu"
    assert tack.memory_space(x) == "cpu"
    assert tack.memory_space(x.ctypes.data, device="cpu") == "cpu"
    assert tack.memory_space(x.ctypes.data, tack.device("cpu")) == "cpu"
    # Not an address at all: host memory by definition (the memory seed's as_address rule).
    assert tack.memory_space("not a pointer") == "cpu"


def test_wrap_device_memory_read_only_by_default(device):
    owner = tack.array(np.arange(12, dtype=np.float32))
    memory = owner.export_memory()
    a = tack.array_from_ptr(memory.address, tack.f32, (3, 4))
    assert a.device == device and a.shape == (3, 4) and a.dtype == tack.f32
    assert not a.writable and a.shared
    np.testing.assert_array_equal(a.numpy(), np.arange(12).reshape(3, 4))
    owner.fill(42.0)  # the same memory, not a copy
    assert a[0, 0] == 42.0
    with pytest.raises(RuntimeError, match=r"cannot fill a read-only f32 array of shape \(3, 4\) "
                                           r"\(wrapped or imported read-only\)"):
        a.fill(0.0)
    assert owner[11] == 42.0


def test_wrap_device_memory_writable_and_reinterpreted(device):
    owner = tack.zeros(6, dtype=tack.i32)
    memory = owner.export_memory()
    a = tack.array_from_ptr(memory.address, tack.i32, (2, 3), writable=True)
    assert a.writable
    a.fill(7)
    tack.copyto(a[1:2], [1, 2, 3])
    np.testing.assert_array_equal(owner.numpy(), [7, 7, 7, 1, 2, 3])
    b = tack.array_from_ptr(memory.address, tack.u8, 24, writable=True)
    b.fill(0)
    np.testing.assert_array_equal(owner.numpy(), [0] * 6)


@pytest.mark.parametrize("kind", ["opencl"])
def test_device_refuses_host_pointers(kind, device):
    if device.kind != kind:
        pytest.skip(f"a rule of {kind} devices")
    x = np.zeros(8, np.float32)
    assert tack.memory_space(x.ctypes.data, device) == "cpu"
    with pytest.raises(ValueError, match=r"cpu"):
        tack.array_from_ptr(x.ctypes.data, tack.f32, 8)
    owner = tack.zeros(4)
    memory = owner.export_memory()
    with pytest.raises(ValueError):  # runs past the allocation
        tack.array_from_ptr(memory.address, tack.f32, 1 << 20)
