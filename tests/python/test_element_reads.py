"""a[i, j]: one-element reads with Python bounds; assignment and iteration refused."""
import numpy as np
import pytest

import tack

# Every test runs on every device (tests/python/conftest.py).
pytestmark = pytest.mark.usefixtures("device")


@pytest.fixture
def grid(device):
    return tack.array(np.arange(12, dtype=np.int32).reshape(3, 4))


def test_reads_return_python_numbers(grid):
    assert grid[1, 2] == 6
    assert type(grid[1, 2]) is int
    f = tack.array(np.array([[0.5, 1.5]], dtype=np.float32))
    assert f[0, 1] == 1.5
    assert type(f[0, 1]) is float
    big = tack.full(1, 2**64 - 1, dtype=tack.u64)
    assert big[0] == 2**64 - 1


def test_negative_indices_count_from_the_end(grid):
    assert grid[-1, -1] == 11
    assert grid[-3, 0] == 0
    assert grid[0, -4] == 0


def test_numpy_integers_index(grid):
    assert grid[np.int64(2), np.uint8(1)] == 9


@pytest.mark.parametrize(
    "key, message",
    [
        ((3, 0), r"index 3 is out of bounds for axis 0 with size 3 \(shape \(3, 4\)\)"),
        ((0, 4), r"index 4 is out of bounds for axis 1 with size 4"),
        ((-4, 0), r"index -4 is out of bounds for axis 0 with size 3"),
        ((0, 2**80), r"is out of bounds for axis 1 with size 4"),
        ((1,), r"index with 1 entries for an array of 2 dimensions, shape \(3, 4\)"),
        ((1, 2, 3), r"index with 3 entries for an array of 2 dimensions"),
    ],
)
def test_out_of_bounds_is_an_index_error(grid, key, message):
    with pytest.raises(IndexError, match=message):
        grid[key]


@pytest.mark.parametrize(
    "key, message",
    [
        (1.5, r"not float"),
        ("a", r"not str"),
        (Ellipsis, r"not ellipsis"),
        ([0, 1], r"not list"),
        ((0, 1.0), r"not float"),
        (np.array([0, 1]), r"not numpy.ndarray"),
    ],
)
def test_other_keys_are_a_type_error(grid, key, message):
    with pytest.raises(TypeError, match=r"arrays are indexed with integers or one row slice i:j, "
                       + message):
        grid[key]


def test_zero_dimensional_read():
    s = tack.full((), 2.5, dtype=tack.f64)
    assert s[()] == 2.5


def test_vector_elements_read_as_tuples():
    a = tack.array(np.arange(6, dtype=np.float32).reshape(2, 3), dtype=tack.vec(3, tack.f32))
    assert a[1] == (3.0, 4.0, 5.0)
    assert a[-2] == (0.0, 1.0, 2.0)
    assert a[1, 2] == 5.0
    assert a[1, -1] == 5.0
    with pytest.raises(IndexError, match=r"is out of bounds for vec\(3, f32\) elements"):
        a[1, 3]


def test_item_assignment_is_refused(grid):
    with pytest.raises(TypeError, match=r"do not support assignment through an index or slice"):
        grid[0, 0] = 1
    with pytest.raises(TypeError, match=r"tack.copyto\(a\[i:j\], x\)"):
        grid[0] = 1
    with pytest.raises(TypeError, match=r"decorate its function with @tack.kernel"):
        grid[0] = 1  # what an undecorated kernel loop does
    assert grid[0, 0] == 0


def test_iteration_is_refused(grid):
    with pytest.raises(TypeError, match=r"not iterable .* iterate over a.numpy\(\) instead"):
        iter(grid)
    with pytest.raises(TypeError, match=r"not iterable"):
        list(grid)
    with pytest.raises(TypeError, match=r"not iterable"):
        for _ in grid:
            pass


def test_len(grid):
    assert len(grid) == 3
    assert len(tack.zeros((0, 2))) == 0
    with pytest.raises(TypeError, match=r"len\(\) of unsized object: a zero-dimensional array"):
        len(tack.zeros(()))
