"""What an adversarial user found (issue 8): exits with queued work or with daemon threads inside a
Tack call, consumers that misuse a DLPack capsule, shapes and addresses past 2**64, keys and
shapes of the wrong kind, host data that is not numbers, NumPy float types Tack lacks, and the
order of copyto's checks. Exit cases run as subprocesses that must exit 0
(docs/design/robustness.md)."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tack

HAS_OPENCL = any(d.kind == "opencl" for d in tack.devices())
DEVICE_NAMES = [d.name for d in tack.devices()]


def run_python(code, timeout=120):
    """Runs `code` in a fresh interpreter with this build's tack; returns the completed process."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, timeout=timeout)


def assert_clean_exit(proc):
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
    assert "terminate called" not in proc.stderr
    assert "leaked" not in proc.stderr, proc.stderr[-2000:]


# ---- exit --------------------------------------------------------------------------------------


@pytest.mark.skipif(not HAS_OPENCL, reason="no OpenCL device")
def test_exit_with_a_queued_launch_of_a_new_kernel_completes_it():
    # A kernel no cache has seen: PoCL compiles its work-group function on its own thread when
    # the launch runs, which used to happen while exit() destroyed that compiler's statics.
    for run in range(3):
        proc = run_python(f"""
            import os, tack
            k = tack.kernel_from_source(
                "def k(x):\\n    for i in range(x.shape[0]):\\n        x[i] = x[i] + %d\\n"
                % ({run} * 1000003 + os.getpid()), "k")
            a = tack.zeros(16, device="opencl:0")
            k(a)
        """)
        assert_clean_exit(proc)


DAEMON_OPS = {
    "numpy": "a.numpy()",
    "fill": "a.fill(1.0)",
    "copyto": "tack.copyto(a, b)",
    "kernel": "k(a)",
}


@pytest.mark.parametrize("device_name", DEVICE_NAMES)
@pytest.mark.parametrize("op", sorted(DAEMON_OPS))
def test_exit_while_a_daemon_thread_is_inside_a_tack_call(op, device_name):
    proc = run_python(f"""
        import threading, time, tack
        a = tack.zeros(100000, device="{device_name}")
        b = tack.ones(100000, device="{device_name}")
        k = tack.kernel_from_source(
            "def k(x):\\n    for i in range(x.shape[0]):\\n        x[i] = x[i] + 1.0\\n", "k")
        {DAEMON_OPS[op]}
        def loop():
            while True:
                {DAEMON_OPS[op]}
        threading.Thread(target=loop, daemon=True).start()
        time.sleep(0.2)
    """)
    assert_clean_exit(proc)


# ---- DLPack consumers that misuse the capsule ---------------------------------------------------

CAPSULE_HELPERS = """
    import ctypes, gc, tack
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
    class Versioned(ctypes.Structure):  # DLManagedTensorVersioned up to its deleter
        _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32),
                    ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER)]
    class Legacy(ctypes.Structure):  # DLManagedTensor: the DLTensor (48 bytes), then these
        _fields_ = [("dl_tensor", ctypes.c_byte * 48), ("manager_ctx", ctypes.c_void_p),
                    ("deleter", DELETER)]
"""


@pytest.mark.parametrize("device_name", DEVICE_NAMES)
@pytest.mark.parametrize("form", ["versioned", "legacy"])
def test_a_consumer_that_calls_the_deleter_and_leaves_the_capsule(form, device_name):
    # torch.from_dlpack of an OpenCL tensor: the consumer gives up after calling the deleter and
    # leaves the capsule's name as it was, so the capsule's destructor runs the deleter again.
    name, struct, kw = (("dltensor_versioned", "Versioned", "max_version=(1, 0)")
                        if form == "versioned" else ("dltensor", "Legacy", ""))
    proc = run_python(CAPSULE_HELPERS + f"""
    a = tack.ones(3, device="{device_name}")
    for calls in (1, 2):  # the deleter once, and twice, before the capsule goes
        cap = a.__dlpack__({kw})
        p = get_pointer(cap, b"{name}")
        m = {struct}.from_address(p)
        for _ in range(calls):
            m.deleter(p)
        del cap, m
        gc.collect()
    assert a.numpy().tolist() == [1.0, 1.0, 1.0]
    print("ok")
    """)
    assert_clean_exit(proc)
    assert "ok" in proc.stdout


@pytest.mark.parametrize("device_name", DEVICE_NAMES)
def test_a_consumed_capsule_outlived_by_its_tensor(device_name):
    # The consumer renames the capsule, drops it, and calls the deleter later: the tensor and the
    # array it holds stay valid until then.
    proc = run_python(CAPSULE_HELPERS + f"""
    set_name = ctypes.pythonapi.PyCapsule_SetName
    set_name.argtypes = [ctypes.py_object, ctypes.c_char_p]
    a = tack.ones(3, device="{device_name}")
    cap = a.__dlpack__(max_version=(1, 0))
    p = get_pointer(cap, b"dltensor_versioned")
    assert set_name(cap, b"used_dltensor_versioned") == 0
    del cap
    gc.collect()
    m = Versioned.from_address(p)
    assert m.major == 1
    m.deleter(p)
    print("ok")
    """)
    assert_clean_exit(proc)
    assert "ok" in proc.stdout


# ---- shapes and addresses past 2**64 ------------------------------------------------------------


