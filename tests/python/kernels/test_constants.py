"""Python constants (docs/language.md, "Constants"): module globals and closure variables of
int, float and bool (and tuples of them), tack.constant(v, dtype) and NumPy scalars are
compile-time constants; a changed value compiles anew; a name the function assigns is its
local; anything else named in a kernel is a CompileError saying to pass it as an argument."""
import numpy as np
import pytest

import tack
from kutil import arr, zeros

C_SCALE = 3
C_OFFSET = 0.5
C_PAIR = (2, (1.5, True))
C_TYPED = tack.constant(7, tack.u8)
C_F64 = tack.constant(0.1, tack.f64)
C_NP = np.float32(0.25)
C_ARRAY = np.ones(3)
C_HUGE = 1 << 70


@tack.func
def c_helper(v):
    return v * C_SCALE + C_PAIR[1][0]


@tack.kernel
def c_uses_globals(x):
    for i in range(len(x)):
        a, (b, flag) = C_PAIR
        x[i] = (c_helper(x[i]) + C_OFFSET + a * b + C_TYPED) if flag else 0.0


def test_globals_are_constants_and_a_change_recompiles():
    global C_SCALE
    x = zeros(4, np.float32)
    c_uses_globals(x)
    np.testing.assert_array_equal(x.numpy(), np.full(4, 0 * 3 + 1.5 + 0.5 + 3 + 7, np.float32))
    saved = C_SCALE
    try:
        C_SCALE = 10
        c_uses_globals(x)
        np.testing.assert_array_equal(x.numpy(), np.full(4, 12 * 10 + 1.5 + 0.5 + 3 + 7))
        C_SCALE = 10.0  # equal, but a float: its own compilation (same result here)
        c_uses_globals(x)
        np.testing.assert_array_equal(x.numpy(), np.full(4, 132 * 10 + 12, np.float32))
    finally:
        C_SCALE = saved


@tack.kernel
def c_typed(x, out):
    for i in range(len(x)):
        out[i] = x[i] * C_F64 + C_NP


def test_typed_and_numpy_scalar_constants_keep_their_dtype():
    x = np.array([3.0, 1.0], np.float32)
    out = zeros(2, np.float64)
    c_typed(arr(x), out)
    # x * f64 0.1 is f64; + the f32 0.25 in f64
    np.testing.assert_array_equal(out.numpy(), x.astype(np.float64) * 0.1 + np.float64(0.25))
    assert "f64" in tack.inspect(c_typed, arr(x), out)


def make_closure_kernel(scale, shift):
    @tack.kernel
    def c_closure(x):
        for i in range(len(x)):
            x[i] = x[i] * scale + shift
    return c_closure


def test_closure_variables_are_constants():
    k1, k2 = make_closure_kernel(2, 1.0), make_closure_kernel(-1, 0.5)
    a, b = arr(np.arange(4, dtype=np.float32)), arr(np.arange(4, dtype=np.float32))
    k1(a)
    k2(b)
    np.testing.assert_array_equal(a.numpy(), np.arange(4) * 2 + 1.0)
    np.testing.assert_array_equal(b.numpy(), np.arange(4) * -1 + 0.5)


@tack.kernel
def c_shadowed(x):
    for i in range(len(x)):
        C_OFFSET = 4.0  # assigned in the function: Python makes it a local
        x[i] = C_OFFSET


def test_a_name_the_function_assigns_is_its_local():
    x = zeros(2, np.float32)
    c_shadowed(x)
    np.testing.assert_array_equal(x.numpy(), [4.0, 4.0])


def test_an_array_global_is_refused_with_what_to_do():
    @tack.kernel
    def c_reads_array(x):
        for i in range(len(x)):
            x[i] = C_ARRAY[0]

    with pytest.raises(tack.CompileError,
                       match=r"'C_ARRAY' is a numpy.ndarray outside the kernel.*pass 'C_ARRAY' "
                             r"as an argument"):
        c_reads_array(zeros(2, np.float32))


def test_an_int_beyond_64_bits_is_refused():
    @tack.kernel
    def c_reads_huge(x):
        for i in range(len(x)):
            x[i] = C_HUGE

    with pytest.raises(tack.CompileError, match="an int of more than 64 bits"):
        c_reads_huge(zeros(2, np.float32))


def test_a_typed_constant_must_fit_its_dtype():
    big = tack.constant(300, tack.u8)

    @tack.kernel
    def c_reads_big(x):
        for i in range(len(x)):
            x[i] = big

    with pytest.raises(tack.CompileError, match="300 of dtype u8, which does not fit"):
        c_reads_big(zeros(2, np.float32))


