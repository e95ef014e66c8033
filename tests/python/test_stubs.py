"""Type stubs ship with the package: _tack.pyi (nanobind's stubgen, run by the build on the built
module) and the py.typed marker, beside the module. Every public name of `tack` is declared there
or defined in the package's Python files, so a type checker knows all of `dir(tack)`."""
import ast
import pathlib

import tack
from tack import _tack


def declared(tree):
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def test_the_stubs_declare_every_public_name():
    package = pathlib.Path(_tack.__file__).parent
    stub = package / "_tack.pyi"
    assert stub.is_file(), f"no {stub}: the build writes it (python/CMakeLists.txt)"
    assert (package / "py.typed").is_file()
    in_stub = declared(ast.parse(stub.read_text()))
    missing = [n for n in dir(_tack) if not n.startswith("_") and n not in in_stub]
    assert not missing, f"_tack.pyi lacks {missing}"
    in_python = set()
    for source in package.glob("*.py"):
        in_python |= declared(ast.parse(source.read_text()))
    undeclared = [n for n in dir(tack) if not n.startswith("_")
                  and n not in in_stub and n not in in_python]
    assert not undeclared, f"neither stubbed nor defined in Python: {undeclared}"
