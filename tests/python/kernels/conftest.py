"""Fixtures of the kernel conformance suite (tests/python/kernels): every test starts and ends
with the dispatch switches at their defaults, so a test that turns on debug mode or turns off the
CPU's disjoint-arrays specialization cannot leak that into the next one.

TACK_TEST_DEVICE=<name> (e.g. "opencl") runs the whole suite with tack.device(<name>) as the
default device (set before, restored after every test); if no such device is present, every test
of the suite is skipped with a message naming it. Tests marked @pytest.mark.cpu_only check rules
that hold only on the CPU and are skipped when the default device is not the CPU."""
import pytest

import tack

import kutil


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "cpu_only(reason): the test checks a rule that holds only on the CPU device (host-memory "
        "wrapping, the noalias/disjoint variants, LLVM inspect output, host DLPack zero-copy); "
        "skipped when TACK_TEST_DEVICE selects another default device")


@pytest.fixture(scope="session")
def test_device():
    """The device the suite runs on (TACK_TEST_DEVICE), or None for the unchanged default."""
    if not kutil.TEST_DEVICE_NAME:
        return None
    if kutil.TEST_DEVICE is None:
        pytest.skip(f"TACK_TEST_DEVICE={kutil.TEST_DEVICE_NAME!r}: no such device is present "
                    f"({kutil.TEST_DEVICE_ERROR})")
    return kutil.TEST_DEVICE


@pytest.fixture(autouse=True)
def default_device(request, test_device):
    previous = tack.default_device()
    if test_device is not None:
        tack.set_default_device(test_device)
    try:
        marker = request.node.get_closest_marker("cpu_only")
        if marker is not None and tack.default_device().kind != "cpu":
            why = marker.args[0] if marker.args else marker.kwargs.get("reason", "CPU-only rule")
            pytest.skip(f"cpu_only on {tack.default_device()}: {why}")
        yield
    finally:
        tack.set_default_device(previous)


@pytest.fixture(autouse=True)
def default_switches(default_device):
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
