"""tack.random: the counter-based generator of kernels (Philox-4x32-10; docs/design/random.md),
and its NumPy twin.

Inside a kernel, ``tack.random.seed(key, counter)`` makes a state (six u32: the key and the
counter) and ``state, u = tack.random.uniform(state)`` draws; see docs/language.md,
"tack.random". Called from Python, the functions below compute the same values with NumPy, bit
for bit, on arrays of states: the reference the tests compare kernels against, and a way to
reproduce a kernel's stream on the host."""
import numpy as np

_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_W0, _W1 = np.uint32(0x9E3779B9), np.uint32(0xBB67AE85)
_LOW = np.uint64(0xFFFFFFFF)
_SHIFT = np.uint64(32)


def _u32(x):
    return np.asarray(x).astype(np.uint32)


def philox(state):
    """The Philox-4x32-10 block of each state's key and counter: a tuple of four u32 arrays."""
    k0, k1, x0, x1, x2, x3 = (_u32(w) for w in state)
    with np.errstate(over="ignore"):
        for r in range(10):
            if r:
                k0, k1 = k0 + _W0, k1 + _W1
            p0 = x0.astype(np.uint64) * _M0
            p1 = x2.astype(np.uint64) * _M1
            hi0, lo0 = (p0 >> _SHIFT).astype(np.uint32), (p0 & _LOW).astype(np.uint32)
            hi1, lo1 = (p1 >> _SHIFT).astype(np.uint32), (p1 & _LOW).astype(np.uint32)
            x0, x1, x2, x3 = hi1 ^ x1 ^ k0, lo1, hi0 ^ x3 ^ k1, lo0
    return x0, x1, x2, x3


def seed(key, counter):
    """The state a kernel's tack.random.seed(key, counter) makes (keys and counters as 64-bit
    integers; arrays give arrays of states)."""
    key = np.asarray(key).astype(np.int64).astype(np.uint64)
    counter = np.asarray(counter).astype(np.int64).astype(np.uint64)
    zero = np.zeros(np.broadcast(key, counter).shape, np.uint32)
    return ((key & _LOW).astype(np.uint32), (key >> _SHIFT).astype(np.uint32),
            (counter & _LOW).astype(np.uint32), (counter >> _SHIFT).astype(np.uint32),
            zero, zero.copy())


def _advance(state):
    k0, k1, c0, c1, c2, c3 = (_u32(w) for w in state)
    with np.errstate(over="ignore"):
        c2 = c2 + np.uint32(1)
        c3 = c3 + (c2 == 0).astype(np.uint32)
    return k0, k1, c0, c1, c2, c3


def bits(state):
    """(next state, the block's first u32)."""
    return _advance(state), philox(state)[0]


def uniform(state, dtype=np.float32):
    """(next state, a uniform float in [0, 1)): 24 bits for float32, 53 for float64."""
    x0, x1, _, _ = philox(state)
    return _advance(state), _unit(x0, x1, dtype)


def uniform4(state, dtype=np.float32):
    """(next state, four uniform floats): float32 from each word of one block; float64 from two
    blocks (the draw counter advances by two)."""
    x = philox(state)
    if np.dtype(dtype) == np.float32:
        return _advance(state), tuple(_unit(w, w, dtype) for w in x)
    nxt = _advance(state)
    y = philox(nxt)
    return _advance(nxt), (_unit(x[0], x[1], dtype), _unit(x[2], x[3], dtype),
                           _unit(y[0], y[1], dtype), _unit(y[2], y[3], dtype))


def _unit(hi, lo, dtype):
    if np.dtype(dtype) == np.float32:
        return (hi >> np.uint32(8)).astype(np.float32) * np.float32(2.0 ** -24)
    w = (hi.astype(np.uint64) << _SHIFT) | lo.astype(np.uint64)
    return (w >> np.uint64(11)).astype(np.float64) * np.float64(2.0 ** -53)


def normal(state, dtype=np.float32):
    """(next state, a standard normal float): Box-Muller on the block's two uniforms."""
    x0, x1, x2, x3 = philox(state)
    dt = np.dtype(dtype).type
    u, v = _unit(x0, x1, dtype), _unit(x2, x3, dtype)
    angle = dt(2.0 * np.pi) * v
    return _advance(state), np.sqrt(dt(-2.0) * np.log(dt(1.0) - u)) * np.cos(angle)
