"""Device functions in a module of their own, for test_function_binding.py: reached through the
module (kernel_helpers.scale(x)), one of them reading this module's own global."""
import tack

FACTOR = 3.0


@tack.func
def scale(v):
    return v * FACTOR


def offset_plain(v):  # no decorator: made a device function by the call form below
    return v + 0.5


offset = tack.func(offset_plain)


@tack.func
def broken(v):
    return v[0]  # a number indexed: the error names this file and line


@tack.func
def helper(v):  # kernel_helpers_b has a device function of the same name
    return v * FACTOR + 1.0
