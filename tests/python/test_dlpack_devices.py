"""DLPack rules that hold on every device (tests/python/conftest.py runs each test once per
device): Tack-to-Tack exchange without a copy, copies made on the device, the stream and
dl_device arguments, read-only exports, empty tensors, imports onto another device (copies)
the memory. The host producers and NumPy live in test_dlpack.py (CPU only)."""
import numpy as np
import pytest

import tack

pytestmark = pytest.mark.usefixtures("device")

# DLPack device types: kDLCPU, kDLCUDA and kDLOpenCL.
DEVICE_TYPE = {"cpu": 1, "cuda": 2, "opencl": 4}


def dlpack_device(device):
    index = int(device.name.split(":")[1]) if ":" in device.name else 0
    return (DEVICE_TYPE[device.kind], index)


def test_exchange_between_tack_arrays_shares_memory(device):
    a = tack.array(np.arange(6, dtype=np.int32))
    assert a.__dlpack_device__() == dlpack_device(device)
    b = tack.from_dlpack(a)
    assert b.device == device and a.shared and b.shared
    b[2:4].fill(-1)
    assert a.numpy().tolist() == [0, 1, -1, -1, 4, 5]


@pytest.mark.parametrize("shape", [(6,), (2, 3), (0,), (0, 4)])
def test_copy_is_made_on_the_device(shape, device):
    n = int(np.prod(shape))
    a = tack.array(np.arange(n, dtype=np.float64).reshape(shape))
    b = tack.from_dlpack(a, copy=True)
    assert b.device == device and b.shape == shape and b.writable and not b.shared
    np.testing.assert_array_equal(b.numpy(), a.numpy())
    b.fill(9.0)
    np.testing.assert_array_equal(a.numpy(), np.arange(n, dtype=np.float64).reshape(shape))


def test_export_copy(device):
    a = tack.full(3, 1.0)
    b = tack.from_dlpack(a.__dlpack__(max_version=(1, 0), copy=True))
    assert b.device == device
    b.fill(9.0)
    assert a[0] == 1.0


def test_copy_of_a_view_at_an_offset(device):
    a = tack.array(np.arange(12, dtype=np.int16).reshape(6, 2))
    b = tack.from_dlpack(a[2:5], copy=True)
    assert b.shape == (3, 2)
    np.testing.assert_array_equal(b.numpy(), np.arange(4, 10).reshape(3, 2))


def test_stream_and_device_arguments(device):
    a = tack.zeros(3)
    own = dlpack_device(device)
    assert a.__dlpack__(stream=None) is not None
    assert a.__dlpack__(stream=-1, max_version=(1, 0)) is not None
    assert a.__dlpack__(dl_device=own, copy=False) is not None
    if device.kind == "cuda":
        # The array API's CUDA streams: 1 legacy default, 2 per-thread default; 0 is ambiguous.
        assert a.__dlpack__(stream=1) is not None and a.__dlpack__(stream=2) is not None
        with pytest.raises(ValueError, match=r"stream 0 is ambiguous"):
            a.__dlpack__(stream=0)
    else:
        with pytest.raises(ValueError, match=r"no (DLPack )?streams.* stream must be None "
                                             r"\(or -1\), got 1"):
            a.__dlpack__(stream=1)
    with pytest.raises(TypeError, match=r"stream must be None or an integer, got str"):
        a.__dlpack__(stream="default")
    other = (2, 0) if device.kind != "cuda" else (2, own[1] + 1)
    with pytest.raises(BufferError, match=rf"dl_device \({other[0]}, {other[1]}\) is not the "
                                          rf"array's device \({own[0]}, {own[1]}\)"):
        a.__dlpack__(dl_device=other)


def test_read_only_arrays_export_read_only(device):
    owner = tack.full(4, 2.0)
    memory = owner.export_memory()
    ro = tack.array_from_ptr(memory.address, tack.f32, 4)
    with pytest.raises(BufferError, match=r"this array is read-only, and the legacy DLPack form"):
        ro.__dlpack__()
    imported = tack.from_dlpack(ro.__dlpack__(max_version=(1, 0)))
    assert not imported.writable
    copy = tack.from_dlpack(ro.__dlpack__(copy=True))
    assert copy.writable and copy.numpy().tolist() == [2.0] * 4


def test_import_onto_another_device_is_a_copy_unless_copy_is_false(device):
    # The array API's rule: device=None keeps the memory where it is; another device gets a copy.
    others = [d for d in tack.devices() if d != device]
    if not others:
        pytest.skip("needs a second device")
    a = tack.array(np.array([1.0, 2.0, 3.0], dtype=np.float32))
    assert tack.from_dlpack(a).device == device
    for other in others:
        b = tack.from_dlpack(a, device=other)
        assert b.device == other and b.writable
        assert b.numpy().tolist() == [1.0, 2.0, 3.0]
        a.fill(9.0)
        assert b.numpy().tolist() == [1.0, 2.0, 3.0]  # a copy, not the same memory
        tack.copyto(a, np.array([1.0, 2.0, 3.0], dtype=np.float32))  # for the next device
        with pytest.raises(ValueError, match=rf"DLPack tensor lives on device type "
                                             rf"{DEVICE_TYPE[device.kind]} \(id \d+\) "
                                             rf"\('{device.name}'\), not on device "
                                             rf"'{other.name}'; putting it there needs a copy, "
                                             r"which copy=False forbids"):
            tack.from_dlpack(a, device=other, copy=False)


