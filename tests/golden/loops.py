# Golden: the code Tack generates for this kernel (tests/golden/golden_test.cpp): a sequential
# loop counting down, with continue and break.
# args: array<i64, 1>
# outputs: llvm, opencl, cuda
def loops(out):
    for i in range(out.shape[0]):
        acc = tack.i64(0)
        for k in range(i, 0, -1):
            if k == 3:
                continue
            if acc > 100:
                break
            acc += k
        out[i] = acc
