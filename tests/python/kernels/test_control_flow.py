"""Control flow inside the parallel loop: if/elif/else, while, for with break/continue, nested
loops, conditional expressions (only the chosen side runs), variable-length inner loops,
range(start, stop, step) with negative and zero steps, range arguments evaluated once."""
import os
import subprocess
import sys

import numpy as np
import pytest

import tack
from kutil import arr, rng, zeros


@tack.kernel
def cf_classify(x, out):
    for i in range(len(x)):
        if x[i] < -1.0:
            out[i] = -2
        elif x[i] < 0.0:
            out[i] = -1
        elif x[i] == 0.0:
            out[i] = 0
        elif x[i] <= 1.0:
            out[i] = 1
        else:
            out[i] = 2


def test_if_elif_else():
    x = np.concatenate([[-2.0, -1.0, -0.5, 0.0, -0.0, 0.5, 1.0, 1.5], rng(80).normal(size=500)])
    x = x.astype(np.float32)
    out = zeros(len(x), np.int32)
    cf_classify(arr(x), out)
    expected = np.select([x < -1, x < 0, x == 0, x <= 1], [-2, -1, 0, 1], 2)
    np.testing.assert_array_equal(out.numpy(), expected)


@tack.kernel
def cf_collatz(start, steps):
    for i in range(len(start)):
        n = start[i]
        count = 0
        while n != 1:
            if count >= 500:
                break
            if n % 2 == 0:
                n = n // 2
                count += 1
                continue
            n = 3 * n + 1
            count += 1
        steps[i] = count


def collatz(n):
    count = 0
    while n != 1 and count < 500:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        count += 1
    return count


def test_while_break_continue():
    start = np.arange(1, 3001, dtype=np.int64)
    steps = zeros(3000, np.int64)
    cf_collatz(arr(start), steps)
    np.testing.assert_array_equal(steps.numpy(), [collatz(int(n)) for n in start])


@tack.kernel
def cf_for_break_continue(m, out):
    for i in range(m.shape[0]):
        acc = 0
        for j in range(m.shape[1]):
            if m[i, j] < 0:
                continue
            if m[i, j] == 0:
                break
            acc += m[i, j]
        out[i] = acc


def test_for_break_continue():
    m = rng(81).integers(-3, 10, (200, 17)).astype(np.int32)
    out = zeros(200, np.int32)
    cf_for_break_continue(arr(m), out)
    expected = []
    for row in m:
        acc = 0
        for v in row:
            if v < 0:
                continue
            if v == 0:
                break
            acc += int(v)
        expected.append(acc)
    np.testing.assert_array_equal(out.numpy(), expected)


@tack.kernel
def cf_nested_break(lim, out):
    for i in range(len(out)):
        found = -1
        for a in range(1, lim):
            for b in range(a, lim):
                if a * b == i:
                    found = a * 100 + b
                    break
            if found >= 0:
                break
        out[i] = found


def test_break_leaves_only_the_innermost_loop():
    out = zeros(300, np.int32)
    cf_nested_break(50, out)
    expected = []
    for i in range(300):
        found = -1
        for a in range(1, 50):
            for b in range(a, 50):
                if a * b == i:
                    found = a * 100 + b
                    break
            if found >= 0:
                break
        expected.append(found)
    np.testing.assert_array_equal(out.numpy(), expected)


@tack.kernel
def cf_continue_in_parallel_loop(x, out):
    for i in range(len(x)):
        if x[i] < 0:
            continue
        out[i] = x[i] * 2


def test_continue_in_the_parallel_loop_ends_the_iteration():
    x = np.array([1, -2, 3, -4, 5], np.int32)
    out = arr(np.full(5, 99, np.int32))
    cf_continue_in_parallel_loop(arr(x), out)
    assert out.numpy().tolist() == [2, 99, 6, 99, 10]


@tack.kernel
def cf_conditional_expression(x, counter, out):
    for i in range(len(x)):
        out[i] = tack.atomic_add(counter, 0, 1) if x[i] > 0 else tack.atomic_add(counter, 1, 1)
        out[i] = 10 if x[i] > 0 else (20 if x[i] < 0 else 30)


def test_conditional_expression_runs_only_the_chosen_side():
    x = np.array([1, -1, 0, 2, 3, -5], np.int32)
    counter = zeros(2, np.int32)
    out = zeros(6, np.int32)
    cf_conditional_expression(arr(x), counter, out)
    assert counter.numpy().tolist() == [3, 3]
    assert out.numpy().tolist() == [10, 20, 30, 10, 10, 20]


@tack.kernel
def cf_conditional_guard(x, out):
    for i in range(len(out)):
        out[i] = x[i + 1] if i + 1 < len(x) else -1.0


def test_conditional_expression_guards_a_load_in_debug_mode():
    tack.set_debug(True)
    x = np.array([1.0, 2.0, 3.0], np.float32)
    out = zeros(3, np.float32)
    cf_conditional_guard(arr(x), out)  # no IndexError: the unchosen arm never loads
    assert out.numpy().tolist() == [2.0, 3.0, -1.0]