def test_numpy_memory_stays_on_the_cpu_whatever_the_default_device(device):
    x = np.arange(6, dtype=np.float64)
    a = tack.from_dlpack(x)  # the default device is `device`; the memory is the host's
    assert a.device == tack.device("cpu")
    x[0] = 42.0
    assert a.numpy()[0] == 42.0  # the same memory: no copy was made
    b = tack.from_dlpack(x, device=device)
    assert b.device == device and b.numpy().tolist() == x.tolist()


# ---- A host copy for consumers that ask for one (the array API's dl_device) ---------------------


def opencl_devices():
    return [d for d in tack.devices() if d.kind == "opencl"]


def test_a_device_array_exports_a_host_copy_when_asked():
    if not opencl_devices():
        pytest.skip("no OpenCL device")
    d = opencl_devices()[0]
    a = tack.array(np.arange(6, dtype=np.float32).reshape(2, 3), device=d)
    # NumPy asks with dl_device=(kDLCPU, 0) for device="cpu": a copy it owns.
    x = np.from_dlpack(a, device="cpu", copy=True)
    np.testing.assert_array_equal(x, np.arange(6).reshape(2, 3))
    x[0, 0] = 42.0  # its own memory: the device array is unchanged
    assert a.numpy()[0, 0] == 0.0
    y = np.from_dlpack(a, device="cpu")  # copy=None: a copy where one is needed
    np.testing.assert_array_equal(y, np.arange(6).reshape(2, 3))
    with pytest.raises(BufferError, match=r"needs a copy; pass copy=True"):
        a.__dlpack__(max_version=(1, 0), dl_device=(1, 0), copy=False)
    with pytest.raises(BufferError, match=r"is not the array's device"):
        a.__dlpack__(max_version=(1, 0), dl_device=(2, 0))
    # The copy reads after the launches queued on the array.
    b = tack.zeros(6, device=d)
    b.fill(3.0)
    np.testing.assert_array_equal(np.from_dlpack(b, device="cpu"), np.full(6, 3.0, np.float32))


def test_the_legacy_form_also_exports_a_host_copy():
    if not opencl_devices():
        pytest.skip("no OpenCL device")
    a = tack.array(np.arange(3, dtype=np.int32), device=opencl_devices()[0])
    host = tack.from_dlpack(a.__dlpack__(dl_device=(1, 0), copy=True))
    assert host.device.kind == "cpu"
    np.testing.assert_array_equal(host.numpy(), [0, 1, 2])


def test_an_import_from_a_cuda_producer_passes_tacks_stream(device):
    # The array API's stream rule from the consumer's side: Tack's stream is non-blocking, so a
    # producer must be asked to order its pending writes before it (__dlpack__(stream=...)).
    if device.kind != "cuda":
        pytest.skip("a rule of devices with streams (CUDA)")
    src = tack.array(np.arange(3, dtype=np.float32))
    asked = {}

    class Producer:
        def __dlpack_device__(self):
            return src.__dlpack_device__()

        def __dlpack__(self, **kwargs):
            asked.update(kwargs)
            return src.__dlpack__(**kwargs)

    b = tack.from_dlpack(Producer())
    assert isinstance(asked.get("stream"), int) and asked["stream"] not in (-1, 0, 1, 2)
    assert b.numpy().tolist() == [0.0, 1.0, 2.0]


def test_a_cuda_producer_without_streams_is_still_imported(device):
    # A producer whose __dlpack__ takes no stream (or nothing at all) answers TypeError to the
    # newer forms and gets the older ones.
    if device.kind != "cuda":
        pytest.skip("a rule of devices with streams (CUDA)")
    src = tack.array(np.arange(3, dtype=np.float32))
    calls = []

    class VersionOnly:
        def __dlpack_device__(self):
            return src.__dlpack_device__()

        def __dlpack__(self, max_version=None):
            calls.append(("max_version", max_version))
            return src.__dlpack__(max_version=max_version)

    class Bare:
        def __dlpack_device__(self):
            return src.__dlpack_device__()

        def __dlpack__(self):
            calls.append(("bare",))
            return src.__dlpack__()

    assert tack.from_dlpack(VersionOnly()).numpy().tolist() == [0.0, 1.0, 2.0]
    assert tack.from_dlpack(Bare()).numpy().tolist() == [0.0, 1.0, 2.0]
    assert calls == [("max_version", (1, 0)), ("bare",)]
