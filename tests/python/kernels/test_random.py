"""tack.random (docs/design/random.md): Philox-4x32-10 in kernels against Random123's
known-answer vectors and against the package's NumPy twin (tack.random.philox/uniform/...), bit
for bit on every device and any thread count; the distributions' sanity (chi-square of the
uniforms, moments of the normals, unit directions); the misuse errors."""
import numpy as np
import pytest

import tack
from kutil import arr, zeros

KAT = [  # Random123 kat_vectors: counter (4 words), key (2 words) -> output (4 words)
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]


@tack.kernel
def rn_philox(inp, out):
    for i in range(inp.shape[0]):
        s = (inp[i, 0], inp[i, 1], inp[i, 2], inp[i, 3], inp[i, 4], inp[i, 5])
        out[i, 0], out[i, 1], out[i, 2], out[i, 3] = tack.random.philox(s)


def test_known_answers_in_kernels_and_in_the_numpy_twin():
    states = np.array([key + ctr for ctr, key, _ in KAT], np.uint32)
    want = np.array([o for _, _, o in KAT], np.uint32)
    out = zeros((3, 4), np.uint32)
    rn_philox(arr(states), out)
    np.testing.assert_array_equal(out.numpy(), want)
    twin = np.stack(tack.random.philox(tuple(states.T)), axis=1)
    np.testing.assert_array_equal(twin, want)


@tack.kernel
def rn_streams(key, u, bits, normal):
    for i in range(u.shape[0]):
        state = tack.random.seed(key, i)
        for d in range(u.shape[1]):
            state, u[i, d] = tack.random.uniform(state)
        state, bits[i] = tack.random.bits(state)
        state, normal[i] = tack.random.normal(state)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_kernel_streams_match_the_numpy_twin_bit_for_bit(dtype):
    n, draws = 4099, 3
    u, bits, normal = zeros((n, draws), dtype), zeros(n, np.uint32), zeros(n, dtype)
    rn_streams(1234567, u, bits, normal)
    state = tack.random.seed(1234567, np.arange(n))
    want = []
    for _ in range(draws):
        state, x = tack.random.uniform(state, dtype)
        want.append(x)
    np.testing.assert_array_equal(u.numpy(), np.stack(want, axis=1))
    state, b = tack.random.bits(state)
    np.testing.assert_array_equal(bits.numpy(), b)
    state, z = tack.random.normal(state, dtype)
    # Box-Muller uses log, sqrt and cos: exact to the device's math library, not bit for bit.
    np.testing.assert_allclose(normal.numpy(), z, rtol=2e-6 if dtype == np.float32 else 1e-12,
                               atol=1e-6)
    got = u.numpy()
    assert got.min() >= 0 and got.max() < 1
    # 256 equal bins of 12297 uniforms: chi-square with 255 degrees of freedom, far below the
    # 0.1% critical value (about 330).
    counts = np.bincount((got.ravel() * 256).astype(np.int64), minlength=256)
    expected = got.size / 256
    assert ((counts - expected) ** 2 / expected).sum() < 330
    assert abs(normal.numpy().mean()) < 0.1 and abs(normal.numpy().std() - 1) < 0.05


CHILD = """
import sys
import tack


@tack.kernel
def k(key, u):
    for i in range(u.shape[0]):
        s = tack.random.seed(key, i)
        s, u[i] = tack.random.uniform(s)


u = tack.zeros(1 << 18)
k(7, u)
sys.stdout.buffer.write(u.numpy().tobytes())
"""


@tack.kernel
def rn_four(u):
    for i in range(u.shape[0]):
        state = tack.random.seed(3, i)
        state, (u[i, 0], u[i, 1], u[i, 2], u[i, 3]) = tack.random.uniform4(state)
        state, u[i, 4] = tack.random.uniform(state)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_uniform4_uses_every_word_and_advances_the_counter(dtype):
    n = 1000
    u = zeros((n, 5), dtype)
    rn_four(u)
    state, four = tack.random.uniform4(tack.random.seed(3, np.arange(n)), dtype)
    state, fifth = tack.random.uniform(state, dtype)
    np.testing.assert_array_equal(u.numpy(), np.stack(four + (fifth,), axis=1))


def test_the_same_stream_on_one_thread_and_many(tmp_path):
    # A stream depends on (key, counter) only: 64 iterations (one chunk, one thread) give the
    # first rows of 2**18 iterations fanned out over every worker; and a child process with
    # TACK_NUM_THREADS=1 draws the same bits.
    import os
    import subprocess
    import sys
    big = zeros((1 << 18, 1), np.float32)
    small = zeros((64, 1), np.float32)
    bits, normal = zeros(1 << 18, np.uint32), zeros(1 << 18, np.float32)
    rn_streams(7, big, bits, normal)
    rn_streams(7, small, bits[:64], normal[:64])
    np.testing.assert_array_equal(small.numpy(), big.numpy()[:64])
    script = tmp_path / "one_thread.py"
    script.write_text(CHILD)
    env = dict(os.environ, TACK_NUM_THREADS="1")
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, check=True)
    one_thread = np.frombuffer(out.stdout, np.float32)
    np.testing.assert_array_equal(one_thread, big.numpy()[:, 0])


@tack.kernel
def rn_directions(d2, d3):
    for i in range(d2.shape[0]):
        state = tack.random.seed(99, i)
        state, (x, y) = tack.random.direction2(state)
        state, (p, q, r) = tack.random.direction3(state)
        d2[i, 0], d2[i, 1] = x, y
        d3[i, 0], d3[i, 1], d3[i, 2] = p, q, r


def test_directions_are_unit_vectors_spread_evenly():
    n = 20000
    d2, d3 = zeros((n, 2), np.float64), zeros((n, 3), np.float64)
    rn_directions(d2, d3)
    np.testing.assert_allclose(np.linalg.norm(d2.numpy(), axis=1), 1, rtol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(d3.numpy(), axis=1), 1, rtol=1e-12)
    assert np.abs(d3.numpy().mean(axis=0)).max() < 0.03
    assert np.abs(d2.numpy().mean(axis=0)).max() < 0.03


def test_a_state_must_be_what_seed_returned():
    @tack.kernel
    def rn_bad_state(x):
        for i in range(len(x)):
            s, x[i] = tack.random.uniform((1, 2))

    with pytest.raises(tack.CompileError, match=r"tack.random.uniform\(\) takes a state"):
        rn_bad_state(zeros(2, np.float32))

    @tack.kernel
    def rn_float_seed(x):
        for i in range(len(x)):
            s = tack.random.seed(1.5, i)

    with pytest.raises(tack.CompileError, match="takes integers"):
        rn_float_seed(zeros(2, np.float32))
