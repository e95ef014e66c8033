"""Dispatch rules, on every call (also the cached fast path): a read-only array bound to a
parameter the kernel may write -> ValueError before launch (nothing written); a misaligned
atomic target -> ValueError; wrong arity -> TypeError; scalar values and launch lengths never
recompile; a kernel that writes an array bumps its version."""
import os
import subprocess
import sys

import numpy as np
import pytest

import tack
from kutil import arr, zeros


@tack.kernel
def dc_two_outputs(src, out1, out2):
    for i in range(len(src)):
        out1[i] = src[i] + 1.0
        out2[i] = src[i] * 2.0


@pytest.mark.cpu_only("wraps host memory (array_from_ptr over a host address); OpenCL accepts only its own memory")
def test_read_only_array_bound_to_a_written_parameter():
    src = arr(np.arange(8, dtype=np.float32))
    out1 = zeros(8, np.float32)
    backing = np.full(8, -1.0, np.float32)
    ro = tack.array_from_ptr(backing, tack.f32, 8)
    assert not ro.writable
    with pytest.raises(ValueError, match="read-only") as ei:
        dc_two_outputs(src, out1, ro)
    assert "tack.array(x)" in str(ei.value) and ".numpy())" not in str(ei.value)
    assert not out1.numpy().any()  # refused before launch: nothing written
    np.testing.assert_array_equal(backing, np.full(8, -1.0, np.float32))


@pytest.mark.cpu_only("wraps host memory (array_from_ptr over a host address); OpenCL accepts only its own memory")
def test_read_only_check_runs_on_the_cached_path():
    src = arr(np.arange(8, dtype=np.float32))
    out1, out2 = zeros(8, np.float32), zeros(8, np.float32)
    dc_two_outputs(src, out1, out2)  # compiles and caches the variant
    backing = np.zeros(8, np.float32)
    ro = tack.array_from_ptr(backing, tack.f32, 8)
    fresh = zeros(8, np.float32)
    for _ in range(3):
        with pytest.raises(ValueError):
            dc_two_outputs(src, fresh, ro)
    assert not fresh.numpy().any() and not backing.any()
    assert dc_two_outputs.variant_count == 1


@pytest.mark.cpu_only("wraps host memory (array_from_ptr over a host address); OpenCL accepts only its own memory")
def test_read_only_array_bound_to_a_read_parameter_is_fine():
    backing = np.arange(8, dtype=np.float32)
    ro = tack.array_from_ptr(backing, tack.f32, 8)
    out1, out2 = zeros(8, np.float32), zeros(8, np.float32)
    dc_two_outputs(ro, out1, out2)
    np.testing.assert_array_equal(out1.numpy(), backing + 1)


@pytest.mark.cpu_only("wraps host memory (array_from_ptr over a host address); OpenCL accepts only its own memory")
def test_read_only_view_inherits_the_refusal():
    backing = np.zeros((6, 2), np.float32)
    ro_root = tack.array_from_ptr(backing, tack.f32, 12)
    view = ro_root[2:10]
    assert not view.writable
    with pytest.raises(ValueError):
        dc_two_outputs(zeros(8, np.float32), view, zeros(8, np.float32))
    assert not backing.any()


@pytest.mark.cpu_only("host-DLPack zero-copy import")
def test_read_only_dlpack_import_is_refused():
    x = np.zeros(8, np.float32)
    x.flags.writeable = False
    imported = tack.from_dlpack(x)
    assert not imported.writable
    with pytest.raises(ValueError):
        dc_two_outputs(zeros(8, np.float32), zeros(8, np.float32), imported)


@tack.kernel
def dc_atomic(bins, h):
    for i in range(len(bins)):
        tack.atomic_add(h, bins[i], 1)


@pytest.mark.cpu_only("wraps host memory (array_from_ptr over a host address); OpenCL accepts only its own memory")
def test_read_only_atomic_target_is_refused():
    backing = np.zeros(4, np.int32)
    ro = tack.array_from_ptr(backing, tack.i32, 4)
    with pytest.raises(ValueError):
        dc_atomic(arr(np.zeros(10, np.int32)), ro)
    assert not backing.any()


def misaligned_i32(raw, offset, n):
    return tack.array_from_ptr(raw[offset:offset + 4 * n], tack.i32, n, writable=True)


