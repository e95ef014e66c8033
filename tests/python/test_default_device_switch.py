"""Every array holds its device; switching the default device (tack.set_default_device) never
drops a device in use: arrays and queued launches on a device survive set_default_device to
another device and back (docs/devices.md, docs/python-api.md "Devices").

Checked on every device other than the CPU that is present (OpenCL: PoCL in CI), and skipped,
naming the devices listed, where tack.devices() has only the CPU:

* launches queued on a device (they return before it finishes) and the default switched to the
  CPU at once, before any sync, with the inputs, the Device handle and the launches' arrays
  dropped where a program would: every result is right when read, on the device it was made on;
* the same arrays take new launches after the switch and after switching back, each on their
  own device (the device's code, OpenCL C, runs them; a launch there is still queued);
* an array made after the switch lands on the new default device, while the old arrays, their
  views, and what is made "like" them or copied from them (docs/algorithms.md) stay on theirs;
  a launch mixing the two is refused, naming both devices;
* arrays made on the CPU (owned, and wrapping NumPy memory) stay usable, and their kernels run
  on the CPU, while the default is another device, and after switching back;
* TACK_DEVICE (docs/devices.md: the process's default device, read once) is only a starting
  default: in a subprocess, arrays made on it survive set_default_device('cpu') and back.

Every test restores the default device it found."""
import gc
import os
import subprocess
import sys
import time

import numpy as np
import pytest

import tack

CPU = tack.device("cpu")
OTHERS = [d for d in tack.devices() if d.kind != "cpu"]


def _other_devices():
    if OTHERS:
        return [pytest.param(d, id=d.name) for d in OTHERS]
    listed = ", ".join(d.name for d in tack.devices())
    return [pytest.param(None, id="no-device-but-the-cpu", marks=pytest.mark.skip(
        reason=f"tack.devices() lists only {listed}: no device but the CPU to switch from"))]


@pytest.fixture(params=_other_devices())
def other(request):
    """A device other than the CPU (the default device is not changed here)."""
    return request.param


@pytest.fixture(autouse=True)
def default_switches():
    tack.set_debug(False)  # debug mode completes launches before returning
    yield
    tack.set_debug(False)


# ---- kernels ----------------------------------------------------------------------------------


@tack.kernel
def sw_slow(n, out):
    for i in range(out.shape[0]):
        acc = 0.0
        for j in range(n):
            acc = acc * 0.5 + 1.0
        out[i] = acc


@tack.kernel
def sw_axpb(a, s, t, out):
    for i in range(len(out)):
        out[i] = a[i] * s + t


@tack.kernel
def sw_inc(x):
    for i in range(len(x)):
        x[i] += 1


@tack.kernel
def sw_add(a, b):
    for i in range(len(b)):
        b[i] = a[i] + b[i]


SLOW_N = 30000  # 4096 x 30000 iterations: a few tenths of a second of device time on PoCL
N = 1 << 16


def hold_the_queue(device):
    """Queues a slow launch on `device`, so that launches queued after it are still waiting when
    the test goes on. Returns its output (2.0 everywhere when done)."""
    out = tack.zeros(4096, device=device)
    sw_slow(SLOW_N, out)
    return out


def warm_up(device):
    """Compiles the kernels for the device (int32 and f32 arrays) before anything is queued."""
    x = tack.zeros(8, tack.i32, device=device)
    sw_axpb(x, 1, 1, x)
    sw_inc(x)
    sw_add(x, x)
    sw_slow(1, tack.zeros(8, device=device))
    device.synchronize()


# ---- queued launches survive the switch -------------------------------------------------------


def test_queued_launches_survive_a_switch_to_the_cpu(other):
    previous = tack.default_device()
    try:
        warm_up(other)
        tack.set_default_device(other)
        a = tack.array(np.arange(N, dtype=np.int32))
        b = tack.zeros(N, tack.i32)
        assert a.device == other and b.device == other
        hold = hold_the_queue(other)
        sw_axpb(a, 3, -7, b)
        for _ in range(5):
            sw_inc(b)
        c = tack.zeros(N, tack.i32)
        sw_axpb(b, -2, 1, c)
        tack.set_default_device("cpu")  # at once: the launches above are still queued
        assert tack.default_device() == CPU
        del a  # an input of queued launches: freed behind them, not under them
        gc.collect()
        assert b.device == other and c.device == other and hold.device == other
        want_b = np.arange(N, dtype=np.int32) * 3 - 7 + 5
        np.testing.assert_array_equal(c.numpy(), want_b * -2 + 1)
        np.testing.assert_array_equal(b.numpy(), want_b)
        assert (hold.numpy() == 2.0).all()
        assert tack.default_device() == CPU  # reading changed nothing
    finally:
        tack.set_default_device(previous)


