"""Streamed outputs (docs/design/streaming_stores.md): on the CPU, an array a kernel only writes,
each element once from its parallel loop, is written around the caches by a launch whose arrays
hold at least tack.streaming_threshold() bytes, and with ordinary stores by a smaller one. The
results are the same either way, on every device; the CPU's code for each launch shows which
stores it made."""
import numpy as np
import pytest

import tack
from kutil import arr, zeros


@tack.kernel
def so_triad(a, b, c, s):
    for i in range(len(a)):
        c[i] = a[i] + s * b[i]


@tack.kernel
def so_grid(u, v):
    for i, j in tack.ndrange(u.shape[0], u.shape[1]):
        v[i, j] = u[i, j] * 2.0 + i


@tack.kernel
def so_some(x, out, flags):
    for i in range(len(x)):
        if x[i] > 0.5:
            out[i] = x[i]
        flags[i] = 1 if x[i] > 0.5 else 0


@tack.kernel
def so_read_back(x, out):
    for i in range(len(x)):
        out[i] = x[i]
        out[i] = out[i] * 2.0


@pytest.fixture
def threshold():
    """Restores the process's streaming threshold after a test that sets it."""
    before = tack.streaming_threshold()
    yield
    tack.set_streaming_threshold(before)


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "cached"])
def test_the_same_results_streamed_or_not(stream, threshold):
    tack.set_streaming_threshold(0 if stream else 2**64 - 1)
    g = np.random.default_rng(5)
    n = 100_003  # a launch split over threads, with a ragged end
    a, b = g.random(n).astype(np.float32), g.random(n).astype(np.float32)
    c = zeros(n, np.float32)
    so_triad(arr(a), arr(b), c, 3.0)
    np.testing.assert_array_equal(c.numpy(), a + np.float32(3.0) * b)
    u = g.random((301, 257)).astype(np.float64)
    v = zeros((301, 257), np.float64)
    so_grid(arr(u), v)
    np.testing.assert_array_equal(v.numpy(), u * 2.0 + np.arange(301)[:, None])
    x = g.random(n).astype(np.float32)
    out = arr(np.full(n, -1.0, np.float32))
    flags = zeros(n, np.int32)
    so_some(arr(x), out, flags)
    np.testing.assert_array_equal(out.numpy(), np.where(x > 0.5, x, np.float32(-1.0)))
    np.testing.assert_array_equal(flags.numpy(), (x > 0.5).astype(np.int32))
    d = zeros(n, np.float32)
    so_read_back(arr(x), d)
    np.testing.assert_array_equal(d.numpy(), x * np.float32(2.0))


@pytest.mark.cpu_only("the CPU decides per launch; other devices keep ordinary stores")
def test_the_launch_size_decides_and_only_outputs_stream(threshold):
    tack.set_streaming_threshold(1 << 20)
    big, small = tack.zeros(1 << 18), tack.zeros(1000)  # 1 MiB arrays: 3 MiB a launch
    code = tack.inspect(so_triad, big, big, big, 3.0, mode="source")
    assert "!nontemporal" in code and "sfence" in code
    stores = [line for line in code.splitlines() if "store float" in line]
    assert stores and all("!nontemporal" in line for line in stores), stores
    assert "!nontemporal" not in tack.inspect(so_triad, small, small, small, 3.0, mode="source")
    tack.set_streaming_threshold(2**64 - 1)
    assert "!nontemporal" not in tack.inspect(so_triad, big, big, big, 3.0, mode="source")
    tack.set_streaming_threshold(0)
    # An output read back in its kernel keeps ordinary stores, whatever the size.
    assert "!nontemporal" not in tack.inspect(so_read_back, small, small, mode="source")
    # Only the conditional output streams; the flags are written every iteration too.
    code = tack.inspect(so_some, small, small, tack.zeros(1000, dtype=tack.i32), mode="source")
    assert code.count("!nontemporal") >= 2


def test_the_threshold_is_a_number_of_bytes(threshold):
    assert tack.streaming_threshold() > 0  # the last-level cache's size by default
    tack.set_streaming_threshold(12345)
    assert tack.streaming_threshold() == 12345
    with pytest.raises(TypeError):
        tack.set_streaming_threshold(-1)
