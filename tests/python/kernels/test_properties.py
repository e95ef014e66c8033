"""Property test: seeded random shapes, row views of a shared root (views of views, reshape
views) and aliasings, for a small set of kernels, compared with NumPy doing the same thing on
NumPy views of a copy of the root (NumPy views alias exactly as Tack's do). Each case runs with
the disjoint-arrays specialization drawn at random, and checks that `noalias` is promised
exactly when every written array's bytes are disjoint from every other array argument's.

Only race-free programs: a parallel kernel writes each element from one iteration and reads
through aliases only that iteration's element; arbitrary partial overlaps go through a kernel
whose single iteration walks the arrays sequentially."""
import numpy as np
import pytest

import tack
from kutil import has_noalias

CASES = 50


@tack.kernel
def pr_axpby(x, y, s, out):
    for i in range(len(out)):
        out[i] = x[i] * s + y[i]


@tack.kernel
def pr_axpby2(x, y, s, out):
    for i, j in tack.ndrange(out.shape[0], out.shape[1]):
        out[i, j] = x[i, j] * s + y[i, j]


@tack.kernel
def pr_walk(a, b):
    for t in range(1):
        for j in range(len(b)):
            b[j] = b[j] * 0.5 + a[j]


@tack.kernel
def pr_walk2(a, b):
    for t in range(1):
        for r in range(b.shape[0]):
            for c in range(b.shape[1]):
                b[r, c] = b[r, c] * 0.5 - a[r, c]


@tack.kernel
def pr_reshape(m, flat):
    for i, j in tack.ndrange(m.shape[0], m.shape[1]):
        m[i, j] = flat[i * m.shape[1] + j] * 2.0 + 1.0


class Roots:
    """Tack roots and their NumPy twins; a view is (root, first row, last row) of a 1-D or 2-D
    form of a root, made on both sides the same way."""

    def __init__(self, r, count, rows, cols):
        self.cols = cols
        self.np = [np.round(r.standard_normal((rows, cols)) * 8) for _ in range(count)]
        self.tack = [tack.array(a) for a in self.np]

    def view(self, root, lo, hi, flat, nested=None):
        """Rows [lo, hi) of root (elements, when flat). nested=(a, b): made as a view of the
        view [a, b) first (a view of a view is a view of the root)."""
        t, n = self.tack[root], self.np[root]
        if flat:
            t, n = t.reshape(t.size), n.reshape(n.size)
        if nested is not None:
            a, b = nested
            t, n = t[a:b], n[a:b]
            lo, hi = lo - a, hi - a
        return t[lo:hi], n[lo:hi], (root, lo if nested is None else lo + nested[0],
                                    hi if nested is None else hi + nested[0], flat)

    def span(self, key):
        root, lo, hi, flat = key
        unit = 1 if flat else self.cols
        return root, lo * unit, hi * unit

    def overlap(self, k1, k2):
        (r1, a1, b1), (r2, a2, b2) = self.span(k1), self.span(k2)
        return r1 == r2 and a1 < b1 and a2 < b2 and a1 < b2 and a2 < b1

    def check(self):
        for t, n in zip(self.tack, self.np):
            np.testing.assert_array_equal(t.numpy(), n)


def pick_range(r, total, n):
    lo = int(r.integers(0, total - n + 1))
    return lo, lo + n


def free_range(r, total, n, taken):
    """A range of n rows in [0, total) overlapping none of `taken`, or None."""
    starts = [s for s in range(total - n + 1)
              if all(s + n <= a or b <= s for a, b in taken)]
    if not starts:
        return None
    s = int(r.choice(starts))
    return s, s + n


def maybe_nested(r, lo, hi, total):
    if r.random() < 0.3:
        a = int(r.integers(0, lo + 1))
        b = int(r.integers(hi, total + 1))
        return (a, b)
    return None


