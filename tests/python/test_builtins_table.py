"""The kernel language's builtin table (src/lowering/builtins/) is what the package's kernel-only
names and docs/language.md's index are generated from: the generated files are current, every
stub is in the package and refuses to run outside kernels, and the table's names are the ones
kernels compile."""
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import tack
from tack import _tack

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_the_generated_files_are_current():
    r = subprocess.run([sys.executable, str(ROOT / "tools/gen_builtins.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_every_stub_is_a_kernel_only_name_of_the_package():
    stubs = [s for b in _tack._builtins() for s in b["stubs"]]
    assert "tack.atomic_add" in stubs and "tack.math.fract" in stubs
    for spelling in stubs:
        obj = tack
        for part in spelling.split(".")[1:]:
            obj = getattr(obj, part)
        assert obj.__tack_builtin__ == spelling
        with pytest.raises(TypeError, match="part of the kernel language"):
            obj(1)


def test_a_host_function_is_never_a_stub():
    # tack.dot is the host's dot product of arrays; in kernels it is the vectors' (tack.math.dot).
    x = tack.array(np.arange(3, dtype=np.float64))
    assert float(tack.dot(x, x)) == 5.0
    assert "tack.dot" in [n for b in _tack._builtins() for n in b["names"]]


def test_unknown_random_functions_list_the_tables_names():
    src = "def k(x):\n    for i in range(len(x)):\n        s = tack.random.seed(1, i)\n        s, u = tack.random.uniformly(s)\n"
    with pytest.raises(tack.CompileError) as e:
        tack.kernel_from_source(src)(tack.zeros(4))
    names = [b["names"][0].split(".")[-1] for b in _tack._builtins() if b["family"] == "random"]
    assert "tack.random has " + ", ".join(names[:-1]) + " and " + names[-1] in str(e.value)
