"""A representative set of kernels run on every device present (tests/python/conftest.py makes
each device the default in turn) and compared with NumPy; then the queued-launch rules of
docs/devices.md, end to end through kernels, on the devices that queue (OpenCL)."""
import gc
import re
import time

import numpy as np
import pytest

import tack

pytestmark = pytest.mark.usefixtures("device")


@pytest.fixture(autouse=True)
def default_switches():
    tack.set_debug(False)
    yield
    tack.set_debug(False)


def rng(seed):
    return np.random.default_rng(seed)


# ---- kernels ----------------------------------------------------------------------------------


@tack.kernel
def vadd(a, b, out):
    for i in range(out.shape[0]):
        out[i] = a[i] + b[i]


@pytest.mark.parametrize("n", [0, 1, 17, 1000, 100003])
@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.uint8])
def test_vector_add(n, dtype, device):
    a = (np.arange(n) % 100).astype(dtype)
    b = (np.arange(n)[::-1] % 77).astype(dtype)
    out = tack.zeros(n, dtype)
    vadd(tack.array(a), tack.array(b), out)
    assert out.device == device
    np.testing.assert_array_equal(out.numpy(), a + b)


@tack.kernel
def saxpy(alpha, x, y):
    for i in range(x.shape[0]):
        y[i] = alpha * x[i] + y[i]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_saxpy_with_a_scalar(dtype):
    r = rng(1)
    x = r.standard_normal(10000).astype(dtype)
    y = r.standard_normal(10000).astype(dtype)
    ty = tack.array(y)
    saxpy(2.5, tack.array(x), ty)
    np.testing.assert_array_equal(ty.numpy(), dtype(2.5) * x + y)


@tack.kernel
def stencil(a, out):
    for i, j in tack.ndrange(a.shape[0] - 2, a.shape[1] - 2):
        out[i + 1, j + 1] = (a[i, j + 1] + a[i + 2, j + 1] + a[i + 1, j] + a[i + 1, j + 2]
                             - 4.0 * a[i + 1, j + 1])


@pytest.mark.parametrize("shape", [(3, 3), (67, 129), (300, 17)])
def test_stencil_over_a_2d_ndrange(shape):
    a = rng(2).standard_normal(shape)
    out = tack.zeros(shape, np.float64)
    stencil(tack.array(a), out)
    want = np.zeros(shape)
    want[1:-1, 1:-1] = a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] - 4.0 * a[1:-1, 1:-1]
    np.testing.assert_array_equal(out.numpy(), want)


@tack.kernel
def floor_divmod(a, b, q, r):
    for i in range(a.shape[0]):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.float32, np.float64])
def test_floor_division_and_modulo(dtype):
    a = np.repeat(np.arange(-9, 10), 6).astype(dtype)
    b = np.tile([-4, -3, -1, 1, 2, 5], 19).astype(dtype)
    if np.issubdtype(dtype, np.floating):
        a = a * dtype(1.25)
    q, r = tack.zeros(len(a), dtype), tack.zeros(len(a), dtype)
    floor_divmod(tack.array(a), tack.array(b), q, r)
    np.testing.assert_array_equal(q.numpy(), a // b)
    np.testing.assert_array_equal(r.numpy(), a % b)


@tack.kernel
def histogram(bins, h):
    for i in range(bins.shape[0]):
        tack.atomic_add(h, bins[i], 1)


@tack.kernel
def weighted_histogram(bins, w, h):
    for i in range(bins.shape[0]):
        tack.atomic_add(h, bins[i], w[i])


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, np.float32])
def test_atomic_histogram(dtype):
    bins = rng(3).integers(0, 13, 200000).astype(np.int32)
    h = tack.zeros(13, dtype)
    histogram(tack.array(bins), h)
    np.testing.assert_array_equal(h.numpy(), np.bincount(bins, minlength=13).astype(dtype))


def test_atomic_histogram_of_float_weights():
    bins = rng(4).integers(0, 7, 50000).astype(np.int32)
    w = np.full(50000, 0.5, np.float64)  # exact in any order of addition
    h = tack.zeros(7, np.float64)
    weighted_histogram(tack.array(bins), tack.array(w), h)
    np.testing.assert_array_equal(h.numpy(), np.bincount(bins, weights=w, minlength=7))


