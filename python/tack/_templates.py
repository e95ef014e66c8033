"""@tack.data_oriented classes and template parameters (docs/language.md, "Data-oriented
classes"; docs/design/templates.md).

A kernel parameter that receives an object of a @tack.data_oriented class (annotated
`tack.template()`, named `self` in a method, or used as `p.attr` in the kernel) is a template
parameter. Each call flattens the object: its instance attributes that are Tack arrays become
array arguments and those that are numbers scalar arguments (runtime values: a changed value does
not recompile), its class's plain constants (numbers, bools, tuples of them) are compile-time
constants, and its @tack.func methods are device functions with `self` bound to the object. The
kernel's source is rewritten token by token (lines kept) into a kernel over the flattened
arguments, one per class and attribute layout, compiled by the normal machinery."""
import inspect as _inspect
import io as _io
import numbers as _numbers
import re as _re
import tokenize as _tokenize

import numpy as _np

from tack import _tack
from tack._kernel import Func, Kernel, _encode, _source_of


class _Template:
    def __repr__(self):
        return "tack.template()"


def template():
    """Annotates a kernel parameter that receives a @tack.data_oriented object."""
    return _Template()


def data_oriented(cls):
    """Marks a class whose objects kernels take as template arguments: instance arrays and
    numbers are passed as arguments, class constants compiled in, @tack.func methods inlined.
    Its @tack.kernel methods take the object as `self`."""
    cls.__tack_data_oriented__ = True
    return cls


def _tokens(source):
    return list(_tokenize.generate_tokens(_io.StringIO(source).readline))


def _attribute_uses(tokens, name):
    """The attributes read as `name.attr` in the tokens."""
    out = []
    for k in range(len(tokens) - 2):
        a, dot, b = tokens[k], tokens[k + 1], tokens[k + 2]
        if (a.type == _tokenize.NAME and a.string == name and dot.string == "." and
                b.type == _tokenize.NAME and (k == 0 or tokens[k - 1].string != ".")):
            out.append(b.string)
    return out


def template_params(fn):
    """The names of fn's template parameters (see the module's docstring)."""
    params = list(_inspect.signature(fn).parameters.values())
    try:
        source = _source_of(fn)[0]
    except TypeError:
        return []
    # Tokenized only when some parameter may be used as `p.attr` (most kernels use none but
    # `a.shape`, and the tokenizer's first use costs milliseconds).
    dotted = [p.name for p in params
              if _re.search(r"\b" + _re.escape(p.name) + r"\s*\.\s*(?!shape\b)[A-Za-z_]", source)]
    tokens = []
    if dotted:
        try:
            tokens = _tokens(source)
        except (_tokenize.TokenError, IndentationError, SyntaxError):
            return []
    out = []
    for k, p in enumerate(params):
        if (isinstance(p.annotation, _Template) or
                (k == 0 and p.name == "self" and "." in fn.__qualname__) or
                (p.name in dotted and any(a != "shape" for a in _attribute_uses(tokens, p.name)))):
            out.append(p.name)
    return out


def _literal(encoded):
    """Kernel source for a constant as _encode gives it ("number", "typed", "tuple")."""
    kind = encoded[0]
    if kind == "tuple":
        parts = [_literal(p) for p in encoded[1]]
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
    value = encoded[1]
    if isinstance(value, bool):
        text = "True" if value else "False"
    elif isinstance(value, float) and value != value:
        text = "math.nan"
    elif isinstance(value, float) and value in (float("inf"), float("-inf")):
        text = "math.inf" if value > 0 else "(-math.inf)"
    else:
        text = repr(value)
    if kind == "typed":
        return f"tack.{encoded[2]}({text})"
    return "(" + text + ")"


_layout_tags = {}  # layout key -> a number unique to it, naming its methods' device functions


def _is_value(v):
    return isinstance(v, (bool, _numbers.Number, _np.generic)) and not isinstance(v, complex)


