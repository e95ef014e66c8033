"""Float arithmetic on f32 and f64: + - * / and unary minus, IEEE 754 round-to-nearest with no
fast-math, no reassociation, no FMA contraction, denormals kept: bit-exact against NumPy doing
the same operations in the same order on the same dtype."""
import numpy as np
import pytest

import tack
from kutil import FLOAT_DTYPES, arr, name, random_floats, rng, special_floats, zeros


@tack.kernel
def af_ops(a, b, add, sub, mul, div, neg):
    for i in range(len(a)):
        add[i] = a[i] + b[i]
        sub[i] = a[i] - b[i]
        mul[i] = a[i] * b[i]
        div[i] = a[i] / b[i]
        neg[i] = -a[i]


def float_pairs(dtype, seed):
    e = special_floats(dtype)
    r = rng(seed)
    a = np.concatenate([np.repeat(e, len(e)), random_floats(r, dtype, 3000)])
    b = np.concatenate([np.tile(e, len(e)), random_floats(r, dtype, 3000)])
    return a, b


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=name)
def test_basic_ops_bit_exact(dtype):
    a, b = float_pairs(dtype, 20)
    outs = [zeros(len(a), dtype) for _ in range(5)]
    af_ops(arr(a), arr(b), *outs)
    with np.errstate(all="ignore"):
        expected = [a + b, a - b, a * b, a / b, -a]
    for got, exp in zip(outs, expected):
        # assert_array_equal treats NaNs as equal and distinguishes nothing else loosely.
        np.testing.assert_array_equal(got.numpy(), exp)
    # -0.0 results keep their sign (e.g. -(0.0), (-0.0) + (-0.0)); a NaN's sign is not compared.
    for got, exp in zip(outs, expected):
        keep = ~np.isnan(exp)
        np.testing.assert_array_equal(np.signbit(got.numpy()[keep]), np.signbit(exp[keep]))


@tack.kernel
def af_fma_candidate(a, b, c, out):
    for i in range(len(a)):
        out[i] = a[i] * b[i] + c[i]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=name)
def test_no_fma_contraction(dtype):
    # For random inputs a*b+c rounded twice differs from a fused multiply-add in many elements;
    # any contraction shows up as a mismatch.
    r = rng(21)
    a = random_floats(r, dtype, 20000, 1.0)
    b = random_floats(r, dtype, 20000, 1.0)
    c = -(a * b)  # cancellation makes the rounding of a*b visible
    c = (c + random_floats(r, dtype, 20000, 1e-6)).astype(dtype)
    out = zeros(len(a), dtype)
    af_fma_candidate(arr(a), arr(b), arr(c), out)
    np.testing.assert_array_equal(out.numpy(), (a * b) + c)


@tack.kernel
def af_sum_in_order(x, out):
    for i in range(len(out)):
        s = x[i, 0]
        for j in range(1, x.shape[1]):
            s = s + x[i, j]
        out[i] = s


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=name)
def test_no_reassociation(dtype):
    # A sequential sum is summed left to right: no reassociation, no vectorized partial sums.
    r = rng(22)
    x = (random_floats(r, dtype, 64 * 257, 1.0) * np.logspace(-6, 6, 64 * 257)).astype(dtype)
    x = x.reshape(64, 257)
    out = zeros(64, dtype)
    af_sum_in_order(arr(x), out)
    expected = np.empty(64, dtype)
    for i in range(64):
        s = x[i, 0]
        for j in range(1, 257):
            s = dtype(s + x[i, j])
        expected[i] = s
    np.testing.assert_array_equal(out.numpy(), expected)


@tack.kernel
def af_halve(x, out):
    for i in range(len(x)):
        out[i] = x[i] * 0.5


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=name)
def test_denormals_are_kept(dtype):
    info = np.finfo(dtype)
    x = np.array([info.tiny, info.tiny * 3, info.smallest_subnormal * 4, -info.tiny], dtype=dtype)
    out = zeros(4, dtype)
    af_halve(arr(x), out)
    expected = x * dtype(0.5)
    assert (expected != 0).all()
    np.testing.assert_array_equal(out.numpy(), expected)


@tack.kernel
def af_mixed(a32, b64, out):
    for i in range(len(a32)):
        out[i] = a32[i] + b64[i]


def test_f32_with_f64_is_f64():
    r = rng(23)
    a = random_floats(r, np.float32, 1000, 1.0)
    b = random_floats(r, np.float64, 1000, 1.0)
    out = zeros(1000, np.float64)
    af_mixed(arr(a), arr(b), out)
    np.testing.assert_array_equal(out.numpy(), a.astype(np.float64) + b)


@tack.kernel
def af_augmented(a, b, out):
    for i in range(len(a)):
        v = a[i]
        v += b[i]
        v *= 1.5
        v -= a[i]
        v /= 3.0
        out[i] = v


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=name)
def test_augmented_assignment(dtype):
    r = rng(24)
    a = random_floats(r, dtype, 1000)
    b = random_floats(r, dtype, 1000)
    out = zeros(1000, dtype)
    af_augmented(arr(a), arr(b), out)
    v = a + b
    v = v * dtype(1.5)
    v = v - a
    v = v / dtype(3.0)
    np.testing.assert_array_equal(out.numpy(), v)


@tack.kernel
def af_literal_precision(x, out):
    for i in range(len(x)):
        out[i] = x[i] * 0.1


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=name)
def test_float_literal_takes_the_operand_type(dtype):
    # 0.1 meets an f32 operand as f32: the product is the f32 product even though the output
    # is f64 (and f64 is therefore the default float of this call).
    x = random_floats(rng(25), dtype, 1000)
    out = zeros(1000, np.float64)
    af_literal_precision(arr(x), out)
    np.testing.assert_array_equal(out.numpy(), (x * dtype(0.1)).astype(np.float64))


@tack.kernel
def af_inf_literals(out):
    for i in range(1):
        out[0] = 1e400
        out[1] = -1e400
        out[2] = 1e-400
        out[3] = 1.
        out[4] = .5
        out[5] = 1_0.5e1_0


def test_float_literal_forms():
    out = zeros(6, np.float64)
    af_inf_literals(out)
    np.testing.assert_array_equal(out.numpy(), [np.inf, -np.inf, 0.0, 1.0, 0.5, 10.5e10])
