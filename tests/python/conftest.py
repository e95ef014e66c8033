"""Shared helpers for the Python suite (run against a build: PYTHONPATH=build/<preset>/python).

Tests written once run on every device present: a test that uses the `device` fixture (directly
or through `pytestmark = pytest.mark.usefixtures("device")`) is instantiated once per entry of
`tack.devices()`, with the device's name in its id (``test_x[cpu]``, ``test_x[opencl:0]``), and
runs with that device as the default device. A rule that holds only on the CPU (host pointers,
NumPy's zero-copy DLPack) is marked ``@pytest.mark.cpu_only("why")``: it then runs on the CPU
alone; one that needs workgroups (tack.shared, barriers) ``@pytest.mark.workgroups_only("why")``:
it runs on the other devices alone.

TACK_TEST_DEVICE=<name> (e.g. "cuda", "opencl:0") runs the tests on that device alone (the GPU
check does); a name of no device present skips them, saying so."""
import gc
import os

import pytest

import tack


def _devices():
    name = os.environ.get("TACK_TEST_DEVICE", "").strip()
    if not name:
        return tack.devices(), ""
    try:
        return [tack.device(name)], ""
    except Exception as e:  # noqa: BLE001 - any failure means "absent"; the message says why
        return [], f"TACK_TEST_DEVICE={name!r}: no such device is present ({e})"


DEVICES, ABSENT = _devices()


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "cpu_only(reason): a rule that holds only on the CPU; runs there alone")
    config.addinivalue_line(
        "markers", "workgroups_only(reason): needs workgroups; runs on the devices that have "
        "them (every device but the CPU)")


def pytest_generate_tests(metafunc):
    if "device" not in metafunc.fixturenames:
        return
    devices = DEVICES
    if metafunc.definition.get_closest_marker("cpu_only") is not None:
        devices = [d for d in devices if d.kind == "cpu"]
    if metafunc.definition.get_closest_marker("workgroups_only") is not None:
        devices = [d for d in devices if d.kind != "cpu"]
    if not devices:
        why = ABSENT or "no device present runs it"
        metafunc.parametrize("device", [pytest.param(None, marks=pytest.mark.skip(reason=why))],
                             ids=["none"], indirect=True)
        return
    metafunc.parametrize("device", devices, ids=[d.name for d in devices], indirect=True)


@pytest.fixture
def device(request):
    """The device a test runs on, made the default device for the test's duration."""
    d = request.param
    # A parameter's own cpu_only / workgroups_only marks (pytest.param(..., marks=...)), which
    # the parametrization by device, made before the other parameters, cannot see.
    if request.node.get_closest_marker("cpu_only") is not None and d.kind != "cpu":
        pytest.skip(f"cpu_only on {d}: {request.node.get_closest_marker('cpu_only').args}")
    if request.node.get_closest_marker("workgroups_only") is not None and d.kind == "cpu":
        pytest.skip("workgroups_only: the CPU has no workgroups")
    previous = tack.default_device()
    tack.set_default_device(d)
    yield d
    tack.sync()
    tack.set_default_device(previous)


@pytest.fixture
def collect():
    """Runs the garbage collector so that dropped arrays are really gone before a check."""

    def run():
        for _ in range(3):
            gc.collect()

    return run
