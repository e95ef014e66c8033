"""The whole reduction family (docs/algorithms.md): sum, prod, min, max, absmax, mean, var, std,
dot, norm, count_nonzero, any, all, argmin, argmax, over every element and along each axis of
1-3-D arrays and views, against NumPy: values, result dtypes and shapes (keepdims), NaN and
empty rules, bad input, and the same bits on every device (one defined order per line)."""
import numpy as np
import pytest

import tack
from kutil import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, arr, name, rng

SHAPES = [(4097,), (3, 5000), (6, 1, 7), (2, 4100, 3), (1, 3, 9000)]
VALUE_FUNCS = ["sum", "prod", "min", "max", "mean", "var", "std"]


def host(r):
    return r.numpy() if isinstance(r, tack.Array) else r


def data(shape, dtype, seed=0):
    g = rng(seed)
    if np.issubdtype(dtype, np.integer):
        lo = 0 if np.issubdtype(dtype, np.unsignedinteger) else -9
        return g.integers(lo, 10, shape).astype(dtype)
    return g.standard_normal(shape).astype(dtype)


def axes(shape):
    return [None] + list(range(len(shape))) + [-1]


def check(t, n, exact):
    t = host(t)
    assert np.shape(t) == np.shape(n)
    assert np.asarray(t).dtype == np.asarray(n).dtype, (np.asarray(t).dtype, np.asarray(n).dtype)
    if exact:
        np.testing.assert_array_equal(t, n)
    else:
        np.testing.assert_allclose(t, n, rtol=2e-4, atol=2e-4)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("fn", VALUE_FUNCS)
def test_float_reductions_along_every_axis(shape, fn):
    x = data(shape, np.float32, 1)
    if fn == "prod":
        x = (1 + x / 1000).astype(np.float32)
    a = arr(x)
    for ax in axes(shape):
        check(getattr(tack, fn)(a, axis=ax), getattr(np, fn)(x, axis=ax), exact=fn in ("min", "max"))
        check(getattr(a, fn)(axis=ax, keepdims=True), getattr(np, fn)(x, axis=ax, keepdims=True),
              exact=fn in ("min", "max"))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_every_dtype_and_numpys_result_types(dtype):
    x = data((5, 700), dtype, 2)
    a = arr(x)
    exact_int = np.issubdtype(dtype, np.integer)
    for ax in [None, 0, 1]:
        check(tack.sum(a, axis=ax), np.sum(x, axis=ax), exact_int)
        check(tack.min(a, axis=ax), np.min(x, axis=ax), True)
        check(tack.max(a, axis=ax), np.max(x, axis=ax), True)
        check(tack.mean(a, axis=ax), np.mean(x, axis=ax), False)
        check(tack.var(a, axis=ax), np.var(x, axis=ax), False)
        check(tack.std(a, axis=ax, ddof=1), np.std(x, axis=ax, ddof=1), False)
        check(tack.argmin(a, axis=ax), np.argmin(x, axis=ax), True)
        check(tack.argmax(a, axis=ax), np.argmax(x, axis=ax), True)
        check(tack.count_nonzero(a, axis=ax), np.count_nonzero(x, axis=ax), True)
        check(tack.absmax(a, axis=ax), np.abs(x).max(axis=ax), True)
        check(tack.norm(a, axis=ax), np.sqrt(np.sum(x.astype(np.float64 if exact_int else dtype) ** 2,
                                                      axis=ax)), False)
    small = data((3, 4), dtype, 3)
    check(tack.prod(arr(small), axis=1), np.prod(small, axis=1), exact_int)


def test_accumulator_dtype_argument():
    x = np.full((4, 3000), 0.1, np.float32)
    a = arr(x)
    s = tack.sum(a, axis=1, dtype=tack.f64)
    assert s.dtype == tack.f64
    np.testing.assert_allclose(s.numpy(), np.sum(x, axis=1, dtype=np.float64), rtol=1e-12)
    m = tack.mean(a, dtype=tack.f64)
    assert isinstance(m, np.float64) and abs(m - np.mean(x, dtype=np.float64)) < 1e-12
    i = np.arange(10, dtype=np.int8)
    assert tack.sum(arr(i), dtype=tack.i8) == np.sum(i, dtype=np.int8)
    assert isinstance(tack.mean(arr(i)), np.float64)


