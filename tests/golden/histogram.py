# Golden: the code Tack generates for this kernel (tests/golden/golden_test.cpp), bounds-checked
# (debug mode), with an atomic.
# args: array<f32, 1>, array<i32, 1>
# outputs: llvm bounds_check, opencl debug, cuda debug
def histogram(values, bins):
    for i in range(values.shape[0]):
        b = tack.i64(tack.floor(values[i] * tack.f32(bins.shape[0])))
        if b >= 0 and b < bins.shape[0]:
            tack.atomic_add(bins, b, 1)
