"""python -m tack (python/tack/__main__.py): the report a user runs first and a bug report
includes, and --check, which runs a kernel on every device."""
import os
import re
import subprocess
import sys

import pytest

import tack
import tack.__main__ as tack_main


def run(*args, env=None):
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join(sys.path)
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "tack", *args], env=e, capture_output=True,
                          text=True, timeout=180)


def test_the_report_names_version_llvm_threads_cache_and_devices(tmp_path):
    r = run(env={"TACK_CACHE_DIR": str(tmp_path / "cache"), "TACK_NUM_THREADS": "2"})
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert out.startswith(f"Tack {tack.__version__}\n")
    about = tack._tack._about()
    assert f"LLVM {about['llvm_version']}" in out and about["host_cpu"] in out
    assert "threads: 2 (TACK_NUM_THREADS" in out
    assert f"kernel cache: {tmp_path / 'cache'}" in out
    assert "devices:\n  cpu        (default)" in out
    for kind in about["device_kinds"]:
        assert f"\n  {kind}" in out  # each kind: its devices, or why it has none


def test_llvm_linked_in_is_asked_of_the_loader():
    # The dev build links the shared libLLVM, a wheel's libtack has LLVM inside: the report
    # says which from where LLVM's code is, so the same objects linked both ways each answer.
    # (An OpenCL platform may map its own LLVM, PoCL's libLLVM-15: only LLVM 19's counts.)
    with open("/proc/self/maps") as maps:
        shared_llvm = any(re.search(r"libLLVM[.-](so\.)?19", line) for line in maps)
    about = tack._tack._about()
    assert about["llvm_static"] is not shared_llvm
    expected = "linked into libtack" if about["llvm_static"] else "the system libLLVM"
    assert f"LLVM {about['llvm_version']} ({expected})" in run().stdout


def test_the_report_says_when_the_cache_is_off_and_how_full_it_is(tmp_path):
    assert "kernel cache: off (TACK_CACHE_DIR is empty)" in run(env={"TACK_CACHE_DIR": ""}).stdout
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    (cache / "a.bin").write_bytes(b"x" * 3 * 2**20)
    env = {"TACK_CACHE_DIR": str(cache)}
    assert (f"kernel cache: {cache} (1 files, 3.0 MiB; limit 2.0 GiB, TACK_CACHE_LIMIT)"
            in run(env=env).stdout)
    # Its limit (docs/design/cache_limit.md), as set; 0 is none.
    assert "3.0 MiB; limit 512.0 MiB," in run(env=dict(env, TACK_CACHE_LIMIT="512M")).stdout
    assert "3.0 MiB; no limit," in run(env=dict(env, TACK_CACHE_LIMIT="0")).stdout


def test_a_kind_without_devices_says_why(tmp_path):
    if "opencl" not in tack._tack._about()["device_kinds"]:
        pytest.skip("this build has no OpenCL kind")
    empty = tmp_path / "vendors"
    empty.mkdir()
    r = run(env={"OCL_ICD_VENDORS": str(empty)})
    assert r.returncode == 0, r.stderr
    assert f"opencl     none: no OpenCL driver registered in {empty}" in r.stdout
    about = tack._tack._about()
    if "cuda" in about["device_kinds"] and not any(d.kind == "cuda" for d in tack.devices()):
        assert "cuda       none: " in r.stdout


def test_check_runs_a_kernel_on_every_device():
    r = run("--check")
    assert r.returncode == 0, (r.stdout, r.stderr)
    check = r.stdout.split("check:\n", 1)[1]
    for d in tack.devices():
        assert f"  {d.name:10s} ok" in check


def test_check_reports_a_failing_device_and_fails(monkeypatch, capsys):
    def broken(*args):
        raise RuntimeError("the driver fell over")

    monkeypatch.setattr(tack_main, "_check_kernel", broken)
    assert tack_main.main(["--check"]) == 1
    out = capsys.readouterr().out
    assert "cpu        FAILED: RuntimeError: the driver fell over" in out


def test_the_report_names_the_nvrtc_it_found_or_why_none():
    # NVRTC compiles kernels for CUDA (docs/devices.md says where it is looked for): the report
    # names its version and file, or why none loads; a build without CUDA has no such line.
    if not tack._tack._about()["cuda"]:
        assert "NVRTC" not in run().stdout
        return
    found = tack._tack._nvrtc()
    out = run().stdout
    if found["version"]:
        assert f"  NVRTC {found['version']} ({found['path']}; TACK_NVRTC_LIBRARY)\n" in out
        assert os.path.isfile(found["path"])
    else:
        assert f"  NVRTC: none, {found['why']}\n" in out
    out = run(env={"TACK_NVRTC_LIBRARY": "/nonexistent/libnvrtc.so.12"}).stdout
    assert "  NVRTC: none, the NVRTC named (/nonexistent/libnvrtc.so.12) could not be loaded" in out
