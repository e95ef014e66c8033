"""A kernel's value and its in-loop reductions (docs/language.md, "A kernel's value";
docs/design/kernel_values.md): `s += x[i]` (also *=, |=, &=, ^=, s = min(s, v), max) on a
local computed before the parallel loop folds every iteration's value; the statements after
the loop run once, and `return v` is the call's value, a NumPy scalar of its type. Each block of
1024 iterations is folded in 8 lanes (iteration k in lane k % 8), the lanes in order, then the
blocks in order onto the initial value: the same bits on every thread count and device. What cannot be a reduction is a CompileError saying how
to write one."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import tack
from kutil import arr, zeros

BLOCK = 1024
LANES = 8


@tack.kernel
def kv_total(x) -> tack.f64:
    s = 0.0
    for i in range(len(x)):
        s += x[i]
    return s


def blocked_sum(x, start=0.0):
    # The documented order (in x's type): in each block of 1024, iteration k goes to lane k % 8;
    # each lane folds its iterations in order, the block's partial is the lanes in order, and
    # the value is the initial value folded with the blocks' partials in order.
    t = x.dtype.type
    total = t(start)
    for b in range(0, len(x), BLOCK):
        block = x[b:b + BLOCK]
        lanes = [t(0)] * LANES
        for k, v in enumerate(block):
            lanes[k % LANES] = t(lanes[k % LANES] + v)
        part = lanes[0]
        for lane in lanes[1:]:
            part = t(part + lane)
        total = t(total + part)
    return total


def test_a_sum_in_the_loop_is_the_kernels_value():
    x = np.random.default_rng(0).standard_normal(5 * BLOCK + 17).astype(np.float32)
    got = kv_total(arr(x))
    assert isinstance(got, np.float64)  # the annotation's type
    assert got == np.float64(blocked_sum(x))  # the same bits as the documented order
    assert got == pytest.approx(x.astype(np.float64).sum(), rel=1e-5)


def test_the_bits_do_not_depend_on_the_thread_count():
    x = np.random.default_rng(1).standard_normal(40 * BLOCK + 3).astype(np.float32)
    here = kv_total(arr(x))
    code = ("import numpy as np, tack, sys\n"
            "sys.path.insert(0, %r)\n"
            "from test_kernel_values import kv_total\n"
            "x = np.random.default_rng(1).standard_normal(40 * 1024 + 3).astype(np.float32)\n"
            "print(repr(float(kv_total(tack.array(x)))))\n") % os.path.dirname(__file__)
    env = dict(os.environ, TACK_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert float(out.stdout.split()[-1]) == float(here)


@tack.kernel
def kv_folds(x, k):
    lo = 1e30
    hi = -1e30
    positive = 0
    bits = 0
    both = -1
    odd = 0
    product = 1.0
    for i in range(len(x)):
        lo = min(lo, x[i])
        hi = tack.max(hi, x[i])
        if x[i] > 0:
            positive += 1
        bits |= k[i]
        both &= k[i] | 1
        odd ^= k[i]
        if i < 8:
            product = product * 2.0
    spread = hi - lo
    if positive > 100:
        spread = spread * 1000.0
    return spread + positive * 10.0 + bits + both + odd + product


def test_every_fold_and_statements_after_the_loop():
    x = np.random.default_rng(2).standard_normal(3 * BLOCK + 5).astype(np.float32)
    k = np.random.default_rng(3).integers(0, 1 << 12, len(x)).astype(np.int32)
    got = kv_folds(arr(x), arr(k))
    spread = np.float32(x.max()) - np.float32(x.min())
    positive = int((x > 0).sum())
    if positive > 100:
        spread = np.float32(spread * np.float32(1000.0))
    both = np.bitwise_and.reduce(k | 1)
    want = (np.float32(spread) + np.float32(positive * 10.0) + np.float32(np.bitwise_or.reduce(k))
            + np.float32(both) + np.float32(np.bitwise_xor.reduce(k)) + np.float32(256.0))
    assert isinstance(got, np.float32)
    assert got == pytest.approx(want, rel=1e-6)


@tack.kernel
def kv_grid(a):
    c = tack.i64(5)
    for i, j in tack.ndrange(a.shape[0], (1, a.shape[1] - 1, 2)):
        c += i * 100 + j
    return c


def test_a_reduction_over_a_2d_range():
    a = zeros((33, 70), np.float32)
    want = 5 + sum(i * 100 + j for i in range(33) for j in range(1, 69, 2))
    got = kv_grid(a)
    assert isinstance(got, np.int64) and got == want


@tack.kernel
def kv_after_the_loop(x):
    scale = 2.0
    for i in range(len(x)):
        x[i] = x[i] * scale
    first = x[0]
    scale = 0.5
    return first * scale + len(x)


def test_the_statements_after_the_loop_see_what_it_wrote():
    x = arr(np.array([1.0, 2.0, 3.0], np.float32))
    assert kv_after_the_loop(x) == 4.0  # 2 * 0.5 + 3
    assert x.numpy().tolist() == [2.0, 4.0, 6.0]


def test_no_iteration_gives_the_initial_value_and_a_kernel_without_a_value_none():
    assert kv_total(zeros(0, np.float32)) == 0.0
    assert kv_grid(zeros((0, 5), np.float32)) == 5

    @tack.kernel
    def fill(x):
        for i in range(len(x)):
            x[i] = 1.0

    assert fill(zeros(4, np.float32)) is None


def test_a_reduction_without_a_value_still_runs_the_loop():
    @tack.kernel
    def count_and_write(x):
        n = 0
        for i in range(len(x)):
            n += 1
            x[i] = 7.0

    x = zeros(3000, np.float32)
    assert count_and_write(x) is None
    assert (x.numpy() == 7.0).all()


@pytest.mark.parametrize("body, message", [
    ("s += x[i]\n        x[i] = s", "read it nowhere else in the loop"),
    ("s += x[i]\n        s *= 2.0", "read it nowhere else in the loop"),
    ("s = x[i] + s", "update it only with s \\+= v"),
    ("s += x[i]\n        s = min(s, x[i])", "one fold"),
])
def test_what_is_not_a_reduction_says_how_to_write_one(body, message):
    source = ("def bad(x):\n"
              "    s = 0.0\n"
              "    for i in range(len(x)):\n"
              f"        {body}\n"
              "    return s\n")
    with pytest.raises(tack.CompileError, match=message):
        tack.kernel_from_source(source, "bad")(zeros(4, np.float32))


def test_a_return_elsewhere_and_a_loop_after_the_loop_are_compile_errors():
    @tack.kernel
    def early(x):
        for i in range(len(x)):
            x[i] = 1.0
        return 1.0
        x  # noqa: B018

    with pytest.raises(tack.CompileError, match="'return' in a kernel gives the kernel's value"):
        early(zeros(2, np.float32))

    @tack.kernel
    def looped(x):
        s = 0.0
        for i in range(len(x)):
            s += x[i]
        while s > 1.0:
            s = s / 2.0
        return s

    with pytest.raises(tack.CompileError, match="a loop after the parallel loop"):
        looped(zeros(2, np.float32))


def test_a_bitwise_fold_on_a_float_is_a_compile_error():
    @tack.kernel
    def bad_bits(x):
        s = 0.0
        for i in range(len(x)):
            s |= x[i]
        return s

    with pytest.raises(tack.CompileError, match="needs an integer"):
        bad_bits(zeros(2, np.float32))


@tack.kernel
def kv_count_mask(x, weights, out):
    n = 0
    w = 0.0
    for i in range(len(x)):
        n += x[i] > 0  # a bool is a number: summing a mask counts it
        w += (x[i] > 0) * weights[i]
        out[i] = (x[i] > 0) + (x[i] > 1)
    return n * 1000.0 + w


def test_summing_a_bool_mask_counts_it():
    x = np.array([1.5, -2.0, 0.5, 5.0, 0.0], np.float32)
    weights = np.array([1, 10, 100, 1000, 10000], np.float32)
    out = zeros(5, np.int32)
    assert kv_count_mask(arr(x), arr(weights), out) == 3 * 1000.0 + 1101.0
    assert out.numpy().tolist() == [2, 0, 1, 2, 0]


@tack.kernel(debug=True)
def kv_checked(x):
    s = 0.0
    for i in range(len(x)):
        assert x[i] < 5.0, "too big"
        s += x[i + 1]
    return s


def test_debug_mode_reports_the_users_iteration_in_a_reduction_kernel():
    x = np.ones(3000, np.float32)
    x[2500] = 9.0
    with pytest.raises(AssertionError, match=r"iteration i=2500: too big"):
        kv_checked(arr(x))
    with pytest.raises(IndexError, match=r"index 3000 is out of bounds for axis 0 of array 'x'"):
        kv_checked(arr(np.ones(3000, np.float32)))


@tack.func
def kv_clipped(v):
    if v > 2.0:
        return 2.0  # an early return: a labeled block in each lane's copy
    return v


@tack.kernel
def kv_lane_bodies(x, out):
    s = 0.0
    n = 0
    for i in range(len(x)):
        if x[i] < 0.0:
            continue  # skips this iteration only, not the other lanes'
        buf = tack.zeros(3, tack.f32)
        for k in range(3):
            buf[k] = x[i] * k
        s += kv_clipped(buf[1] + buf[2])
        n += 1
        out[i] = buf[2]
    return s * 1000.0 + n


def test_continue_local_arrays_and_device_functions_in_a_reduction_kernel():
    x = np.random.default_rng(7).standard_normal(2 * BLOCK + 100).astype(np.float32)
    out = zeros(len(x), np.float32)
    got = kv_lane_bodies(arr(x), out)
    kept = x[x >= 0]
    want = np.minimum(kept * np.float32(3), np.float32(2)).astype(np.float64).sum() * 1000.0
    assert got == pytest.approx(want + len(kept), rel=1e-5)
    np.testing.assert_array_equal(out.numpy()[x >= 0], (x * np.float32(2))[x >= 0])


def test_a_long_body_is_folded_in_one_lane():
    # Past 64 lets, assignments and stores a body is not copied per lane: the sequential order
    # per block.
    lines = "".join(f"        v{k} = x[i] * {k}\n" for k in range(70))
    source = ("def long_body(x):\n"
              "    s = 0.0\n"
              "    for i in range(len(x)):\n" + lines +
              "        s += v69 - v68\n"
              "    return s\n")
    x = np.random.default_rng(8).standard_normal(BLOCK + 9).astype(np.float32)
    got = tack.kernel_from_source(source, "long_body")(arr(x))
    want = np.float32(0)
    for b in range(0, len(x), BLOCK):
        part = np.float32(0)
        for v in x[b:b + BLOCK]:
            part = np.float32(part + np.float32(np.float32(v * np.float32(69)) -
                                                np.float32(v * np.float32(68))))
        want = np.float32(want + part)
    assert got == want


@pytest.mark.parametrize("tail, message", [
    ("    return", "a kernel's 'return' gives its value: return a number"),
    ("    return (s, s)", "a kernel returns a number, not a tuple"),
    ("    return x", "a kernel returns a number, not"),
])
def test_a_kernels_value_is_one_number(tail, message):
    source = ("def bad(x):\n"
              "    s = 0.0\n"
              "    for i in range(len(x)):\n"
              "        s += x[i]\n" + tail + "\n")
    with pytest.raises(tack.CompileError, match=message):
        tack.kernel_from_source(source, "bad")(zeros(4, np.float32))


def test_the_return_annotation_is_a_dtype():
    source = ("def bad(x) -> float32x:\n"
              "    s = 0.0\n"
              "    for i in range(len(x)):\n"
              "        s += x[i]\n"
              "    return s\n")
    with pytest.raises(tack.CompileError, match="return annotation is a dtype"):
        tack.kernel_from_source(source, "bad")(zeros(4, np.float32))


def test_a_reduction_beside_workgroups_is_a_compile_error():
    source = ("def bad(x):\n"
              "    s = 0.0\n"
              "    for i in range(len(x)):\n"
              "        s += tack.block_sum(x[i])\n"
              "    return s\n")
    with pytest.raises(tack.CompileError, match="cannot be combined with workgroups"):
        tack.kernel_from_source(source, "bad")(zeros(256, np.float32))


@tack.kernel
def kv_bound_from_an_element(x):
    n = int(x[0])
    s = 0.0
    for i in range(n):
        s += x[i]
    return s


def test_a_bound_read_from_an_array_needs_host_memory():
    x = arr(np.array([3, 1, 1, 1, 1], np.float32))
    if x.device.kind == "cpu":
        assert kv_bound_from_an_element(x) == 5.0
    else:  # the block count is computed on the host
        with pytest.raises(RuntimeError, match="pass the bound as a scalar argument"):
            kv_bound_from_an_element(x)


def test_an_integer_fold_loads_its_lanes_as_vectors():
    """The 8 lane copies of a block are vectorized across the lanes: consecutive elements in one
    vector load. The loop over the block's steps keeps LLVM's loop vectorizer off (it took an
    integer fold's loop, which it may reassociate, and gathered each lane's elements, 4-7x
    slower); docs/design/kernel_values.md."""
    src = (
        "def count_above(x, v):\n"
        "    n = 0\n"
        "    for i in range(len(x)):\n"
        "        n += x[i] > v\n"
        "    return n\n")
    k = tack.kernel_from_source(src, "count_above")
    # the CPU's code (LLVM's), whatever the suite's device
    x = tack.array(np.linspace(0.0, 1.0, 5000, dtype=np.float32), device="cpu")
    assert k(x, tack.f32(0.25)) == np.count_nonzero(x.numpy() > 0.25)
    ir = tack.inspect(k, x, tack.f32(0.25), mode="optimized")
    assert "masked.gather" not in ir
    assert re.search(r"load <\d+ x float>", ir), "no vector load of the lanes' elements"