class _Layout:
    """What an object of a data-oriented class looks like to a kernel."""

    def __init__(self, obj, what):
        cls = type(obj)
        if not getattr(cls, "__tack_data_oriented__", False):
            raise TypeError(f"{what} is a template parameter and takes an object of a "
                            f"@tack.data_oriented class; got {type(obj).__name__}")
        self.cls = cls
        self.fields = []  # instance arrays and numbers, in attribute order: (name, is_array)
        for name, value in vars(obj).items():
            if isinstance(value, _tack.Array):
                self.fields.append((name, True))
            elif _is_value(value):
                self.fields.append((name, False))
        self.constants = {}  # class constants: name -> kernel source of the value
        self.methods = {}  # @tack.func methods: name -> Func
        for klass in reversed(cls.__mro__):
            for name, value in vars(klass).items():
                if isinstance(value, Func):
                    self.methods[name] = value
                    continue
                encoded = None if name.startswith("__") else _encode(value)
                if encoded is not None and encoded[0] != "unsupported":
                    self.constants[name] = _literal(encoded)
        for name, _ in self.fields:
            self.constants.pop(name, None)
        # Methods are made per layout (fields differ in order or kind between objects).
        self.tag = _layout_tags.setdefault(self.key(), len(_layout_tags))

    def key(self):
        return (self.cls, tuple(self.fields), tuple(sorted(self.constants.items())))

    def method_name(self, method):
        return f"{self.cls.__name__}_{self.tag}__{method}"

    def field_names(self, prefix):
        return [f"{prefix}__{name}" for name, _ in self.fields]


def _rewrite(source, layouts, params, new_name=None):
    """The source with each template parameter's uses flattened: `p.field` -> `p__field`,
    `p.CONSTANT` -> its literal, `p.method(args)` -> `Class__method(p__fields..., args)`; the
    def's parameter list flattened (its lines kept), its name `new_name` if given."""
    tokens = _tokens(source)
    lines = source.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(pos):
        return starts[pos[0] - 1] + pos[1]

    edits = []  # (start, end, text)
    # The def: its name and parameter list.
    k = next(i for i, t in enumerate(tokens) if t.string == "def")
    name_tok, open_tok = tokens[k + 1], tokens[k + 2]
    if new_name:
        edits.append((offset(name_tok.start), offset(name_tok.end), new_name))
    depth, close = 0, None
    for i in range(k + 2, len(tokens)):
        if tokens[i].string == "(":
            depth += 1
        elif tokens[i].string == ")":
            depth -= 1
            if depth == 0:
                close = tokens[i]
                break
    flat = []
    for p in params:
        flat += layouts[p].field_names(p) if p in layouts else [p]
    region = source[offset(open_tok.end):offset(close.start)]
    edits.append((offset(open_tok.end), offset(close.start),
                  ", ".join(flat) + "\n" * region.count("\n")))
    body_from = close
    # The uses.
    for i in range(len(tokens) - 2):
        a, dot, b = tokens[i], tokens[i + 1], tokens[i + 2]
        if (a.start < body_from.end or a.type != _tokenize.NAME or a.string not in layouts or
                dot.string != "." or b.type != _tokenize.NAME or
                (i > 0 and tokens[i - 1].string == ".")):
            continue
        layout = layouts[a.string]
        start, end = offset(a.start), offset(b.end)
        if any(b.string == f for f, _ in layout.fields):
            edits.append((start, end, f"{a.string}__{b.string}"))
        elif b.string in layout.constants:
            edits.append((start, end, layout.constants[b.string]))
        elif b.string in layout.methods and i + 3 < len(tokens) and tokens[i + 3].string == "(":
            args = layout.field_names(a.string)
            empty = i + 4 < len(tokens) and tokens[i + 4].string == ")"
            call = layout.method_name(b.string) + "(" + ", ".join(args)
            if args and not empty:
                call += ", "
            edits.append((start, offset(tokens[i + 3].end), call))
        else:
            raise AttributeError(
                f"'{layout.cls.__name__}' has no attribute '{b.string}' a kernel can use "
                f"(line {a.start[0]}): kernels see its instance arrays and numbers, its class "
                "constants (numbers, bools, tuples) and its @tack.func methods, called")
    out = source
    for start, end, text in sorted(edits, reverse=True):
        out = out[:start] + text + out[end:]
    return out


