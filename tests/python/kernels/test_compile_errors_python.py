"""CompileError through the Python front door: a bad kernel raises tack.CompileError whose
`.line` is the line of this FILE holding the offending construct (the decorator hands the C++
front end the function's first line), with `.kernel`, `.column` and `.message`. Structural
errors are raised by the decorator, type errors by the first call; either way the line is right.
The C++ suites hold the full tables; these are representative cases. The line each test
expects is marked in this file with a trailing `# ERR:<case>` comment."""
import numpy as np
import pytest

import tack
from kutil import fresh_import, marker_line, zeros

HERE = __file__


def check(err, case, kernel, *words):
    assert isinstance(err, tack.CompileError)
    assert err.line == marker_line(HERE, case), (str(err), err.line)
    names = kernel if isinstance(kernel, tuple) else (kernel,)
    assert err.kernel in names, err.kernel
    assert isinstance(err.column, int) and err.column >= 1
    assert err.message
    text = str(err)
    assert err.kernel in text and str(err.line) in text
    for w in words:
        assert w in text, (w, text)


def f32(n=4):
    return zeros(n, np.float32)


def test_no_parallel_loop():
    with pytest.raises(tack.CompileError) as ei:
        @tack.kernel
        def ce_no_loop(a):  # ERR:no_loop
            n = len(a)
            m = n + 1
        ce_no_loop(f32())
    check(ei.value, "no_loop", "ce_no_loop", "parallel loop")


def test_second_parallel_loop():
    with pytest.raises(tack.CompileError) as ei:
        @tack.kernel
        def ce_two_loops(a):
            for i in range(len(a)):
                a[i] = 1.0
            for j in range(len(a)):  # ERR:two_loops
                a[j] = 2.0
        ce_two_loops(f32())
    check(ei.value, "two_loops", "ce_two_loops")


def test_store_before_the_parallel_loop():
    with pytest.raises(tack.CompileError) as ei:
        @tack.kernel
        def ce_early_store(a):
            n = len(a)
            a[0] = 1.0  # ERR:early_store
            for i in range(n):
                a[i] = 2.0
        ce_early_store(f32())
    check(ei.value, "early_store", "ce_early_store", "before the parallel loop")


def test_return_in_a_kernel():
    with pytest.raises(tack.CompileError) as ei:
        @tack.kernel
        def ce_return(a):
            for i in range(len(a)):
                if a[i] > 0.0:
                    return  # ERR:return
                a[i] = 1.0
        ce_return(f32())
    check(ei.value, "return", "ce_return", "return")


def test_string_literal():
    with pytest.raises(tack.CompileError) as ei:
        @tack.kernel
        def ce_string(a):
            for i in range(len(a)):
                a[i] = "one"  # ERR:string
        ce_string(f32())
    check(ei.value, "string", "ce_string", "string")


def test_list_comprehension():
    with pytest.raises(tack.CompileError) as ei:
        @tack.kernel
        def ce_list(a):
            for i in range(len(a)):
                b = [a[j] for j in range(2)]  # ERR:list
                a[i] = 0.0
        ce_list(f32())
    check(ei.value, "list", "ce_list", "list comprehensions")


def test_unsupported_statement():
    with pytest.raises(tack.CompileError) as ei:
        @tack.kernel
        def ce_try(a):
            for i in range(len(a)):
                try:  # ERR:try
                    a[i] = 1.0
                except Exception:
                    pass
        ce_try(f32())
    check(ei.value, "try", "ce_try", "not supported")


def test_break_leaving_the_parallel_loop():
    with pytest.raises(tack.CompileError) as ei:
        @tack.kernel
        def ce_break(a):
            for i in range(len(a)):
                if a[i] > 0.0:
                    break  # ERR:break
        ce_break(f32())
    check(ei.value, "break", "ce_break", "break")


def test_keyword_argument():
    with pytest.raises(tack.CompileError) as ei:
        @tack.kernel
        def ce_keyword(a):
            for i in range(len(a)):
                a[i] = min(a[i], b=1.0)  # ERR:keyword
        ce_keyword(f32())
    check(ei.value, "keyword", "ce_keyword", "keyword")


def test_slice():
    with pytest.raises(tack.CompileError) as ei:
        @tack.kernel
        def ce_slice(a, b):
            for i in range(len(a)):
                b[i] = a[1:3]  # ERR:slice
        ce_slice(f32(), f32())
    check(ei.value, "slice", "ce_slice", "slice")


def test_chained_assignment():
    with pytest.raises(tack.CompileError) as ei:
        @tack.kernel
        def ce_chained(a):
            for i in range(len(a)):
                x = y = 1.0  # ERR:chained
                a[i] = x
        ce_chained(f32())
    check(ei.value, "chained", "ce_chained", "chained")


def test_is_operator():
    with pytest.raises(tack.CompileError) as ei:
        @tack.kernel
        def ce_is(a):
            for i in range(len(a)):
                if a[i] is a[i]:  # ERR:is
                    a[i] = 1.0
        ce_is(f32())
    check(ei.value, "is", "ce_is", "is")


# Errors found while lowering for the argument types: raised by the first call.

def test_unknown_function_at_call_time():
    @tack.kernel
    def ce_unknown(a):
        for i in range(len(a)):
            a[i] = no_such_function(a[i])  # noqa: F821  # ERR:unknown

    with pytest.raises(tack.CompileError) as ei:
        ce_unknown(f32())
    check(ei.value, "unknown", "ce_unknown", "no_such_function")


