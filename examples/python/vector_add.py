"""The first kernel: vector addition, compiled just in time for the arguments' types."""
import numpy as np

import tack


@tack.kernel
def vector_add(x, y, out):
    for i in range(x.shape[0]):  # the top-level loop is the parallel loop
        out[i] = x[i] + y[i]


x = tack.array(np.linspace(0, 1, 1000, dtype=np.float32))
y = tack.ones(1000)
out = tack.zeros(1000)
vector_add(x, y, out)
assert np.allclose(out.numpy(), x.numpy() + 1)
print("out[-1] =", out[-1])

# Views are arrays: add into the middle rows only.
vector_add(x[250:750], y[250:750], out[250:750])
print("variants compiled:", vector_add.variant_count)
print(tack.inspect(vector_add, x, y, out, mode="ir"))
