"""Fixtures of the kernel conformance suite (tests/python/kernels): every test runs once per
device present (the `device` fixture of tests/python/conftest.py, which also honours
TACK_TEST_DEVICE and the cpu_only and workgroups_only markers), and starts and ends with the
dispatch switches at their defaults, so a test that turns on debug mode or turns off the CPU's
disjoint-arrays specialization cannot leak that into the next one."""
import pytest

import tack


@pytest.fixture(autouse=True)
def default_switches(device):
    tack.set_debug(False)
    tack.set_specialize_disjoint(True)
    yield
    tack.set_debug(False)
    tack.set_specialize_disjoint(True)


@pytest.fixture(params=[True, False], ids=["disjoint-on", "disjoint-off"])
def both_variants(request):
    """Runs a test with the CPU's disjoint-arrays specialization on, then off; yields the flag."""
    tack.set_specialize_disjoint(request.param)
    yield request.param