@tack.kernel
def cf_csr_row_sums(indptr, values, out):
    for i in range(len(out)):
        s = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            s += values[k]
        out[i] = s


def test_variable_length_inner_loops_csr():
    r = rng(82)
    lengths = r.integers(0, 40, 500)
    lengths[::17] = 0
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    values = r.integers(-100, 100, indptr[-1]).astype(np.float64)
    out = zeros(500, np.float64)
    cf_csr_row_sums(arr(indptr), arr(values), out)
    expected = [values[indptr[i]:indptr[i + 1]].sum() for i in range(500)]
    np.testing.assert_array_equal(out.numpy(), expected)


@tack.kernel
def cf_triangle(out):
    for i in range(len(out)):
        s = 0
        for j in range(i):
            for k in range(j, i):
                s += 1
        out[i] = s


def test_triangular_loops_depend_on_the_iteration():
    out = zeros(300, np.int64)
    cf_triangle(out)
    n = np.arange(300)
    np.testing.assert_array_equal(out.numpy(), n * (n + 1) // 2)


@tack.kernel
def cf_ranges(start, stop, step, out):
    for i in range(len(out)):
        s = 0
        c = 0
        for k in range(start[i], stop[i], step[i]):
            s += k
            c += 1
        out[i, 0] = s
        out[i, 1] = c


def test_inner_range_with_any_start_stop_step():
    r = rng(83)
    n = 2000
    start = r.integers(-30, 30, n).astype(np.int32)
    stop = r.integers(-30, 30, n).astype(np.int32)
    step = r.integers(-7, 8, n).astype(np.int32)
    out = zeros((n, 2), np.int32)
    cf_ranges(arr(start), arr(stop), arr(step), out)
    expected = []
    for a, b, c in zip(start.tolist(), stop.tolist(), step.tolist()):
        ks = range(a, b, c) if c != 0 else range(0)  # step 0 runs no iteration (Python raises)
        expected.append([sum(ks), len(ks)])
    np.testing.assert_array_equal(out.numpy(), expected)


@tack.kernel
def cf_range_extremes(a, b, c, out):
    for i in range(1):
        n = 0
        last = a
        for k in range(a, b, c):
            n += 1
            last = k
        out[0] = n
        out[1] = last


@pytest.mark.parametrize("a, b, c", [
    (2147483600, 2147483647, 7), (-2147483648, -2147483600, 9), (2147483647, 2147483600, -5), (-2147483600, -2147483648, -7),
    (-2147483648, 2147483647, 1 << 30), (2147483646, 2147483647, 2147483647),
    (0, 2147483647, -3),
])
def test_range_counts_without_overflow(a, b, c):
    # i32 bounds near the ends of the type: start + count * step must not wrap into more trips.
    out = zeros(2, np.int64)
    cf_range_extremes(a, b, c, out)
    r = range(a, b, c)
    assert out.numpy().tolist() == [len(r), r[-1] if len(r) else a]


@tack.kernel
def cf_range_evaluated_once(x, reps, out):
    for i in range(len(x)):
        m = x[i]
        c = 0
        for k in range(m):
            m = m + 1
            c += 1
        for k in range(reps):
            k = 10
            c += 100
        out[i] = c


def test_range_arguments_are_evaluated_once_and_loop_variable_assignment():
    x = np.array([0, 1, 5, 9], np.int32)
    out = zeros(4, np.int32)
    cf_range_evaluated_once(arr(x), 3, out)
    assert out.numpy().tolist() == [300, 301, 305, 309]


@tack.kernel
def cf_local_defined_in_branches(x, out):
    for i in range(len(x)):
        if x[i] > 0:
            y = x[i] * 2
        else:
            y = -x[i]
        out[i] = y


def test_local_first_assigned_in_branches():
    x = np.array([3, -4, 0, 7], np.int32)
    out = zeros(4, np.int32)
    cf_local_defined_in_branches(arr(x), out)
    assert out.numpy().tolist() == [6, 4, 0, 14]


@tack.kernel
def cf_compact_syntax(x, out):
    """A docstring; several statements on one line; one-line blocks; pass."""
    for i in range(len(x)):
        a = x[i]; b = a + 1  # noqa: E702
        if a > 2: b = 0  # noqa: E701
        while b > 5: b -= 5  # noqa: E701
        pass
        out[i] = b + \
            100


def test_compact_syntax():
    x = np.array([0, 1, 2, 3, 12], np.int32)
    out = zeros(5, np.int32)
    cf_compact_syntax(arr(x), out)
    assert out.numpy().tolist() == [101, 102, 103, 100, 100]


@tack.kernel
def cf_while_else_free_loop(limit, out):
    for i in range(len(out)):
        k = 0
        total = 0
        while True:
            k += 1
            if k > limit:
                break
            if k % 3 == 0:
                continue
            total += k
        out[i] = total + i


@pytest.mark.parametrize("limit", [0, 1, 10, 100])
def test_while_true_with_break(limit):
    out = zeros(10, np.int64)
    cf_while_else_free_loop(limit, out)
    base = sum(k for k in range(1, limit + 1) if k % 3)
    np.testing.assert_array_equal(out.numpy(), base + np.arange(10))


# Sequential loops whose bounds are all constants (the trip count is known when the code is
# generated). A regression here once made them never terminate (the trip test was emitted as
# `br i1 true`), which hangs the run; the first test runs the smallest case in a subprocess with
# a timeout, so such a regression fails there with a clear message first.
SENTINEL = """
import numpy as np, tack

@tack.kernel
def k(out):
    for i in range(len(out)):
        c = 0
        for j in range(4):
            c += 1
        out[i] = c

out = tack.zeros(3, dtype=tack.i32)
k(out)
assert out.numpy().tolist() == [4, 4, 4], out.numpy()
"""


def test_constant_range_terminates(tmp_path):
    script = tmp_path / "const_range.py"
    script.write_text(SENTINEL)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    try:
        r = subprocess.run([sys.executable, str(script)], env=env, timeout=60,
                           capture_output=True, text=True)
    except subprocess.TimeoutExpired:
        pytest.fail("a range(4) loop did not finish within 60 s: constant-bound loops hang")
    assert r.returncode == 0, r.stderr[-2000:]


@tack.kernel
def cf_const_ranges(out):
    for i in range(len(out)):
        c = 0
        for k in range(4):
            c += 1
        for k in range(1, 4):
            c += 10
        for k in range(10, 0, -3):
            c += 100
        for k in range(tack.i64(2)):
            c += 1000
        for k in range(0):
            c += 10000
        out[i] = c


def test_constant_range_loops():
    out = zeros(5, np.int32)
    cf_const_ranges(out)
    assert out.numpy().tolist() == [4 + 30 + 400 + 2000] * 5


@tack.kernel
def cf_const_extremes(out):
    for i in range(1):
        n = 0
        for k in range(2147483600, 2147483647, 7):
            n += 1
        out[0] = n
        n2 = 0
        for k in range(-2147483648, -2147483600, 9):
            n2 += 1
        out[1] = n2


def test_constant_range_counts_without_overflow():
    out = zeros(2, np.int32)
    cf_const_extremes(out)
    assert out.numpy().tolist() == [len(range(2147483600, 2147483647, 7)),
                                     len(range(-2147483648, -2147483600, 9))]


@tack.kernel
def cf_const_local_array(x, out):
    for i in range(x.shape[0]):
        buf = tack.zeros((4,), tack.i32)
        for j in range(4):
            buf[j] = x[i, 3 - j]
        for j in range(4):
            out[i, j] = buf[j]


def test_constant_range_over_a_local_array():
    x = np.arange(40, dtype=np.int32).reshape(10, 4)
    out = zeros((10, 4), np.int32)
    cf_const_local_array(arr(x), out)
    np.testing.assert_array_equal(out.numpy(), x[:, ::-1])


@tack.func
def cf_sum_first(a, i, n):
    s = a[i, 0] * 0
    for j in range(n):
        s += a[i, j]
    return s


@tack.kernel
def cf_const_after_inlining(a, out):
    for i in range(a.shape[0]):
        out[i] = cf_sum_first(a, i, 3)  # range(n) becomes range(3) once inlined


def test_constant_range_after_inlining():
    a = np.arange(20, dtype=np.int64).reshape(5, 4)
    out = zeros(5, np.int64)
    cf_const_after_inlining(arr(a), out)
    np.testing.assert_array_equal(out.numpy(), a[:, :3].sum(axis=1))


@tack.func
def cf_pair(a, b):
    return a * 100 + b


@tack.kernel
def cf_eval_order(c, out, res):
    for t in range(1):
        # Python evaluates the right-hand side of an assignment before the target's index.
        out[tack.atomic_add(c, 0, 1)] = tack.atomic_add(c, 0, 1) + 100
        # An augmented assignment evaluates the target's index first, then the value.
        out[tack.atomic_add(c, 0, 1) + 2] += tack.atomic_add(c, 0, 1) * 10
        # Operands left to right.
        res[0] = tack.atomic_add(c, 0, 1) - tack.atomic_add(c, 0, 1)
        res[1] = cf_pair(tack.atomic_add(c, 0, 1), tack.atomic_add(c, 0, 1))


def test_evaluation_order_is_pythons():
    c = zeros(1, np.int32)
    out = zeros(8, np.int32)
    res = zeros(2, np.int32)
    cf_eval_order(c, out, res)
    # counter values: 0 (value), 1 (index) | 2 (index), 3 (value) | 4 - 5 | f(6, 7)
    assert out.numpy().tolist() == [0, 100, 0, 0, 30, 0, 0, 0]
    assert res.numpy().tolist() == [-1, 607]
    assert c.numpy()[0] == 8
