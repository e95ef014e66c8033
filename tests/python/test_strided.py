"""tack.arrays.Strided: every step-th row of an array's first dimension, without copying (the
views rule: "A step other than 1 is refused. tack.arrays.Strided reads every k-th element
without copying"). Written once, run on every device present: rows and bounds, numpy() and
copy(), kernels reading and writing through it (1-3 dimensions, vec arrays, atomics, views as
bases), writes landing in the base and counting against its allocation, read-only bases refused
before launch, the CPU's disjointness check over the bytes it spans, debug-mode bounds, and the
refusals (export_memory, DLPack, steps below 1, a zero-dimensional base)."""
import numpy as np
import pytest

import tack

pytestmark = pytest.mark.usefixtures("device")


@tack.kernel
def st_copy(src, out):
    for i in range(src.shape[0]):
        out[i] = src[i]


@tack.kernel
def st_scale_rows(a, s):
    for i, j in tack.ndrange(a.shape[0], a.shape[1]):
        a[i, j] = a[i, j] * s


@tack.kernel
def st_copy3(src, out):
    for i, j, k in tack.ndrange(src.shape[0], src.shape[1], src.shape[2]):
        out[i, j, k] = src[i, j, k]


@tack.kernel
def st_add_one(a):
    for i in range(len(a)):
        a[i] = a[i] + 1


@tack.kernel
def st_count(idx, counts):
    for i in range(len(idx)):
        tack.atomic_add(counts, idx[i], 1)


@tack.kernel
def st_shift(a, b):
    for i in range(len(a)):
        b[i] = a[i] + 10.0


def numbered(shape, dtype=np.float32):
    return np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)


def test_rows_are_every_step_th_row():
    x = numbered((10, 3))
    a = tack.array(x)
    s = tack.arrays.Strided(a, 1, 3)
    assert (s.start, s.step, s.count) == (1, 3, 3)
    assert s.shape == (3, 3) and len(s) == 3 and s.ndim == 2 and s.size == 9
    assert s.dtype == a.dtype and s.device == a.device and s.base is not None
    np.testing.assert_array_equal(s.numpy(), x[1::3])
    np.testing.assert_array_equal(s.copy().numpy(), x[1::3])
    assert "Strided" in repr(s) and "step=3" in repr(s)


@pytest.mark.parametrize("start,step,count", [(0, 2, None), (-3, 1, None), (2, 4, 2), (9, 5, 1),
                                              (0, 100, None), (4, 2, 0)])
def test_start_step_and_count_follow_slices(start, step, count):
    x = numbered(10, np.int32)
    s = tack.arrays.Strided(tack.array(x), start, step, count)
    want = x[start::step] if count is None else x[start::step][:count]
    np.testing.assert_array_equal(s.numpy(), want)
    assert s.count == len(want)


def test_bad_arguments_are_refused_with_what_to_do():
    a = tack.zeros(10)
    with pytest.raises(ValueError, match=r"step is 0; the step must be at least 1"):
        tack.arrays.Strided(a, 0, 0)
    with pytest.raises(ValueError, match=r"step is -2"):
        tack.arrays.Strided(a, 0, -2)
    with pytest.raises(IndexError, match=r"start 10 is out of bounds .* give a start in \[-10, 10\)"):
        tack.arrays.Strided(a, 10, 2)
    with pytest.raises(IndexError, match=r"start -11"):
        tack.arrays.Strided(a, -11, 2)
    with pytest.raises(ValueError, match=r"4 rows from row 1 with step 3 need row 10, .* at most 3 fit"):
        tack.arrays.Strided(a, 1, 3, 4)
    with pytest.raises(ValueError, match=r"count is -1"):
        tack.arrays.Strided(a, 0, 2, -1)
    with pytest.raises(IndexError, match=r"zero-dimensional"):
        tack.arrays.Strided(tack.zeros(()), 0, 2)


def test_a_slice_with_a_step_names_strided():
    with pytest.raises(ValueError, match=r"tack.arrays.Strided\(a, start, 2\)"):
        tack.zeros(8)[::2]


def test_a_kernel_reads_every_step_th_row():
    x = numbered(17)
    s = tack.arrays.Strided(tack.array(x), 2, 5)
    out = tack.zeros(len(s))
    st_copy(s, out)
    np.testing.assert_array_equal(out.numpy(), x[2::5])


