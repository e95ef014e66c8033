"""How an array prints: its values in NumPy's format, and its dtype and device.

``repr(a)`` is ``tack.array([...], dtype=f32, device=cpu)``; ``str(a)`` is the values as NumPy
prints them. Arrays of more than 1000 elements show three values at each end of every long axis
(NumPy's summary) and read only those from the device, never the whole array."""
import itertools

import numpy as np

_EDGE = 3  # NumPy's edgeitems
_THRESHOLD = 1000  # NumPy's threshold: larger arrays are summarized


def _axis_picks(n):
    """The indices of one axis that a summary shows: all of a short axis; else the first and
    last three, with a stand-in between them that NumPy's summary prints as '...'."""
    if n <= 2 * _EDGE:
        return list(range(n))
    return list(range(_EDGE)) + [_EDGE] + list(range(n - _EDGE, n))


def _values(a):
    """A NumPy array to format: the whole array, or its edges with a stand-in row per long axis."""
    if a.size <= _THRESHOLD:
        return a.numpy(), False
    picks = [_axis_picks(n) for n in a.shape]
    d = a.dtype
    extra = tuple(d.matrix_shape) if d.matrix_shape else ((d.vector_n,) if d.vector_n else ())
    host_dtype = np.dtype(d.numpy)
    out = np.zeros([len(p) for p in picks] + list(extra), dtype=host_dtype)
    for at in itertools.product(*[range(len(p)) for p in picks]):
        index = tuple(picks[k][i] for k, i in enumerate(at))
        out[at] = np.asarray(a[index], dtype=host_dtype).reshape(extra)
    return out, True


def _format(a, for_repr):
    values, summarized = _values(a)
    options = {"threshold": 0 if summarized else _THRESHOLD, "edgeitems": _EDGE}
    if for_repr:
        prefix = "tack.array("
        body = np.array2string(values, separator=", ", prefix=prefix, **options)
        return f"{prefix}{body}, dtype={a.dtype.name}, device={a.device.name})"
    return np.array2string(values, **options)


def array_repr(a):
    return _format(a, True)


def array_str(a):
    return _format(a, False)
