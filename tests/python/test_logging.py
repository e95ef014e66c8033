"""Compile and cache events (docs/kernels.md, "Logging"): each kernel compiled, or loaded from the
disk cache instead, is reported with its name, device, signature and time -- to Python's `tack`
logger (INFO) after the call, and to stderr under TACK_LOG=1."""
import logging
import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import tack

EVENT = (r"kernel 'lg_scale' \(x: array<f32, 1>, s: f32\) on cpu( \(disjoint arrays\))?: "
         r"(compiled( \(quick build; the optimized build follows in the background\))?"
         r"|loaded from the disk cache \((linked image|object, linked)\)) in [0-9.]+ ms")


@tack.kernel
def lg_scale(x, s):
    for i in range(len(x)):
        x[i] = x[i] * s


def test_python_logging_reports_each_compile(caplog):
    with caplog.at_level(logging.INFO, logger="tack"):
        lg_scale(tack.zeros(8, device="cpu"), 2.0)
    messages = [r.getMessage() for r in caplog.records if r.name == "tack"]
    assert any(__import__("re").fullmatch(EVENT, m) for m in messages), messages
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="tack"):
        lg_scale(tack.zeros(8, device="cpu"), 3.0)  # the variant is known: nothing to report
    later = [r.getMessage() for r in caplog.records if r.name == "tack"]
    if any("quick build" in m for m in messages):  # its optimized build, reported once
        assert len(messages) + len(later) == 2, messages + later
        assert all(__import__("re").fullmatch(EVENT, m) and "quick" not in m
                   for m in messages[1:] + later), messages + later
    else:
        assert not later, later


def test_a_call_that_raises_still_reports_its_compile(caplog):
    @tack.kernel(debug=True)
    def lg_past(x):
        for i in range(len(x)):
            x[i] = x[i + 1]

    with caplog.at_level(logging.INFO, logger="tack"):
        with pytest.raises(IndexError):
            lg_past(tack.zeros(4, device="cpu"))
    assert any("kernel 'lg_past'" in r.getMessage() for r in caplog.records), caplog.records


def test_opencl_builds_are_reported(caplog):
    devices = [d for d in tack.devices() if d.kind == "opencl"]
    if not devices:
        return
    with caplog.at_level(logging.INFO, logger="tack"):
        lg_scale(tack.zeros(8, device=devices[0]), 2.0)
        tack.sync()
    messages = [r.getMessage() for r in caplog.records if r.name == "tack"]
    assert any("on " + devices[0].name + ": built by the OpenCL driver in" in m
               for m in messages), messages


SCRIPT = textwrap.dedent("""
    import tack

    @tack.kernel
    def lg_scale(x, s):
        for i in range(len(x)):
            x[i] = x[i] * s

    lg_scale(tack.zeros(8, device="cpu"), 2.0)
""")


def test_tack_log_prints_compiles_then_cache_loads(tmp_path):
    script = tmp_path / "k.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, TACK_LOG="1", TACK_CACHE_DIR=str(tmp_path / "cache"))
    first = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                           timeout=120)
    assert first.returncode == 0, first.stderr
    assert "tack: kernel 'lg_scale' (x: array<f32, 1>, s: f32) on cpu" in first.stderr
    assert ": compiled in " in first.stderr
    second = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                            text=True, timeout=120)
    assert second.returncode == 0, second.stderr
    assert ": loaded from the disk cache (linked image) in " in second.stderr, second.stderr
    quiet = subprocess.run([sys.executable, str(script)],
                           env={k: v for k, v in env.items() if k != "TACK_LOG"},
                           capture_output=True, text=True, timeout=120)
    assert "tack:" not in quiet.stderr


def test_tack_perf_map_names_each_linked_kernel(tmp_path):
    """TACK_PERF_MAP=1 appends each linked kernel's address, size and name to
    /tmp/perf-PID.map (perf's file for JIT code); without it nothing is written."""
    script = tmp_path / "k.py"
    script.write_text(SCRIPT + "\nimport os\nprint(os.getpid())\n")
    env = dict(os.environ, TACK_PERF_MAP="1", TACK_CACHE_DIR="", TACK_TIERED_COMPILE="0")
    run = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    path = f"/tmp/perf-{run.stdout.split()[-1]}.map"
    try:
        lines = open(path).read().splitlines()
    finally:
        if os.path.exists(path):
            os.remove(path)
    named = [line.split() for line in lines if line.endswith(" tack_chunk_lg_scale")]
    assert named, lines
    start, size = int(named[0][0], 16), int(named[0][1], 16)
    assert start > 0 and size > 0
    env.pop("TACK_PERF_MAP")
    began = time.time()
    run = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                         timeout=120)
    path = f"/tmp/perf-{run.stdout.split()[-1]}.map"
    # (a file of an earlier process of the same id may be there: it must not be new)
    assert not os.path.exists(path) or os.path.getmtime(path) < began


def test_import_leaves_logging_alone_and_a_later_logger_still_hears(tmp_path):
    # `import tack` does not import logging (docs/performance.md, "Import"); the events of
    # calls made before it is imported go nowhere (no handler could be listening), and once a
    # program imports and configures it, the next compile is reported.
    script = textwrap.dedent("""
        import sys, tack
        assert "logging" not in sys.modules, "import tack imported logging"

        @tack.kernel
        def before(x):
            for i in range(len(x)):
                x[i] = 1.0

        before(tack.zeros(4, device="cpu"))
        import logging
        seen = []
        handler = logging.Handler()
        handler.emit = lambda r: seen.append(r.getMessage())
        logging.getLogger("tack").addHandler(handler)
        logging.getLogger("tack").setLevel(logging.INFO)

        @tack.kernel
        def after(x):
            for i in range(len(x)):
                x[i] = 2.0

        after(tack.zeros(4, device="cpu"))
        assert any("kernel 'after'" in m for m in seen), seen
        # 'before''s first compile was before logging: dropped. Its optimized build, finished
        # in the background since, may be reported.
        assert not any("kernel 'before'" in m and "quick" in m for m in seen), seen
        print("ok")
    """)
    path = tmp_path / "later_logger.py"  # a file: kernels read their source from it
    path.write_text(script)
    env = dict(os.environ, TACK_CACHE_DIR="")
    r = subprocess.run([sys.executable, str(path)], env=env, capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr
    assert "leaked" not in r.stderr, r.stderr  # the logger's handler let go at exit
