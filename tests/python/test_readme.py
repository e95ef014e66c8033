"""The Python snippets of the pages below run as written (each page's blocks in order, as one
script: later ones use what earlier ones define). The README's C++ snippet is compiled and run by
tools/check_install.sh against the installed package. docs/language.md and docs/python-api.md
still show fragments (a line of API, a doctest) and are not in the list yet."""
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


PAGES = ["README.md", "docs/getting-started.md", "docs/algorithms.md", "docs/devices.md",
         "docs/kernels.md", "docs/memory-model.md"]


@pytest.mark.parametrize("page", PAGES)
def test_the_pages_python_snippets_run(page, tmp_path):
    text = (ROOT / page).read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, f"no ```python block in {page}"
    script = tmp_path / "snippets.py"
    script.write_text("\n".join(blocks))  # a file: kernels are compiled from their source text
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                       timeout=300, env=dict(os.environ))
    assert r.returncode == 0, r.stdout + r.stderr
