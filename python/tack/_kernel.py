"""@tack.kernel and @tack.func: kernels written in Python syntax, compiled by Tack's C++ core.

The decorators hand the functions' source text to the C++ parser; nothing of the kernel runs in
Python. A kernel's device functions are the @tack.func objects its source (and theirs) names,
found by name in the defining module's globals."""
import functools as _functools
import inspect as _inspect
import itertools as _itertools
import linecache as _linecache
import operator as _operator
import re as _re
import textwrap as _textwrap
import types as _types

from tack import _tack


def _logical_starts(lines):
    """For each line in turn, whether a logical line starts there: outside brackets, strings
    and backslash continuations. A scan of quotes, brackets and comments, as Python's
    tokenizer does, whose first use costs about 10 ms of regex compiling in every process.
    A generator: a caller that stops early has scanned only the lines it read."""
    depth = 0
    quote = None  # the open string's delimiter: ', ", ''' or """
    continued = False
    for line in lines:
        yield depth == 0 and quote is None and not continued
        continued = False
        k, n = 0, len(line)
        while k < n:
            c = line[k]
            if quote is not None:
                if c == "\\":
                    k += 2
                elif line.startswith(quote, k):
                    k += len(quote)
                    quote = None
                else:
                    k += 1
                continue
            if c == "#":
                break
            if c in "'\"":
                quote = line[k:k + 3] if line[k:k + 3] in ("'''", '"""') else c
                k += len(quote)
                continue
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth = max(depth - 1, 0)
            elif c == "\\" and line[k + 1:].strip() == "":
                continued = True
            k += 1
        if quote is not None and len(quote) == 1:
            quote = None  # an unterminated one-line string: the parser will say so


def _block(lines, start):
    """lines[start:] cut after the function defined there (decorators first): through the last
    line of its body; None when no def statement starts there. Reads the file's lines only as
    far as the function goes."""
    rest = _itertools.islice(lines, start, None)
    starts = _logical_starts(rest)
    k = start  # the line being looked at
    n = len(lines)
    indent = len(lines[start]) - len(lines[start].lstrip())
    # Decorators, each possibly over several lines, then the def statement.
    begins = next(starts, False)
    while k < n and lines[k].strip().startswith("@"):
        k += 1
        begins = next(starts, False)
        while k < n and not begins:
            k += 1
            begins = next(starts, False)
    if k >= n or not lines[k].lstrip().startswith(("def ", "async def ")):
        return None
    last = k
    body = None  # the body's indentation, from its first statement
    for end in range(k + 1, n):
        begins = next(starts)
        text = lines[end]
        stripped = text.strip()
        depth = len(text) - len(text.lstrip())
        if begins and not stripped:
            continue
        if begins and stripped.startswith("#"):
            if body is not None and depth >= body:
                last = end  # a comment as deep as the body is part of it (as inspect's)
            continue
        if begins and depth <= indent:
            break
        if begins and body is None:
            body = depth
        last = end
    return lines[start:last + 1]


def _source_of(fn):
    """The function's dedented source, its first line and its file."""
    fn = _inspect.unwrap(fn)  # as inspect.getsourcelines: a wrapper's source is its original's
    code = getattr(fn, "__code__", None)
    if code is not None:
        file = code.co_filename
        lines = _linecache.getlines(file, getattr(fn, "__globals__", None))
        first = code.co_firstlineno
        block = _block(lines, first - 1) if 0 < first <= len(lines) else None
        if block is not None:
            return _textwrap.dedent("".join(block)), first, file
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


class Constant:
    """tack.constant(value[, dtype]): a compile-time constant for a module global or closure
    variable a kernel reads. A number of a fixed dtype (a plain int or float is weakly typed,
    like a literal), or a vector (a sequence of 1 to 4 numbers) or matrix (1 to 4 rows of one
    length) whose components have the dtype, or are weakly typed without one."""

    __slots__ = ("value", "dtype")

    def __init__(self, value, dtype=None):
        if isinstance(value, Constant):
            dtype = value.dtype if dtype is None else dtype
            value = value.value
        if dtype is None and _is_sequence(value) and hasattr(value, "dtype"):
            dtype = value.dtype  # a NumPy array keeps its dtype
        self.dtype = None if dtype is None else _dtype_name(dtype)
        if self.dtype is not None and self.dtype not in _CONSTANT_DTYPES:
            raise TypeError(f"tack.constant needs a scalar dtype (tack.f32, tack.i64, 'float32', "
                            f"np.uint8, bool, ...), got {dtype!r}")
        if _is_sequence(value):
            self.value = _constant_rows(value, self.dtype)
            return
        self.value = _constant_number(value, self.dtype)

    def __repr__(self):
        if self.dtype is None:
            return f"tack.constant({self.value!r})"
        return f"tack.constant({self.value!r}, {self.dtype})"

    def __eq__(self, other):
        return (isinstance(other, Constant) and _same_values(self.value, other.value)
                and self.dtype == other.dtype)

    def __hash__(self):
        return hash((self.value, self.dtype))


