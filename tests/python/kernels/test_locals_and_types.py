"""Types: weak literals (they take the type of the typed operand), promotion of two typed
operands (the wider; int with float -> the float; signed with unsigned -> a signed type that
holds both), Python scalar arguments (float -> f32 unless an f64 array is passed, int -> i32
unless it needs i64, bool), the default float of int / int, and locals keeping one type."""
import numpy as np
import pytest

import tack
from kutil import arr, zeros


@tack.kernel
def lt_weak_int(a, out):
    for i in range(len(a)):
        out[i] = a[i] + 1


def test_weak_int_literal_keeps_u8():
    a = np.array([0, 254, 255], np.uint8)
    out = zeros(3, np.uint8)
    lt_weak_int(arr(a), out)
    assert out.numpy().tolist() == [1, 255, 0]  # 255 + 1 wraps in u8


@tack.kernel
def lt_weak_mul(a, out):
    for i in range(len(a)):
        out[i] = a[i] * 2


def test_weak_int_literal_keeps_i8_into_a_wider_output():
    # The product is an i8 (it wraps) before the store widens it to i32.
    a = np.array([100, -100, 63, 64], np.int8)
    out = zeros(4, np.int32)
    lt_weak_mul(arr(a), out)
    assert out.numpy().tolist() == [-56, 56, 126, -128]


@tack.kernel
def lt_int_plus_float_literal(a, out):
    for i in range(len(a)):
        out[i] = a[i] + 0.5


def test_int_with_float_literal_is_the_default_float():
    a = np.array([1, -3, 16777216], np.int32)
    out = zeros(3, np.float32)
    lt_int_plus_float_literal(arr(a), out)
    np.testing.assert_array_equal(out.numpy(), a.astype(np.float32) + np.float32(0.5))


@tack.kernel
def lt_promote(a, b, out):
    for i in range(len(a)):
        out[i] = a[i] + b[i]


@pytest.mark.parametrize("ta, tb, tout, va, vb, expected", [
    (np.int8, np.int32, np.int32, 100, 100000, 100100),            # the wider
    (np.int8, np.int16, np.int16, 127, 127, 254),                  # no wrap at i8
    (np.uint8, np.uint16, np.uint16, 255, 65000, 65255),
    (np.uint8, np.int8, np.int16, 250, 100, 350),                  # u8 + i8 -> i16
    (np.uint8, np.int8, np.int16, 0, -128, -128),
    (np.uint32, np.int32, np.int64, 4_000_000_000, 1_000_000_000, 5_000_000_000),  # -> i64
    (np.uint16, np.int32, np.int32, 65535, -70000, -4465),         # signed wider: i32
    (np.int32, np.float32, np.float32, 16777217, 0.0, 16777216.0),  # int with float: the float
    (np.float32, np.float64, np.float64, 0.1, 0.1, float(np.float32(0.1)) + 0.1),
])
def test_promotion_of_typed_operands(ta, tb, tout, va, vb, expected):
    a = np.array([va], ta)
    b = np.array([vb], tb)
    out = zeros(1, tout)
    lt_promote(arr(a), arr(b), out)
    assert out.numpy()[0] == expected


def test_u64_with_signed_has_no_common_type():
    a = np.array([1], np.uint64)
    b = np.array([1], np.int64)
    with pytest.raises(tack.CompileError):
        lt_promote(arr(a), arr(b), zeros(1, np.int64))


@tack.kernel
def lt_scalar_float(s, out):
    for i in range(len(out)):
        out[i] = tack.i64(s)


@tack.kernel
def lt_scalar_float_with_f64(s, out, unused64):
    for i in range(len(out)):
        out[i] = tack.i64(s)


def test_python_float_is_f32_unless_an_f64_array_is_passed():
    v = 16777217.0  # 2**24 + 1 is not an f32
    out = zeros(1, np.int64)
    lt_scalar_float(v, out)
    assert out.numpy()[0] == 16777216
    lt_scalar_float_with_f64(v, out, zeros(1, np.float64))
    assert out.numpy()[0] == 16777217


@tack.kernel
def lt_scalar_int(n, out):
    for i in range(len(out)):
        out[i] = n + 1


def test_python_int_is_i32_unless_it_needs_i64():
    out = zeros(1, np.int64)
    lt_scalar_int(2 ** 31 - 1, out)
    assert out.numpy()[0] == -2 ** 31  # an i32: n + 1 wraps
    lt_scalar_int(2 ** 31, out)
    assert out.numpy()[0] == 2 ** 31 + 1  # an i64
    lt_scalar_int(-2 ** 31, out)
    assert out.numpy()[0] == -2 ** 31 + 1
    lt_scalar_int(-2 ** 31 - 1, out)
    assert out.numpy()[0] == -2 ** 31


