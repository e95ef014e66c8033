"""Rows of the memory model that had no test of their own (docs/memory-model.md, "Conformance"):
a CPU `empty` leaves its pages untouched; a NumPy integer holding a host address is refused like
a Python int on a device that checks memory spaces; a value that is not an address is host memory
on every device, without asking the driver; empty arrays are left out of the CPU's disjointness
check."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tack


def test_cpu_empty_does_not_touch_its_pages():
    # In a fresh process: RSS grows by the pages written, not by the pages allocated.
    code = textwrap.dedent("""
        import os, tack
        page = os.sysconf("SC_PAGE_SIZE")
        def rss():
            with open("/proc/self/statm") as f:
                return int(f.read().split()[1]) * page
        MIB = 1 << 20
        before = rss()
        a = tack.empty(64 * MIB, tack.f32, device="cpu")   # 256 MiB
        after_empty = rss()
        a.fill(1.0)
        after_fill = rss()
        print((after_empty - before) // MIB, (after_fill - before) // MIB)
    """)
    env = dict(os.environ, TACK_CPU_POOL_MB="0")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    grown_by_empty, grown_by_fill = map(int, r.stdout.split())
    assert grown_by_empty < 16, grown_by_empty
    assert grown_by_fill >= 200, grown_by_fill


@pytest.mark.parametrize("as_type", [np.uint64, np.int64, int])
def test_device_refuses_a_host_address_in_any_integer_form(as_type):
    devices = [d for d in tack.devices() if d.kind != "cpu"]
    if not devices:
        pytest.skip("only the CPU is present: it does not tell memory spaces apart")
    x = np.zeros(8, np.float32)
    for d in devices:
        with pytest.raises(ValueError, match=r"cpu"):
            tack.array_from_ptr(as_type(x.ctypes.data), tack.f32, 8, device=d)


def test_a_value_that_is_not_an_address_is_host_memory_on_every_device():
    for d in tack.devices():
        assert tack.memory_space("not a pointer", d) == "cpu"
        assert tack.memory_space(-1, d) == "cpu"
        assert tack.memory_space(2 ** 64, d) == "cpu"


@tack.kernel
def mr_shift(a, b):
    for i in range(len(a)):
        b[i] = a[i] + 1.0


def test_empty_arrays_are_left_out_of_the_disjointness_check():
    cpu = tack.device("cpu")
    x = tack.zeros(8, device=cpu)
    out = tack.zeros(8, device=cpu)
    assert "noalias" in tack.inspect(mr_shift, x, out, mode="source")
    # An empty array at x's very address overlaps nothing: the call keeps its promise.
    empty = tack.array_from_ptr(x.export_memory().address, tack.f32, 0, writable=True, device=cpu)
    assert "noalias" in tack.inspect(mr_shift, empty, x, mode="source")
