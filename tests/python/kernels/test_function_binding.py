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
    x = arr(np.ones(2, np.float32))
    fb_plain(x)
    fb_plain(x)
    assert fb_plain.compiled is first and first.variant_count == 1
    np.testing.assert_array_equal(x.numpy(), [4.0, 4.0])
