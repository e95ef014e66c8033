"""3-D textures (docs/language.md, "Textures"; docs/design/textures.md): tack.texture3d(array,
shape=(W, H, D)) over f32/f64 texels stored x fastest, tex.sample(u, v, w) at normalized
coordinates (0 is the first texel, 1 the last) with trilinear (or nearest) filtering and
clamp-to-edge addressing, computed in the texture's type on every device. A texture is a view:
the next sample sees every write to its array."""
import numpy as np
import pytest

import tack
from kutil import arr, zeros


def reference(volume, u, v, w, nearest=False):
    """NumPy trilinear (or nearest) sampling of volume[z, y, x] in volume's dtype."""
    t = volume.dtype.type
    d, h, wd = volume.shape
    out = np.empty(len(u), volume.dtype)
    for k in range(len(u)):
        pos = []
        for c, n in ((u[k], wd), (v[k], h), (w[k], d)):
            c = t(c)
            c = t(0) if not c > 0 else (t(1) if not c < 1 else c)  # NaN handled by the caller
            pos.append(c * t(n - 1))
        if nearest:
            ix, iy, iz = (int(np.floor(p + t(0.5))) for p in pos)
            out[k] = volume[iz, iy, ix]
            continue
        i0 = [int(np.floor(p)) for p in pos]
        f = [p - t(i) for p, i in zip(pos, i0)]
        i1 = [min(i + 1, n - 1) for i, n in zip(i0, (wd, h, d))]

        def lerp(a, b, s):
            return a * (t(1) - s) + b * s

        def at(x, y, z):
            return volume[(i0, i1)[z][2], (i0, i1)[y][1], (i0, i1)[x][0]]

        c00 = lerp(at(0, 0, 0), at(1, 0, 0), f[0])
        c10 = lerp(at(0, 1, 0), at(1, 1, 0), f[0])
        c01 = lerp(at(0, 0, 1), at(1, 0, 1), f[0])
        c11 = lerp(at(0, 1, 1), at(1, 1, 1), f[0])
        out[k] = lerp(lerp(c00, c10, f[1]), lerp(c01, c11, f[1]), f[2])
    return out


@tack.kernel
def tx_sample_points(tex, u, v, w, out):
    for i in range(len(out)):
        out[i] = tex.sample(u[i], v[i], w[i])


@tack.kernel
def tx_corner(out, tex, count):
    for i in range(count):
        out[i] = tex.sample(0.0, 0.0, 0.0)


def flat_texture(values, shape=(4, 4, 4), dtype=np.float32, **kw):
    return tack.texture3d(arr(np.asarray(values, dtype)), shape=shape, **kw)


def test_the_corner_is_the_first_texel():
    tex = flat_texture(np.arange(64), (4, 4, 4))
    out = zeros(1, np.float32)
    tx_corner(out, tex, 1)
    assert out.numpy()[0] == 0.0


@tack.func
def tx_do_sample(t, u, v, w):
    return t.sample(u, v, w)


@tack.kernel
def tx_via_func(out, tex, count):
    for i in range(count):
        out[i] = tx_do_sample(tex, 0.5, 0.5, 0.5)


@tack.func
def tx_outer(t, u, v, w):
    return tx_do_sample(t, u, v, w) * 2.0


@tack.kernel
def tx_nested(out, tex, count):
    for i in range(count):
        out[i] = tx_outer(tex, 0.5, 0.5, 0.5)


@tack.func
def tx_sample_at(t, c):
    return t.sample(c[0], c[1], c[2])


@tack.kernel
def tx_coords(out, tex, coords, count):
    for i in range(count):
        out[i] = tx_sample_at(tex, coords)


def test_sampling_in_device_functions_nested_and_beside_arrays():
    out = zeros(1, np.float32)
    tx_via_func(out, flat_texture(np.full(64, 7.0)), 1)
    assert out.numpy()[0] == 7.0
    tx_nested(out, flat_texture(np.full(64, 3.0)), 1)
    assert out.numpy()[0] == 6.0
    tx_coords(out, flat_texture(np.full(64, 5.0)), arr(np.array([0.5, 0.5, 0.5], np.float32)), 1)
    assert out.numpy()[0] == 5.0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_trilinear_values_match_a_reference_inside_and_outside_the_unit_cube(dtype):
    r = np.random.default_rng(7)
    volume = r.standard_normal((3, 5, 7)).astype(dtype)  # D, H, W: not a cube
    n = 500
    u, v, w = (r.uniform(-0.3, 1.3, n).astype(dtype) for _ in range(3))
    u[:4] = [0.0, 1.0, 0.5, 1.0 / 6.0]  # texel centres and the edges exactly
    out = zeros(n, dtype)
    tx_sample_points(tack.texture3d(arr(volume)), arr(u), arr(v), arr(w), out)
    want = reference(volume, u, v, w)
    tol = 4 * np.finfo(dtype).eps * np.abs(volume).max()
    np.testing.assert_allclose(out.numpy(), want, rtol=0, atol=tol)
    # A texel's own coordinate gives the texel (x = 2 of 7: u = 2/6).
    one = zeros(1, dtype)
    tx_sample_points(tack.texture3d(arr(volume)), arr(np.array([2 / 6], dtype)),
                     arr(np.array([0.25], dtype)), arr(np.array([0.5], dtype)), one)
    assert abs(one.numpy()[0] - volume[1, 1, 2]) <= tol


