"""tack.math: shading-language helpers for kernels (docs/language.md, "tack.math"). They are part
of the kernel language: inside a @tack.kernel or @tack.func, `tack.math.fract(x)` compiles to
code; called from Python they raise TypeError. Generated from the builtin table
(tools/gen_builtins.py writes tack._math_builtins)."""
from tack._math_builtins import *  # noqa: F401,F403
from tack._math_builtins import __all__  # noqa: F401
