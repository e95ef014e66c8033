"""@tack.kernel(...) options: debug=True turns on debug mode for one kernel (its launches check
every index and assert) while the process-wide mode stays off; @tack.kernel() without options is
@tack.kernel; anything but a function is a TypeError that says how to write it."""
import numpy as np
import pytest

import tack
from kutil import arr, zeros


@tack.kernel(debug=True)
def ko_checked(a, out):
    for i in range(len(out)):
        out[i] = a[i + 1]


@tack.kernel
def ko_plain(a, out):
    for i in range(len(out)):
        out[i] = a[i + 1]


@tack.kernel()
def ko_empty_options(out):
    for i in range(len(out)):
        out[i] = i


def test_debug_true_checks_this_kernel_alone():
    assert not tack.debug()
    a = arr(np.arange(4, dtype=np.float32))
    out = zeros(4, np.float32)
    with pytest.raises(IndexError, match=r"kernel 'ko_checked': index 4 is out of bounds"):
        ko_checked(a, out)
    np.testing.assert_array_equal(out.numpy(), [1, 2, 3, 0])  # the bad access was skipped
    assert ko_checked.compiled.debug and not ko_plain.compiled.debug
    # The other kernel's code has no checks (an in-bounds call, so it is well defined).
    shorter = zeros(3, np.float32)
    ko_plain(a, shorter)
    np.testing.assert_array_equal(shorter.numpy(), [1, 2, 3])
    assert (tack.inspect(ko_checked, a, shorter, mode="source") !=
            tack.inspect(ko_plain, a, shorter, mode="source"))


def test_empty_options_are_the_plain_decorator():
    out = zeros(3, np.int32)
    ko_empty_options(out)
    np.testing.assert_array_equal(out.numpy(), [0, 1, 2])


def test_a_non_function_is_refused_with_the_spelling():
    with pytest.raises(TypeError, match=r"write @tack.kernel or @tack.kernel\(debug=True\)"):
        tack.kernel(42)
