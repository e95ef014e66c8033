"""tack.stream_store(a, index, value): a[index] = value with the hint that the value is not read
again soon (docs/language.md, "Streaming stores"). The same results as a plain store on every
device (conversions, tuple indices, vector and matrix components, views, debug-mode bounds, the
read-only check); the CPU's code marks the store non-temporal; misuse is a CompileError."""
import numpy as np
import pytest

import tack
from kutil import arr, zeros

@tack.kernel
def ss_scale(x, out, s):
    for i in range(len(x)):
        tack.stream_store(out, i, x[i] * s)


@tack.kernel
def ss_grid(out):
    for i, j in tack.ndrange(out.shape[0], out.shape[1]):
        tack.stream_store(out, (i, j), i * 10 + j)


@tack.kernel
def ss_components(out):
    for i in range(len(out)):
        tack.stream_store(out, (i, 0), 1.5)
        tack.stream_store(out, (i, 2), i)


@tack.kernel
def ss_matrix(out):
    for i in range(len(out)):
        tack.stream_store(out, (i, 1, 0), 7)


@tack.kernel
def ss_order(a, out):
    for i in range(len(out)):
        tack.stream_store(out, i, a[i])
        out[i] = out[i] + 1.0  # the streamed value is read back in the same iteration


def test_same_results_as_a_plain_store():
    x = np.arange(1000, dtype=np.float32) - 500
    out = zeros(1000, np.float32)
    ss_scale(arr(x), out, 0.5)
    np.testing.assert_array_equal(out.numpy(), x * np.float32(0.5))


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.int64, np.float64])
def test_the_value_converts_as_a_store_does(dtype):
    out = zeros((3, 4), dtype)
    ss_grid(out)
    want = (np.arange(3)[:, None] * 10 + np.arange(4)[None, :]).astype(dtype)
    np.testing.assert_array_equal(out.numpy(), want)


def test_vector_and_matrix_components():
    v = tack.zeros(4, tack.vec(3, tack.f32))
    ss_components(v)
    got = v.numpy()
    np.testing.assert_array_equal(got[:, 0], 1.5)
    np.testing.assert_array_equal(got[:, 1], 0)
    np.testing.assert_array_equal(got[:, 2], np.arange(4))
    m = tack.zeros(2, tack.mat(2, 2, tack.i32))
    ss_matrix(m)
    np.testing.assert_array_equal(m.numpy(), [[[0, 0], [7, 0]]] * 2)


def test_program_order_within_an_iteration():
    a = arr(np.arange(8, dtype=np.float32))
    out = zeros(8, np.float32)
    ss_order(a, out)
    np.testing.assert_array_equal(out.numpy(), np.arange(8) + 1)


def test_a_view_and_its_version():
    base = zeros(10, np.float32)
    before = base.version
    ss_scale(arr(np.ones(4, np.float32)), base[3:7], 2.0)
    np.testing.assert_array_equal(base.numpy(), [0, 0, 0, 2, 2, 2, 2, 0, 0, 0])
    assert base.version > before


def test_debug_mode_checks_the_index():
    out = zeros(3, np.float32)
    tack.set_debug(True)
    try:
        with pytest.raises(IndexError, match=r"index 3 is out of bounds for axis 0 of array 'out'"):
            ss_scale(arr(np.ones(4, np.float32)), out, 1.0)
    finally:
        tack.set_debug(False)


@pytest.mark.cpu_only("read-only arrays are host imports")
def test_a_read_only_target_is_refused_before_launch():
    backing = np.zeros(4, np.float32)
    ro = tack.array_from_ptr(backing, tack.f32, 4)
    with pytest.raises(ValueError, match=r"read-only"):
        ss_scale(arr(np.ones(4, np.float32)), ro, 1.0)


@pytest.mark.cpu_only("the CPU's LLVM code")
def test_the_cpu_store_is_non_temporal():
    src = tack.inspect(ss_scale, arr(np.ones(4, np.float32)), zeros(4, np.float32), 1.0,
                       mode="source")
    assert "!nontemporal" in src


def test_the_ir_marks_the_store():
    ir = tack.inspect(ss_scale, arr(np.ones(4, np.float32)), zeros(4, np.float32), 1.0, mode="ir")
    assert "out[i] = stream " in ir


def test_misuse_is_a_compile_error():
    @tack.kernel
    def ss_local(out):
        for i in range(len(out)):
            buf = tack.zeros(4, tack.f32)
            tack.stream_store(buf, 0, 1.0)
            out[i] = buf[0]

    with pytest.raises(tack.CompileError, match=r"writes array arguments; 'buf' is a local array"):
        ss_local(zeros(2, np.float32))

    @tack.kernel
    def ss_rank(out):
        for i in range(out.shape[0]):
            tack.stream_store(out, i, 1.0)

    with pytest.raises(tack.CompileError, match=r"writes one number: 'out' takes 2 indices"):
        ss_rank(zeros((2, 2), np.float32))

    @tack.kernel
    def ss_before(out):
        tack.stream_store(out, 0, 1.0)
        for i in range(len(out)):
            out[i] = 2.0

    with pytest.raises(tack.CompileError, match=r"may have effects and is not allowed before"):
        ss_before(zeros(2, np.float32))


def test_outside_a_kernel_it_says_where_it_belongs():
    with pytest.raises(TypeError, match=r"part of the kernel language"):
        tack.stream_store(None, 0, 1.0)