def test_shape_gives_the_extent_of_a_flat_array_x_fastest():
    W, H, D = 5, 3, 2
    flat = np.arange(W * H * D, dtype=np.float32)  # value x + 5 y + 15 z
    tex = tack.texture3d(arr(flat), shape=(W, H, D))
    assert tex.shape == (W, H, D)
    out = zeros(3, np.float32)
    # (x, y, z) = (4, 1, 1), (2, 2, 0), (1.5, 0, 0)
    u = arr(np.array([1.0, 0.5, 1.5 / 4], np.float32))
    v = arr(np.array([0.5, 1.0, 0.0], np.float32))
    w = arr(np.array([1.0, 0.0, 0.0], np.float32))
    tx_sample_points(tex, u, v, w, out)
    assert out.numpy().tolist() == [4 + 5 + 15, 2 + 10, 1.5]


def test_nearest_filtering_reads_one_texel():
    volume = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    r = np.random.default_rng(3)
    u, v, w = (r.uniform(-0.2, 1.2, 200).astype(np.float32) for _ in range(3))
    out = zeros(200, np.float32)
    tex = tack.texture3d(arr(volume), interp="nearest")
    assert tex.interp == "nearest"
    tx_sample_points(tex, arr(u), arr(v), arr(w), out)
    np.testing.assert_array_equal(out.numpy(), reference(volume, u, v, w, nearest=True))


def test_nan_coordinates_give_nan_and_infinities_clamp_to_the_edge():
    volume = np.arange(8, dtype=np.float32).reshape(2, 2, 2)
    u = arr(np.array([np.nan, np.inf, -np.inf, 0.5], np.float32))
    v = arr(np.array([0.0, 0.0, 0.0, np.nan], np.float32))
    w = arr(np.array([0.0, 0.0, 0.0, 0.0], np.float32))
    for interp in ("linear", "nearest"):
        out = zeros(4, np.float32)
        tx_sample_points(tack.texture3d(arr(volume), interp=interp), u, v, w, out)
        got = out.numpy()
        assert np.isnan(got[0]) and np.isnan(got[3]), interp
        assert got[1:3].tolist() == [1.0, 0.0], interp


def test_a_texture_samples_its_array_as_it_is_now():
    base = tack.zeros((2, 2, 2), dtype=tack.f32)
    tex = tack.texture3d(base)
    out = zeros(1, np.float32)
    one = arr(np.array([1.0], np.float32))
    tx_sample_points(tex, one, one, one, out)
    assert out.numpy()[0] == 0.0
    base[1:2].fill(8.0)  # through a view of the array: z = 1
    tx_sample_points(tex, one, one, one, out)
    assert out.numpy()[0] == 8.0
    assert tex.update() is None  # the original's call: nothing to refresh here
    tx_sample_points(tex, one, one, arr(np.array([0.5], np.float32)), out)
    assert out.numpy()[0] == 4.0


def test_a_read_only_array_makes_a_texture():
    owner = arr(np.full((2, 2, 2), 2.5, np.float32))
    memory = owner.export_memory()
    ro = tack.array_from_ptr(memory.address, tack.f32, (2, 2, 2))
    assert not ro.writable
    tex = tack.texture3d(ro)
    out = zeros(1, np.float32)
    half = arr(np.array([0.5], np.float32))
    tx_sample_points(tex, half, half, half, out)
    assert out.numpy()[0] == 2.5


def test_a_texture_and_its_array_compile_separate_variants():
    first_texel = tack.kernel_from_source(
        "def first_texel(t, out):\n    for i in range(1):\n        out[i] = t.sample(0.0, 0.0, 0.0)\n")
    base = arr(np.arange(8, dtype=np.float32).reshape(2, 2, 2))
    out = zeros(1, np.float32)
    first_texel(tack.texture3d(base), out)
    first_texel(tack.texture3d(base, interp="nearest"), out)
    assert first_texel.variant_count == 2
    with pytest.raises(tack.CompileError, match=r"'t\.sample\(\.\.\.\)' is not supported"):
        first_texel(base, out)