@tack.func
def clamp01(x):
    if x < 0.0:
        return 0.0
    return min(x, 1.0)


@tack.kernel
def clamped_saxpy(a, x, y, out):
    for i in range(x.shape[0]):
        out[i] = clamp01(a * x[i] + y[i])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_device_function_with_early_return(dtype):
    r = rng(5)
    x, y = r.standard_normal(1000).astype(dtype), r.standard_normal(1000).astype(dtype)
    out = tack.zeros(1000, dtype)
    clamped_saxpy(2.0, tack.array(x), tack.array(y), out)
    v = dtype(2.0) * x + y
    np.testing.assert_array_equal(out.numpy(), np.where(v < 0, 0, np.where(v > 1, 1, v)))


@tack.kernel
def sort_rows(x, out):
    for i in range(x.shape[0]):
        buf = tack.zeros((16,), tack.i32)
        n = x.shape[1]
        for j in range(n):
            buf[j] = x[i, j]
        for j in range(1, n):  # insertion sort in a local array
            v = buf[j]
            k = j - 1
            while k >= 0 and buf[k] > v:
                buf[k + 1] = buf[k]
                k -= 1
            buf[k + 1] = v
        for j in range(n):
            out[i, j] = buf[j]


@pytest.mark.parametrize("width", [1, 9, 16])
def test_local_arrays(width):
    x = rng(6).integers(-1000, 1000, (3000, width)).astype(np.int32)
    out = tack.zeros((3000, width), np.int32)
    sort_rows(tack.array(x), out)
    np.testing.assert_array_equal(out.numpy(), np.sort(x, axis=1))


@tack.kernel
def shift_load(a, out):
    for i in range(len(out)):
        out[i] = a[i + 1]


@tack.kernel
def local_out_of_bounds(n, out):
    for i in range(out.shape[0]):
        buf = tack.zeros((4,), tack.i32)
        buf[i + n] = 1
        out[i] = buf[0]


def test_debug_mode_raises_index_error():
    tack.set_debug(True)
    a = tack.array(np.arange(1, 9, dtype=np.float32))
    out = tack.full(8, -1.0)
    with pytest.raises(IndexError) as info:
        shift_load(a, out)
    msg = str(info.value)
    assert "shift_load" in msg and "'a'" in msg and re.search(r"\b8\b", msg) and "(8,)" in msg
    np.testing.assert_array_equal(out.numpy(), [2, 3, 4, 5, 6, 7, 8, 0])  # the rest ran
    # A view's own extent is checked, not its root's.
    with pytest.raises(IndexError, match=r"array 'a' with shape \(4,\)"):
        shift_load(a[2:6], tack.zeros(4))
    o = tack.zeros(2, np.int32)
    with pytest.raises(IndexError, match=r"local array of extent 4"):
        local_out_of_bounds(4, o)
    local_out_of_bounds(0, o)  # in bounds: no error
    assert o.numpy().tolist() == [1, 0]


def test_read_only_array_bound_to_a_written_parameter(device):
    a = tack.array(np.arange(3, dtype=np.float32))
    out = tack.zeros(3)
    memory = out.export_memory()
    ro = tack.array_from_ptr(memory.address, tack.f32, 3)  # the device's memory, read-only
    with pytest.raises(ValueError, match=r"kernel 'vadd' may write parameter 2 \('out'\), but "
                                         r"the array bound to it is read-only"):
        vadd(a, a, ro)
    assert out.numpy().tolist() == [0.0, 0.0, 0.0]  # nothing ran
    vadd(ro, a, out)  # reading it is fine
    assert out.numpy().tolist() == [0.0, 1.0, 2.0]


@tack.kernel
def scale_and_index(x, s):
    for i in range(x.shape[0]):
        x[i] = x[i] * s + i


def test_view_at_an_offset():
    root = tack.array(np.arange(20, dtype=np.int64))
    before = root.version
    scale_and_index(root[5:12], 10)
    assert root.version > before  # a write through a view counts for the whole allocation
    want = np.arange(20)
    want[5:12] = want[5:12] * 10 + np.arange(7)
    np.testing.assert_array_equal(root.numpy(), want)
    m = tack.zeros((9, 4), np.float32)
    rows = m[3:7]  # a 2-D view at row 3, flattened
    scale_and_index(rows.reshape(16), 1)
    want = np.zeros((9, 4), np.float32)
    want[3:7] = np.arange(16).reshape(4, 4)
    np.testing.assert_array_equal(m.numpy(), want)