@pytest.mark.parametrize("offset", [1, 2, 3])
@pytest.mark.cpu_only("wraps host memory (array_from_ptr over a host address); OpenCL accepts only its own memory")
def test_misaligned_atomic_target(offset):
    raw = np.zeros(64, np.uint8)
    base = raw.ctypes.data
    start = (-base) % 16  # an aligned start inside raw, then `offset` bytes further
    h = misaligned_i32(raw, start + offset, 4)
    bins = arr(np.array([0, 1, 1, 3], np.int32))
    with pytest.raises(ValueError, match="align"):
        dc_atomic(bins, h)
    assert not raw.any()
    ok = misaligned_i32(raw, start + 4, 4)  # 4-byte aligned: accepted
    dc_atomic(bins, ok)
    assert np.frombuffer(raw[start + 4:start + 20].tobytes(), np.int32).tolist() == [1, 2, 0, 1]


@pytest.mark.cpu_only("wraps host memory (array_from_ptr over a host address); OpenCL accepts only its own memory")
def test_misaligned_atomic_target_on_the_cached_path():
    raw = np.zeros(64, np.uint8)
    start = (-raw.ctypes.data) % 16
    bins = arr(np.array([0, 1], np.int32))
    dc_atomic(bins, misaligned_i32(raw, start, 2))  # aligned: compiles and caches
    with pytest.raises(ValueError):
        dc_atomic(bins, misaligned_i32(raw, start + 17, 2))


@pytest.mark.cpu_only("wraps host memory (array_from_ptr over a host address); OpenCL accepts only its own memory")
def test_i64_atomic_target_needs_8_byte_alignment():
    raw = np.zeros(64, np.uint8)
    start = (-raw.ctypes.data) % 16
    h = tack.array_from_ptr(raw[start + 4:start + 36], tack.i64, 4, writable=True)
    with pytest.raises(ValueError) as e:
        dc_atomic(arr(np.array([0, 1], np.int32)), h)
    # The memory seed's words ("Kernel '<name>': atomic target parameter N requires K-byte
    # alignment"), then Tack's detail.
    assert str(e.value).startswith(
        "Kernel 'dc_atomic': atomic target parameter 1 requires 8-byte alignment;"), e.value


@tack.kernel
def dc_copy(src, dst):
    for i in range(len(src)):
        dst[i] = src[i]


@pytest.mark.cpu_only("wraps host memory (array_from_ptr over a host address); OpenCL accepts only its own memory")
def test_misaligned_arrays_without_atomics_are_fine():
    raw = np.zeros(64, np.uint8)
    start = (-raw.ctypes.data) % 16
    dst = misaligned_i32(raw, start + 1, 4)
    dc_copy(arr(np.array([1, -2, 3, 2 ** 31 - 1], np.int32)), dst)
    got = np.frombuffer(raw[start + 1:start + 17].tobytes(), np.int32)
    assert got.tolist() == [1, -2, 3, 2 ** 31 - 1]


@pytest.mark.parametrize("nargs", [0, 1, 3, 4])
def test_wrong_arity_is_a_type_error(nargs):
    args = [zeros(4, np.float32) for _ in range(nargs)]
    with pytest.raises(TypeError, match="dc_copy"):
        dc_copy(*args)


# (A NumPy array is a kernel argument on the CPU: tests/python/test_numpy_habits.py.)
@pytest.mark.parametrize("bad", ["text", [1.0, 2.0], None, object()],
                         ids=["str", "list", "None", "object"])
def test_unsupported_argument_is_a_type_error(bad):
    with pytest.raises(TypeError):
        dc_copy(bad, zeros(4, np.float32))


def test_array_of_more_than_three_dimensions_is_refused():
    with pytest.raises(TypeError):
        dc_copy(zeros((2, 2, 2, 2), np.float32), zeros(4, np.float32))


def test_scalar_values_never_recompile():
    @tack.kernel
    def dc_scaled_local(s, n, x, out):
        for i in range(len(x)):
            out[i] = x[i] * s + n

    x = arr(np.arange(5, dtype=np.float32))
    for s, n in [(2.0, 1), (3.5, -7), (-1e30, 0), (0.0, 2 ** 31 - 1), (float("nan"), -2 ** 31)]:
        out = zeros(5, np.float32)
        dc_scaled_local(s, n, x, out)
        with np.errstate(all="ignore"):
            expected = np.arange(5, dtype=np.float32) * np.float32(s) + np.float32(n)
        np.testing.assert_array_equal(out.numpy(), expected)
    assert dc_scaled_local.variant_count == 1
    for m in [1, 9, 100]:  # the launch length is not keyed either
        dc_scaled_local(1.0, 0, arr(np.ones(m, np.float32)), zeros(m, np.float32))
    assert dc_scaled_local.variant_count == 1
    dc_scaled_local(1.0, 2 ** 40, x, zeros(5, np.float32))  # an i64 scalar: a new type
    assert dc_scaled_local.variant_count == 2


