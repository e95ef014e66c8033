"""tack.math on scalars (docs/language.md, "tack.math"): fract, mix, clamp, saturate, step,
smoothstep, sign, against NumPy formulas of the same definitions, in f32 and f64, with the
edges (NaN, -0.0, the endpoints of mix and smoothstep). Written once, run on every device."""
import numpy as np
import pytest

import tack
from kutil import arr, rng, zeros


@tack.kernel
def tm_all(x, y, t, fract, mix, clamp, sat, step, smooth, sign):
    for i in range(len(x)):
        fract[i] = tack.math.fract(x[i])
        mix[i] = tack.math.mix(x[i], y[i], t[i])
        clamp[i] = tack.math.clamp(x[i], -0.5, 0.5)
        sat[i] = tack.math.saturate(x[i])
        step[i] = tack.math.step(0.25, x[i])
        smooth[i] = tack.math.smoothstep(-1, 1, x[i])
        sign[i] = tack.math.sign(x[i])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_scalar_tack_math_matches_its_definition(dtype):
    r = rng(400)
    n = 1000
    x = (r.standard_normal(n) * 3).astype(dtype)
    x[:6] = [np.nan, -0.0, 0.0, 0.25, -1.0, 1.0]
    y = r.standard_normal(n).astype(dtype)
    t = r.uniform(0, 1, n).astype(dtype)
    t[:2] = [0.0, 1.0]
    outs = [zeros(n, dtype) for _ in range(7)]
    tm_all(arr(x), arr(y), arr(t), *outs)
    fract, mix, clamp, sat, step, smooth, sign = (o.numpy() for o in outs)
    one = dtype(1)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(fract, x - np.floor(x))
        np.testing.assert_array_equal(mix, x * (one - t) + y * t)
        np.testing.assert_array_equal(mix[:2], [x[0] * 1 + y[0] * 0, y[1]])
        np.testing.assert_array_equal(clamp, np.clip(x, dtype(-0.5), dtype(0.5)))
        np.testing.assert_array_equal(sat, np.clip(x, 0, 1))
        np.testing.assert_array_equal(step[1:], np.where(x[1:] < dtype(0.25), 0, 1))
        s = np.clip((x - dtype(-1)) / dtype(2), 0, 1).astype(dtype)
        np.testing.assert_allclose(smooth, s * s * (dtype(3) - dtype(2) * s), rtol=1e-6)
        np.testing.assert_array_equal(sign, np.sign(x))
    assert np.isnan(fract[0]) and np.isnan(sat[0]) and np.isnan(sign[0])
    assert step[0] == 1  # NaN is not below the edge
    assert sign[1] == 0 and not np.signbit(sign[1])


@tack.kernel
def tm_ints(x, out, f):
    for i in range(len(x)):
        out[i] = tack.math.sign(x[i])
        f[i] = tack.math.fract(x[i] / 4)


def test_integer_arguments():
    x = np.arange(-6, 7, dtype=np.int32)
    out, f = zeros(13, np.int32), zeros(13, np.float32)
    tm_ints(arr(x), out, f)
    np.testing.assert_array_equal(out.numpy(), np.sign(x))
    q = (x / np.float32(4)).astype(np.float32)
    np.testing.assert_array_equal(f.numpy(), q - np.floor(q))


def test_bool_arguments_are_refused():
    @tack.kernel
    def tm_bad(x):
        for i in range(len(x)):
            x[i] = tack.math.fract(x[i] > 0)

    with pytest.raises(tack.CompileError, match="tack.math.fract"):
        tm_bad(zeros(2, np.float32))


import math as pymath  # noqa: E402
import tack as tk  # noqa: E402
import tack.math as tmm  # noqa: E402
from tack.math import fract as frac  # noqa: E402


@tack.kernel
def tm_aliases(x, out):
    for i in range(len(x)):
        out[i, 0] = tmm.fract(x[i])
        out[i, 1] = frac(x[i]) + tk.math.saturate(x[i])
        out[i, 2] = pymath.floor(x[i]) + pymath.pi
        out[i, 3] = tk.f32(x[i]) * 2


def test_modules_and_functions_under_other_names():
    # import tack.math as tm; tm.fract(x): the original's spelling, and its relatives.
    x = np.array([1.25, -0.5, 2.75], np.float32)
    out = zeros((3, 4), np.float32)
    tm_aliases(arr(x), out)
    fr = x - np.floor(x)
    want = np.stack([fr, fr + np.clip(x, 0, 1), np.floor(x) + np.float32(np.pi), x * 2], 1)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-6)