def test_a_kernel_writes_only_its_rows_and_they_land_in_the_base():
    x = numbered((9, 4))
    a = tack.array(x)
    before = a.version
    s = tack.arrays.Strided(a, 1, 2)
    st_scale_rows(s, 2.0)
    want = x.copy()
    want[1::2] *= 2
    np.testing.assert_array_equal(a.numpy(), want)
    # A write through it counts against the whole allocation, as a view's does.
    assert a.version > before and s.version == a.version


def test_three_dimensional_base():
    x = numbered((7, 2, 3))
    s = tack.arrays.Strided(tack.array(x), 0, 3)
    out = tack.zeros((len(s), 2, 3))
    st_copy3(s, out)
    np.testing.assert_array_equal(out.numpy(), x[0::3])


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.int64, np.float64])
def test_every_scalar_type(dtype):
    x = numbered(11, dtype)
    a = tack.array(x)
    st_add_one(tack.arrays.Strided(a, 0, 4))
    want = x.copy()
    want[0::4] += 1
    np.testing.assert_array_equal(a.numpy(), want)


def test_vector_elements():
    x = numbered((6, 3))
    a = tack.array(x, dtype=tack.vec(3, tack.f32))
    s = tack.arrays.Strided(a, 1, 2)
    assert s.shape == (3,)
    np.testing.assert_array_equal(s.numpy(), x[1::2])
    out = tack.empty(3, tack.vec(3, tack.f32))
    st_copy(s, out)
    np.testing.assert_array_equal(out.numpy(), x[1::2])


def test_atomics_into_a_strided_target():
    counts = tack.zeros(8, tack.i32)
    idx = tack.array(np.array([0, 1, 1, 3, 3, 3], np.int32))
    st_count(idx, tack.arrays.Strided(counts, 0, 2))  # counts of ids land at rows 0, 2, 4, 6
    np.testing.assert_array_equal(counts.numpy(), [1, 0, 2, 0, 0, 0, 3, 0])


def test_a_view_as_base():
    x = numbered(20)
    a = tack.array(x)
    v = a[5:15]
    s = tack.arrays.Strided(v, 1, 3)
    np.testing.assert_array_equal(s.numpy(), x[5:15][1::3])
    st_add_one(s)
    want = x.copy()
    want[6:15:3] += 1
    np.testing.assert_array_equal(a.numpy(), want)


def test_read_only_base_is_read_but_not_written():
    # Read-only inherits from the base: here an imported read-only tensor's view, on the CPU;
    # on other devices a read-only array cannot be made, so the rule is checked where it can be.
    if tack.default_device().kind != "cpu":
        pytest.skip("read-only arrays are host imports (CPU)")
    x = numbered(10)
    x.flags.writeable = False
    ro = tack.from_dlpack(x)
    s = tack.arrays.Strided(ro, 0, 2)
    assert not s.writable
    out = tack.zeros(5)
    st_copy(s, out)  # reading is fine
    np.testing.assert_array_equal(out.numpy(), x[::2])
    with pytest.raises(ValueError, match=r"read-only"):
        st_add_one(s)
    np.testing.assert_array_equal(x, numbered(10))


def test_export_and_dlpack_are_refused_with_what_to_do():
    s = tack.arrays.Strided(tack.zeros(10), 0, 2)
    with pytest.raises(ValueError, match=r"export_memory\(\) of a tack.arrays.Strided is refused.*"
                                         r"export its base array \(s.base\), or a contiguous copy "
                                         r"\(s.copy\(\)\)"):
        s.export_memory()
    with pytest.raises(ValueError, match=r"DLPack export of a tack.arrays.Strided is refused"):
        s.__dlpack__()
    with pytest.raises(ValueError, match=r"DLPack export"):
        np.from_dlpack(s)
    with pytest.raises(TypeError):
        tack.copyto(s, np.zeros(5, np.float32))  # no slice assignment, no copyto: a kernel writes


