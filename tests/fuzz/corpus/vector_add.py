@tack.kernel
def vector_add(x, y, out):
    for i in range(x.shape[0]):      # the top-level loop is the parallel loop
        out[i] = x[i] + y[i]