def test_texture3d_refuses_bad_arguments_with_the_values():
    f32 = tack.zeros(24, dtype=tack.f32)
    with pytest.raises(TypeError, match=r"takes a Tack array.*tack\.array"):
        tack.texture3d(np.zeros(8, np.float32), shape=(2, 2, 2))
    with pytest.raises(TypeError, match=r"f32 or f64 texels.*int32.*astype"):
        tack.texture3d(tack.zeros(8, dtype=tack.i32), shape=(2, 2, 2))
    with pytest.raises(TypeError, match=r"scalar texels"):
        tack.texture3d(tack.zeros(8, dtype=tack.vec(3, tack.f32)), shape=(2, 2, 2))
    with pytest.raises(ValueError, match=r"shape \(2, 3, 5\) has 30 texels.*24 elements"):
        tack.texture3d(f32, shape=(2, 3, 5))
    with pytest.raises(ValueError, match=r"positive.*\(0, 3, 8\)"):
        tack.texture3d(tack.zeros(0, dtype=tack.f32), shape=(0, 3, 8))
    with pytest.raises(ValueError, match=r"needs shape=\(W, H, D\).*1-D"):
        tack.texture3d(f32)
    with pytest.raises(ValueError, match=r"interp.*'cubic'.*'linear' or 'nearest'"):
        tack.texture3d(f32, shape=(2, 3, 4), interp="cubic")
    with pytest.raises((TypeError, ValueError)):
        tack.texture3d(f32, shape=(2, 12))


def test_an_array_passed_for_a_texture_is_refused_at_compile_time():
    with pytest.raises(tack.CompileError, match=r"'tex\.sample\(\.\.\.\)' is not supported"):
        tx_corner(zeros(1, np.float32), arr(np.zeros((2, 2, 2), np.float32)), 1)


@pytest.mark.parametrize("body, message", [
    ("out[i] = t[0, 0, i]", r"'t' is a 3-D texture: sample it with t\.sample\(u, v, w\)"),
    ("t[0, 0, i] = 1.0", r"'t' is a 3-D texture"),
    ("out[i] = len(t)", r"'t' is a 3-D texture"),
    ("out[i] = t.shape[0]", r"'t' is a 3-D texture"),
    ("tack.atomic_add(t, (0, 0, i), 1.0)", r"'t' is a 3-D texture"),
    ("out[i] = t.sample(0.5, 0.5)", r"t\.sample\(u, v, w\) takes 3 coordinates, got 2"),
    ("out[i] = t.fetch(0, 0, 0)", r"textures have one method, sample"),
    ("out[i] = t.sample((0.5, 0.5), 0.5, 0.5)", r"a tuple of 2 elements.*is not a number"),
])
def test_a_texture_is_only_sampled_in_kernels(body, message):
    k = tack.kernel_from_source(
        "def k(t, out):\n    for i in range(len(out)):\n        " + body + "\n")
    tex = tack.texture3d(tack.zeros((2, 2, 2), dtype=tack.f32))
    with pytest.raises(tack.CompileError, match=message):
        k(tex, zeros(2, np.float32))


def test_the_texture_object_describes_itself():
    base = tack.zeros(2 * 3 * 4, dtype=tack.f64)
    tex = tack.texture3d(base, shape=(4, 3, 2))
    assert tex.shape == (4, 3, 2) and tex.dtype == tack.f64 and tex.interp == "linear"
    assert tex.array.shape == (2, 3, 4) and tex.device == base.device
    assert repr(tex) == "tack.texture3d(shape=(4, 3, 2), dtype=tack.f64, interp='linear')"


@tack.kernel(debug=True)
def tx_checked(tex, u, out):
    for i in range(len(out)):
        out[i] = tex.sample(u[i], u[i], u[i])


def test_debug_mode_samples_inside_the_bounds_at_every_coordinate():
    volume = np.arange(3 * 4 * 5, dtype=np.float64).reshape(3, 4, 5)
    u = np.array([-5.0, 0.0, 0.3, 1.0, 7.0, np.inf], np.float64)
    out = zeros(len(u), np.float64)
    tx_checked(tack.texture3d(arr(volume)), arr(u), out)
    np.testing.assert_allclose(out.numpy(), reference(volume, u, u, u), rtol=1e-15)


@tack.kernel
def tx_smooth_into(tex, out):
    for k, j, i in tack.ndrange(out.shape[0], out.shape[1], out.shape[2]):
        out[k, j, i] = tex.sample(i / 3.0, j / 3.0, k / 3.0)


@pytest.mark.cpu_only("the noalias variant is the CPU's")
def test_a_texture_over_an_output_is_an_aliased_call():
    # The texture's span is its array's: writing that array while sampling it must not get the
    # CPU's noalias (disjoint-arrays) variant; a separate output does.
    a = tack.array(np.arange(64, dtype=np.float32).reshape(4, 4, 4))
    other = tack.zeros((4, 4, 4))
    tex = tack.texture3d(a)
    assert "noalias" in tack.inspect(tx_smooth_into, tex, other, mode="source")
    assert "noalias" not in tack.inspect(tx_smooth_into, tex, a, mode="source")
    tx_smooth_into(tex, other)
    np.testing.assert_array_equal(other.numpy(), a.numpy())  # texel centres: the texels
