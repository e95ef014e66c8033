"""@tack.data_oriented classes as template arguments (docs/language.md, "Data-oriented
classes"): instance arrays are array arguments, instance numbers runtime scalars (a changed value
does not recompile), class constants compile-time constants (a changed one does), @tack.func
methods device functions with `self` bound, @tack.kernel methods take the object as `self`."""
import numpy as np
import pytest

import tack
from kutil import arr, zeros


@tack.data_oriented
class Axis:
    SCALE = 2  # a class constant: compiled in

    def __init__(self, n, x0, dx):
        self.n = n  # instance numbers: runtime values
        self.x0 = x0
        self.dx = dx
        self.weights = arr(np.arange(n, dtype=np.float32))  # an instance array: an argument
        self.label = "not seen by kernels"

    @tack.func
    def x(self, i):
        return self.x0 + float(i) * self.dx

    @tack.func
    def weighted(self, i):
        return self.x(i) * self.weights[i] * self.SCALE  # methods call methods


@tack.kernel
def tp_fill(axis, out):
    for i in range(axis.n):
        out[i] = axis.weighted(i) + axis.SCALE


def reference(n, x0, dx, scale=2):
    i = np.arange(n)
    return (x0 + i * dx) * i * scale + scale


def test_methods_fields_and_constants():
    out = zeros(6, np.float32)
    tp_fill(Axis(6, 1.0, 0.5), out)
    np.testing.assert_allclose(out.numpy(), reference(6, 1.0, 0.5))


def test_instance_numbers_are_runtime_values():
    out = zeros(6, np.float32)
    tp_fill(Axis(6, 1.0, 0.5), out)
    derived = list(tp_fill._derived.values())
    variants = derived[0].variant_count  # (one per device the suite has run it on)
    tp_fill(Axis(6, -3.0, 0.25), out)  # other values: the same kernel and variant
    np.testing.assert_allclose(out.numpy(), reference(6, -3.0, 0.25))
    assert list(tp_fill._derived.values()) == derived
    assert derived[0].variant_count == variants


def test_class_constants_are_compiled_in():
    out = zeros(4, np.float32)
    old = Axis.SCALE
    try:
        Axis.SCALE = 3
        tp_fill(Axis(4, 1.0, 1.0), out)
        np.testing.assert_allclose(out.numpy(), reference(4, 1.0, 1.0, 3))
    finally:
        Axis.SCALE = old
    tp_fill(Axis(4, 1.0, 1.0), out)
    np.testing.assert_allclose(out.numpy(), reference(4, 1.0, 1.0, 2))


@tack.data_oriented
class Particles:
    def __init__(self, n, speed):
        self.pos = zeros(n, np.float32)
        self.speed = speed

    @tack.kernel
    def step(self, dt):
        for i in range(len(self.pos)):
            self.pos[i] += self.speed * dt


def test_kernels_as_methods():
    p = Particles(5, 2.0)
    p.step(0.5)
    p.step(0.25)
    np.testing.assert_allclose(p.pos.numpy(), 1.5)


@tack.kernel
def tp_annotated(obj: tack.template(), out):
    for i in range(len(out)):
        out[i] = tack.f32(i) * 0.0 + 1.0


def test_the_template_annotation_and_bad_arguments():
    out = zeros(3, np.float32)
    tp_annotated(Particles(2, 1.0), out)  # a template used by no attribute still flattens
    np.testing.assert_array_equal(out.numpy(), [1, 1, 1])
    with pytest.raises(TypeError, match="@tack.data_oriented class; got float"):
        tp_fill(1.5, out)
    with pytest.raises(TypeError, match="takes 2 argument"):
        tp_fill(Axis(3, 0.0, 1.0))

    @tack.kernel
    def tp_unknown(axis, out):
        for i in range(len(out)):
            out[i] = axis.label
    with pytest.raises(AttributeError, match="has no attribute 'label' a kernel can use"):
        tp_unknown(Axis(3, 0.0, 1.0), out)


@pytest.mark.cpu_only("wraps host memory (array_from_ptr over a host address)")
def test_an_instance_array_keeps_the_memory_model():
    p = Particles(4, 1.0)
    backing = np.zeros(4, np.float32)
    p.pos = tack.array_from_ptr(backing, tack.f32, 4)  # read-only
    with pytest.raises(ValueError, match="read-only"):
        p.step(1.0)
    assert not backing.any()


@tack.data_oriented
class Pair:
    BIG = float("inf")
    HALF = np.float32(0.5)
    NAN = float("nan")

    def __init__(self, a, b, flip=False):
        if flip:
            self.b = b
            self.a = a
        else:
            self.a = a
            self.b = b

    @tack.func
    def diff(self):
        return self.a[0] - self.b[0]


@tack.kernel
def tp_two_layouts(p, q, out):
    for i in range(1):
        out[0] = p.diff()
        out[1] = q.diff()
        out[2] = min(p.BIG, 3.0) + p.HALF
        out[3] = 1.0 if p.NAN != p.NAN else 0.0


def test_methods_are_made_per_layout_and_constants_of_every_kind_compile():
    a, b = arr(np.array([5.0], np.float32)), arr(np.array([1.0], np.float32))
    out = zeros(4, np.float32)
    tp_two_layouts(Pair(a, b), Pair(a, b, flip=True), out)  # fields in two orders
    np.testing.assert_array_equal(out.numpy(), [4.0, 4.0, 3.5, 1.0])


def _field_class(factor):
    # Each call makes another class named Field with a method `value` and reading its own
    # `helper`: the same names, different objects.
    @tack.func
    def helper(v):
        return v * factor

    @tack.data_oriented
    class Field:
        def __init__(self, a):
            self.a = a

        @tack.func
        def value(self, i):
            return helper(self.a[i])

    return Field


def test_two_classes_of_one_name_with_methods_of_one_name():
    first, second = _field_class(2.0), _field_class(5.0)

    @tack.kernel
    def tp_two(p, q, out):
        for i in range(len(out)):
            out[i] = p.value(i) + q.value(i) * 100.0

    x = np.arange(4, dtype=np.float32)
    out = zeros(4, np.float32)
    tp_two(first(arr(x)), second(arr(x)), out)
    np.testing.assert_allclose(out.numpy(), x * 2 + x * 5 * 100)
