    @tack.func
    def bucket(v, lo, hi, n):
        if v < lo:
            return 0
        elif v >= hi:
            return n - 1
        return int((v - lo) / (hi - lo) * n)

    @tack.kernel
    def histogram(values, counts, lo, hi):
        n = len(counts)
        for i in range(len(values)):
            b = bucket(values[i], lo, hi, n)
            tack.atomic_add(counts, b, 1)
