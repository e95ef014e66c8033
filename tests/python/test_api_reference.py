"""docs/api.md, the Python API reference, is checked against the package: every public name of
tack (and of tack.arrays, tack.math, tack.random) has its entry, and no entry names something
the package no longer has. (The page's text is tools/gen_api.py's; signatures are compared by
name only, so a new nanobind's spelling of a type does not fail the check.)"""
import io
import pathlib
import re
import runpy

ROOT = pathlib.Path(__file__).resolve().parents[2]


def headings(text):
    return set(re.findall(r"^### (?:class )?`([^`]+)`", text, flags=re.M))


def test_the_api_reference_lists_exactly_the_packages_names():
    gen = runpy.run_path(str(ROOT / "tools" / "gen_api.py"))
    out = io.StringIO()
    gen["main"](out)
    want = headings(out.getvalue())
    have = headings((ROOT / "docs" / "api.md").read_text())
    assert want, "gen_api.py wrote no entries"
    missing, stale = sorted(want - have), sorted(have - want)
    assert not missing and not stale, (
        f"docs/api.md is out of date (missing {missing}, no longer in the package {stale}); "
        "regenerate it: PYTHONPATH=build/dev/python .venv/bin/python tools/gen_api.py > docs/api.md")