_ARGUMENTS = (_tack.Texture3D, _tack.Array, _tack.Strided, _np.ndarray)


class TemplateKernel:
    """A kernel with template parameters: each call flattens the objects and calls the kernel
    made for their classes' layouts (made once per layout)."""

    def __init__(self, fn, params, debug=False):
        self._debug = debug
        self.__wrapped__ = fn
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__
        self._fn = fn
        self._params = list(_inspect.signature(fn).parameters)
        self._templates = [self._params.index(p) for p in params]
        # Parameters that are templates only because the kernel reads p.attr: an array or a
        # texture passed there is an argument of its own (tex.sample(u, v, w)), not an object to
        # flatten.
        signature = list(_inspect.signature(fn).parameters.values())
        self._inferred = {p.name for k, p in enumerate(signature)
                          if p.name in params and not isinstance(p.annotation, _Template) and
                          not (k == 0 and p.name == "self" and "." in fn.__qualname__)}
        self._derived = {}

    def __get__(self, obj, cls=None):
        # A kernel defined in a data-oriented class: obj.step(x) passes obj as self.
        if obj is None:
            return self
        return lambda *args: self(obj, *args)

    def _derived_for(self, args):
        if len(args) != len(self._params):
            raise TypeError(f"kernel '{self.__name__}' takes {len(self._params)} argument(s) "
                            f"({', '.join(self._params)}), got {len(args)}")
        layouts = {}
        for k in self._templates:
            name = self._params[k]
            if name in self._inferred and isinstance(args[k], _ARGUMENTS):
                continue
            layouts[name] = _Layout(args[k], f"'{name}' of kernel '{self.__name__}'")
        key = tuple(layouts[self._params[k]].key() if self._params[k] in layouts else None
                    for k in self._templates)
        kernel = self._derived.get(key)
        if kernel is None:
            kernel = (_DerivedKernel(self._fn, self._params, layouts, self._debug) if layouts
                      else Kernel(self._fn, debug=self._debug))
            self._derived[key] = kernel
        flat = []
        for k, a in enumerate(args):
            name = self._params[k]
            if name in layouts:
                flat += [getattr(a, f) for f, _ in layouts[name].fields]
            else:
                flat.append(a)
        return kernel, flat

    def __call__(self, *args):
        kernel, flat = self._derived_for(args)
        return kernel(*flat)

    @property
    def name(self):
        return self.__name__

    def __repr__(self):
        return f"tack.kernel({self.__name__}, templates: " + ", ".join(
            self._params[k] for k in self._templates) + ")"


class _DerivedKernel(Kernel):
    """The kernel for one layout of a TemplateKernel's objects: the rewritten source, and each
    method the objects' classes have as a device function over `self`'s fields."""

    def __init__(self, fn, params, layouts, debug=False):
        super().__init__(fn, debug=debug)
        self._params_in = params
        self._layouts = layouts

    def _build(self):
        fn = self._fn
        source, first_line, file = _source_of(fn)
        source = _rewrite(source, self._layouts, self._params_in)
        methods, done = [], set()
        for layout in self._layouts.values():
            for name, method in layout.methods.items():
                new_name = layout.method_name(name)
                if new_name in done:
                    continue
                done.add(new_name)
                m_params = list(_inspect.signature(method.__wrapped__).parameters)
                text = _rewrite(method.source, {m_params[0]: layout}, m_params, new_name)
                methods.append((text, method.first_line, method.file, new_name,
                                method.__wrapped__))
        return self._build_from(source, first_line, file, methods)
