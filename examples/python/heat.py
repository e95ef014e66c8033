"""Heat diffusion on a plate with a hot ring, as Tack kernels, written out as heat.png."""
import struct
import zlib

import numpy as np

import tack


@tack.kernel
def heat_step(u, v, alpha):
    for i, j in tack.ndrange((1, u.shape[0] - 1), (1, u.shape[1] - 1)):
        lap = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]
        v[i, j] = u[i, j] + alpha * lap


@tack.func
def ramp(t, lo, hi):
    return min(max((t - lo) / (hi - lo), 0.0), 1.0)


@tack.kernel
def colour(u, rgb):
    for i, j in tack.ndrange(u.shape[0], u.shape[1]):
        t = u[i, j]
        rgb[i, j, 0] = tack.u8(255.0 * ramp(t, 0.0, 0.12))
        rgb[i, j, 1] = tack.u8(255.0 * ramp(t, 0.08, 0.24))
        rgb[i, j, 2] = tack.u8(255.0 * ramp(t, 0.2, 0.36))


def write_png(path, rgb):
    h, w, _ = rgb.shape
    raw = b"".join(b"\x00" + rgb[y].tobytes() for y in range(h))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(raw, 6)))
        f.write(chunk(b"IEND", b""))


def main():
    n = 256
    yy, xx = np.mgrid[0:n, 0:n]
    r = np.hypot(yy - n / 2, xx - n / 2)
    init = (np.abs(r - n / 4) < 6).astype(np.float32)
    u, v = tack.array(init), tack.array(init)
    for _ in range(500):
        heat_step(u, v, 0.2)
        u, v = v, u
    rgb = tack.zeros((n, n, 3), dtype=tack.u8)
    colour(u, rgb)
    write_png("heat.png", rgb.numpy())
    print(f"500 heat steps on {n}x{n}: centre {u[n // 2, n // 2]:.4f}, "
          f"ring {u[n // 2, n // 2 + n // 4]:.4f}; wrote heat.png")


if __name__ == "__main__":
    main()