def test_tack_constant_checks_its_arguments():
    with pytest.raises(TypeError, match="tack.constant takes a number, or a sequence"):
        tack.constant("3", tack.f32)
    with pytest.raises(ValueError, match="a float constant needs a float dtype"):
        tack.constant(2.5, tack.i32)
    with pytest.raises(TypeError, match="tack.constant needs a scalar dtype"):
        tack.constant(3, "float16")
    assert repr(tack.constant(3, tack.f32)) == "tack.constant(3, f32)"
    assert tack.constant(3, np.int16).dtype == "int16"
    assert tack.constant(True, bool).dtype == "bool"


@tack.kernel
def c_compiled_first(x):
    for i in range(len(x)):
        x[i] = x[i] + C_OFFSET


def test_compiled_before_the_first_call_is_the_kernel_the_call_runs():
    # `compiled` builds the kernel; the first call must run that one, not build another.
    first = c_compiled_first.compiled
    variants = first.variant_count  # (one per device the suite has run it on)
    x = zeros(3, np.float32)
    c_compiled_first(x)
    assert c_compiled_first.compiled is first
    assert first.variant_count == variants + 1
    np.testing.assert_array_equal(x.numpy(), [0.5, 0.5, 0.5])


TC_OFFSET = (0.5, 0.25, 0.125)  # a module tuple of numbers: a vector in kernels
TC_ROT = ((0.0, -1.0), (1.0, 0.0))  # equal rows: a matrix
TC_SCALE = tack.constant((1.0, 2.0, 3.0), tack.f64)
TC_WEAK = tack.constant((1, 2))
TC_M = tack.constant(np.array([[1, 2], [3, 4]], np.float32))


@tack.kernel
def tc_vector_constants(x, out):
    for i in range(len(out)):
        v = tack.Vector([x[i], 1.0, 2.0]) + TC_OFFSET
        s = TC_SCALE * 2
        m = tack.Matrix.identity(2) @ (TC_M @ tack.Vector([1.0, 1.0]))
        r = TC_ROT @ tack.Vector([x[i], 0.0])
        a, b, c = TC_OFFSET
        out[i, 0] = v[0]
        out[i, 1] = s.z
        out[i, 2] = m[1]
        out[i, 3] = r[1]
        out[i, 4] = TC_WEAK[1] + TC_WEAK.x
        out[i, 5] = a + b + c + TC_OFFSET.y


def test_vector_and_matrix_constants():
    x = arr(np.array([1.0, 2.0], np.float32))
    out = arr(np.zeros((2, 6), np.float64))
    tc_vector_constants(x, out)
    assert out.numpy().tolist() == [[1.5, 6.0, 7.0, 1.0, 3.0, 1.125],
                                    [2.5, 6.0, 7.0, 2.0, 3.0, 1.125]]


@tack.kernel
def tc_identity(out):
    for i in range(len(out)):
        m = tack.Matrix.identity(3, tack.i32)
        f = tack.Matrix.identity(2) * 2.5
        out[i] = m[0, 0] + m[1, 1] + m[2, 2] + m[0, 1] + f[1, 1] + f[1, 0]


def test_matrix_identity():
    out = arr(np.zeros(2, np.float32))
    tc_identity(out)
    assert out.numpy().tolist() == [5.5, 5.5]


@pytest.mark.parametrize("value, dtype, error, message", [
    ((1, 2, 3, 4, 5), None, ValueError, "1 to 4 components or rows; this has 5"),
    (((1, 2), (3,)), None, ValueError, r"rows of one length, 1 to 4 each; got lengths \[2, 1\]"),
    (((1, 2), 3), None, ValueError, "numbers \\(a vector\\) or rows \\(a matrix\\), not both"),
    ((1.5,), tack.i32, ValueError, "a float constant needs a float dtype"),
    (("a",), None, TypeError, "takes a number, or a sequence"),
    (np.ones(3, np.float16), None, TypeError, "needs a scalar dtype"),
])
def test_vector_constants_refuse_what_is_not_a_vector_or_matrix(value, dtype, error, message):
    with pytest.raises(error, match=message):
        tack.constant(value, dtype)


def test_matrix_identity_takes_a_constant_size_and_a_dtype():
    for call, message in [("tack.Matrix.identity(5)", r"a constant n from 1 to 4"),
                          ("tack.Matrix.identity(len(out))", r"a constant n from 1 to 4"),
                          ("tack.Matrix.identity(2, 3)", r"is a dtype")]:
        source = ("def bad(out):\n"
                  "    for i in range(len(out)):\n"
                  f"        m = {call}\n"
                  "        out[i] = m[0, 0]\n")
        with pytest.raises(tack.CompileError, match=message):
            tack.kernel_from_source(source, "bad")(arr(np.zeros(2, np.float32)))
