"""Integer arithmetic on every integer type: + - * unary - ~ & | ^ << >>, augmented assignment,
weak literals, constant folding; integers wrap at their width (two's complement), compared with
NumPy's wrapping arithmetic on the same dtype and with Python's unbounded ints wrapped."""
import numpy as np
import pytest

import tack
from kutil import INT_DTYPES, arr, interesting_ints, name, random_ints, rng, wrap_int, wrap_list, \
    zeros


@tack.kernel
def ai_add(a, b, out):
    for i in range(len(a)):
        out[i] = a[i] + b[i]


@tack.kernel
def ai_sub(a, b, out):
    for i in range(len(a)):
        out[i] = a[i] - b[i]


@tack.kernel
def ai_mul(a, b, out):
    for i in range(len(a)):
        out[i] = a[i] * b[i]


@tack.kernel
def ai_and(a, b, out):
    for i in range(len(a)):
        out[i] = a[i] & b[i]


@tack.kernel
def ai_or(a, b, out):
    for i in range(len(a)):
        out[i] = a[i] | b[i]


@tack.kernel
def ai_xor(a, b, out):
    for i in range(len(a)):
        out[i] = a[i] ^ b[i]


@tack.kernel
def ai_neg(a, b, out):
    for i in range(len(a)):
        out[i] = -a[i]


@tack.kernel
def ai_pos(a, b, out):
    for i in range(len(a)):
        out[i] = +a[i]


@tack.kernel
def ai_invert(a, b, out):
    for i in range(len(a)):
        out[i] = ~a[i]


@tack.kernel
def ai_shl(a, b, out):
    for i in range(len(a)):
        out[i] = a[i] << b[i]


@tack.kernel
def ai_shr(a, b, out):
    for i in range(len(a)):
        out[i] = a[i] >> b[i]


BINARY = {
    "add": (ai_add, lambda a, b: a + b),
    "sub": (ai_sub, lambda a, b: a - b),
    "mul": (ai_mul, lambda a, b: a * b),
    "and": (ai_and, lambda a, b: a & b),
    "or": (ai_or, lambda a, b: a | b),
    "xor": (ai_xor, lambda a, b: a ^ b),
    "neg": (ai_neg, lambda a, b: -a),
    "pos": (ai_pos, lambda a, b: +a),
    "invert": (ai_invert, lambda a, b: ~a),
}


def operand_pairs(dtype, seed):
    e = interesting_ints(dtype)
    r = rng(seed)
    a = np.concatenate([np.repeat(e, len(e)), random_ints(r, dtype, 3000)])
    b = np.concatenate([np.tile(e, len(e)), random_ints(r, dtype, 3000)])
    return a, b


@pytest.mark.parametrize("op", list(BINARY))
@pytest.mark.parametrize("dtype", INT_DTYPES, ids=name)
def test_wrapping_ops_match_numpy(dtype, op):
    kernel, ref = BINARY[op]
    a, b = operand_pairs(dtype, 10)
    out = zeros(len(a), dtype)
    kernel(arr(a), arr(b), out)
    with np.errstate(all="ignore"):
        expected = ref(a, b)
    np.testing.assert_array_equal(out.numpy(), expected)


@pytest.mark.parametrize("op", list(BINARY))
@pytest.mark.parametrize("dtype", INT_DTYPES, ids=name)
def test_wrapping_ops_match_python_ints_wrapped(dtype, op):
    _, ref = BINARY[op]
    kernel = BINARY[op][0]
    a, b = operand_pairs(dtype, 11)
    out = zeros(len(a), dtype)
    kernel(arr(a), arr(b), out)
    expected = wrap_list([ref(int(x), int(y)) for x, y in zip(a, b)], dtype)
    np.testing.assert_array_equal(out.numpy(), expected)


def python_shift(x, c, dtype, left):
    """The contract's shifts: the count read as unsigned; >= width gives 0 (<<) or the sign
    (>>), which is Python's unbounded shift wrapped to the width."""
    bits = np.iinfo(dtype).bits
    count = c & ((1 << bits) - 1)  # a negative signed count is a huge unsigned one
    if left:
        return 0 if count >= bits else wrap_int(x << count, dtype)
    if count >= bits:
        return -1 if x < 0 else 0
    return x >> count


@pytest.mark.parametrize("left", [True, False], ids=["shl", "shr"])
@pytest.mark.parametrize("dtype", INT_DTYPES, ids=name)
def test_shifts_in_range_match_numpy(dtype, left):
    bits = np.iinfo(dtype).bits
    r = rng(12)
    a = np.concatenate([interesting_ints(dtype), random_ints(r, dtype, 2000)])
    c = random_ints(r, dtype, len(a), 0, bits - 1)
    out = zeros(len(a), dtype)
    (ai_shl if left else ai_shr)(arr(a), arr(c), out)
    expected = np.left_shift(a, c) if left else np.right_shift(a, c)
    np.testing.assert_array_equal(out.numpy(), expected)