def test_array_from_ptr_refuses_a_byte_count_past_2_64():
    host = np.zeros(4, dtype=np.float32)
    with pytest.raises(ValueError, match=r"more bytes than fit in 64 bits"):
        tack.array_from_ptr(host.ctypes.data, tack.f32, (2**62,))
    with pytest.raises(ValueError, match=r"more bytes than fit in 64 bits"):
        tack.array_from_ptr(host.ctypes.data, tack.f64, (2**31, 2**31))
    with pytest.raises(ValueError, match=r"more bytes than fit in 64 bits"):
        tack.array_from_ptr(host, tack.f32, (2**62,))
    with pytest.raises(ValueError, match=r"more bytes than fit in 64 bits"):
        tack.empty((2**62,), tack.f32)


def test_array_from_ptr_refuses_a_range_that_wraps_past_2_64():
    with pytest.raises(ValueError, match=r"past the end of the address space"):
        tack.array_from_ptr(2**64 - 8, tack.f32, 4)
    with pytest.raises(ValueError, match=r"past the end of the address space"):
        tack.array_from_ptr(2**64 - 1, tack.u8, 2)
    # The last bytes below 2**64 themselves are a (wrapped, never read) range.
    assert tack.array_from_ptr(2**64 - 8, tack.f32, 1).nbytes == 4


# ---- keys and shapes of the wrong kind ------------------------------------------------------------


@pytest.mark.parametrize("key", [slice("a", None), slice(1.0, None), slice(None, 2.5),
                                 slice(0, 2, "x")], ids=repr)
def test_a_slice_with_a_bound_that_is_not_an_integer(key):
    a = tack.zeros(6)
    with pytest.raises(TypeError, match=r"slice with the bound .* slice bounds are integers"):
        a[key]


@pytest.mark.parametrize("args,error", [
    (("x",), TypeError),
    ((None,), TypeError),
    ((1.5,), TypeError),
    (((2.0, 6),), TypeError),
    ((2, "6"), TypeError),
    ((np.array([[2, 6]]),), TypeError),
    ((2**63,), ValueError),
    (((2**64, 1),), ValueError),
    ((3, 5), ValueError),
], ids=repr)
def test_reshape_refuses_what_is_not_a_shape(args, error):
    a = tack.zeros(12)
    with pytest.raises(error, match=r"reshape"):
        a.reshape(*args)


def test_reshape_takes_integers_and_sequences_of_them():
    a = tack.zeros(12)
    for args in [(3, 4), ((3, 4),), ([3, 4],), (np.array([3, 4]),), (np.int64(3), np.int32(4)),
                 ((3, -1),), (range(3, 5),)]:
        assert a.reshape(*args).shape == (3, 4), args


# ---- host data that is not numbers; NumPy float types Tack lacks ---------------------------------


def test_none_and_objects_are_not_host_data():
    a = tack.zeros(3)
    for bad in [None, [None, 1.0, 2.0], object(), "abc", [1 + 2j, 0, 0]]:
        with pytest.raises(TypeError, match=r"host data must be numbers"):
            tack.copyto(a, bad)
        with pytest.raises(TypeError):
            tack.array(bad, dtype=tack.f32)
    with pytest.raises(TypeError):
        tack.array(None)
    assert a.numpy().tolist() == [0.0, 0.0, 0.0]  # nothing was written


@pytest.mark.parametrize("float_type", [np.float16, np.float32, np.float64, np.longdouble])
def test_every_numpy_float_type_converts_as_documented(float_type):
    # NaN to 0, others saturate to the integer type's range (docs/python-api.md).
    src = np.array([-5.5, np.inf, np.nan, 7.75, -np.inf], dtype=float_type)
    for dtype, expected in [(tack.u32, [0, 4294967295, 0, 7, 0]),
                            (tack.i8, [-5, 127, 0, 7, -128]),
                            (tack.u8, [0, 255, 0, 7, 0])]:
        a = tack.zeros(5, dtype)
        tack.copyto(a, src)
        assert a.numpy().tolist() == expected, (float_type, dtype)
        assert tack.array(src, dtype=dtype).numpy().tolist() == expected


# ---- read-only views and the order of copyto's checks -------------------------------------------


def test_an_empty_view_of_a_read_only_array_is_read_only():
    ro = tack.array_from_ptr(np.arange(6, dtype=np.float32), tack.f32, 6)
    assert not ro.writable
    for view in (ro[2:2], ro[5:1], ro[6:], ro[1:3]):
        assert not view.writable
        with pytest.raises(RuntimeError, match=r"read-only"):
            view.fill(1.0)
    assert tack.zeros(6)[2:2].writable


def test_copyto_validates_the_shape_before_the_writable_flag():
    ro = tack.array_from_ptr(np.arange(6, dtype=np.float32), tack.f32, 6)
    with pytest.raises(ValueError, match=r"does not match or broadcast"):
        tack.copyto(ro, np.zeros(4))
    with pytest.raises(ValueError, match=r"does not match or broadcast"):
        tack.copyto(ro, tack.zeros(4))
    with pytest.raises(RuntimeError, match=r"read-only"):
        tack.copyto(ro, np.zeros(6))
    with pytest.raises(RuntimeError, match=r"read-only"):
        tack.copyto(ro, tack.zeros(6))
