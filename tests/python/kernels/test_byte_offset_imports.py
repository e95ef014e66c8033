"""Imported buffers at any byte: CPU loads and stores promise only byte alignment, and imported
buffers (array_from_ptr over an address or a NumPy array, DLPack) may start at any byte; the
regression suite checks imported buffers at a one-byte offset (and three) for all ten scalar
types (i8 i16 i32 i64 u8 u16 u32 u64 f32 f64):

* loads: a kernel reads a misaligned import (and a view of it) into an aligned Tack array, bit
  for bit, and writes nothing to it;
* stores: a kernel writes into a misaligned import (whole, every other element, and in place);
  read back through NumPy the values are right and every byte outside the elements written
  (the byte before the range, the bytes after it, the skipped elements) is untouched; host
  transfers (fill, copyto, numpy(), element reads) work there too;
* atomics need natural alignment (docs/devices.md, docs/language.md "Dispatch rules"): a
  misaligned atomic target wider than one byte is refused before the launch with the seed's
  words ("Kernel '<name>': atomic target parameter N requires K-byte alignment"), nothing
  written; i8/u8 are atomic types like the others (docs/language.md, "Atomics": numeric element
  types) whose natural alignment is one byte, so they run at every byte; a target at an offset
  that is naturally aligned but not 64-byte aligned runs and sums right, through the CPU's
  privatized histogram and through plain atomics whose old value is used; misaligned arrays
  that are not atomic targets (the indices, the values added) are fine.

CPU only: OpenCL accepts only its own memory and refuses an array that is not naturally aligned
(docs/devices.md)."""
import numpy as np
import pytest

import tack
from kutil import ALL_DTYPES, arr, name, random_array, rng, tdt, wrap_int, zeros

CPU_ONLY = ("wraps host memory at a byte offset (array_from_ptr over a host address); OpenCL "
            "accepts only its own, naturally aligned memory")

WIDE_DTYPES = [d for d in ALL_DTYPES if np.dtype(d).itemsize > 1]
BYTE_DTYPES = [d for d in ALL_DTYPES if np.dtype(d).itemsize == 1]
OFFSETS = [1, 3]
GUARD = 0xA5  # every byte of the backing before a test writes: a stray store shows
N = 37  # elements: odd, no multiple of a vector width, so loops have a remainder


# ---- kernels ----------------------------------------------------------------------------------


@tack.kernel
def bo_copy(src, dst):
    for i in range(len(src)):
        dst[i] = src[i]


@tack.kernel
def bo_reverse(src, dst):
    for i in range(len(src)):
        dst[i] = src[len(src) - 1 - i]


