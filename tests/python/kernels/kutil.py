"""Helpers of the kernel conformance suite: dtypes, seeded random data, Python's integer
semantics wrapped to a width (the reference for Tack's wrap-around arithmetic)."""
import importlib
import math
import sys

import numpy as np

import tack

INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
SIGNED_DTYPES = [np.int8, np.int16, np.int32, np.int64]
UNSIGNED_DTYPES = [np.uint8, np.uint16, np.uint32, np.uint64]
FLOAT_DTYPES = [np.float32, np.float64]
ALL_DTYPES = INT_DTYPES + FLOAT_DTYPES

_TACK = {
    np.dtype(np.int8): tack.i8,
    np.dtype(np.int16): tack.i16,
    np.dtype(np.int32): tack.i32,
    np.dtype(np.int64): tack.i64,
    np.dtype(np.uint8): tack.u8,
    np.dtype(np.uint16): tack.u16,
    np.dtype(np.uint32): tack.u32,
    np.dtype(np.uint64): tack.u64,
    np.dtype(np.float32): tack.f32,
    np.dtype(np.float64): tack.f64,
}


def tdt(dtype):
    """The tack dtype of a NumPy dtype."""
    return _TACK[np.dtype(dtype)]


def name(dtype):
    """'i8', 'u64', 'f32': for test ids."""
    return str(tdt(dtype)).replace("tack.", "")


def rng(seed=1234):
    return np.random.default_rng(seed)


def random_ints(r, dtype, size, lo=None, hi=None):
    """Uniform integers of `dtype` in [lo, hi] (the whole range by default)."""
    info = np.iinfo(dtype)
    lo = info.min if lo is None else lo
    hi = info.max if hi is None else hi
    return r.integers(lo, hi, size=size, dtype=dtype, endpoint=True)


def random_floats(r, dtype, size, scale=100.0):
    return (r.standard_normal(size) * scale).astype(dtype)


def random_array(r, dtype, size):
    if np.issubdtype(dtype, np.integer):
        return random_ints(r, dtype, size)
    return random_floats(r, dtype, size)


def interesting_ints(dtype):
    """The values where wrap-around and signedness show: extremes, zero, +-1, powers of two."""
    info = np.iinfo(dtype)
    vals = {info.min, info.min + 1, info.max, info.max - 1, 0, 1, 2, 3, 7}
    if info.min < 0:
        vals |= {-1, -2, -3, -7}
    for b in range(info.bits):
        for v in (1 << b, (1 << b) - 1):
            if info.min <= v <= info.max:
                vals.add(v)
            if info.min <= -v <= info.max:
                vals.add(-v)
    return np.array(sorted(vals), dtype=dtype)


def special_floats(dtype):
    """Zeros of both signs, infinities, NaN, the smallest normal and denormal, the extremes."""
    info = np.finfo(dtype)
    vals = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, np.inf, -np.inf, np.nan, info.tiny, -info.tiny,
            info.smallest_subnormal, -info.smallest_subnormal, info.max, -info.max, info.eps,
            1.0 / 3.0, 1e-30, -7.25]
    return np.array(vals, dtype=dtype)


def wrap_int(v, dtype):
    """Python int v wrapped to dtype's width, two's complement (as Tack's integers wrap)."""
    info = np.iinfo(dtype)
    bits = info.bits
    v &= (1 << bits) - 1
    if info.min < 0 and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def wrap_list(values, dtype):
    return np.array([wrap_int(int(v), dtype) for v in values], dtype=dtype)


def saturating_cast(x, dtype):
    """A float converted to an integer type as the IR contract says: truncate toward zero,
    saturate at the type's range, NaN -> 0."""
    info = np.iinfo(dtype)
    if math.isnan(x):
        return 0
    if math.isinf(x):
        return info.max if x > 0 else info.min
    t = math.trunc(x)
    return max(info.min, min(info.max, t))


def arr(np_array, dtype=None):
    """A tack array holding a copy of np_array (in np_array's dtype unless one is given)."""
    return tack.array(np.ascontiguousarray(np_array), dtype=None if dtype is None else tdt(dtype))


def zeros(shape, dtype):
    return tack.zeros(shape, dtype=tdt(dtype))


def full(shape, value, dtype):
    return tack.full(shape, value, dtype=tdt(dtype))


def marker_line(path, marker):
    """The 1-based line of `path` that holds the comment `# ERR:<marker>` (exactly one)."""
    tag = f"# ERR:{marker}"
    hits = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, start=1):
            if line.rstrip().endswith(tag):
                hits.append(n)
    assert len(hits) == 1, f"marker {tag!r} found {len(hits)} times in {path}"
    return hits[0]


def has_noalias(kernel, *args):
    """Whether the CPU code these arguments would run promises noalias on its arrays."""
    return "noalias" in tack.inspect(kernel, *args, mode="source")


def byte_range(np_view):
    """[start, end) of a NumPy view's bytes: the reference for Tack's disjointness test."""
    start = np_view.__array_interface__["data"][0]
    return start, start + np_view.nbytes


def overlaps(x, y):
    (a0, a1), (b0, b1) = byte_range(x), byte_range(y)
    if a0 == a1 or b0 == b1:
        return False
    return a0 < b1 and b0 < a1


def fresh_import(monkeypatch, path, name, *others):
    """Module `name` imported anew from folder `path` (and `others`, the modules it imports from
    there, dropped first too): a test runs once per device, and each run writes its modules to a
    folder of its own, which a module cached by an earlier run would hide."""
    monkeypatch.syspath_prepend(str(path))
    for m in (name,) + others:
        monkeypatch.delitem(sys.modules, m, raising=False)
    return importlib.import_module(name)