def test_debug_mode_checks_against_its_own_rows():
    x = numbered(10)
    s = tack.arrays.Strided(tack.array(x), 0, 2)  # 5 rows; the base has 10
    out = tack.zeros(6)

    @tack.kernel
    def st_read_past(src, out):
        for i in range(len(out)):
            out[i] = src[i]

    tack.set_debug(True)
    try:
        with pytest.raises(IndexError, match=r"index 5 is out of bounds for axis 0 of array 'src' "
                                             r"with shape \(5,\)"):
            st_read_past(s, out)
    finally:
        tack.set_debug(False)


def test_step_one_is_an_ordinary_array_argument():
    x = numbered(6)
    s = tack.arrays.Strided(tack.array(x), 2, 1)
    out = tack.zeros(4)
    st_copy(s, out)
    np.testing.assert_array_equal(out.numpy(), x[2:])


def test_an_empty_strided_array_launches_nothing():
    s = tack.arrays.Strided(tack.zeros(4), 1, 2, 0)
    assert s.shape == (0,) and s.numpy().shape == (0,)
    st_add_one(s)


@pytest.mark.cpu_only("the disjoint (noalias) variant is the CPU's specialization")
def test_disjointness_uses_the_bytes_it_spans():
    a = tack.array(numbered(16))
    even = tack.arrays.Strided(a, 0, 2)   # rows 0, 2, ..., 14: bytes [0, 60)
    odd = tack.arrays.Strided(a, 1, 2)    # rows 1, 3, ..., 15: bytes [4, 64)
    # Their elements never meet, but their byte ranges interleave: no promise.
    assert "noalias" not in tack.inspect(st_shift, even, odd, mode="source")
    st_shift(even, odd)
    want = numbered(16)
    want[1::2] = want[0::2] + 10
    np.testing.assert_array_equal(a.numpy(), want)
    # Rows of one half against rows of the other half are disjoint byte ranges.
    first = tack.arrays.Strided(a[0:8], 0, 2)
    second = tack.arrays.Strided(a[8:16], 0, 2)
    assert "noalias" in tack.inspect(st_shift, first, second, mode="source")
    # The strided array and its base overlap.
    assert "noalias" not in tack.inspect(st_shift, a[0:8], tack.arrays.Strided(a, 0, 2, 8),
                                        mode="source")


@pytest.mark.cpu_only("the same kernel on aliasing strided arguments keeps program order")
def test_overlapping_strided_arguments_keep_program_order():
    @tack.kernel
    def st_two_writes(a, b, out):
        for i in range(len(a)):
            a[i] = 1.0
            b[i] = 2.0
            out[i] = a[i]

    base = tack.zeros(12)
    a = tack.arrays.Strided(base, 0, 3)
    out = tack.zeros(4)
    st_two_writes(a, tack.arrays.Strided(base, 0, 3), out)  # the same rows twice
    np.testing.assert_array_equal(out.numpy(), [2.0] * 4)


def test_the_base_stays_alive_while_the_strided_array_is_used(collect):
    s = tack.arrays.Strided(tack.array(numbered(9)), 0, 4)
    collect()
    np.testing.assert_array_equal(s.numpy(), numbered(9)[::4])


def test_an_empty_strided_array_shares_the_base_allocation():
    a = tack.zeros(8)
    s = tack.arrays.Strided(a, 3, 2, 0)
    a.fill(1.0)
    assert s.version == a.version


def test_huge_steps_and_counts_neither_overflow_nor_misread():
    x = numbered((8, 4))
    s = tack.arrays.Strided(tack.array(x), 5, 2 ** 62)  # one row fits
    assert s.count == 1
    np.testing.assert_array_equal(s.numpy(), x[5:6])
    out = tack.zeros((1, 4))

    @tack.kernel
    def st_copy_rows(src, out):
        for i, j in tack.ndrange(src.shape[0], src.shape[1]):
            out[i, j] = src[i, j]

    st_copy_rows(s, out)
    np.testing.assert_array_equal(out.numpy(), x[5:6])
    with pytest.raises(ValueError, match=r"need row past 2\*\*63"):
        tack.arrays.Strided(tack.array(x), 0, 2 ** 62, 3)


def test_np_asarray_copies_its_rows():
    x = numbered(9)
    np.testing.assert_array_equal(np.asarray(tack.arrays.Strided(tack.array(x), 0, 4)), x[::4])
