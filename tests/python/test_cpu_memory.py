"""The CPU's memory rules of the memory model that are about the process rather than one array:
fills of 256 KiB or more run as a fill kernel through the dispatch (so the policy that fans out
every kernel fans them out, and its workers first-touch the pages); TACK_CPU_MALLOC=1 applies
glibc's three settings (mmap threshold 32 MiB, no trim under 4 GiB, heap grown 256 MiB at a
time), shown by what malloc does, not by the code path; NUMA interleave on large allocations,
read back from the kernel with get_mempolicy(MPOL_F_ADDR). Process-wide settings are checked in
a fresh subprocess each."""
import ctypes
import ctypes.util
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tack

KIB = 1024
MIB = 1024 * KIB


def run_python(code, **env):
    """Runs `code` in a fresh interpreter with `env` added; returns its stdout (asserts success)."""
    full = dict(os.environ)
    full.update(env)
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=full,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


# ---- fills through the dispatch ------------------------------------------------------------


@pytest.mark.parametrize("dtype,value", [(tack.f32, 1.5), (tack.f64, -2.25), (tack.i8, -3),
                                         (tack.u16, 65535), (tack.i32, -7), (tack.u64, 2**64 - 2),
                                         (tack.f32, 0.0)])
def test_large_fill_runs_through_the_dispatch(dtype, value):
    cpu = tack.device("cpu")
    n = (1 * MIB) // dtype.itemsize + 3  # 1 MiB and a bit: above the 256 KiB threshold
    a = tack.empty(n, dtype, device=cpu)
    before_count, before_version = tack._tack._cpu_kernel_fill_count(), a.version
    a.fill(value)
    assert tack._tack._cpu_kernel_fill_count() == before_count + 1
    assert a.version == before_version + 1  # counted once, as any write
    want = np.full(n, value, dtype=a.numpy().dtype)
    np.testing.assert_array_equal(a.numpy(), want)
    # zeros, ones and full fill the same way.
    before_count = tack._tack._cpu_kernel_fill_count()
    z = tack.full(n, value, dtype, device=cpu)
    assert tack._tack._cpu_kernel_fill_count() == before_count + 1
    np.testing.assert_array_equal(z.numpy(), want)


@pytest.mark.parametrize("dtype,value", [(tack.f32, -1.25), (tack.u8, 200), (tack.f64, 0.0),
                                         (tack.vec(3, tack.f32), [1.0, 2.0, 3.0])])
