"""Arrays and views in Python: the "Array views" example, host copies, wrapping and DLPack."""
import numpy as np

import tack

# The seed's example, as written.
rows = tack.zeros((6, 3))
middle = rows[2:4]  # rows 2 and 3, the same memory
middle.fill(1.0)
assert rows.numpy()[3, 0] == 1.0 and rows.numpy()[4, 0] == 0.0
print("rows after middle.fill(1.0):\n", rows.numpy())

# Host data in: converted to the array's dtype and broadcast to its shape.
counts = tack.zeros((4, 3), dtype=tack.i32)
tack.copyto(counts, np.array([1.5, 2.5, 3.5]))
print("counts[-1, -1] =", counts[-1, -1], "version", counts.version)

# Memory Tack did not allocate: read-only unless asked. NumPy's memory is host memory, so it
# is wrapped as a CPU array whatever the default device is.
cpu = tack.device("cpu")
mine = np.full(8, 0.5, dtype=np.float32)
wrapped = tack.array_from_ptr(mine, tack.f32, (2, 4), device=cpu)
try:
    wrapped.fill(0.0)
except RuntimeError as e:
    print("refused as expected:", str(e)[:60], "...")

# DLPack both ways, without copies. NumPy reads host memory only, so this part uses CPU arrays
# (NumPy refuses an OpenCL array's export; .numpy() copies one to the host instead).
host_rows = tack.zeros((6, 3), device=cpu)
as_numpy = np.from_dlpack(host_rows[2:4])
as_numpy[:] = 7.0  # NumPy writes into Tack's memory
print("host_rows[2, 0] after NumPy wrote through DLPack:", host_rows[2, 0])
back = tack.from_dlpack(np.arange(6, dtype=np.float64))  # stays on the CPU, where the memory is
print("imported from NumPy:", back.numpy(), back.dtype)