def _is_sequence(value):
    return isinstance(value, (tuple, list)) or (type(value).__module__ == "numpy"
                                                and getattr(value, "ndim", 0) > 0)


def _constant_number(value, dtype):
    if not isinstance(value, (bool, int, float)) and not _is_numpy_scalar(value):
        raise TypeError(f"tack.constant takes a number, or a sequence of 1 to 4 numbers (a "
                        f"vector) or of rows (a matrix), got {type(value).__name__}; pass other "
                        "data as a kernel argument")
    value = value.item() if _is_numpy_scalar(value) else value
    if isinstance(value, float) and dtype not in (None, "f32", "f64", "float32", "float64",
                                                  "bool"):
        raise ValueError(f"tack.constant({value!r}, {dtype}): a float constant needs a float "
                         "dtype; convert the value first (int(v))")
    return value


def _constant_rows(value, dtype):
    # A vector: a tuple of numbers; a matrix: a tuple of rows of one length (1 to 4 each).
    items = list(value)
    if not 1 <= len(items) <= 4:
        raise ValueError(f"tack.constant of a sequence makes a vector or matrix of 1 to 4 "
                         f"components or rows; this has {len(items)}: pass an array argument")
    if all(_is_sequence(r) for r in items):
        rows = [tuple(_constant_number(x, dtype) for x in r) for r in items]
        if len({len(r) for r in rows}) != 1 or not 1 <= len(rows[0]) <= 4:
            raise ValueError("tack.constant of rows makes a matrix: rows of one length, 1 to 4 "
                             f"each; got lengths {[len(r) for r in rows]}")
        return tuple(rows)
    if any(_is_sequence(r) for r in items):
        raise ValueError("tack.constant takes numbers (a vector) or rows (a matrix), not both")
    return tuple(_constant_number(x, dtype) for x in items)


def _same_values(a, b):
    # Equal values of equal Python types (1 and 1.0 and True compile differently).
    if isinstance(a, tuple) or isinstance(b, tuple):
        return (isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b)
                and all(_same_values(x, y) for x, y in zip(a, b)))
    return type(a) is type(b) and a == b


def constant(value, dtype=None):
    """A compile-time constant: a number of a dtype, or a vector or matrix (see Constant)."""
    return Constant(value, dtype)


def _is_numpy_scalar(v):
    return type(v).__module__ == "numpy" and hasattr(v, "dtype") and getattr(v, "ndim", 1) == 0


def _dtype_name(dtype):
    if dtype is bool or dtype == "bool":
        return "bool"
    if isinstance(dtype, _tack.DType):
        return dtype.name
    name = getattr(dtype, "__name__", None) or getattr(dtype, "name", None) or str(dtype)
    return {"bool_": "bool"}.get(name, name)