def test_streaming_fills_run_through_the_dispatch_too(dtype, value):
    # From 8 MiB the fill kernel writes with tack.stream_store (non-temporal stores, as memset
    # does for large sizes; docs/design/cpu_fill.md); below, with ordinary stores.
    cpu = tack.device("cpu")
    for n in (8 * MIB // dtype.itemsize + 1, 8 * MIB // dtype.itemsize - 1):
        before = tack._tack._cpu_kernel_fill_count()
        a = tack.full(n, 0, dtype, device=cpu)
        a.fill(value)
        assert tack._tack._cpu_kernel_fill_count() == before + 2
        got = a.numpy()
        np.testing.assert_array_equal(got, np.broadcast_to(np.array(value, got.dtype), got.shape))


def test_small_fills_stay_on_the_calling_thread():
    cpu = tack.device("cpu")
    before = tack._tack._cpu_kernel_fill_count()
    a = tack.zeros((256 * KIB) // 4 - 1, device=cpu)  # just under the threshold
    assert tack._tack._cpu_kernel_fill_count() == before
    assert not a.numpy().any()
    tack.zeros((256 * KIB) // 4, device=cpu)  # at the threshold
    assert tack._tack._cpu_kernel_fill_count() == before + 1


@pytest.mark.parametrize("dtype,value", [(tack.vec(3, tack.f32), [1.0, -2.0, 3.5]),
                                         (tack.vec(2, tack.f64), [0.5, 7.0]),
                                         (tack.vec(3, tack.u8), [1, 2, 250]),
                                         (tack.mat(3, 3, tack.f32), [[1, 2, 3], [4, 5, 6], [7, 8, 9]]),
                                         (tack.vec(4, tack.f32), [1.0, 2.0, 3.0, 4.0])])
def test_large_vector_and_matrix_fills(dtype, value):
    cpu = tack.device("cpu")
    n = MIB // dtype.itemsize + 1
    a = tack.empty(n, dtype, device=cpu)
    before = tack._tack._cpu_kernel_fill_count()
    a.fill(value)
    assert tack._tack._cpu_kernel_fill_count() == before + 1
    got = a.numpy()
    np.testing.assert_array_equal(got, np.broadcast_to(np.array(value, got.dtype), got.shape))


def test_a_large_fill_of_a_view_writes_only_its_rows():
    cpu = tack.device("cpu")
    rows = tack.zeros((1024, 256), device=cpu)  # 1 MiB
    before = tack._tack._cpu_kernel_fill_count()
    rows[100:900].fill(2.0)  # 800 KiB: through the dispatch
    assert tack._tack._cpu_kernel_fill_count() == before + 1
    got = rows.numpy()
    assert (got[100:900] == 2.0).all() and not got[:100].any() and not got[900:].any()


def test_a_read_only_array_is_refused_before_the_fill_kernel():
    backing = np.zeros(MIB // 4, np.float32)
    ro = tack.array_from_ptr(backing, tack.f32, backing.size)
    before = tack._tack._cpu_kernel_fill_count()
    with pytest.raises(RuntimeError, match="read-only"):
        ro.fill(1.0)
    assert tack._tack._cpu_kernel_fill_count() == before and not backing.any()


def test_fills_fan_out_over_the_workers_as_kernels_do():
    # The fill kernel is an ordinary kernel: with TACK_NUM_THREADS=1 it runs on the calling
    # thread, with 2 it is split as every kernel is. Both give the same bytes.
    code = """
        import numpy as np, tack
        a = tack.full(8 * 1024 * 1024, 3.0, tack.f32)  # 32 MiB: the streaming fill kernel
        assert tack._tack._cpu_kernel_fill_count() == 1
        assert (a.numpy() == 3.0).all()
        print("ok")
    """
    assert run_python(code, TACK_NUM_THREADS="1").strip() == "ok"
    assert run_python(code, TACK_NUM_THREADS="2").strip() == "ok"


# ---- TACK_CPU_MALLOC=1 ----------------------------------------------------------------------

# Measures what glibc's malloc does, from a fresh process: where a 16 MiB block comes from
# (mmap or the heap), how much the heap grows past a request (the top pad), and whether freeing
# 3 GiB at the top of the heap gives it back (the trim threshold). Untouched heap pages cost no
# memory, so the 3 GiB is address space only.
MALLOC_PROBE = """
    import ctypes, tack
    tack.zeros(1)  # the CPU backend exists (it applies TACK_CPU_MALLOC when made)

    class Mallinfo2(ctypes.Structure):
        _fields_ = [(n, ctypes.c_size_t) for n in
                    ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
                     "uordblks", "fordblks", "keepcost")]

    libc = ctypes.CDLL(None)
    libc.mallinfo2.restype = Mallinfo2
    libc.malloc.restype = ctypes.c_void_p
    libc.malloc.argtypes = [ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]
    MIB = 1024 * 1024

    before = libc.mallinfo2()
    p = libc.malloc(16 * MIB)
    after = libc.mallinfo2()
    mmapped = after.hblkhd - before.hblkhd >= 16 * MIB
    top_pad = after.keepcost
    libc.free(p)

    blocks = [libc.malloc(30 * MIB) for _ in range(100)]  # 3000 MiB, each under 32 MiB
    assert all(blocks)
    grown = libc.mallinfo2().arena
    for b in reversed(blocks):
        libc.free(b)
    kept = libc.mallinfo2().arena
    print(int(mmapped), top_pad // MIB, grown // MIB, kept // MIB)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc")
def test_cpu_malloc_settings_are_applied():
    mmapped, top_pad, grown, kept = map(int, run_python(MALLOC_PROBE, TACK_CPU_MALLOC="1").split())
    # mmap threshold 32 MiB: a 16 MiB block comes from the heap, not from mmap.
    assert mmapped == 0
    # Heap grown 256 MiB at a time: after a 16 MiB block the top of the heap holds ~256 MiB more.
    assert top_pad >= 250, top_pad
    # No trim under 4 GiB: 3000 MiB freed at the top of the heap stay in it. (A threshold of
    # INT_MAX, 2 GiB, would give them back.)
    assert grown >= 3000 and kept >= 3000, (grown, kept)

    # Without the setting glibc does the opposite of each, so the test tells them apart.
    # Off by default (the variable unset): it is process-wide.
    env = {k: v for k, v in os.environ.items() if k != "TACK_CPU_MALLOC"}
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(MALLOC_PROBE)], env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    mmapped, top_pad, grown, kept = map(int, r.stdout.split())
    assert mmapped == 1 and top_pad < 64
    # (30 MiB blocks are mmapped by default: the heap never holds them.)
    assert kept < 1000, kept


# ---- NUMA interleave ------------------------------------------------------------------------

NUMA_PROBE = """
    import ctypes, tack
    numa = ctypes.CDLL("libnuma.so.1")
    numa.get_mempolicy.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.c_void_p, ctypes.c_ulong,
                                   ctypes.c_void_p, ctypes.c_ulong]
    MPOL_F_ADDR = 2
    modes = set()
    # 16 MiB (huge pages) and 1 MiB (ordinary pages), each filled by the workers.
    for n in (4 * 1024 * 1024, 256 * 1024):
        a = tack.zeros(n, tack.f32, device="cpu")
        mode = ctypes.c_int(-1)
        address = a.export_memory().address
        assert numa.get_mempolicy(ctypes.byref(mode), None, 0, ctypes.c_void_p(address),
                                  MPOL_F_ADDR) == 0
        modes.add(mode.value)
    assert len(modes) == 1, modes
    print(modes.pop(), numa.numa_num_configured_nodes())
"""
MPOL_DEFAULT, MPOL_INTERLEAVE = 0, 3


def libnuma():
    name = ctypes.util.find_library("numa")
    if name is None:
        pytest.skip("libnuma is not installed: Tack is built without NUMA placement")
    return ctypes.CDLL(name)


def test_numa_interleave_policy_is_set_on_a_large_fill():
    libnuma()
    # Asked for on any machine (one node included), the policy is on the pages of a large fill.
    mode, nodes = map(int, run_python(NUMA_PROBE, TACK_NUMA_INTERLEAVE="1").split())
    assert mode == MPOL_INTERLEAVE
    # mbind needs whole pages: an allocation under the huge-page size must start at one, or
    # libnuma prints "mbind: Invalid argument" and sets nothing.
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(NUMA_PROBE)],
                       env=dict(os.environ, TACK_NUMA_INTERLEAVE="1"), capture_output=True,
                       text=True, timeout=120)
    assert "mbind" not in r.stderr, r.stderr
    # Turned off, the pages keep the default policy.
    mode, _ = map(int, run_python(NUMA_PROBE, TACK_NUMA_INTERLEAVE="0").split())
    assert mode == MPOL_DEFAULT


def test_numa_interleave_is_automatic_on_a_machine_with_several_nodes():
    numa = libnuma()
    if numa.numa_num_configured_nodes() < 2:
        pytest.skip("one NUMA node: the automatic interleave applies only where libnuma "
                    "reports more than one (checked with TACK_NUMA_INTERLEAVE=1 above)")
    mode, _ = map(int, run_python(NUMA_PROBE).split())
    assert mode == MPOL_INTERLEAVE


def test_numa_interleave_is_left_alone_on_one_node():
    numa = libnuma()
    if numa.numa_num_configured_nodes() > 1:
        pytest.skip("several NUMA nodes: the automatic interleave applies")
    mode, _ = map(int, run_python(NUMA_PROBE).split())
    assert mode == MPOL_DEFAULT
