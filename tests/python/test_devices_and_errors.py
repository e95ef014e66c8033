"""Devices, and the mapping of Tack's C++ exceptions to Python's."""
import os
import subprocess
import sys

import pytest

import tack


def test_devices():
    ds = tack.devices()
    assert tack.device("cpu") in ds
    cpu = tack.device("cpu")
    assert cpu.name == "cpu" and cpu.kind == "cpu"
    assert repr(cpu) == "tack.device('cpu')"
    assert str(cpu) == "cpu"
    assert cpu == tack.device("cpu")
    assert hash(cpu) == hash(tack.device("cpu"))
    assert cpu != "cpu"
    cpu.synchronize()
    tack.sync()


def test_every_listed_device(device):
    # tests/python/conftest.py runs this once per device, as the default device.
    assert tack.device(device.name) == device
    assert device.kind in ("cpu", "opencl", "cuda")
    assert repr(device) == f"tack.device('{device.name}')" and str(device) == device.name
    assert tack.default_device() == device
    a = tack.zeros(3)
    assert a.device == device
    device.synchronize()
    if device.kind != "cpu":
        assert tack.device(device.kind) == tack.device(device.kind + ":0")
        assert tack.devices()[0] == tack.device("cpu")  # the CPU stays first


def test_default_device():
    before = tack.default_device()
    tack.set_default_device("cpu")
    assert tack.default_device() == tack.device("cpu")
    tack.set_default_device(before)
    assert tack.zeros(1).device == before


def _run_with_tack_device(value, code):
    env = dict(os.environ, TACK_DEVICE=value)
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                           timeout=120)


@pytest.mark.parametrize("name", [d.name for d in tack.devices()] + ["cpu"])
def test_tack_device_environment_variable_picks_the_default(name):
    # Read once, when the device list is first made: a program runs unchanged on another device.
    r = _run_with_tack_device(name, "import tack; print(tack.default_device().name, "
                                    "tack.zeros(2).device.name)")
    assert r.returncode == 0, r.stderr
    want = tack.device(name).name
    assert r.stdout.split() == [want, want]


def test_tack_device_naming_no_device_is_a_clear_error_until_one_is_set():
    r = _run_with_tack_device("gpu9", """
import tack
names = [d.name for d in tack.devices()]   # listing still works
assert names[0] == "cpu", names
try:
    tack.zeros(2)
except ValueError as e:
    print("ValueError:", e)
tack.set_default_device("cpu")
print(tack.zeros(2).device.name)
""")
    assert r.returncode == 0, r.stderr
    assert ("ValueError: TACK_DEVICE='gpu9' names no device present; the devices present are 'cpu'"
            in r.stdout), r.stdout
    assert "(unset TACK_DEVICE or set it to one of them)" in r.stdout
    assert r.stdout.splitlines()[-1] == "cpu"


def test_unknown_device():
    with pytest.raises(ValueError, match=r"no device named 'gpu9'; the devices present are"):
        tack.device("gpu9")


@pytest.mark.parametrize(
    "kind, exception",
    [
        ("type", TypeError),
        ("value", ValueError),
        ("index", IndexError),
        ("runtime", RuntimeError),
        ("buffer", BufferError),
        ("internal", RuntimeError),
    ],
)
def test_cpp_errors_map_to_python_builtins(kind, exception):
    with pytest.raises(exception, match=rf"^message for {kind}$") as info:
        tack._tack._raise_for_test(kind, f"message for {kind}")
    assert type(info.value) is exception


def test_a_cpp_key_error_is_pythons():
    with pytest.raises(KeyError) as info:
        tack._tack._raise_for_test("key", "message for key")
    assert type(info.value) is KeyError and info.value.args == ("message for key",)


def test_compile_error():
    assert issubclass(tack.CompileError, Exception)
    assert not issubclass(tack.CompileError, RuntimeError)
    with pytest.raises(tack.CompileError, match=r"kernel 'saxpy', line 3, column 9: name 'q' is "
                                                r"not defined") as info:
        tack._tack._raise_for_test("compile", "name 'q' is not defined")
    e = info.value
    assert (e.kernel, e.line, e.column) == ("saxpy", 3, 9)
    assert e.message == "name 'q' is not defined"
    assert "y[i] = a * x[i] + q" in str(e)


def test_a_cpu_only_program_never_loads_a_device_driver(tmp_path):
    # Devices other than the CPU are discovered on first need (docs/design/cpu_limits.md): a
    # program that only makes CPU arrays and runs CPU kernels never loads the OpenCL library.
    code = """
import tack
a = tack.zeros(8, dtype=tack.f32)
@tack.kernel
def inc(x):
    for i in range(len(x)):
        x[i] += 1.0
inc(a)
tack.sync()
maps = open('/proc/self/maps').read()
print('OPENCL' if 'libOpenCL' in maps else 'NONE', a.numpy().sum())
print(len(tack.devices()) >= 1, 'libOpenCL' in open('/proc/self/maps').read())
"""
    env = dict(os.environ)
    env.pop("TACK_DEVICE", None)
    script = tmp_path / "cpu_only.py"  # a file: kernels are read from their source
    script.write_text(code)
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    out = run.stdout.split("\n")
    assert out[0] == "NONE 8.0", out
    opencl_present = any(d.kind == "opencl" for d in tack.devices())
    assert out[1] == f"True {opencl_present}", out  # the device list does look
