"""A kernel's source text is cut from its file by Tack's own scan (tack/_kernel.py, _block), not
by inspect's tokenizer, whose first use costs milliseconds in every process
(docs/design/cpu_limits.md): the same text as inspect.getsourcelines on awkward layouts."""
import inspect
import textwrap

import tack
from tack._kernel import _source_of

SOURCE = '''
import functools


def deco(*a, **k):
    return lambda f: f


@deco(1,
      2)  # a decorator over two lines
@deco()
def spread(a, b=(1,
                 2)):
    s = """a string
at column 0 ( with a bracket
"""
    t = 'quote \\' and ( bracket'
    u = (a +
  b)  # a continuation less indented than the body
    v = a + \\
        b
    return s, t, u, v
    # a trailing comment as deep as the body


# not part of it
def one_liner(x): return x


@functools.wraps(one_liner)
def wrapper(x):
    return x


class Holder:
    def method(self):
        def inner():
            return 1
        return inner

    x = 1
'''


def test_awkward_layouts_cut_as_inspect_cuts_them(tmp_path):
    path = tmp_path / "awkward.py"
    path.write_text(SOURCE)
    ns = {}
    exec(compile(SOURCE, str(path), "exec"), ns)
    holder = ns["Holder"]()
    assert "at column 0" in _source_of(ns["spread"])[0]
    assert _source_of(ns["wrapper"])[0].startswith("def one_liner")  # unwrapped, as inspect's
    for fn in (ns["spread"], ns["one_liner"], ns["wrapper"], ns["Holder"].method,
               holder.method()):
        lines, first = inspect.getsourcelines(fn)
        assert _source_of(fn) == (textwrap.dedent("".join(lines)), first, str(path)), fn


def test_a_kernel_defined_in_a_test_compiles_from_its_cut_source():
    @tack.kernel
    def add(x, y):  # ( an unbalanced bracket in a comment
        for i in range(len(x)):
            y[i] = x[i] + 1.0
        # a comment after the loop

    a = tack.zeros(4, dtype=tack.f32)
    b = tack.zeros(4, dtype=tack.f32)
    add(a, b)
    assert b.numpy().tolist() == [1.0] * 4


class _Probe(list):
    """File lines that remember the furthest line read (by index or by iteration)."""

    furthest = -1

    def __getitem__(self, k):
        if isinstance(k, slice):
            span = range(len(self))[k]
            if span:
                self.furthest = max(self.furthest, max(span[0], span[-1]))
        else:
            self.furthest = max(self.furthest, k)
        return super().__getitem__(k)

    def __iter__(self):
        for k in range(len(self)):
            self.furthest = max(self.furthest, k)
            yield super().__getitem__(k)


def test_the_cut_reads_no_further_than_the_function():
    from tack._kernel import _block

    head = ["def first(x):\n", "    return (x +\n", "            1)\n", "\n"]
    tail = [f"def f{k}(y):\n    return y\n" for k in range(2000)]
    lines = _Probe(head + [line for pair in tail for line in pair.splitlines(True)])
    assert _block(lines, 0) == head[:3]
    # The blank line and the next def end the body; nothing past them is scanned.
    assert lines.furthest <= 5, lines.furthest