@tack.kernel
def bo_odd_only(src, dst):
    for i in range(len(src) // 2):
        dst[2 * i + 1] = src[2 * i + 1]


@tack.kernel
def bo_bump(x):
    for i in range(len(x)):
        x[i] += 1


@tack.kernel
def bo_atomic_add(bins, h, w):
    for i in range(len(bins)):
        tack.atomic_add(h, bins[i], w[i])  # a statement into a small array: privatized


@tack.kernel
def bo_atomic_add_old(bins, h, w, olds):
    for i in range(len(bins)):
        olds[i] = tack.atomic_add(h, bins[i], w[i])  # the old value is used: plain atomics


# ---- helpers ----------------------------------------------------------------------------------


def values(dtype, n=N, seed=2024):
    """n values of dtype that show what a type means: negatives and both extremes for signed
    integers, values at and above 2**(bits-1) for unsigned ones (above 2**63 for u64), and
    non-integers, signed zeros, infinities, NaN and subnormals for floats; the rest random."""
    dt = np.dtype(dtype)
    if dt.kind == "f":
        info = np.finfo(dt)
        head = [-0.0, 0.0, -1.5, 0.1, -7.0 / 3.0, np.pi, 1234.5678, -1e-3, np.inf, -np.inf,
                np.nan, info.tiny, -info.smallest_subnormal, info.max, -info.max]
    elif dt.kind == "i":
        info = np.iinfo(dt)
        head = [info.min, -1, info.max, -2, 0, 1, -(info.max // 3), info.min + 1, 0x5A]
    else:
        info = np.iinfo(dt)
        top = 1 << (info.bits - 1)
        head = [info.max, top, top + 1, 0, 1, info.max - 1, top + top // 3, 0x5A]
    rest = random_array(rng(seed), dt.type, n - len(head))
    return np.concatenate([np.array(head, dt), rest.astype(dt)])


def backing(dtype, n, offset):
    """A NumPy uint8 buffer holding n elements of dtype `offset` bytes past a 64-byte boundary,
    with guard bytes before and after, every byte GUARD. Returns (raw, lo, hi, view): the
    elements are raw[lo:hi], and view is them as dtype (a misaligned NumPy array)."""
    itemsize = np.dtype(dtype).itemsize
    raw = np.full(64 + offset + n * itemsize + 64, GUARD, np.uint8)
    lo = (-raw.ctypes.data) % 64 + offset
    hi = lo + n * itemsize
    view = raw[lo:hi].view(dtype)
    assert view.ctypes.data % 64 == offset
    return raw, lo, hi, view


def wrap(view, dtype, route="address"):
    """A writable Tack array over a NumPy view's memory: by its address (the caller keeps the
    memory alive) or by the NumPy array itself (held)."""
    ptr = view.ctypes.data if route == "address" else view
    a = tack.array_from_ptr(ptr, tdt(dtype), len(view), writable=True)
    assert a.device == tack.device("cpu") and a.writable and a.shared
    return a


def bits(x):
    """A NumPy array's elements as unsigned integers of the same width: compared bit for bit
    (NaN equals NaN, -0.0 differs from 0.0)."""
    x = np.ascontiguousarray(x)
    return x.view(f"u{x.dtype.itemsize}")


def assert_bits_equal(got, want):
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(bits(got), bits(want))


def assert_guards(raw, lo, hi):
    """Nothing outside raw[lo:hi] was written: the byte just before (byte 0 of the backing's
    aligned start is among them) and all the bytes after."""
    assert (raw[:lo] == GUARD).all(), np.nonzero(raw[:lo] != GUARD)
    assert (raw[hi:] == GUARD).all(), np.nonzero(raw[hi:] != GUARD)


def plus_one(vals):
    dt = vals.dtype
    if dt.kind == "f":
        with np.errstate(all="ignore"):
            return vals + dt.type(1)
    return np.array([wrap_int(int(v) + 1, dt.type) for v in vals], dt)


def atomic_case(dtype, nbins=5, n=20000, seed=77):
    """bins (i32), the values to add and the target's first values, meaningful per type:
    integers over the whole range (negative for signed types, above 2**63 for u64; the sums wrap
    at the width, as atomics do in any order), floats multiples of 1/8 that are no integers and
    sum exactly in any order."""
    r = rng(seed)
    dt = np.dtype(dtype)
    bins = r.integers(0, nbins, n).astype(np.int32)
    if dt.kind == "f":
        w = (r.integers(-100, 100, n) * 0.25 + 0.125).astype(dt)
        init = np.array([-1.375, 0.5, 2.625, -0.125, 7.75][:nbins], dt)
    else:
        w = random_array(r, dt.type, n).astype(dt)
        init = random_array(r, dt.type, nbins).astype(dt)
    return bins, w, init


def summed(init, bins, w, times=1):
    want = init.copy()
    with np.errstate(all="ignore"):
        for _ in range(times):
            np.add.at(want, bins, w)  # integer sums wrap at the width
    return want


# ---- loads ------------------------------------------------------------------------------------


@pytest.mark.cpu_only(CPU_ONLY)
@pytest.mark.parametrize("offset", OFFSETS, ids=lambda o: f"offset{o}")
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_kernel_loads_from_an_import_at_a_byte_offset(dtype, offset):
    vals = values(dtype)
    raw, lo, hi, view = backing(dtype, N, offset)
    view[:] = vals
    before = raw.copy()
    src = wrap(view, dtype)

    out = zeros(N, dtype)
    bo_copy(src, out)
    assert_bits_equal(out.numpy(), vals)

    rev = zeros(N, dtype)
    bo_reverse(src, rev)
    assert_bits_equal(rev.numpy(), vals[::-1])

    part = src[2:N - 3]  # a view of the import: still at no multiple of the element size
    sub = zeros(N - 5, dtype)
    bo_copy(part, sub)
    assert_bits_equal(sub.numpy(), vals[2:N - 3])

    np.testing.assert_array_equal(raw, before)  # loads wrote nothing


# ---- stores -----------------------------------------------------------------------------------


@pytest.mark.cpu_only(CPU_ONLY)
@pytest.mark.parametrize("route", ["address", "ndarray"])
@pytest.mark.parametrize("offset", OFFSETS, ids=lambda o: f"offset{o}")
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_kernel_stores_into_an_import_at_a_byte_offset(dtype, offset, route):
    vals = values(dtype)
    raw, lo, hi, view = backing(dtype, N, offset)
    dst = wrap(view, dtype, route)
    before_version = dst.version

    bo_copy(arr(vals), dst)
    assert dst.version > before_version
    assert_bits_equal(np.frombuffer(raw[lo:hi].tobytes(), dtype), vals)
    assert_guards(raw, lo, hi)

    # In place: every load and store of the kernel at the misaligned addresses.
    bo_bump(dst)
    got = np.frombuffer(raw[lo:hi].tobytes(), dtype)
    np.testing.assert_array_equal(got, plus_one(vals))
    assert_guards(raw, lo, hi)


@pytest.mark.cpu_only(CPU_ONLY)
@pytest.mark.parametrize("offset", OFFSETS, ids=lambda o: f"offset{o}")
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_stores_to_every_other_element_leave_the_neighbours_alone(dtype, offset):
    # A store wider than its element, or rounded to an aligned address, would reach a neighbour.
    itemsize = np.dtype(dtype).itemsize
    vals = values(dtype)
    raw, lo, hi, view = backing(dtype, N, offset)
    bo_odd_only(arr(vals), wrap(view, dtype))
    elems = raw[lo:hi].reshape(N, itemsize)
    assert_bits_equal(np.frombuffer(elems[1::2].tobytes(), dtype), vals[1::2])
    assert (elems[0::2] == GUARD).all(), "an even element (never stored to) was written"
    assert_guards(raw, lo, hi)


@pytest.mark.cpu_only(CPU_ONLY)
@pytest.mark.parametrize("offset", OFFSETS, ids=lambda o: f"offset{o}")
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_host_transfers_through_an_import_at_a_byte_offset(dtype, offset):
    vals = values(dtype)
    raw, lo, hi, view = backing(dtype, N, offset)
    a = wrap(view, dtype)

    tack.copyto(a, vals)
    assert_bits_equal(np.frombuffer(raw[lo:hi].tobytes(), dtype), vals)
    assert_bits_equal(a.numpy(), vals)
    for k in (0, 1, N // 2, N - 1):
        got, want = a[k], vals[k].item()
        assert got == want or (got != got and want != want), (k, got, want)
    assert_guards(raw, lo, hi)

    fill = vals[2]  # -1.5, -2, or 2**(bits-1) + 1
    a.fill(fill.item())
    assert_bits_equal(np.frombuffer(raw[lo:hi].tobytes(), dtype), np.full(N, fill, dtype))
    assert_guards(raw, lo, hi)

    a[3:9].fill(0)  # a view of the import, at another misaligned address
    want = np.full(N, fill, dtype)
    want[3:9] = 0
    assert_bits_equal(np.frombuffer(raw[lo:hi].tobytes(), dtype), want)
    assert_guards(raw, lo, hi)


# ---- atomics ----------------------------------------------------------------------------------


@pytest.mark.cpu_only(CPU_ONLY)
@pytest.mark.parametrize("offset", OFFSETS, ids=lambda o: f"offset{o}")
@pytest.mark.parametrize("dtype", WIDE_DTYPES, ids=name)
def test_misaligned_atomic_target_is_refused(dtype, offset):
    itemsize = np.dtype(dtype).itemsize
    bins, w, init = atomic_case(dtype)
    tb, tw = arr(bins), arr(w)
    # Compiled and cached first on an aligned target: the check runs on the cached path too.
    aligned = arr(init)
    bo_atomic_add(tb, aligned, tw)
    assert_bits_equal(aligned.numpy(), summed(init, bins, w))

    raw, lo, hi, view = backing(dtype, len(init), offset)
    view[:] = init
    before = raw.copy()
    h = wrap(view, dtype)
    version = h.version
    prefix = (f"Kernel 'bo_atomic_add': atomic target parameter 1 requires {itemsize}-byte "
              f"alignment")
    with pytest.raises(ValueError) as e:
        bo_atomic_add(tb, h, tw)
    assert str(e.value).startswith(prefix), str(e.value)

    olds = zeros(len(bins), dtype)
    prefix_old = (f"Kernel 'bo_atomic_add_old': atomic target parameter 1 requires "
                  f"{itemsize}-byte alignment")
    with pytest.raises(ValueError) as e:
        bo_atomic_add_old(tb, h, tw, olds)
    assert str(e.value).startswith(prefix_old), str(e.value)

    # Refused before the launch: nothing written, no version bumped.
    np.testing.assert_array_equal(raw, before)
    assert h.version == version
    assert not olds.numpy().any()


@pytest.mark.cpu_only(CPU_ONLY)
@pytest.mark.parametrize("offset", OFFSETS, ids=lambda o: f"offset{o}")
@pytest.mark.parametrize("dtype", WIDE_DTYPES, ids=name)
def test_misaligned_arrays_beside_an_aligned_atomic_target_are_fine(dtype, offset):
    # Only atomic targets need natural alignment: the indices and values may be at any byte.
    bins, w, init = atomic_case(dtype, n=4000, seed=78)
    rb, blo, bhi, bview = backing(np.int32, len(bins), offset)
    bview[:] = bins
    rw, wlo, whi, wview = backing(dtype, len(w), offset)
    wview[:] = w
    h = arr(init)
    bo_atomic_add(wrap(bview, np.int32), h, wrap(wview, dtype))
    assert_bits_equal(h.numpy(), summed(init, bins, w))
    assert_guards(rb, blo, bhi)
    assert_guards(rw, wlo, whi)


def _check_atomics_at(dtype, offset):
    """Both atomic kernels on a target `offset` bytes past a 64-byte boundary: the sums are
    those of NumPy, and no byte outside the target is written."""
    bins, w, init = atomic_case(dtype)
    raw, lo, hi, view = backing(dtype, len(init), offset)
    view[:] = init
    h = wrap(view, dtype)
    assert_bits_equal(h.numpy(), init)
    tb, tw = arr(bins), arr(w)

    bo_atomic_add(tb, h, tw)
    assert_bits_equal(np.frombuffer(raw[lo:hi].tobytes(), dtype), summed(init, bins, w))
    assert_guards(raw, lo, hi)

    olds = zeros(len(bins), dtype)
    bo_atomic_add_old(tb, h, tw, olds)
    assert_bits_equal(np.frombuffer(raw[lo:hi].tobytes(), dtype), summed(init, bins, w, 2))
    assert_guards(raw, lo, hi)


@pytest.mark.cpu_only(CPU_ONLY)
@pytest.mark.parametrize("offset", OFFSETS, ids=lambda o: f"offset{o}")
@pytest.mark.parametrize("dtype", BYTE_DTYPES, ids=name)
def test_one_byte_atomic_targets_are_aligned_at_every_byte(dtype, offset):
    # i8 and u8 are atomic types (docs/language.md, "Atomics": numeric element types); their
    # natural alignment is one byte, so an import at any byte is a valid target.
    _check_atomics_at(dtype, offset)


@pytest.mark.cpu_only(CPU_ONLY)
@pytest.mark.parametrize("multiple", [1, 3])
@pytest.mark.parametrize("dtype", WIDE_DTYPES, ids=name)
def test_naturally_aligned_atomic_target_off_a_cache_line(dtype, multiple):
    # Offset 8 or 24 for 8-byte types, 4 or 12 for 4-byte, 2 or 6 for 2-byte: naturally
    # aligned, not 64-byte aligned (Tack's own allocations are): accepted, and right.
    offset = np.dtype(dtype).itemsize * multiple
    assert offset % 64 != 0
    _check_atomics_at(dtype, offset)
