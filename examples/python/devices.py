"""Every device present: list them, run one kernel on each, and compare with NumPy.

Arrays live on a device (device=... or tack.set_default_device); a kernel runs on its arrays'
device. On the CPU a call returns when the kernel is done; on OpenCL it returns at once and
reading the result (numpy(), a[i]) waits for it."""
import numpy as np

import tack


@tack.kernel
def saxpy(alpha, x, y, out):
    for i in range(x.shape[0]):
        out[i] = alpha * x[i] + y[i]


x = np.linspace(-1, 1, 100_000, dtype=np.float32)
y = np.cos(x)
expected = np.float32(2.5) * x + y

print("devices:", ", ".join(d.name for d in tack.devices()))
for device in tack.devices():
    tx = tack.array(x, device=device)  # copies the host data onto the device
    ty = tack.array(y, device=device)
    out = tack.zeros(x.shape, device=device)
    saxpy(2.5, tx, ty, out)  # queued on OpenCL: returns before the device finishes
    got = out.numpy()        # waits for the launch, then copies to the host
    assert np.array_equal(got, expected), device
    print(f"{device.name:>10} ({device.kind}): out[-1] = {got[-1]:.6f}, matches NumPy")
    if device.kind == "opencl":
        source = tack.inspect(saxpy, 2.5, tx, ty, out, mode="source")
        print("            generated OpenCL C:", len(source.splitlines()), "lines")

tack.sync()  # waits for everything queued on every device
