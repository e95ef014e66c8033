"""Writes docs/api.md, the Python API reference, from the package itself: every public name of
`tack` (and of tack.arrays, tack.math, tack.random, tack.dataset), its signature and its
docstring.
tests/python/test_api_reference.py checks that the committed page is what this writes, so the
reference cannot drift from the package.

    PYTHONPATH=build/dev/python .venv/bin/python tools/gen_api.py > docs/api.md
"""
import inspect
import sys

import tack

MODULES = [("tack", tack), ("tack.arrays", tack.arrays), ("tack.math", tack.math),
           ("tack.random", tack.random), ("tack.dataset", tack.dataset)]
VALUES = ("DType", "Device", "str", "int", "module")


def nanobind_parts(doc):
    """nanobind's docstring: signature line(s), a blank line, then the documentation."""
    head, _, body = doc.partition("\n\n")
    return head.strip(), body.strip()


def entry(qualname, obj):
    kind = type(obj).__name__
    doc = (obj.__doc__ or "").strip()
    if kind in ("nb_func", "nb_method"):
        signature, body = nanobind_parts(doc)
        signatures = [line.strip() for line in signature.splitlines() if line.strip()]
        return [f"### `{qualname}`", ""] + [f"    {s}" for s in signatures] + ["", body, ""]
    if inspect.isclass(obj) or kind == "nb_type":
        lines = [f"### class `{qualname}`", "", doc, ""]
        members = []
        for name in sorted(vars(obj)):
            if name.startswith("_") and name not in ("__init__", "__call__", "__len__"):
                continue
            member = getattr(obj, name, None)
            member_doc = (getattr(member, "__doc__", None) or "").strip()
            if type(member).__name__ in ("nb_func", "nb_method"):
                member_doc = nanobind_parts(member_doc)[1] or nanobind_parts(member_doc)[0]
            if isinstance(vars(obj)[name], property):
                member_doc = (vars(obj)[name].__doc__ or "").strip()
            first = member_doc.splitlines()[0] if member_doc else ""
            members.append(f"* `{name}`" + (f": {first}" if first else ""))
        return lines + members + [""]
    if callable(obj):
        try:
            signature = f"{qualname}{inspect.signature(obj)}"
        except (TypeError, ValueError):
            signature = qualname
        return [f"### `{qualname}`", "", f"    {signature}", "", doc, ""]
    return []


def main(out):
    lines = ["# Python API reference", "",
             "Generated from the package by `tools/gen_api.py` (the test command checks that this "
             "page is what it writes). The C++ API has the same names (README.md, docs/*.md).", ""]
    for module_name, module in MODULES:
        lines += [f"## `{module_name}`", "", (module.__doc__ or "").strip(), ""]
        names = sorted(n for n in dir(module) if not n.startswith("_"))
        for name in names:
            obj = getattr(module, name)
            if type(obj).__name__ in VALUES:
                continue
            if module is not tack and getattr(obj, "__module__", "").startswith("tack") is False:
                continue
            lines += entry(f"{module_name}.{name}", obj)
    text = "\n".join(lines).rstrip() + "\n"
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    out.write(text)


if __name__ == "__main__":
    main(sys.stdout)
