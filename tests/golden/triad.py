# Golden: the code Tack generates for this kernel (tests/golden/golden_test.cpp).
# args: array<f32, 1>, array<f32, 1>, array<f32, 1>, f32
# outputs: llvm, llvm disjoint, opencl, opencl blocked, cuda
def triad(a, b, c, s):
    for i in range(c.shape[0]):
        c[i] = a[i] + s * b[i]