def test_dot_and_norm():
    g = rng(4)
    x, y = g.standard_normal((2, 3, 5000)).astype(np.float32)
    check(tack.dot(arr(x), arr(y)), np.vdot(x, y), False)
    check(arr(x).dot(arr(y), axis=1), np.sum(x * y, axis=1), False)
    i = np.arange(100, dtype=np.int32)
    assert tack.dot(arr(i), arr(i)) == np.dot(i, i)
    assert isinstance(tack.dot(arr(i), arr(i.astype(np.float32))), np.float64)  # result_type
    check(tack.norm(arr(x)), np.float32(np.linalg.norm(x.ravel())), False)
    assert isinstance(tack.norm(arr(i)), np.float64)
    with pytest.raises(ValueError, match=r"\(3, 5000\) and \(5000,\)"):
        tack.dot(arr(x), arr(y[0]))


def test_any_all_and_count():
    x = np.array([[0, 1, 2], [0, 0, 0], [3, 3, 3]], np.int16)
    a = arr(x)
    assert tack.any(a) is np.True_ and tack.all(a) is np.False_
    np.testing.assert_array_equal(tack.any(a, axis=1).numpy(), np.any(x, axis=1).astype(np.uint8))
    np.testing.assert_array_equal(tack.all(a, axis=0).numpy(), np.all(x, axis=0).astype(np.uint8))
    assert tack.count_nonzero(a) == 5 and type(tack.count_nonzero(a)) is int
    f = np.array([0.0, np.nan, -0.0], np.float32)
    assert tack.count_nonzero(arr(f)) == 1 and tack.any(arr(f))  # NaN is not zero; -0.0 is
    e = arr(np.zeros(0, np.float32))
    assert tack.any(e) is np.False_ and tack.all(e) is np.True_ and tack.count_nonzero(e) == 0


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=name)
def test_nan_rules(dtype):
    x = data((3, 5000), dtype, 5)
    x[1, 4000] = np.nan
    x[1, 4500] = np.nan
    a = arr(x)
    for fn in ["min", "max", "sum", "mean", "var", "absmax"]:
        r = host(getattr(tack, fn)(a, axis=1))
        assert np.isnan(r[1]) and not np.isnan(r[0]) and not np.isnan(r[2]), fn
    assert tack.argmax(a) == np.argmax(x) == 9000  # the first NaN
    np.testing.assert_array_equal(tack.argmin(a, axis=1).numpy(), np.argmin(x, axis=1))


def test_ties_take_the_first_index():
    x = np.zeros((2, 10000), np.int32)
    x[0, [17, 5000, 9999]] = 7
    x[1, [9999, 8191, 4096]] = -7
    a = arr(x)
    np.testing.assert_array_equal(tack.argmax(a, axis=1).numpy(), [17, 0])
    np.testing.assert_array_equal(tack.argmin(a, axis=1).numpy(), [0, 4096])
    assert tack.argmax(a) == 17 and tack.argmin(a) == 10000 + 4096


def test_empty_rules():
    e = np.zeros((3, 0), np.float32)
    a = arr(e)
    np.testing.assert_array_equal(tack.sum(a, axis=1).numpy(), [0, 0, 0])
    np.testing.assert_array_equal(tack.prod(a, axis=1).numpy(), [1, 1, 1])
    assert tack.sum(a, axis=0).shape == (0,)
    assert np.isnan(tack.mean(a)) and np.isnan(tack.var(a))
    assert np.isnan(tack.mean(a, axis=1).numpy()).all()
    for fn in ["min", "max", "absmax", "argmin", "argmax"]:
        with pytest.raises(ValueError, match="empty"):
            getattr(tack, fn)(a)
        with pytest.raises(ValueError, match="empty"):
            getattr(tack, fn)(a, axis=1)
        assert getattr(tack, fn)(a, axis=0).shape == (0,)  # no lines: nothing to refuse


def test_views_reduce_their_own_elements():
    x = data((10, 300, 2), np.float64, 6)
    a = arr(x)
    for ax in axes(x.shape):
        check(tack.sum(a[3:7], axis=ax), np.sum(x[3:7], axis=ax), False)
        check(tack.argmax(a[2:9], axis=ax), np.argmax(x[2:9], axis=ax), True)


def test_one_dimensional_axis_gives_a_numpy_scalar():
    x = np.arange(5, dtype=np.float32)
    r = tack.sum(arr(x), axis=0)
    assert isinstance(r, np.float32) and r == 10
    assert tack.sum(arr(x), axis=0, keepdims=True).shape == (1,)