def case_elementwise(r, roots, rank):
    """out = x * s + y. Inputs may overlap each other anyhow (they are only read); the output
    is either exactly an input's bytes (an in-place update) or disjoint from both."""
    rows, cols = roots.np[0].shape
    flat = rank == 1
    total = rows * cols if flat else rows
    lo_n = 0 if r.random() < 0.1 else 1
    n = int(r.integers(lo_n, max(lo_n, total // 2) + 1))
    xr, yr = pick_range(r, total, n), pick_range(r, total, n)
    mode = str(r.choice(["x", "xyz", "y", "free", "other"]))
    if mode == "x":  # f(a, b, a)
        x, xn, xk = roots.view(0, *xr, flat, maybe_nested(r, *xr, total))
        y, yn, yk = roots.view(1, *yr, flat)
        out, on, ok = roots.view(0, *xr, flat)  # another view object over the same bytes
    elif mode == "xyz":  # f(a, a, a), through three view objects
        x, xn, xk = roots.view(0, *xr, flat)
        y, yn, yk = roots.view(0, *xr, flat, maybe_nested(r, *xr, total))
        out, on, ok = roots.view(0, *xr, flat)
    elif mode == "y":  # f(b, a, a)
        x, xn, xk = roots.view(1, *xr, flat)
        y, yn, yk = roots.view(0, *yr, flat)
        out, on, ok = roots.view(0, *yr, flat, maybe_nested(r, *yr, total))
    else:
        x, xn, xk = roots.view(0, *xr, flat, maybe_nested(r, *xr, total))
        y, yn, yk = roots.view(0, *yr, flat)
        fr = free_range(r, total, n, [xr, yr]) if mode == "free" else None
        if fr is not None:
            out, on, ok = roots.view(0, *fr, flat)
        else:
            out, on, ok = roots.view(2, *pick_range(r, total, n), flat)
    s = float(r.choice([0.5, -2.0, 3.0]))
    kernel = pr_axpby if flat else pr_axpby2
    kernel(x, y, s, out)
    on[...] = xn * s + yn  # NumPy evaluates the right side first, as a race-free kernel must
    return kernel, (x, y, s, out), not (roots.overlap(ok, xk) or roots.overlap(ok, yk))


def case_walk(r, roots, rank):
    rows, cols = roots.np[0].shape
    flat = rank == 1
    total = rows * cols if flat else rows
    n = int(r.integers(1, total + 1))
    ar, br = pick_range(r, total, n), pick_range(r, total, n)
    same_root = r.random() < 0.8
    a, an, ak = roots.view(0, *ar, flat, maybe_nested(r, *ar, total))
    b, bn, bk = roots.view(0 if same_root else 1, *br, flat, maybe_nested(r, *br, total))
    kernel = pr_walk if flat else pr_walk2
    kernel(a, b)
    if flat:
        for j in range(len(bn)):
            bn[j] = bn[j] * 0.5 + an[j]
    else:
        for i in range(bn.shape[0]):
            for j in range(bn.shape[1]):
                bn[i, j] = bn[i, j] * 0.5 - an[i, j]
    return kernel, (a, b), not roots.overlap(ak, bk)


def case_reshape(r, roots, rank):
    rows, cols = roots.np[0].shape
    lo, hi = pick_range(r, rows, int(r.integers(1, rows + 1)))
    m, mn, mk = roots.view(0, lo, hi, False)
    if r.random() < 0.6:  # the same bytes through a flat view
        flat, fn, fk = roots.view(0, lo * cols, hi * cols, True)
    else:
        flat, fn, fk = roots.view(1, lo * cols, hi * cols, True)
    pr_reshape(m, flat)
    mn[...] = (fn * 2.0 + 1.0).reshape(mn.shape)
    return pr_reshape, (m, flat), not roots.overlap(mk, fk)


@pytest.mark.parametrize("seed", range(CASES))
@pytest.mark.cpu_only("checks the CPU's noalias/disjoint-arrays variant")
def test_random_views_and_aliasings(seed):
    r = np.random.default_rng(5000 + seed)
    spec = bool(r.integers(0, 2))
    tack.set_specialize_disjoint(spec)
    roots = Roots(r, 3, int(r.integers(1, 40)), int(r.integers(1, 6)))
    make = [case_elementwise, case_walk, case_reshape][seed % 3]
    rank = int(r.integers(1, 3))
    kernel, args, expect_disjoint = make(r, roots, rank)
    roots.check()
    assert has_noalias(kernel, *args) == (spec and expect_disjoint)