@pytest.mark.parametrize("left", [True, False], ids=["shl", "shr"])
@pytest.mark.parametrize("dtype", INT_DTYPES, ids=name)
def test_shift_counts_out_of_range(dtype, left):
    info = np.iinfo(dtype)
    counts = [info.bits, info.bits + 1, 2 * info.bits, info.max]
    if info.min < 0:
        counts += [-1, info.min]
    vals = [0, 1, 5, info.max, info.min, info.min + 1] + ([-1, -5] if info.min < 0 else [])
    a = np.array([v for v in vals for _ in counts], dtype=dtype)
    c = np.array([k for _ in vals for k in counts], dtype=dtype)
    out = zeros(len(a), dtype)
    (ai_shl if left else ai_shr)(arr(a), arr(c), out)
    expected = np.array([python_shift(int(x), int(k), dtype, left) for x, k in zip(a, c)],
                        dtype=dtype)
    np.testing.assert_array_equal(out.numpy(), expected)


@tack.kernel
def ai_augmented(a, b, out):
    for i in range(len(a)):
        v = a[i]
        v += b[i]
        v *= 3
        v -= b[i]
        v ^= a[i]
        v |= 1
        v &= b[i] | 6
        v <<= 2
        v >>= 1
        out[i] = v


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=name)
def test_augmented_assignment(dtype):
    a, b = operand_pairs(dtype, 13)
    out = zeros(len(a), dtype)
    ai_augmented(arr(a), arr(b), out)
    expected = []
    for x, y in zip(a.tolist(), b.tolist()):
        v = wrap_int(x + y, dtype)
        v = wrap_int(v * 3, dtype)
        v = wrap_int(v - y, dtype)
        v = wrap_int(v ^ x, dtype)
        v = wrap_int(v | 1, dtype)
        v = wrap_int(v & (y | 6), dtype)
        v = wrap_int(v << 2, dtype)
        v = v >> 1
        expected.append(v)
    np.testing.assert_array_equal(out.numpy(), np.array(expected, dtype=dtype))


@tack.kernel
def ai_store_aug(a, out):
    for i in range(len(a)):
        out[i] += a[i]
        out[i] *= 2
        out[i] -= 1


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=name)
def test_augmented_assignment_to_array_elements(dtype):
    r = rng(14)
    a = random_ints(r, dtype, 500)
    o = random_ints(r, dtype, 500)
    out = arr(o)
    ai_store_aug(arr(a), out)
    with np.errstate(all="ignore"):
        expected = (o + a) * dtype(2) - dtype(1)
    np.testing.assert_array_equal(out.numpy(), expected)


@tack.kernel
def ai_weak_literals(a, out):
    for i in range(len(a)):
        out[i] = a[i] * 2 + 1


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=name)
def test_literals_take_the_type_of_the_other_operand(dtype):
    # `x * 2 + 1` is computed in x's type: it wraps at x's width, not at 32 or 64 bits.
    a = np.concatenate([interesting_ints(dtype), random_ints(rng(15), dtype, 500)])
    out = zeros(len(a), dtype)
    ai_weak_literals(arr(a), out)
    expected = wrap_list([2 * int(x) + 1 for x in a], dtype)
    np.testing.assert_array_equal(out.numpy(), expected)


@tack.kernel
def ai_u8_counter(a, n, out):
    for i in range(len(a)):
        v = a[i]
        for k in range(n):
            v += 1
        out[i] = v


def test_u8_local_wraps_in_a_loop():
    a = np.arange(256, dtype=np.uint8)
    out = zeros(256, np.uint8)
    ai_u8_counter(arr(a), 300, out)
    np.testing.assert_array_equal(out.numpy(), (a.astype(np.int64) + 300) % 256)


@tack.kernel
def ai_constants(out):
    for i in range(1):
        out[0] = 7 // -2
        out[1] = -7 % 3
        out[2] = 2 ** 10
        out[3] = 1 << 20
        out[4] = (0xff ^ 0b1010) & 0o17
        out[5] = -(2 ** 3 ** 2)
        out[6] = 1_000 * 3 - 7
        out[7] = ~5
        out[8] = -7 // 2
        out[9] = 7 % -3


def test_constant_folding_follows_python():
    out = zeros(10, np.int64)
    ai_constants(out)
    expected = [7 // -2, -7 % 3, 2 ** 10, 1 << 20, (0xff ^ 0b1010) & 0o17, -(2 ** 3 ** 2),
                1_000 * 3 - 7, ~5, -7 // 2, 7 % -3]
    np.testing.assert_array_equal(out.numpy(), np.array(expected, dtype=np.int64))


@tack.kernel
def ai_int_truediv(a, b, out):
    for i in range(len(a)):
        out[i] = a[i] / b[i]


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=name)
@pytest.mark.parametrize("out_dtype", [np.float32, np.float64], ids=name)
def test_int_true_division_gives_the_default_float(dtype, out_dtype):
    # int / int is a float division in the default float: f32, or f64 when an f64 array is
    # among the arguments (here: the output).
    r = rng(16)
    a = random_ints(r, dtype, 1000)
    b = random_ints(r, dtype, 1000)
    b[:5] = 0
    out = zeros(1000, out_dtype)
    ai_int_truediv(arr(a), arr(b), out)
    with np.errstate(all="ignore"):
        expected = a.astype(out_dtype) / b.astype(out_dtype)
    np.testing.assert_array_equal(out.numpy(), expected)


@tack.kernel
def ai_big_literal(a, out):
    for i in range(len(a)):
        out[i] = a[i] + 3_000_000_000


def test_64_bit_literal_with_i64():
    a = np.array([0, -3_000_000_000, 2 ** 62], dtype=np.int64)
    out = zeros(3, np.int64)
    ai_big_literal(arr(a), out)
    np.testing.assert_array_equal(out.numpy(), a + 3_000_000_000)
