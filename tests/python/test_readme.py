"""The Python snippets of the documentation run as written. A page's blocks run in order as one
script (later ones use what earlier ones define); a block in doctest form (`>>>` lines) is
checked by doctest, its printed results included, in the same namespace. The README's C++
snippet is compiled and run by tools/check_install.sh against the installed package. A block whose
first line is a comment naming a Python file (`# mylib.py`) is that module: it is written beside
the script, which can import it."""
import os
import pathlib
import re
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

PAGES = ["README.md", "docs/getting-started.md", "docs/algorithms.md", "docs/devices.md",
         "docs/kernels.md", "docs/memory-model.md", "docs/language.md", "docs/python-api.md",
         "docs/dataset.md"]

_RUN_DOCTEST = '''
def _doctest(text, names):
    import doctest
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    test = parser.get_doctest(text, names, "doc block", None, 0)
    runner.run(test, clear_globs=False)
    names.update(test.globs)  # the test ran on a copy of the names
    if runner.failures:
        raise SystemExit(f"{runner.failures} doctest example(s) failed")
'''


def script_of(page, folder):
    """The page's Python blocks as one script; the modules it shows are written into folder."""
    text = (ROOT / page).read_text()
    # A block may be indented (inside a list item): its fence's indentation is removed.
    blocks = [textwrap.dedent(m.group(2)) for m in
              re.finditer(r"^( *)```python\n(.*?)^ *```", text, flags=re.S | re.M)]
    assert blocks, f"no ```python block in {page}"
    parts = []
    for block in blocks:
        module = re.match(r"# (\w+\.py)\n", block)
        if module:
            (folder / module.group(1)).write_text(block)
        elif block.lstrip().startswith(">>>"):
            parts.append(f"_doctest({block!r}, globals())\n")
        else:
            parts.append(block)
    return _RUN_DOCTEST + "\n".join(parts)


@pytest.mark.parametrize("page", PAGES)
def test_the_pages_python_snippets_run(page, tmp_path):
    script = tmp_path / "snippets.py"
    script.write_text(script_of(page, tmp_path))  # a file: kernels compile from their source
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                       timeout=300, env=dict(os.environ))
    assert r.returncode == 0, r.stdout + r.stderr


def test_every_page_with_python_is_checked():
    """A page of docs/ that shows Python is in the list above."""
    pages = [p for p in ["README.md"] + sorted(str(q.relative_to(ROOT)) for q in (ROOT / "docs").glob("*.md"))
             if "```python" in (ROOT / p).read_text()]
    assert sorted(pages) == sorted(PAGES)
