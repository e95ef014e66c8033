"""Tack: portable compute kernels over arrays.

The package re-exports the C++ core's binding (``tack._tack``); every rule -- checks, errors,
conversions -- lives in C++, so Python and C++ callers see the same behaviour. See
docs/python-api.md for the array API.
"""

# First: the background worker computes what the first kernel call needs (the host's target id,
# the cache sizes) while the rest of the package imports. Should the import fail after this,
# the process still waits for the worker before it exits (below, _on_exit does it otherwise).
import atexit as _atexit
from tack._tack import _prefetch_cache_key, finish_compiles as _finish_compiles

_prefetch_cache_key()
_atexit.register(_finish_compiles)
del _prefetch_cache_key, _finish_compiles

from tack._tack import (
    Array,
    CompiledKernel,
    CompileError,
    Device,
    DType,
    ExportedMemory,
    SoaArray,
    Texture3D,
    texture3d,
    array,
    array_from_ptr,
    copyto,
    default_device,
    device,
    devices,
    empty,
    empty_like,
    empty_soa,
    f32,
    f64,
    from_dlpack,
    full,
    i8,
    i16,
    i32,
    i64,
    memory_space,
    ones,
    set_default_device,
    soa,
    sync,
    u8,
    u16,
    u32,
    u64,
    mat,
    vec,
    zeros,
    zeros_like,
)
# tack.algorithms (docs/algorithms.md), NumPy's names: tack.sum(a, axis=0). In kernels tack.dot,
# tack.min ... are the kernel language's functions of numbers and vectors.
from tack._tack import (  # noqa: A004
    absmax,
    all,
    any,
    arange,
    argsort,
    compress,
    concat,
    full_like,
    gather,
    histogram,
    linspace,
    ones_like,
    argmax,
    argmin,
    count_nonzero,
    cumsum,
    dot,
    exclusive_scan,
    exclusive_scan_by_key,
    inclusive_scan,
    inclusive_scan_by_key,
    max,
    mean,
    min,
    nonzero,
    norm,
    prod,
    reduce_by_key,
    run_length_encode,
    segmented_sum,
    scatter,
    searchsorted,
    sort,
    sort_by_key,
    std,
    sum,
    unique,
    var,
)

from tack._tack import debug, set_debug, set_specialize_disjoint, specialize_disjoint
from tack._tack import finish_compiles, set_tiered_compile, tiered_compile
from tack._tack import set_streaming_threshold, streaming_threshold
from tack._kernel import (
    Constant,
    Kernel,
    constant,
    func,
    inspect,
    kernel,
    kernel_from_source,
    ndrange,
)
# The kernel language's kernel-only names, generated from its builtin table (tools/gen_builtins.py).
from tack._builtins import (
    Matrix,
    Vector,
    atomic_add,
    atomic_max,
    atomic_min,
    stream_store,
    barrier,
    block_max,
    block_min,
    block_sum,
    cross,
    distance,
    length,
    normalize,
    select,
    shared,
    shared_like,
    thread_id,
)

from tack._templates import data_oriented, template
from tack import math  # tack.math.fract(x) ... in kernels (docs/language.md, "tack.math")
from tack import random  # tack.random.uniform(state) ... in kernels, and its NumPy twin
from tack import arrays  # tack.arrays.Strided: every k-th row without copying
from tack import dataset  # meshes, fields, VTK in and out, filters (docs/design/dataset.md)

from tack._tack import __version__  # the file VERSION, compiled in

from tack import _tack as _tack_module
import builtins as _builtins


def _on_exit():
    # Runs before interpreter finalization: queued launches complete, and daemon threads inside
    # a Tack call never take the GIL back into a finalizing interpreter
    # (docs/design/robustness.md, "Exit").
    import threading

    from tack import _tack

    me = threading.current_thread()
    if _builtins.any(t.daemon and t.is_alive() and t is not me for t in threading.enumerate()):
        _tack._quiet_leak_report()
    _tack._at_exit()


_atexit.register(_on_exit)
set_tiered_compile(True)  # the optimized builds finish in _on_exit, before anything is torn down

__all__ = [
    "finish_compiles",
    "set_tiered_compile",
    "tiered_compile",
    "set_streaming_threshold",
    "streaming_threshold",
    "math",
    "random",
    "CompiledKernel",
    "Constant",
    "constant",
    "Kernel",
    "Matrix",
    "Vector",
    "cross",
    "distance",
    "dot",
    "length",
    "normalize",
    "select",
    "data_oriented",
    "template",
    "barrier",
    "block_max",
    "block_min",
    "block_sum",
    "shared",
    "shared_like",
    "thread_id",
    "atomic_add",
    "atomic_max",
    "atomic_min",
    "stream_store",
    "debug",
    "func",
    "inspect",
    "kernel",
    "kernel_from_source",
    "ndrange",
    "set_debug",
    "set_specialize_disjoint",
    "specialize_disjoint",
    "Array",
    "CompileError",
    "DType",
    "Device",
    "ExportedMemory",
    "SoaArray",
    "Texture3D",
    "texture3d",
    "array",
    "array_from_ptr",
    "copyto",
    "default_device",
    "device",
    "devices",
    "empty",
    "empty_like",
    "empty_soa",
    "f32",
    "f64",
    "from_dlpack",
    "full",
    "i8",
    "i16",
    "i32",
    "i64",
    "memory_space",
    "ones",
    "set_default_device",
    "soa",
    "sync",
    "u8",
    "u16",
    "u32",
    "u64",
    "mat",
    "absmax",
    "all",
    "any",
    "arange",
    "argsort",
    "compress",
    "concat",
    "full_like",
    "gather",
    "histogram",
    "linspace",
    "ones_like",
    "argmax",
    "argmin",
    "count_nonzero",
    "cumsum",
    "exclusive_scan",
    "exclusive_scan_by_key",
    "inclusive_scan",
    "inclusive_scan_by_key",
    "max",
    "mean",
    "min",
    "nonzero",
    "norm",
    "prod",
    "reduce_by_key",
    "run_length_encode",
    "segmented_sum",
    "scatter",
    "searchsorted",
    "sort",
    "sort_by_key",
    "std",
    "sum",
    "unique",
    "var",
    "vec",
    "zeros",
    "zeros_like",
]
