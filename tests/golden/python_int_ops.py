# Golden: the code Tack generates for this kernel (tests/golden/golden_test.cpp): Python's
# floor division, modulo and shifts on integers.
# args: array<i32, 1>, array<i32, 1>, i32
# outputs: llvm, opencl, cuda
def python_int_ops(a, q, d):
    for i in range(a.shape[0]):
        x = a[i]
        q[i] = x // d + x % d
        a[i] = x >> d
