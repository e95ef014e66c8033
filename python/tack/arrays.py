"""Arrays that describe other arrays' memory without copying it.

``tack.arrays.Strided(a, start, step, count=None)`` is rows ``start, start + step, ...`` of
``a``'s first dimension, the answer to a slice with a step (``a[1::2]`` is refused: a view is a
contiguous run of rows). It is a kernel argument on every device; see docs/memory-model.md,
"Strided arrays".
"""

from tack._tack import Strided

__all__ = ["Strided"]