def test_bad_input():
    a = arr(np.zeros((2, 3), np.float32))
    with pytest.raises(IndexError, match=r"axis 2 is out of bounds .* \[-2, 1\]"):
        tack.sum(a, axis=2)
    with pytest.raises(IndexError, match="axis -3"):
        tack.argmax(a, axis=-3)
    with pytest.raises(TypeError, match="one integer"):
        tack.sum(a, axis=(0, 1))
    with pytest.raises(ValueError, match="1-3-D"):
        tack.sum(arr(np.zeros((1, 1, 1, 2), np.float32)), axis=0)
    with pytest.raises(TypeError, match="vec"):
        tack.mean(tack.zeros(4, dtype=tack.vec(3, tack.f32)), axis=0)
    with pytest.raises(TypeError, match="dtype"):
        tack.sum(a, dtype=tack.vec(2, tack.f32))


def _all_results(x, device):
    a = tack.array(x, device=device)
    out = []
    for fn in ["sum", "prod", "min", "max", "mean", "var", "std", "norm", "absmax", "argmax"]:
        for ax in [None, 0, 1]:
            out.append(np.asarray(host(getattr(tack, fn)(a, axis=ax))).tobytes())
    out.append(np.asarray(host(tack.dot(a, a, axis=1))).tobytes())
    return out


def test_the_same_bits_on_every_device():
    x = rng(7).standard_normal((3, 20001)).astype(np.float32)
    cpu = _all_results(x, tack.device("cpu"))
    for d in tack.devices():
        assert _all_results(x, d) == cpu, d.name


def test_the_same_bits_on_one_thread():
    import os
    import subprocess
    import sys
    code = ("import numpy as np, tack\n"
            "x = np.random.default_rng(8).standard_normal((5, 40000)).astype(np.float32)\n"
            "a = tack.array(x, device=tack.device('cpu'))\n"
            "r = [tack.sum(a, axis=1).numpy(), tack.var(a, axis=0).numpy(), tack.mean(a),\n"
            "     tack.norm(a, axis=1).numpy(), tack.dot(a, a)]\n"
            "print(b''.join(np.asarray(v).tobytes() for v in r).hex())\n")
    outs = []
    for threads in ["1", "2"]:
        env = dict(os.environ, TACK_NUM_THREADS=threads)
        outs.append(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                                   text=True, check=True).stdout.strip())
    assert outs[0] == outs[1] and outs[0]


def test_keepdims_over_every_element_and_numpy_integer_axes():
    x = np.array([[0, 1], [2, 3]], np.int32)
    a = arr(x)
    np.testing.assert_array_equal(tack.count_nonzero(a, keepdims=True).numpy(), [[3]])
    np.testing.assert_array_equal(tack.any(a, keepdims=True).numpy(), [[1]])
    np.testing.assert_array_equal(tack.all(a, keepdims=True).numpy(), [[0]])
    np.testing.assert_array_equal(tack.sum(a, axis=np.int64(1)).numpy(), [1, 5])
    with pytest.raises(TypeError, match="one integer"):
        tack.sum(a, axis=True)


def test_all_along_a_line_longer_than_f32_counts():
    x = np.ones((1, 2**24 + 1), np.uint8)
    x[0, 5] = 0
    assert tack.all(arr(x), axis=1).numpy()[0] == 0  # the count 2**24 is not the length


def test_an_integer_dtype_cannot_hold_nan():
    with pytest.raises(ValueError, match="integer dtype i32"):
        tack.var(arr(np.array([1.0])), dtype=tack.i32, ddof=1)


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")  # NumPy's 0 ** -1.5
@pytest.mark.parametrize("order", [None, 1, 2, np.inf, -np.inf, 0, 3, 0.5, -1.5])
def test_norm_orders_are_numpys_vector_norms(order):
    # The original Tack's norm(x, ord=1) and NumPy's linalg.norm(x, ord) of vectors.
    x = np.array([[3, -4, 0.5, 0.25] * 1100, [-0.0, 2, -7, 1.5] * 1100], np.float32)
    x[1, 5] = 0.0  # a zero: -1.5 and -inf give 0, as NumPy's
    a = arr(x)
    got = tack.norm(a, ord=order)
    assert isinstance(got, np.float32)
    np.testing.assert_allclose(got, np.linalg.norm(x.ravel(), order), rtol=2e-5)
    np.testing.assert_allclose(a.norm(order, axis=1).numpy(), np.linalg.norm(x, order, axis=1),
                               rtol=2e-5)
    i = np.array([-128, 5, 0, 7], np.int8)  # integers as f64: no wrapped abs(-128)
    want = np.linalg.norm(i.astype(np.float64), order)
    assert tack.norm(arr(i), order) == pytest.approx(want)


def test_norm_refuses_matrix_and_nan_orders():
    a = arr(np.ones(4, np.float32))
    with pytest.raises(ValueError, match="'fro' is not a vector norm"):
        tack.norm(a, "fro")
    with pytest.raises(ValueError, match="ord is nan"):
        tack.norm(a, float("nan"))
