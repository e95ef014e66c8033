"""A crash inside a kernel without debug mode says what it was: the fault handler sees the
faulting instruction in a loaded kernel's code and prints, before the process ends with the
signal as it would have, that a Tack kernel crashed and to rerun with TACK_DEBUG=1. A fault
elsewhere prints nothing of Tack's; with TACK_DEBUG=1 the same kernel raises IndexError."""
import os
import signal
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import sys, tack

    @tack.kernel
    def cr_far(x):
        for i in range(len(x)):
            x[i + 1099511627776] = 1.0   # 4 TiB past the array

    @tack.kernel
    def cr_far_zero(x):
        for i in range(len(x)):
            x[i + 1099511627776] = 0.0   # a zero fill: LLVM may make it a memset call

    x = tack.zeros(16, device="cpu")
    if sys.argv[1] == "kernel":
        cr_far(x)
    elif sys.argv[1] == "memset":
        cr_far_zero(tack.zeros(100000, device="cpu"))
    elif sys.argv[1] == "kill":
        cr_far(tack.zeros(0, device="cpu"))   # the handler is installed
        import os, signal
        os.kill(os.getpid(), signal.SIGSEGV)  # not a fault: still ends the process
    else:
        cr_far(tack.zeros(0, device="cpu"))   # loads the kernel, runs nothing
        import ctypes
        ctypes.string_at(16)                  # a fault outside any kernel
    print("survived")
""")


def run(tmp_path, which, **env):
    script = tmp_path / "crash.py"
    script.write_text(SCRIPT)
    full = {k: v for k, v in os.environ.items() if k not in ("TACK_DEBUG", "PYTHONFAULTHANDLER")}
    full.update(env)
    return subprocess.run([sys.executable, str(script), which], env=full, capture_output=True,
                          text=True, timeout=120)


def test_a_kernel_fault_names_tack_and_debug_mode(tmp_path):
    r = run(tmp_path, "kernel")
    assert r.returncode == -signal.SIGSEGV, (r.returncode, r.stderr)
    assert "a Tack kernel crashed" in r.stderr and "TACK_DEBUG=1" in r.stderr
    assert "survived" not in r.stdout


def test_a_fault_in_a_function_the_kernel_calls_is_the_kernels(tmp_path):
    r = run(tmp_path, "memset")
    assert r.returncode == -signal.SIGSEGV, (r.returncode, r.stderr)
    assert "a Tack kernel crashed" in r.stderr


def test_a_sent_segv_still_ends_the_process(tmp_path):
    r = run(tmp_path, "kill")
    assert r.returncode == -signal.SIGSEGV, (r.returncode, r.stderr)
    assert "survived" not in r.stdout and "Tack kernel" not in r.stderr


def test_a_fault_elsewhere_is_not_blamed_on_a_kernel(tmp_path):
    r = run(tmp_path, "elsewhere")
    assert r.returncode == -signal.SIGSEGV, (r.returncode, r.stderr)
    assert "Tack kernel" not in r.stderr


def test_debug_mode_turns_it_into_an_index_error(tmp_path):
    r = run(tmp_path, "kernel", TACK_DEBUG="1")
    assert r.returncode != 0 and "IndexError" in r.stderr and "cr_far" in r.stderr
