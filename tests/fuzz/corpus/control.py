@kernel
def control(a, out, n):
    m = n // 2 if n > 0 else 0x_10
    for i in range(0, len(a), 1):
        j = 0
        while j < 8 and not (a[i] == 0.5 or a[i] < -1e-3):
            j += 1
            if j % 3 == 0:
                continue
            elif j > m:
                break
            else:
                pass
        x = (a[i] ** 2 - ~j + (j << 2) ^ (j >> 1) & 0b1010 | 7) \
            % 5
        out[i] = tack.f32(x) if 0 <= x < n else math.sqrt(float(j))
        tack.atomic_max(out, (i,), tack.f32(1.))
