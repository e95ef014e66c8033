"""tack.math: shading-language helpers for kernels (docs/language.md, "tack.math"). They are part
of the kernel language: inside a @tack.kernel or @tack.func, `tack.math.fract(x)` compiles to
code; called from Python they raise TypeError."""
from tack._kernel import _only_in_kernels

fract = _only_in_kernels("math.fract")
mix = _only_in_kernels("math.mix")
clamp = _only_in_kernels("math.clamp")
saturate = _only_in_kernels("math.saturate")
step = _only_in_kernels("math.step")
smoothstep = _only_in_kernels("math.smoothstep")
sign = _only_in_kernels("math.sign")
length = _only_in_kernels("math.length")
distance = _only_in_kernels("math.distance")
normalize = _only_in_kernels("math.normalize")
dot = _only_in_kernels("math.dot")
cross = _only_in_kernels("math.cross")

__all__ = ["clamp", "cross", "distance", "dot", "fract", "length", "mix", "normalize", "saturate",
           "sign", "smoothstep", "step"]