def test_dropped_handles_and_arrays_after_queued_launches(other):
    # The Device handle, the inputs and an output the program no longer names are dropped while
    # launches on them are queued; the default device moves away and back meanwhile.
    previous = tack.default_device()
    try:
        tack.set_default_device("cpu")
        d = tack.device(other.name)
        warm_up(d)
        x = tack.array(np.arange(N, dtype=np.int32) - N // 2, device=d)
        y = tack.zeros(N, tack.i32, device=d)
        scratch = tack.zeros(N, tack.i32, device=d)
        hold = hold_the_queue(d)
        sw_axpb(x, 5, 3, scratch)
        sw_add(scratch, y)
        sw_add(scratch, y)
        del d, x, scratch
        gc.collect()
        tack.set_default_device(other.name)
        tack.set_default_device(CPU)
        gc.collect()
        assert other in tack.devices()
        assert y.device == other
        want = (np.arange(N, dtype=np.int32) - N // 2) * 5 + 3
        np.testing.assert_array_equal(y.numpy(), 2 * want)
        assert (hold.numpy() == 2.0).all()
    finally:
        tack.set_default_device(previous)


def test_switch_back_and_launch_again_on_the_same_arrays(other):
    previous = tack.default_device()
    try:
        warm_up(other)
        tack.set_default_device(other)
        x = tack.array(np.arange(N, dtype=np.int32))
        y = tack.zeros(N, tack.i32)
        hold = hold_the_queue(other)
        sw_axpb(x, 2, 0, y)  # y = 2x
        want = np.arange(N, dtype=np.int32) * 2
        for round_ in range(3):
            tack.set_default_device("cpu")  # nothing synchronized yet in the first round
            sw_inc(y)  # y's device runs it, whatever the default
            sw_add(x, y)
            want = want + 1 + np.arange(N, dtype=np.int32)
            tack.set_default_device(other)
            sw_inc(y)
            want = want + 1
            assert x.device == other and y.device == other, round_
        tack.set_default_device(CPU)
        np.testing.assert_array_equal(y.numpy(), want)
        np.testing.assert_array_equal(x.numpy(), np.arange(N, dtype=np.int32))
        assert (hold.numpy() == 2.0).all()
        # And once more after everything has been read: the arrays are as usable as ever.
        tack.set_default_device(other)
        tack.set_default_device(CPU)
        sw_inc(x)
        np.testing.assert_array_equal(x.numpy(), np.arange(N, dtype=np.int32) + 1)
    finally:
        tack.set_default_device(previous)


# ---- every array holds its device -------------------------------------------------------------


def test_new_arrays_land_on_the_default_device_old_ones_keep_theirs(other):
    previous = tack.default_device()
    try:
        tack.set_default_device(other)
        a = tack.full(8, 2.0)
        sw_inc(a)  # queued on `other`
        assert a.device == other
        tack.set_default_device("cpu")
        b = tack.zeros(8)
        assert b.device == CPU
        assert tack.array(np.zeros(3)).device == CPU
        assert a.device == other  # the old array still reports its own device
        assert a[2:5].device == other and a.reshape(2, 4).device == other
        assert tack.zeros_like(a).device == other  # "like" a: a's device (docs/algorithms.md)
        assert a.copy().device == other and a.astype(tack.i32).device == other
        with pytest.raises(RuntimeError) as e:
            sw_add(a, b)  # one launch, one device: the new array is not on a's device
        msg = str(e.value)
        assert (f"array 'a' is on device '{other.name}' but array 'b' is on device 'cpu'"
                in msg), msg
        np.testing.assert_array_equal(a.numpy(), np.full(8, 3.0, np.float32))
        assert not b.numpy().any()

        tack.set_default_device(other)
        c = tack.zeros(8)
        assert c.device == other and a.device == other and b.device == CPU
        sw_add(a, c)  # a and c are both on `other` now
        np.testing.assert_array_equal(c.numpy(), np.full(8, 3.0, np.float32))
    finally:
        tack.set_default_device(previous)


def test_a_kernel_runs_on_its_arrays_device_not_on_the_default(other):
    previous = tack.default_device()
    try:
        warm_up(other)
        tack.set_default_device(other)
        x = tack.array(np.arange(N, dtype=np.int32))
        out = tack.zeros(N, tack.i32)
        tack.set_default_device("cpu")
        # The variant for these arrays is the device's: OpenCL C, not the CPU's LLVM IR.
        source = tack.inspect(sw_axpb, x, 4, 1, out, mode="source")
        assert "__kernel void" in source, source[:400]
        host = tack.zeros(N, tack.i32)
        assert "define" in tack.inspect(sw_axpb, host, 4, 1, host, mode="source")
        sw_axpb(x, 4, 1, out)
        assert out.device == other
        np.testing.assert_array_equal(out.numpy(), np.arange(N, dtype=np.int32) * 4 + 1)

        # Queued on the device, as its launches are (the CPU would finish before returning).
        slow_out = tack.zeros(4096, device=other)
        t0 = time.perf_counter()
        sw_slow(SLOW_N * 3, slow_out)
        call = time.perf_counter() - t0
        t0 = time.perf_counter()
        values = slow_out.numpy()
        read = time.perf_counter() - t0
        assert (values == 2.0).all()
        assert call < read, f"the call took {call:.3f} s, the read waiting for it {read:.3f} s"
        assert tack.default_device() == CPU
    finally:
        tack.set_default_device(previous)


def test_cpu_arrays_stay_usable_while_another_device_is_the_default(other):
    previous = tack.default_device()
    try:
        tack.set_default_device("cpu")
        a = tack.array(np.arange(N, dtype=np.int32))
        b = tack.zeros(N, tack.i32)
        mine = np.full(N, 10, np.int32)
        wrapped = tack.array_from_ptr(mine, tack.i32, N, writable=True)  # NumPy's memory
        sw_axpb(a, 3, 1, b)
        tack.set_default_device(other)
        assert a.device == CPU and b.device == CPU and wrapped.device == CPU
        assert tack.zeros(3).device == other
        assert "define" in tack.inspect(sw_inc, b, mode="source")  # the CPU's LLVM IR
        sw_inc(b)  # runs on the CPU: done when the call returns
        sw_add(a, wrapped)
        np.testing.assert_array_equal(mine, np.arange(N, dtype=np.int32) + 10)
        np.testing.assert_array_equal(b.numpy(), np.arange(N, dtype=np.int32) * 3 + 2)
        tack.set_default_device("cpu")
        sw_inc(b)
        sw_inc(wrapped)
        np.testing.assert_array_equal(b.numpy(), np.arange(N, dtype=np.int32) * 3 + 3)
        np.testing.assert_array_equal(mine, np.arange(N, dtype=np.int32) + 11)
        assert tack.zeros(3).device == CPU
    finally:
        tack.set_default_device(previous)


# ---- TACK_DEVICE: a starting default, switched like any other ---------------------------------


TACK_DEVICE_SCRIPT = """
import gc
import numpy as np
import tack

@tack.kernel
def axpb(a, s, t, out):
    for i in range(len(out)):
        out[i] = a[i] * s + t

@tack.kernel
def inc(x):
    for i in range(len(x)):
        x[i] += 1

name = tack.default_device().name
a = tack.array(np.arange(1000, dtype=np.int32))
b = tack.zeros(1000, tack.i32)
axpb(a, 3, 1, b)
inc(b)
tack.set_default_device("cpu")
del a
gc.collect()
print(name, b.device.name, tack.default_device().name, tack.zeros(1).device.name)
assert (b.numpy() == np.arange(1000) * 3 + 2).all(), b.numpy()[:8]
tack.set_default_device(name)
inc(b)
assert (b.numpy() == np.arange(1000) * 3 + 3).all(), b.numpy()[:8]
print(tack.default_device().name, tack.zeros(1).device.name)
"""


def test_tack_device_default_is_switched_like_any_other(other, tmp_path):
    script = tmp_path / "switch.py"
    script.write_text(TACK_DEVICE_SCRIPT)
    env = dict(os.environ, TACK_DEVICE=other.name)
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    r = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, (r.stdout, r.stderr[-3000:])
    lines = r.stdout.splitlines()
    assert lines[0].split() == [other.name, other.name, "cpu", "cpu"], r.stdout
    assert lines[1].split() == [other.name, other.name], r.stdout
