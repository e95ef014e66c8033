"""@tack.kernel and @tack.func: kernels written in Python syntax, compiled by Tack's C++ core.

The decorators hand the functions' source text to the C++ parser; nothing of the kernel runs in
Python. A kernel's device functions are the @tack.func objects its source (and theirs) names,
found by name in the defining module's globals."""
import inspect as _inspect
import re as _re
import textwrap as _textwrap

from tack import _tack

_NAME = _re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _source_of(fn):
    """The function's dedented source, its first line and its file."""
    try:
        lines, first_line = _inspect.getsourcelines(fn)
        file = _inspect.getsourcefile(fn) or "<unknown>"
    except (OSError, TypeError) as e:
        raise TypeError(
            f"tack cannot read the source of {fn!r} ({e}); define kernels in a file, or pass "
            "the source text to tack.kernel_from_source") from None
    return _textwrap.dedent("".join(lines)), first_line, file


def _namespace(fn):
    """The names a function's body can see: its closure's cells over its module's globals."""
    names = dict(fn.__globals__)
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            names[name] = cell.cell_contents
        except ValueError:  # a cell not yet filled
            pass
    return names


class Func:
    """A device function (@tack.func): inlined into the kernels that call it."""

    def __init__(self, fn):
        self.__wrapped__ = fn
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__
        self.source, self.first_line, self.file = _source_of(fn)

    @property
    def globals(self):
        return _namespace(self.__wrapped__)

    def __call__(self, *args, **kwargs):
        raise TypeError(f"@tack.func '{self.__name__}' runs only inside kernels; call it from a "
                        "@tack.kernel")


def func(fn):
    """Marks a device function, callable by name from kernels."""
    return Func(fn)


def _device_functions(source, globals_, seen):
    """The @tack.func objects `source` names, and theirs, transitively."""
    found = []
    for name in dict.fromkeys(_NAME.findall(source)):
        obj = globals_.get(name)
        if isinstance(obj, Func) and obj.__name__ not in seen:
            seen.add(obj.__name__)
            found.append(obj)
            found.extend(_device_functions(obj.source, obj.globals, seen))
    return found


class Kernel:
    """A kernel: call it with arrays and numbers; each new argument signature compiles once.

    The device functions it calls are looked up when it is first called, not when it is
    decorated, as Python resolves names: a @tack.func defined below the kernel, or in an
    enclosing function, is found."""

    __slots__ = ("_fn", "_k", "__name__", "__wrapped__", "__dict__")

    def __init__(self, fn):
        self._fn = fn
        self._k = None
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn
        # A kernel without readable source fails here, at decoration.
        _source_of(fn)

    def _build(self):
        fn = self._fn
        source, first_line, file = _source_of(fn)
        funcs = _device_functions(source, _namespace(fn), {fn.__name__})
        # C++ lays the pieces out and moves a CompileError to its piece's file and line.
        self._k = _tack._kernel_from_pieces(
            [(source, first_line, file)] + [(f.source, f.first_line, f.file) for f in funcs],
            fn.__name__)
        return self._k

    def __call__(self, *args):
        k = self._k
        if k is None:
            k = self._build()
        return k(*args)

    @property
    def compiled(self):
        """The C++ kernel object (tack.CompiledKernel) behind this one."""
        return self._k if self._k is not None else self._build()

    @property
    def variant_count(self):
        return 0 if self._k is None else self._k.variant_count

    @property
    def name(self):
        return self.__name__

    def __repr__(self):
        return f"tack.kernel({self.__name__})"


def kernel(fn):
    """Compiles `fn` as a Tack kernel, just in time for each new argument signature."""
    return Kernel(fn)


def kernel_from_source(source, name="", first_line=1):
    """A kernel from source text (a tack.CompiledKernel); `name` picks the kernel among its
    functions."""
    return _tack._kernel_from_source(source, name, first_line)


def inspect(k, *args, mode="ir"):
    """The code of the variant these arguments would run: the Tack IR ("ir"); the backend's
    source ("source": LLVM IR on the CPU, OpenCL C on OpenCL); or the optimized code
    ("optimized": LLVM IR after O3 on the CPU; the OpenCL C with a note on OpenCL)."""
    if not isinstance(k, Kernel):
        return _tack.inspect(k, *args, mode=mode)
    return _tack.inspect(k.compiled, *args, mode=mode)


def _only_in_kernels(name):
    def f(*args, **kwargs):
        raise TypeError(f"tack.{name} is part of the kernel language; use it inside a "
                        "@tack.kernel or @tack.func")
    f.__name__ = name
    return f


ndrange = _only_in_kernels("ndrange")
atomic_add = _only_in_kernels("atomic_add")
atomic_min = _only_in_kernels("atomic_min")
atomic_max = _only_in_kernels("atomic_max")