def test_wrong_number_of_indices():
    @tack.kernel
    def ce_indices(a, out):
        for i in range(len(a)):
            out[i] = a[i, 0]  # ERR:indices

    with pytest.raises(tack.CompileError) as ei:
        ce_indices(f32(), f32())
    check(ei.value, "indices", "ce_indices")


def test_u64_with_i64_has_no_common_type():
    @tack.kernel
    def ce_mixed(a, b, out):
        for i in range(len(a)):
            t = a[i] + 1
            out[i] = t + b[i]  # ERR:mixed

    with pytest.raises(tack.CompileError) as ei:
        ce_mixed(zeros(4, np.uint64), zeros(4, np.int64), zeros(4, np.int64))
    check(ei.value, "mixed", "ce_mixed", "u64", "i64")


def test_unknown_name():
    @tack.kernel
    def ce_name(a):
        for i in range(len(a)):
            a[i] = undefined_value * 2.0  # noqa: F821  # ERR:name

    with pytest.raises(tack.CompileError) as ei:
        ce_name(f32())
    check(ei.value, "name", "ce_name", "undefined_value")


@tack.func
def ce_helper_bad(x):
    y = x * 2.0
    return y + "s"  # ERR:helper


def test_error_inside_a_device_function_names_its_file_line():
    with pytest.raises(tack.CompileError) as ei:
        @tack.kernel
        def ce_calls_bad(a):
            for i in range(len(a)):
                a[i] = ce_helper_bad(a[i])
        ce_calls_bad(f32())
    # The error is in the device function; it may be reported under its name or the kernel's.
    check(ei.value, "helper", ("ce_helper_bad", "ce_calls_bad"), "string")


@tack.func
def ce_rec_a(x):
    return ce_rec_b(x) + 1.0


@tack.func
def ce_rec_b(x):
    return ce_rec_a(x) * 2.0


def test_recursion():
    with pytest.raises(tack.CompileError) as ei:
        @tack.kernel
        def ce_recursive(a):
            for i in range(len(a)):
                a[i] = ce_rec_a(a[i])
        ce_recursive(f32())
    assert "recursive" in str(ei.value)
    with open(HERE, encoding="utf-8") as f:
        lines = f.read().splitlines()
    assert "ce_rec_" in lines[ei.value.line - 1]  # a line of one of the two functions


class Holder:
    @staticmethod
    def make():
        @tack.kernel
        def ce_indented(a):
            for i in range(len(a)):
                a[i] = a[i] + None  # ERR:indented
        return ce_indented


def test_indented_definition_keeps_file_lines():
    with pytest.raises(tack.CompileError) as ei:
        Holder.make()(f32())
    check(ei.value, "indented", "ce_indented", "None")


def test_lambda():
    assert issubclass(tack.CompileError, Exception)
    with pytest.raises(tack.CompileError) as ei:
        @tack.kernel
        def ce_lambda(a):
            for i in range(len(a)):
                f = lambda v: v  # noqa: E731  # ERR:lambda
                a[i] = 0.0
        ce_lambda(f32())
    check(ei.value, "lambda", "ce_lambda", "lambda")


HELPER_MODULE = '''import tack


@tack.func
def ce_other_file_helper(v):
    w = v * 2.0
    return w + "oops"  # line 7 of this file
'''

KERNEL_MODULE = '''import tack
from ce_helpers_b import ce_other_file_helper


@tack.kernel
def ce_cross_file(x):
    for i in range(len(x)):
        x[i] = ce_other_file_helper(x[i])
'''


def test_error_in_a_helper_from_another_file_names_that_files_line(tmp_path, monkeypatch):
    (tmp_path / "ce_helpers_b.py").write_text(HELPER_MODULE)
    (tmp_path / "ce_kernel_a.py").write_text(KERNEL_MODULE)
    module = fresh_import(monkeypatch, tmp_path, "ce_kernel_a", "ce_helpers_b")
    with pytest.raises(tack.CompileError) as ei:
        module.ce_cross_file(f32())  # kernels compile at their first call
    e = ei.value
    assert "string" in str(e)
    assert e.line == 7
    assert e.file == str(tmp_path / "ce_helpers_b.py")
    assert str(e).startswith(f"kernel 'ce_other_file_helper', line 7 of {e.file}, column ")
    assert 'return w + "oops"' in str(e)


def test_error_in_the_kernel_next_to_a_helper_from_another_file_names_the_kernels_line(
        tmp_path, monkeypatch):
    # The helper's lines overlap the kernel's: the compiler sees the pieces one after another,
    # and the error is moved back to the kernel's own file and line.
    (tmp_path / "ce_helpers_c.py").write_text(HELPER_MODULE.replace(
        'return w + "oops"  # line 7 of this file', 'return w'))
    (tmp_path / "ce_kernel_c.py").write_text(KERNEL_MODULE.replace(
        "ce_helpers_b", "ce_helpers_c").replace("ce_cross_file", "ce_cross_file_c").replace(
        "x[i] = ce_other_file_helper(x[i])", "x[i] = ce_other_file_helper(x[i]) + 'k'"))
    module = fresh_import(monkeypatch, tmp_path, "ce_kernel_c", "ce_helpers_c")
    with pytest.raises(tack.CompileError) as ei:
        module.ce_cross_file_c(f32())
    e = ei.value
    assert e.line == 8
    assert e.file == str(tmp_path / "ce_kernel_c.py")
    assert str(e).startswith("kernel 'ce_cross_file_c', line 8, column ")