@tack.kernel
def lt_scalar_bool(flag, out):
    for i in range(len(out)):
        out[i] = 1 if flag else 2


def test_python_bool_argument():
    out = zeros(2, np.int32)
    lt_scalar_bool(True, out)
    assert out.numpy().tolist() == [1, 1]
    lt_scalar_bool(False, out)
    assert out.numpy().tolist() == [2, 2]


@tack.kernel
def lt_div_default_float(a, b, out):
    for i in range(len(out)):
        q = a[i] / b[i]
        out[i] = q * 3.0


def test_int_division_default_float_f32_then_f64():
    a = np.array([1, 2, 7], np.int32)
    b = np.array([3, 3, 3], np.int32)
    out32 = zeros(3, np.float32)
    lt_div_default_float(arr(a), arr(b), out32)
    np.testing.assert_array_equal(out32.numpy(),
                                  (a.astype(np.float32) / np.float32(3)) * np.float32(3))
    out64 = zeros(3, np.float64)
    lt_div_default_float(arr(a), arr(b), out64)
    np.testing.assert_array_equal(out64.numpy(), (a / 3.0) * 3.0)


@tack.kernel
def lt_generic(x, out):
    for i in range(len(x)):
        t = x[i] * 3
        out[i] = t - x[i]


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.uint16, np.float32, np.float64])
def test_kernels_are_generic(dtype):
    x = np.arange(10).astype(dtype)
    out = zeros(10, dtype)
    lt_generic(arr(x), out)
    np.testing.assert_array_equal(out.numpy(), x * 2)
    assert out.dtype == arr(x).dtype


@tack.kernel
def lt_local_widens(x, out):
    for i in range(len(x)):
        acc = tack.i64(0)
        small = x[i]
        acc += small
        acc = acc * 1000000
        out[i] = acc


def test_local_accepts_safe_widening():
    x = np.array([2000, -2000, 32767], np.int16)
    out = zeros(3, np.int64)
    lt_local_widens(arr(x), out)
    assert out.numpy().tolist() == [2_000_000_000, -2_000_000_000, 32_767_000_000]


def test_a_local_never_silently_truncates():
    # `acc = 0` then `acc += <f32>`: Python gives a float; a statically typed local must either
    # do the same or refuse with a CompileError -- never silently truncate to an int.
    @tack.kernel
    def lt_int_local_gets_float(x, out):
        for i in range(len(x)):
            acc = 0
            acc += x[i]
            out[i] = acc

    x = np.array([0.5, 1.25, -2.75], np.float32)
    out = zeros(3, np.float32)
    try:
        lt_int_local_gets_float(arr(x), out)
    except tack.CompileError:
        return
    np.testing.assert_array_equal(out.numpy(), x)


def test_a_local_never_silently_narrows():
    @tack.kernel
    def lt_narrowing_local(x, out):
        for i in range(len(x)):
            v = tack.i8(0)
            v = x[i]
            out[i] = v

    x = np.array([1000, -1000], np.int32)
    out = zeros(2, np.int32)
    try:
        lt_narrowing_local(arr(x), out)
    except tack.CompileError:
        return
    assert out.numpy().tolist() == [1000, -1000]


@tack.kernel
def lt_param_copy(x, s):
    for i in range(len(x)):
        s = s * x[i]  # this iteration's own copy of the argument
        x[i] = s + 1


@tack.kernel
def lt_param_accumulate(x, total, n):
    for i in range(len(x)):
        for k in range(n):
            total += 1.0  # per iteration: the argument plus n
        x[i] = total


@tack.kernel
def lt_param_one_path(x, s):
    for i in range(len(x)):
        if x[i] > 2:
            s = x[i]
        x[i] = s


def test_a_scalar_parameter_assigned_in_the_loop_is_a_fresh_copy_per_iteration():
    # The original Tack's meaning: each iteration starts from the argument's value.
    x = np.arange(5, dtype=np.float32)
    a = arr(x)
    lt_param_copy(a, 3.0)
    np.testing.assert_array_equal(a.numpy(), 3.0 * x + 1)
    a = arr(x)
    lt_param_accumulate(a, 10.0, 4)
    np.testing.assert_array_equal(a.numpy(), np.full(5, 14.0, np.float32))
    a = arr(x)
    lt_param_one_path(a, -1.0)
    np.testing.assert_array_equal(a.numpy(), np.where(x > 2, x, -1.0))


