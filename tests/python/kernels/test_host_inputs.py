"""Host data in tack's algorithms (docs/algorithms.md, "Host data"): a NumPy array -- or anything
np.asarray reads -- is a CPU array over NumPy's memory, as kernels take NumPy arrays; a NumPy bool
array (a mask, such as `x > 0`) is read as u8 0 and 1, and its sum, mean, count and extremes are
NumPy's in value and type (np.sum of bools is an int64 count)."""
import numpy as np
import pytest

import tack


X = np.array([1.5, -2.0, 0.5, 5.0, 0.0, np.float32(7.25)], np.float32)


@pytest.mark.parametrize("fn", ["sum", "mean", "count_nonzero", "max", "min", "any", "all",
                                "prod", "argmax", "var"])
def test_a_mask_reduces_as_numpy_does(fn):
    mask = X > 0.25
    got, want = getattr(tack, fn)(mask), getattr(np, fn)(mask)
    assert got == want, (got, want)
    if fn != "count_nonzero":  # a Python int, as tack.count_nonzero of any array
        assert type(got) is type(want), (got, want)


def test_summing_a_mask_counts_it():
    r = np.random.default_rng(5)
    a = r.standard_normal(100_003).astype(np.float32)
    assert tack.sum(a > 0) == np.count_nonzero(a > 0)
    assert tack.sum(a > 0).dtype == np.int64
    rows = tack.sum((a[:100_000] > 0).reshape(100, 1000), axis=1)
    np.testing.assert_array_equal(rows.numpy(), np.sum((a[:100_000] > 0).reshape(100, 1000),
                                                        axis=1))
    np.testing.assert_array_equal(tack.cumsum(X > 0).numpy(), np.cumsum(X > 0))


def test_numpy_arrays_and_lists_are_host_inputs():
    assert tack.sum(X) == np.sum(X) and tack.sum(X).dtype == np.float32
    assert tack.sum([1, 2, 3]) == 6 and tack.sum([1, 2, 3]).dtype == np.int64
    assert tack.sum(X[::2]) == np.sum(X[::2])  # not contiguous: copied first
    assert tack.sum(X.astype(">f4")) == np.sum(X)  # byte-swapped: converted first
    s = tack.sort(X)
    assert isinstance(s, tack.Array) and s.device.kind == "cpu"
    np.testing.assert_array_equal(s.numpy(), np.sort(X))
    assert tack.dot(X, X) == np.float32(np.dot(X, X))
    assert tack.array(X, device="cpu").dot(X) == tack.dot(X, X)  # a method's other operand
    np.testing.assert_array_equal(tack.searchsorted(np.sort(X), X).numpy(),
                                  np.searchsorted(np.sort(X), X))
    values, counts = tack.run_length_encode([3, 3, 1, 1, 1, 3])
    assert values.numpy().tolist() == [3, 1, 3] and counts.numpy().tolist() == [2, 3, 1]


def test_the_input_is_read_in_place_and_never_written():
    x = np.arange(10, dtype=np.int32)
    before = x.copy()
    tack.inclusive_scan(x)
    tack.sort(x[::-1])
    np.testing.assert_array_equal(x, before)


def test_host_data_beside_a_device_array_says_where_to_copy(device):
    if device.kind == "cpu":
        pytest.skip("needs a default device other than the CPU")
    a = tack.array(X)  # on the suite's device
    with pytest.raises(ValueError, match=r"different devices.*tack\.array"):
        tack.dot(a, X)


def test_what_is_not_numbers_is_a_type_error():
    with pytest.raises(TypeError, match=r"tack\.sum takes a Tack array or host data.*str"):
        tack.sum(np.array(["a", "b"]))
    with pytest.raises(TypeError, match=r"tack\.mean takes a Tack array or host data.*object"):
        tack.mean(object())
    with pytest.raises(TypeError, match=r"float16 has no Tack dtype"):
        tack.sum(np.ones(3, np.float16))
    with pytest.raises(TypeError, match=r"not a tack\.arrays\.Strided; pass s\.copy\(\)"):
        tack.sum(tack.arrays.Strided(tack.zeros(6), 0, 2))


@pytest.mark.parametrize("op", [lambda a: a > 0, lambda a: 0 < a, lambda a: a + 1,
                                lambda a: 2 * a, lambda a: -a, lambda a: a @ a])
def test_tack_arrays_have_no_element_wise_operators_and_say_where_it_goes(op):
    with pytest.raises(TypeError, match=r"no element-wise operators.*in a kernel.*NumPy.*"
                                        r"tack\.sum.*bool mask"):
        op(tack.array(X))


def test_numpy_on_the_left_reads_the_tack_array():
    a = tack.array(X)
    np.testing.assert_array_equal(X + a, X + X)
    np.testing.assert_array_equal(X > a, np.zeros(len(X), bool))
    assert tack.sum(a.numpy() > 0) == 4