def test_argument_types_are_keyed():
    @tack.kernel
    def dc_keyed(x, out):
        for i in range(len(x)):
            out[i] = x[i]

    dc_keyed(zeros(3, np.float32), zeros(3, np.float32))
    dc_keyed(zeros(3, np.float32), zeros(3, np.float32))
    assert dc_keyed.variant_count == 1
    dc_keyed(zeros(3, np.int32), zeros(3, np.int32))
    assert dc_keyed.variant_count == 2
    dc_keyed(zeros(3, np.float32), zeros(3, np.float64))  # one parameter's type differs
    assert dc_keyed.variant_count == 3
    dc_keyed(zeros(5, np.float32), zeros(7, np.float32))  # lengths are not keyed
    assert dc_keyed.variant_count == 3


def test_written_array_version_is_bumped():
    src = arr(np.arange(8, dtype=np.float32))
    out1, out2 = zeros(8, np.float32), zeros(8, np.float32)
    v_src, v1, v2 = src.version, out1.version, out2.version
    dc_two_outputs(src, out1, out2)
    assert out1.version > v1 and out2.version > v2
    assert src.version == v_src  # only read
    v1 = out1.version
    dc_two_outputs(src, out1, out2)
    assert out1.version > v1


def test_write_through_a_view_bumps_the_root_version():
    root = zeros((6, 2), np.float32)
    view = root.reshape(12)[2:10]
    v = root.version
    dc_copy(zeros(8, np.float32), view)
    assert root.version > v and view.version == root.version


def test_atomic_target_version_is_bumped():
    h = zeros(4, np.int32)
    v = h.version
    dc_atomic(arr(np.array([1, 2], np.int32)), h)
    assert h.version > v


def test_kernel_name_and_repr():
    assert dc_copy.name == "dc_copy"
    assert "dc_copy" in repr(dc_copy)


@tack.kernel
def dc_threaded(x, k, out):
    for i in range(len(x)):
        out[i] = x[i] * 2 + k


def test_concurrent_calls_from_several_threads():
    # Dispatch is thread-safe: threads compile variants of one kernel (one per dtype) and
    # launch them at the same time; every call gets its own result.
    import threading

    dtypes = [np.int8, np.int16, np.int32, np.int64, np.uint16, np.uint32, np.float32,
              np.float64]
    errors = []
    barrier = threading.Barrier(len(dtypes))
    variants = dc_threaded.variant_count  # (those of the devices the suite ran it on before)

    def work(dt):
        try:
            barrier.wait()
            for rep in range(30):
                n = 1000 + 37 * rep
                x = np.arange(n).astype(dt)
                out = zeros(n, dt)
                dc_threaded(arr(x), rep, out)
                with np.errstate(all="ignore"):
                    expected = (x * dt(2) + dt(rep)).astype(dt)
                if not np.array_equal(out.numpy(), expected):
                    errors.append((dt, rep))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append((dt, repr(e)))

    threads = [threading.Thread(target=work, args=(dt,)) for dt in dtypes]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert dc_threaded.variant_count == variants + len(dtypes)


@tack.kernel
def dc_slow(x, rounds: int):
    for i in range(len(x)):
        v = x[i]
        for r in range(rounds):
            v = v * 0.999 + 0.001
        x[i] = v


def test_a_long_launch_lets_other_python_threads_run():
    # The GIL is released for a launch's long work (docs/design/dispatch.md, "The warm path"):
    # a Python thread counts while the kernel runs. Were it held, the count could not move
    # between the call's start and its end.
    import threading

    x = zeros(4096, np.float32)
    dc_slow(x, 1)  # compiled, and its cost per iteration known
    done, count = threading.Event(), [0]

    def spin():
        while not done.is_set():
            count[0] += 1

    t = threading.Thread(target=spin)
    t.start()
    try:
        during = []
        for _ in range(3):  # the counter must move inside some call of about 0.1 s
            before = count[0]
            dc_slow(x, 20000)
            tack.sync()  # a queued launch (OpenCL) runs here
            during.append(count[0] - before)
        assert max(during) > 100, during
    finally:
        done.set()
        t.join()


