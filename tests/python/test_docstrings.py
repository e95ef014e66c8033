"""Every public name of `tack` says what it is: a docstring beyond the signature nanobind writes
(the first-hour issue: `help(tack.zeros)` must help)."""
import tack


def public_names():
    return sorted(n for n in dir(tack) if not n.startswith("_"))


def doc_of(obj):
    doc = (getattr(obj, "__doc__", None) or "").strip()
    if type(obj).__name__ in ("nb_func", "nb_method"):
        # nanobind's first paragraph is the signature; the documentation follows it.
        doc = doc.split("\n\n", 1)[1].strip() if "\n\n" in doc else ""
    return doc


def test_every_public_name_has_a_docstring():
    undocumented = []
    for name in public_names():
        obj = getattr(tack, name)
        kind = type(obj).__name__
        if kind in ("DType", "Device", "str", "int"):  # values: tack.f32, tack.__version__
            continue
        if not doc_of(obj):
            undocumented.append(f"{name} ({kind})")
    assert not undocumented, "no docstring: " + ", ".join(undocumented)


def test_the_dtypes_and_modules_say_what_they_are():
    assert "element type" in tack.DType.__doc__
    for module in (tack.math, tack.random, tack.arrays):
        assert (module.__doc__ or "").strip(), module.__name__