@tack.kernel
def lt_scalar_out(x, s, out):
    for i in range(len(x)):
        out[i] = x[i] + s


def test_numpy_scalars_keep_their_dtype():
    # np.float64 beside f32 arrays: the sum is computed in f64 (then stored in f32), where a
    # Python float would be f32: 1 + 1e-8 rounds to 1 in f32 but not in f64.
    x = arr(np.ones(3, np.float32))
    out = zeros(3, np.float64)
    lt_scalar_out(x, np.float64(1e-8), out)
    assert out.numpy()[0] == np.float64(np.float32(1.0)) + 1e-8
    out32 = zeros(3, np.float32)  # a Python float beside only f32 arrays is f32
    assert "s: f32" in tack.inspect(lt_scalar_out, x, 1e-8, out32, mode="ir")
    assert "s: f64" in tack.inspect(lt_scalar_out, x, np.float64(1e-8), out32, mode="ir")
    k = lt_scalar_out.compiled
    lt_scalar_out(x, np.int64(3), out)
    lt_scalar_out(x, np.uint8(3), out)
    lt_scalar_out(x, np.float32(3), out)
    np.testing.assert_array_equal(out.numpy(), [4.0, 4.0, 4.0])
    sig = tack.inspect(lt_scalar_out, x, np.int64(3), out, mode="ir")
    assert "s: i64" in sig
    assert "s: u8" in tack.inspect(lt_scalar_out, x, np.uint8(3), out, mode="ir")
    assert k.variant_count >= 4


def test_dtype_constructors_mark_a_python_numbers_type():
    v = tack.f64(0.1)
    assert isinstance(v, np.float64) and v == 0.1
    assert isinstance(tack.i64(3), np.int64) and isinstance(tack.u8(7), np.uint8)
    x = arr(np.ones(3, np.float32))
    out = zeros(3, np.float64)
    lt_scalar_out(x, tack.f64(1e-8), out)
    assert out.numpy()[0] == 1.0 + 1e-8
    assert "s: f64" in tack.inspect(lt_scalar_out, x, tack.f64(1e-8), out, mode="ir")
    with pytest.raises(TypeError, match="vector dtype"):
        tack.vec(3, tack.f32)(1.0)


@tack.kernel
def lt_loop_variable_after_its_loop(n, out):
    for i in range(len(out)):
        s = 0
        for k in range(3):  # constant: runs, so k exists after it
            s += k
        last = k
        j = 100
        for j in range(n):  # may run no iteration: j keeps its value from before
            s += 1
        m = -1
        for m in range(4):
            m = m * 10  # the local, for the rest of this iteration only
        k = 0.5  # a finished loop's variable rebound to a float, as Python does
        out[i] = s * 1000.0 + last * 100.0 + j + m * 0.001 + k


def test_a_loop_variable_is_a_local_that_outlives_its_loop():
    out = zeros(3, np.float64)
    lt_loop_variable_after_its_loop(4, out)
    expected = [(3 + 4) * 1000.0 + 2 * 100.0 + 3 + 30 * 0.001 + 0.5 for i in range(3)]
    assert out.numpy().tolist() == pytest.approx(expected)
    lt_loop_variable_after_its_loop(0, out)  # the loop over j runs no iteration
    expected = [3 * 1000.0 + 2 * 100.0 + 100 + 30 * 0.001 + 0.5 for i in range(3)]
    assert out.numpy().tolist() == pytest.approx(expected)


def test_a_loop_variable_read_after_a_loop_that_may_not_run_needs_a_value_first():
    @tack.kernel
    def after(n, out):
        for i in range(len(out)):
            for k in range(n):
                pass
            out[i] = k

    with pytest.raises(tack.CompileError, match=r"the loop on line \d+ that assigns it may run no iteration"):
        after(2, zeros(2, np.float32))


def test_an_inner_loop_cannot_assign_a_local_computed_before_the_parallel_loop():
    source = ("def shared_name(x):\n"
              "    j = 0\n"
              "    for i in range(len(x)):\n"
              "        for j in range(3):\n"
              "            x[i] += j\n")
    with pytest.raises(tack.CompileError, match=r"line 4.*'j' is the local computed before the "
                                                r"parallel loop \(line 2\)"):
        tack.kernel_from_source(source, "shared_name")(zeros(4, np.float32))
