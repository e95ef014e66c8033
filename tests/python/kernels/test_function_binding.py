"""Device functions reached by another name (docs/language.md, "Device functions"): the call
form tack.func(g), an alias (h = some_func), a module attribute (kernel_helpers.scale), each
reading its own module's globals; errors inside a helper of another module name its file and
line."""
import numpy as np
import pytest

import tack
import kernel_helpers
from kernel_helpers import offset as shift
from kutil import arr, zeros

FACTOR = 100.0  # not the helper module's FACTOR


def double_plain(v):
    return v * 2.0


double = tack.func(double_plain)
twice = double


@tack.kernel
def fb_kernel(x, out):
    for i in range(len(x)):
        out[i] = kernel_helpers.scale(x[i]) + shift(x[i]) + twice(x[i]) + double(1.0)


def test_call_form_alias_and_module_attribute():
    x = np.arange(5, dtype=np.float32)
    out = zeros(5, np.float32)
    fb_kernel(arr(x), out)
    np.testing.assert_array_equal(out.numpy(), x * 3.0 + (x + 0.5) + x * 2.0 + 2.0)


def test_an_error_in_a_helper_names_its_own_file_and_line():
    @tack.kernel
    def fb_bad(x):
        for i in range(len(x)):
            x[i] = kernel_helpers.broken(x[i])

    with pytest.raises(tack.CompileError) as ei:
        fb_bad(zeros(2, np.float32))
    assert ei.value.file.endswith("kernel_helpers.py")
    assert ei.value.line == 22
    assert "inlined from line" in str(ei.value)


def test_tack_func_of_a_func_is_itself():
    assert tack.func(double) is double


@tack.kernel
def fb_plain(x):
    for i in range(len(x)):
        x[i] = double(x[i])


def test_a_kernel_without_constants_keeps_the_kernel_compiled_built():
    first = fb_plain.compiled
    variants = first.variant_count  # (one per device the suite has run it on)
    x = arr(np.ones(2, np.float32))
    fb_plain(x)
    fb_plain(x)
    assert fb_plain.compiled is first and first.variant_count == variants + 1
    np.testing.assert_array_equal(x.numpy(), [4.0, 4.0])


import kernel_helpers_b  # noqa: E402


@tack.kernel
def fb_two_helpers(x, out):
    for i in range(len(x)):
        out[i] = (kernel_helpers.helper(x[i]) + kernel_helpers_b.helper(x[i]) * 1000.0 +
                  kernel_helpers_b.uses_helper(x[i]) * 100000.0)


def test_two_device_functions_of_one_name_from_two_modules():
    # Each call reaches the object its name refers to: a.helper is x*3+1, b.helper x*10 (and
    # b.uses_helper calls b's own helper by its bare name). Before, the first one found was
    # used for every call of that name.
    x = np.arange(1, 5, dtype=np.float32)
    out = zeros(4, np.float32)
    fb_two_helpers(arr(x), out)
    expect = (x * 3 + 1) + (x * 10) * 1000 + (x * 10 + 100) * 100000
    np.testing.assert_allclose(out.numpy(), expect, rtol=1e-6)


def test_a_closure_device_function_beside_a_module_one_of_the_same_name():
    @tack.func
    def helper(v):
        return v - 7.0

    @tack.kernel
    def fb_closure(x, out):
        for i in range(len(x)):
            out[i] = helper(x[i]) * 10.0 + kernel_helpers.helper(x[i])

    x = np.arange(3, dtype=np.float32)
    out = zeros(3, np.float32)
    fb_closure(arr(x), out)
    np.testing.assert_allclose(out.numpy(), (x - 7) * 10 + (x * 3 + 1))


def test_one_device_function_called_by_two_names_is_inlined_once():
    alias = kernel_helpers.helper

    @tack.kernel
    def fb_same(x, out):
        for i in range(len(x)):
            out[i] = alias(x[i]) + kernel_helpers.helper(x[i])

    x = np.arange(3, dtype=np.float32)
    out = zeros(3, np.float32)
    fb_same(arr(x), out)
    np.testing.assert_allclose(out.numpy(), 2 * (x * 3 + 1))
    assert fb_same._pieces.count(fb_same._pieces[-1]) == 1 and len(fb_same._pieces) == 2
