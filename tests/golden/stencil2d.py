# Golden: the code Tack generates for this kernel (tests/golden/golden_test.cpp).
# args: array<f64, 2>, array<f64, 2>
# outputs: llvm, opencl, cuda
def stencil2d(src, dst):
    rows = src.shape[0]
    for i, j in tack.ndrange((1, rows), src.shape[1]):
        dst[i, j] = 0.5 * (src[i - 1, j] + src[i, j])
