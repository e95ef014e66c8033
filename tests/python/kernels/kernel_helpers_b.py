"""A second module of device functions for test_function_binding.py: `helper` has the name of
kernel_helpers.helper and another body, and `uses_helper` calls this module's own by its bare
name."""
import tack

FACTOR = 10.0  # not kernel_helpers' FACTOR


@tack.func
def helper(v):
    return v * FACTOR


@tack.func
def uses_helper(v):
    return helper(v) + 100.0