def test_call_errors_come_from_the_call_slot():
    # A kernel's call is its type's C call slot: errors still reach Python as their types.
    with pytest.raises(TypeError, match="takes 3 arguments"):
        dc_two_outputs(zeros(4, np.float32))
    with pytest.raises(TypeError, match="kernel arguments are tack arrays"):
        dc_two_outputs(zeros(4, np.float32), "text", zeros(4, np.float32))
    assert callable(dc_two_outputs)
    assert type(dc_two_outputs).__call__ is tack._tack._KernelCall.__call__
    # An array never initialized is not taken as one (nanobind warns of the attempt).
    with pytest.raises(TypeError), pytest.warns(RuntimeWarning, match="uninitialized"):
        dc_two_outputs(tack.Array.__new__(tack.Array), zeros(4, np.float32), zeros(4, np.float32))
    with pytest.raises(RuntimeError, match="no exception is pending"):
        tack._tack._reraise()


@pytest.mark.cpu_only("wraps host memory (array_from_ptr over a host address); OpenCL accepts only its own memory")
def test_refused_call_bumps_no_version():
    src = arr(np.arange(8, dtype=np.float32))
    out1 = zeros(8, np.float32)
    ro = tack.array_from_ptr(np.zeros(8, np.float32), tack.f32, 8)
    v1, vr = out1.version, ro.version
    with pytest.raises(ValueError):
        dc_two_outputs(src, out1, ro)
    assert out1.version == v1 and ro.version == vr


DISK_CACHE_SCRIPT = """
import numpy as np, tack

@tack.kernel
def wwr(a, b, out):
    for i in range(len(out)):
        a[i] = 1.0
        b[i] = 2.0
        out[i] = a[i]

@tack.kernel
def shifted(a, out):
    for i in range(len(out)):
        out[i] = a[i + 1]

for spec in (True, False):
    tack.set_specialize_disjoint(spec)
    for rep in range(2):
        x, y, out = tack.zeros(64), tack.zeros(64), tack.zeros(64)
        wwr(x, x, out)   # aliased: the store through b is seen through a
        assert out.numpy().tolist() == [2.0] * 64, (spec, out.numpy())
        wwr(x, y, out)   # disjoint
        assert out.numpy().tolist() == [1.0] * 64, (spec, out.numpy())
a = tack.array(np.arange(9, dtype=np.float32))
out = tack.zeros(8)
shifted(a, out)
assert out.numpy().tolist() == list(range(1, 9))
tack.set_debug(True)
try:
    shifted(a, tack.zeros(9))   # a[9] is out of bounds: only the checked variant says so
except IndexError:
    print("IndexError")
else:
    raise SystemExit("no IndexError in debug mode")
"""


def test_disk_cache_keeps_variants_apart(tmp_path):
    # A second process loads compiled code from the disk cache: the aliased, disjoint and
    # debug variants must each come back as themselves.
    script = tmp_path / "cached.py"
    script.write_text(DISK_CACHE_SCRIPT)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    env["TACK_CACHE_DIR"] = str(tmp_path / "cache")
    for run in range(2):
        r = subprocess.run([sys.executable, str(script)], env=env, timeout=120,
                           capture_output=True, text=True)
        assert r.returncode == 0, (run, r.stdout, r.stderr[-3000:])
        assert "IndexError" in r.stdout
    assert any((tmp_path / "cache").rglob("*"))


@tack.kernel
def dc_keywords(x, a, out):
    for i in range(len(x)):
        out[i] = x[i] * a


def test_keyword_arguments_bind_by_parameter_name():
    x = arr(np.arange(4, dtype=np.float32))
    out = arr(np.zeros(4, np.float32))
    dc_keywords(x, out=out, a=2.0)
    assert out.numpy().tolist() == [0.0, 2.0, 4.0, 6.0]
    dc_keywords(out=out, x=x, a=3.0)
    assert out.numpy().tolist() == [0.0, 3.0, 6.0, 9.0]


@pytest.mark.parametrize("args, kwargs, message", [
    ((None,), {"a": 1.0, "out": None, "z": 1}, "got an unexpected keyword argument 'z'"),
    ((), {"a": 1.0, "out": None}, "missing a required argument: 'x'"),
    ((None, 1.0, None), {"x": None}, "multiple values for argument 'x'"),
])
def test_keyword_arguments_python_would_refuse_are_a_type_error(args, kwargs, message):
    with pytest.raises(TypeError, match=rf"kernel 'dc_keywords': {message}; its parameters are "
                                        r"\(x, a, out\)"):
        dc_keywords(*args, **kwargs)
