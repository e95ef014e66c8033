"""tack.math: shading-language helpers for kernels (docs/language.md, "tack.math"). They are part
of the kernel language: inside a @tack.kernel or @tack.func, `tack.math.fract(x)` compiles to
code; called from Python they raise TypeError."""
from tack._kernel import _only_in_kernels

fract = _only_in_kernels("math.fract", "tack.math.fract: x - floor(x).")
mix = _only_in_kernels("math.mix", "tack.math.mix: mix(a, b, t) = a + (b - a) * t.")
clamp = _only_in_kernels("math.clamp", "tack.math.clamp: clamp(x, lo, hi).")
saturate = _only_in_kernels("math.saturate", "tack.math.saturate: clamp(x, 0, 1).")
step = _only_in_kernels("math.step", "tack.math.step: step(edge, x): 0 below edge, else 1.")
smoothstep = _only_in_kernels("math.smoothstep", "tack.math.smoothstep: smoothstep(e0, e1, x): Hermite interpolation between 0 and 1.")
sign = _only_in_kernels("math.sign", "tack.math.sign: sign(x): -1, 0 or 1.")
length = _only_in_kernels("math.length", "tack.math.length: the Euclidean length of a vector (or |x|).")
distance = _only_in_kernels("math.distance", "tack.math.distance: the length of a - b.")
normalize = _only_in_kernels("math.normalize", "tack.math.normalize: v divided by its length.")
dot = _only_in_kernels("math.dot", "tack.math.dot: the dot product of two vectors (or a product of numbers).")
cross = _only_in_kernels("math.cross", "tack.math.cross: the cross product of two 3-vectors.")

__all__ = ["clamp", "cross", "distance", "dot", "fract", "length", "mix", "normalize", "saturate",
           "sign", "smoothstep", "step"]
