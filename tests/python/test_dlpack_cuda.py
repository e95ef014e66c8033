"""Zero-copy exchange of CUDA arrays with CuPy and PyTorch (DLPack device kDLCUDA, 2). Runs only
where Tack lists a CUDA device and the library is installed: on a GPU machine through
tools/check_cuda_gpu.sh. Elsewhere every test skips, and says why."""
import numpy as np
import pytest

import tack

CUDA = [d for d in tack.devices() if d.kind == "cuda"]
pytestmark = pytest.mark.skipif(not CUDA, reason="no CUDA device (tools/check_cuda_gpu.sh runs "
                                                 "these on a GPU)")


def address_of(a):
    return a.export_memory().address


def test_tack_to_cupy_shares_memory_and_orders_the_launches():
    cp = pytest.importorskip("cupy")
    a = tack.array(np.arange(8, dtype=np.float32), device=CUDA[0])
    c = cp.from_dlpack(a)  # __dlpack__(stream=CuPy's current stream): ordered by an event
    assert c.data.ptr == address_of(a)
    c *= 2  # CuPy writes, Tack reads the same memory
    cp.cuda.get_current_stream().synchronize()
    np.testing.assert_array_equal(a.numpy(), np.arange(8, dtype=np.float32) * 2)


def test_cupy_to_tack_shares_memory():
    cp = pytest.importorskip("cupy")
    c = cp.arange(6, dtype=cp.float64)
    a = tack.from_dlpack(c)
    assert a.device.kind == "cuda" and address_of(a) == c.data.ptr
    a.fill(3.0)
    tack.sync()
    assert float(c.sum()) == 18.0


def test_torch_round_trip_shares_memory():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch without CUDA")
    t = torch.arange(5, dtype=torch.int32, device="cuda")
    a = tack.from_dlpack(t)
    assert address_of(a) == t.data_ptr()
    back = torch.from_dlpack(a)
    assert back.data_ptr() == t.data_ptr()
    a.fill(7)
    tack.sync()
    assert t.cpu().tolist() == [7] * 5


def test_kernel_on_memory_another_library_allocated():
    cp = pytest.importorskip("cupy")

    @tack.kernel
    def add_one(x):
        for i in range(len(x)):
            x[i] += 1.0

    c = cp.zeros(1 << 20, dtype=cp.float32)
    a = tack.from_dlpack(c)
    add_one(a)  # shared memory: the launch completes before the call returns
    assert float(c.sum()) == float(1 << 20)


def test_memory_spaces_of_cupy_allocations():
    cp = pytest.importorskip("cupy")
    d = CUDA[0]
    c = cp.zeros(4, dtype=cp.float32)
    assert tack.memory_space(c.data.ptr, d) == "cuda"
    pinned = cp.cuda.alloc_pinned_memory(64)
    assert tack.memory_space(pinned.ptr, d) == "cuda_pinned"
    with pytest.raises(ValueError, match="cpu memory"):
        tack.array_from_ptr(np.zeros(4, np.float32).ctypes.data, tack.f32, (4,), device=d)
