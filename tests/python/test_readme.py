"""The README's Python snippets run as written (all of them, in order, as one script: later ones
use what earlier ones define). Its C++ snippet is compiled and run by tools/check_install.sh
against the installed package."""
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_the_readmes_python_snippets_run(tmp_path):
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "no ```python block in README.md"
    script = tmp_path / "readme_snippets.py"
    script.write_text("\n".join(blocks))  # a file: kernels are compiled from their source text
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                       timeout=300, env=dict(os.environ))
    assert r.returncode == 0, r.stdout + r.stderr