def test_inspect_shows_the_devices_code(device):
    a = tack.zeros(4)
    source = tack.inspect(vadd, a, a, a, mode="source")
    if device.kind == "opencl":
        assert "__kernel void" in source
        optimized = tack.inspect(vadd, a, a, a, mode="optimized")
        assert source in optimized and "out of Tack's" in optimized
    else:
        assert "define" in source  # LLVM IR
    assert "vadd" in tack.inspect(vadd, a, a, a, mode="ir")


def test_arrays_of_two_devices_are_refused(device):
    others = [d for d in tack.devices() if d != device]
    if not others:
        pytest.skip("needs a second device")
    a = tack.zeros(4)
    for other in others:
        b = tack.zeros(4, device=other)
        with pytest.raises(RuntimeError, match=rf"kernel 'vadd': array 'a' is on device "
                                               rf"'{device.name}' but array 'out' is on device "
                                               rf"'{other.name}'"):
            vadd(a, a, b)


# ---- queued launches (devices that queue: OpenCL) -----------------------------------------------


@tack.kernel
def slow(n, out):
    for i in range(out.shape[0]):
        acc = 0.0
        for j in range(n):
            acc = acc * 0.5 + 1.0
        out[i] = acc


@tack.kernel
def increment(a, b):
    for i in range(a.shape[0]):
        b[i] = a[i] + 1.0


@pytest.fixture
def queued(device):
    if device.kind == "cpu":
        pytest.skip("the CPU runs a kernel before the call returns")
    out = tack.zeros(4096)
    slow(1, out)  # compiled before anything is timed
    increment(out, out)
    tack.sync()
    return device


SLOW_N = 100000  # 4096 x 100000 iterations: about a second of device time on PoCL


def timed(fn):
    t0 = time.perf_counter()
    result = fn()
    return time.perf_counter() - t0, result


def test_a_launch_returns_before_the_device_finishes(queued):
    out = tack.zeros(4096)
    call, _ = timed(lambda: slow(SLOW_N, out))
    read, values = timed(out.numpy)  # waits for the launch
    assert values[-1] == 2.0
    assert call < read, f"the call took {call:.3f} s, the read waiting for it {read:.3f} s"


def test_host_writes_after_a_launch_are_ordered_after_it(queued):
    a = tack.full(100000, 1.0)
    b = tack.zeros(100000)
    out = tack.zeros(4096)
    slow(SLOW_N, out)  # holds the queue for a while
    increment(a, b)
    tack.copyto(a, np.full(100000, 10.0, np.float32))  # lands after the increment
    assert b.numpy()[-1] == 2.0
    increment(a, b)
    a.fill(-5.0)
    assert b[0] == 11.0 and a[0] == -5.0


def test_dropping_an_array_right_after_a_launch_is_safe(queued):
    b = tack.zeros(1 << 16)
    out = tack.zeros(4096)
    slow(SLOW_N, out)  # the next launch stays queued behind this one
    a = tack.full(1 << 16, 41.0)
    increment(a[0:1 << 16], b)
    del a
    gc.collect()
    np.testing.assert_array_equal(b.numpy(), np.full(1 << 16, 42.0, np.float32))


def test_a_shared_array_completes_launches_before_returning(queued):
    out = tack.zeros(4096)
    unshared, _ = timed(lambda: slow(SLOW_N, out))
    tack.sync()
    capsule = out.__dlpack__(max_version=(1, 0))  # handed outside Tack: shared
    assert out.shared
    shared, _ = timed(lambda: slow(SLOW_N, out))
    after, _ = timed(tack.sync)  # nothing left to wait for
    assert after < shared, f"call {shared:.3f} s, then sync {after:.3f} s"
    assert unshared < shared
    del capsule


def test_sync_waits_for_everything(queued):
    outs = [tack.zeros(4096) for _ in range(2)]
    for o in outs:
        slow(SLOW_N // 2, o)
    waited, _ = timed(tack.sync)
    read, values = timed(lambda: [o.numpy() for o in outs])
    assert all(v[-1] == 2.0 for v in values)
    assert read < waited, f"sync {waited:.3f} s, reads after it {read:.3f} s"
