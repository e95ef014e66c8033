@tack.kernel
def matmul(a, b, c):
    """C = A @ B, one output element per iteration."""
    n = a.shape[1]
    for i, j in tack.ndrange(c.shape[0], c.shape[1]):
        acc = 0.0
        for k in range(n):
            acc += a[i, k] * b[k, j]
        c[i, j] = acc
