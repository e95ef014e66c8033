"""print(...) and assert in kernels (docs/language.md, "print and assert"): a print is one line
written at once (lines of one iteration in order, lines of different iterations never torn),
out by the end of the call on the CPU and by tack.sync() on queued devices; an assert is checked
in debug mode only, and a failure raises AssertionError naming the kernel, the line, the
iteration and the message."""
import re

import numpy as np
import pytest

import tack
from kutil import arr, marker_line, zeros

HERE = __file__


def printed(capfd):
    tack.sync()
    return capfd.readouterr().out


@tack.kernel
def pa_values(x, v, m):
    for i in range(1):
        print("x =", x[0], "i8", tack.i8(-5), tack.u8(250), tack.i64(-2**40), tack.u64(2**63))
        print(True, x[0] > 1.0, 1.5, 7, tack.f64(0.25), "100%", 'a "quote"')
        print("v:", v[0], "m:", m[0], (1, 2.5), (3,))
        print()


def test_print_formats_every_kind_of_value(capfd):
    x = arr(np.array([0.5], np.float32))
    v = tack.array(np.array([[1, 2, 3]], np.float32), dtype=tack.vec(3, tack.f32))
    m = tack.array(np.array([[[1, 2], [3, 4]]], np.int32), dtype=tack.mat(2, 2, tack.i32))
    pa_values(x, v, m)
    assert printed(capfd).split("\n") == [
        "x = 0.5 i8 -5 250 -1099511627776 9223372036854775808",
        'True False 1.5 7 0.25 100% a "quote"',
        "v: [1, 2, 3] m: [[1, 2], [3, 4]] (1, 2.5) (3,)",
        "",
        "",
    ]


@tack.kernel
def pa_lines(n):
    for i in range(n):
        print("first", i)
        print("second", i)


def test_lines_of_one_iteration_come_in_order_and_are_whole(capfd):
    pa_lines(200)
    lines = printed(capfd).splitlines()
    assert len(lines) == 400
    for i in range(200):
        assert lines.index(f"first {i}") < lines.index(f"second {i}")
    assert all(re.fullmatch(r"(first|second) \d+", line) for line in lines)


@tack.kernel
def pa_check(x):
    for i in range(len(x)):
        assert x[i] >= 0.0, "x must not be negative"  # ERR:assert
        x[i] = x[i] * 2.0


def test_assert_is_compiled_out_without_debug_mode():
    x = arr(np.array([1.0, -1.0, 2.0], np.float32))
    pa_check(x)
    np.testing.assert_array_equal(x.numpy(), [2.0, -2.0, 4.0])


def test_failed_assert_raises_naming_kernel_line_iteration_and_message():
    tack.set_debug(True)
    x = arr(np.array([1.0, 2.0, -1.0, 3.0], np.float32))
    with pytest.raises(AssertionError) as ei:
        pa_check(x)
    msg = str(ei.value)
    assert "pa_check" in msg
    assert f"line {marker_line(HERE, 'assert')}" in msg
    assert "iteration i=2" in msg
    assert "x must not be negative" in msg and "x[i] >= 0.0" in msg
    # The other iterations ran (the failing one too: an assert records, it does not stop).
    np.testing.assert_array_equal(x.numpy(), [2.0, 4.0, -2.0, 6.0])
    y = arr(np.array([1.0, 2.0], np.float32))
    pa_check(y)  # a passing call in debug mode raises nothing
    np.testing.assert_array_equal(y.numpy(), [2.0, 4.0])


@tack.func
def checked_sqrt(v):
    assert v >= 0.0
    return tack.sqrt(v)


@tack.kernel
def pa_grid(out):
    for i, j in tack.ndrange(out.shape[0], out.shape[1]):
        out[i, j] = checked_sqrt(tack.f32(2 - i * j))


def test_assert_in_a_device_function_reports_every_loop_variable():
    tack.set_debug(True)
    out = zeros((2, 4), np.float32)
    with pytest.raises(AssertionError, match=r"iteration i=1, j=3: assertion failed "
                                             r"\(assert v >= 0\.0\)"):
        pa_grid(out)


def test_strings_are_only_for_print_and_assert():
    with pytest.raises(tack.CompileError, match="a string is only allowed as an argument of"):
        @tack.kernel
        def pa_string_value(x):
            for i in range(len(x)):
                s = "text"
        pa_string_value(zeros(2, np.float32))
    with pytest.raises(tack.CompileError, match="not arrays"):
        @tack.kernel
        def pa_print_array(x):
            for i in range(len(x)):
                print(x)
        pa_print_array(zeros(2, np.float32))
    with pytest.raises(tack.CompileError, match="assert message other than a string literal"):
        @tack.kernel
        def pa_assert_message(x):
            for i in range(len(x)):
                assert x[i] > 0, x[i]
        pa_assert_message(zeros(2, np.float32))


@tack.func
def pa_bump(c):
    c[0] += 1
    return 1


@tack.kernel
def pa_assert_with_effects(c, n):
    for i in range(n):
        assert pa_bump(c) > 0


def test_an_asserts_test_does_not_run_without_debug_mode():
    c = zeros(1, np.int32)
    pa_assert_with_effects(c, 1)
    assert c.numpy().tolist() == [0]
    tack.set_debug(True)
    pa_assert_with_effects(c, 1)
    assert c.numpy().tolist() == [1]


@tack.kernel
def pa_control_characters(n):
    for i in range(n):
        print("a\x00b", 1)
        print("after")


def test_control_characters_in_printed_text_do_not_cut_the_line(capfd):
    pa_control_characters(1)
    assert printed(capfd).splitlines() == ["a?b 1", "after"]