# What a kernel can read from its module or closure (docs/language.md, "Constants").
_INT64_MIN, _UINT64_MAX = -(1 << 63), (1 << 64) - 1
_TEN_DTYPES = frozenset(("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                         "uint64", "float32", "float64"))
_CONSTANT_DTYPES = _TEN_DTYPES | {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32",
                                  "f64", "bool"}


def _encode(value):
    """A module global or closure value as _tack._kernel_from_pieces takes it, or None for a
    name that is not a value a kernel reads (a module, a device function, a Python function)."""
    if isinstance(value, (Func, Kernel, _types.ModuleType, type)) or callable(value):
        return None
    if isinstance(value, bool):
        return ("number", value)
    if isinstance(value, int):
        if _INT64_MIN <= value <= _UINT64_MAX:
            return ("number", value)
        return ("unsupported", f"an int of more than 64 bits ({value})")
    if isinstance(value, float):
        return ("number", value)
    if isinstance(value, Constant):
        if isinstance(value.value, tuple):
            return ("tuple", [_encode(Constant(v, value.dtype)) for v in value.value])
        if value.dtype is None:
            return ("number", value.value)
        return ("typed", value.value, value.dtype)
    if _is_numpy_scalar(value):
        name = value.dtype.name
        if name == "bool":
            return ("number", bool(value))
        if name not in _TEN_DTYPES:
            return ("unsupported", f"a numpy.{name} scalar")
        return ("typed", value.item(), name)
    if isinstance(value, tuple):
        parts = [_encode(v) for v in value]
        if value and all(p is not None and p[0] != "unsupported" for p in parts):
            return ("tuple", parts)
    kind = type(value)
    return ("unsupported", f"a {kind.__module__}.{kind.__qualname__}"
            if kind.__module__ != "builtins" else f"a {kind.__qualname__}")


class _Watch:
    """The module globals and closure variables a kernel's functions read, re-read at each
    call: a changed value makes a new compiled kernel (the values are part of its identity)."""

    __slots__ = ("entries", "values", "types", "_get", "_single")

    def __init__(self, entries):
        self.entries = entries  # (function name, name, namespace dict or cell)
        self._get = None
        self._single = False
        if all(w is entries[0][2] for _, _, w in entries) and isinstance(entries[0][2], dict):
            # The common case, one module's globals: one C-level lookup of every name.
            names = [n for _, n, _ in entries]
            self._get = _functools.partial(_operator.itemgetter(*names), entries[0][2])
            self._single = len(names) == 1
        self.values = self.read()
        self.types = tuple(map(type, self.values))

    def read(self):
        if self._get is not None:
            try:
                values = self._get()
                return (values,) if self._single else values
            except KeyError:  # a global was deleted
                pass
        out = []
        for _, name, where in self.entries:
            if isinstance(where, dict):
                out.append(where.get(name, _MISSING))
            else:
                try:
                    out.append(where.cell_contents)
                except ValueError:
                    out.append(_MISSING)
        return tuple(out)

    def changed(self):
        if self._single:  # one global: the same object as last time is the usual case
            try:
                if self._get() is self.values[0]:
                    return False
            except KeyError:
                pass
        values = self.read()
        # Equal values of other types (1, 1.0, True) compile differently: compare the types too.
        types = tuple(map(type, values))
        same = values == self.values and types == self.types
        self.values, self.types = values, types
        return not same

    def constants(self):
        out = []
        for (fn, name, _), value in zip(self.entries, self.values):
            if value is _MISSING:
                continue
            encoded = _encode(value)
            if encoded is not None:
                out.append((fn, name, encoded))
        return out


_MISSING = object()


def _watched_names(fn, name):
    """(function name, name, where) for each module global or closure variable `fn`'s code
    reads that holds a value (a closure cell: or nothing yet), not a module or a function."""
    code = fn.__code__
    cells = dict(zip(code.co_freevars, fn.__closure__ or ()))
    out = []
    for n in dict.fromkeys(code.co_names + code.co_freevars):
        if n in cells:
            where = cells[n]
            try:
                value = where.cell_contents
            except ValueError:  # not filled yet: watched, it may be by the first call
                value = _MISSING
        elif n in fn.__globals__:  # co_names also holds attribute names (a.shape): skip those
            where = fn.__globals__
            value = where[n]
        else:
            continue
        # Modules, device functions and other callables are names, not values: not watched.
        if value is _MISSING or _encode(value) is not None:
            out.append((name, n, where))
    return out


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
    """Marks a device function, callable from kernels by its name, by any name bound to it
    (`clamp = tack.func(my_clamp)`) or through a module (`mylib.clamp(x)`)."""
    if isinstance(fn, Func):
        return fn
    return Func(fn)


def _resolve(namespace, dotted):
    """The object `dotted` ("f", "mylib.f", "pkg.mod.f") names in `namespace`, or None."""
    parts = [p.strip() for p in dotted.split(".")]
    obj = namespace.get(parts[0])
    for attr in parts[1:]:
        if obj is None:
            return None
        obj = getattr(obj, attr, None)
    return obj


def _device_functions(caller, source, namespace, names, aliases):
    """The @tack.func objects `source` (the function `caller`) reaches by name, alias or module
    attribute, and theirs, transitively, each once. `names` maps each function reached (by
    identity) to the name it has in the kernel, unique: its own, or, when another function of
    that name is already in the kernel (two modules' `helper`), its name with a suffix.
    `aliases` gains (caller, name as called, name in the kernel) for each call whose text is
    not that name, so that every call reaches the object its name refers to in the caller."""
    found = []
    # The calls as the front end parses them (one definition of what a call is); a dotted call
    # also names its leading names (`tm` of `tm.fract(x)`: a module alias of the language's).
    dotted = _tack._called_names(source)
    called = list(dict.fromkeys(d.split(".")[0] for d in dotted))
    called += [d for d in dotted if "." in d]
    for name in called:
        obj = _resolve(namespace, name)
        if not isinstance(obj, Func):
            builtin = _builtin_name(name, obj)
            if builtin is not None and builtin != name:
                aliases.append((caller, name, builtin))
            continue
        new = id(obj) not in names.by_id
        unique = names.name_of(obj)
        if name != unique:
            aliases.append((caller, name, unique))
        if new:
            found.append(obj)
            found.extend(_device_functions(unique, obj.source, obj.globals, names, aliases))
    return found


# The modules whose names the kernel language knows (`tack.math.fract`, `math.sqrt`).
_KERNEL_MODULES = frozenset(("tack", "tack.math", "tack.random", "math"))


def _builtin_name(name, obj):
    """The kernel language's name for what the bare `name` refers to, when it is one of its
    modules under another name (`import tack.math as tm`: "tack.math") or a function imported
    from one (`from tack.math import fract`: "tack.math.fract"); else None."""
    if "." in name:
        return None
    if isinstance(obj, _types.ModuleType):
        return obj.__name__ if obj.__name__ in _KERNEL_MODULES else None
    builtin = getattr(obj, "__tack_builtin__", None)
    if isinstance(builtin, str):
        return builtin
    if callable(obj) and getattr(obj, "__module__", None) == "math":
        return "math." + obj.__name__
    return None


class _KernelNames:
    """The names of a kernel's functions: the kernel's, its methods', and one per device
    function object reached (docs/language.md, "Device functions")."""

    def __init__(self, taken):
        self.taken = set(taken)
        self.by_id = {}  # id(Func) -> (Func, name in the kernel); the Func keeps the id alive

    def name_of(self, func):
        entry = self.by_id.get(id(func))
        if entry is not None:
            return entry[1]
        name, n = func.__name__, 1
        while name in self.taken:
            n += 1
            name = f"{func.__name__}__{n}"
        self.taken.add(name)
        self.by_id[id(func)] = (func, name)
        return name

    def piece(self, func):
        """func's source with its def named as in the kernel."""
        name = self.by_id[id(func)][1]
        if name == func.__name__:
            return func.source
        pattern = r"(\bdef\s+)" + _re.escape(func.__name__) + r"\b"
        return _re.sub(pattern, lambda m: m.group(1) + name, func.source, count=1)


class Kernel(_tack._KernelCall):
    """A kernel: call it with arrays and numbers; each new argument signature compiles once.

    The device functions it calls are looked up when it is first called, not when it is
    decorated, as Python resolves names: a @tack.func defined below the kernel, or in an
    enclosing function, is found. A call is the C++ base's __call__: it keeps the built kernel
    and calls _compile() only for the first call and when a constant the kernel reads changed."""

    def __init__(self, fn, debug=False):
        super().__init__()
        self._fn = fn
        self._debug = bool(debug)  # @tack.kernel(debug=True): this kernel's debug mode
        self._k = None
        self._watch = None  # the globals and closure variables read, once built
        self._by_values = {}  # compiled kernels by the values they were built with
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn
        # A kernel without readable source fails here, at decoration; the text is kept, so a
        # file edited after it is defined does not change the kernel (as Python's own code).
        self._source = _source_of(fn)

    def _positional(self, args, kwargs):
        # Keyword arguments bound by parameter name, as Python binds them (its TypeError for an
        # unknown name, a name given twice or a missing argument, with the kernel's name).
        try:
            bound = _inspect.signature(self._fn).bind(*args, **kwargs)
        except TypeError as e:
            params = ", ".join(_inspect.signature(self._fn).parameters)
            raise TypeError(f"kernel '{self.__name__}': {e}; its parameters are ({params})") \
                from None
        bound.apply_defaults()
        return bound.args

    def _build(self):
        source, first_line, file = self._source
        return self._build_from(source, first_line, file, [])

    def _build_from(self, source, first_line, file, methods):
        """Builds from the kernel's source and `methods`: (source, first_line, file, name, fn)
        of device functions made for it (a template's methods, tack._templates)."""
        fn = self._fn
        aliases = []
        names = _KernelNames([fn.__name__] + [m[3] for m in methods])
        funcs = _device_functions(fn.__name__, source, _namespace(fn), names, aliases)
        for m in methods:
            funcs += _device_functions(m[3], m[0], _namespace(m[4]), names, aliases)
        self._aliases = aliases
        entries = _watched_names(fn, fn.__name__)
        for m in methods:
            entries += _watched_names(m[4], m[3])
        for f in funcs:
            entries += _watched_names(f.__wrapped__, names.name_of(f))
        watch = _Watch(entries) if entries else None
        # A Func's piece is a device function even without its decorator (tack.func(g)).
        self._pieces = ([(source, first_line, file, False)] +
                        [(m[0], m[1], m[2], True) for m in methods] +
                        [(names.piece(f), f.first_line, f.file, True) for f in funcs])
        self._watch = watch
        self._watching = watch is not None
        self._k = self._compiled_for_values()
        return self._k

    def _compiled_for_values(self):
        # C++ lays the pieces out and moves a CompileError to its piece's file and line.
        watch = self._watch
        if watch is None:
            k = _tack._kernel_from_pieces(self._pieces, self.__name__, [], self._aliases)
            k.debug = self._debug
            return k
        key = (watch.values, watch.types)
        try:
            k = self._by_values.get(key)
        except TypeError:  # an unhashable value (a list): it is refused when used
            k = None
        if k is None:
            k = _tack._kernel_from_pieces(self._pieces, self.__name__, watch.constants(),
                                          self._aliases)
            k.debug = self._debug
            try:
                self._by_values[key] = k
            except TypeError:
                pass
        return k

    def _compile(self):
        """The C++ kernel for the next call (the base's __call__ asks): built at the first call,
        else the compilation for the constants' new values (the watch has just read them)."""
        if self._k is None:
            return self._build()
        if self._watch is not None:  # else the kernel `compiled` already built is the one
            self._k = self._compiled_for_values()
        return self._k

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


def kernel(fn=None, *, debug=False):
    """Compiles `fn` as a Tack kernel, just in time for each new argument signature. A kernel
    with template parameters (objects of @tack.data_oriented classes) is a
    tack._templates.TemplateKernel.

    Options, as ``@tack.kernel(debug=True)``: ``debug`` turns on debug mode for this kernel alone
    (every index checked against its array's shape, asserts checked; tack.set_debug(True) or
    TACK_DEBUG=1 turn it on for every kernel)."""
    from tack import _templates

    if fn is None:  # @tack.kernel(...): the options first, then the function
        return lambda f: kernel(f, debug=debug)
    if not callable(fn):
        raise TypeError(f"tack.kernel decorates a function, got {type(fn).__name__}; "
                        "write @tack.kernel or @tack.kernel(debug=True) above a def")
    params = _templates.template_params(fn)
    if params:
        return _templates.TemplateKernel(fn, params, debug=debug)
    return Kernel(fn, debug=debug)


def kernel_from_source(source, name="", first_line=1):
    """A kernel from source text (a tack.CompiledKernel); `name` picks the kernel among its
    functions."""
    return _tack._kernel_from_source(source, name, first_line)


def inspect(k, *args, mode="ir", device=None, arch=_tack.default_cuda_arch):
    """The code of the variant these arguments would run: the Tack IR ("ir"); the backend's
    source ("source": LLVM IR on the CPU, OpenCL C on OpenCL, CUDA C++ on CUDA); or the
    optimized code ("optimized": LLVM IR after O3 on the CPU; the OpenCL C with a note on
    OpenCL; PTX on CUDA). device="cuda" compiles the variant for CUDA on any machine with NVRTC,
    GPU or not: mode "source" (CUDA C++) or "ptx" (PTX for compute capability `arch`)."""
    from tack import _templates

    if isinstance(k, _templates.TemplateKernel):
        k, args = k._derived_for(args)
    if isinstance(k, Kernel):
        k = k.compiled
    return _tack.inspect(k, *args, mode=mode, device=device or "", arch=arch)


def _only_in_kernels(name, doc):
    def f(*args, **kwargs):
        raise TypeError(f"tack.{name} is part of the kernel language; use it inside a "
                        "@tack.kernel or @tack.func")
    f.__name__ = name
    f.__tack_builtin__ = "tack." + name  # its name in kernels, whatever it is imported as
    f.__doc__ = doc + "\n\nPart of the kernel language (docs/language.md): only inside a " \
        "@tack.kernel or @tack.func; called elsewhere it raises TypeError."
    return f


ndrange = _only_in_kernels(
    "ndrange", "for i, j in tack.ndrange(n, m): the parallel loop over a 2-D (or 3-D) range.")
