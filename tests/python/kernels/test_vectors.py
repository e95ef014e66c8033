"""Vector and matrix values in kernels (docs/language.md, "Vectors and matrices";
docs/design/vectors.md): making them, element-wise arithmetic with broadcasting, components,
masks, methods, '@', whole elements of tack.vec arrays, device functions, and self-assignment.
Every case runs on the suite's device and is compared with NumPy."""
import numpy as np
import pytest

import tack
from kutil import rng, tdt


def vecs(data, dtype=np.float32):
    data = np.ascontiguousarray(data, dtype=dtype)
    return tack.array(data, dtype=tack.vec(data.shape[-1], tdt(dtype)))


def vzeros(n, width, dtype=np.float32):
    return tack.zeros(n, dtype=tack.vec(width, tdt(dtype)))


def scalars(n, dtype=np.float32):
    return tack.zeros(n, dtype=tdt(dtype))


def points(n, width=3, seed=7, dtype=np.float32):
    return rng(seed).standard_normal((n, width)).astype(dtype)


N = 64


# ------------------------------------------------------------------ making vectors, arithmetic

@tack.kernel
def vv_arith(p, q, out):
    for i in range(len(p)):
        a = p[i]
        b = q[i]
        out[i] = (a + b) * 2.0 - a / 4.0 + (-b) * a


def test_elementwise_arithmetic_with_broadcasting():
    P, Q = points(N, seed=1), points(N, seed=2)
    out = vzeros(N, 3)
    vv_arith(vecs(P), vecs(Q), out)
    np.testing.assert_allclose(out.numpy(), (P + Q) * 2 - P / 4 + (-Q) * P, rtol=1e-6)


@tack.kernel
def vv_make(x, out):
    for i in range(len(x)):
        a = tack.Vector([x[i], 2.0, 3])
        b = [1, x[i], 0.5]
        out[i] = a * b + tack.Vector([1, 2, 3], tack.f32)


def test_vector_and_list_literals():
    X = rng(3).standard_normal(N).astype(np.float32)
    out = vzeros(N, 3)
    vv_make(tack.array(X), out)
    ref = np.stack([X * 1, 2 * X, 3 * 0.5 + np.zeros(N)], axis=1) + [1, 2, 3]
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-6)


@tack.kernel
def vv_int_vectors(p, out):
    for i in range(len(p)):
        a = p[i]
        b = a * 3 + [1, 2, 3]
        out[i] = b // 2 + b % 4


def test_integer_vectors():
    P = rng(4).integers(-100, 100, (N, 3)).astype(np.int32)
    out = vzeros(N, 3, np.int32)
    vv_int_vectors(vecs(P, np.int32), out)
    b = P * 3 + [1, 2, 3]
    np.testing.assert_array_equal(out.numpy(), b // 2 + b % 4)


# ------------------------------------------------------------------ components and indexing

@tack.kernel
def vv_components(p, k, out):
    for i in range(len(p)):
        a = p[i]
        x, y, z = a
        out[i, 0] = a.x + a[1] * 10.0 + a[-1] * 100.0
        out[i, 1] = a[k] + len(a)
        out[i, 2] = x * y * z
        a.y = 0.5
        a[2] += 1.0
        a[k] = a[k] * 2.0
        out[i, 3] = a.x + a.y + a.z


@pytest.mark.parametrize("k", [0, 1, 2])
def test_components_constant_and_runtime_indices(k):
    P = points(N, seed=5)
    out = tack.zeros((N, 4), dtype=tack.f32)
    vv_components(vecs(P), k, out)
    o = out.numpy()
    np.testing.assert_allclose(o[:, 0], P[:, 0] + P[:, 1] * 10 + P[:, 2] * 100, rtol=1e-5)
    np.testing.assert_allclose(o[:, 1], P[:, k] + 3, rtol=1e-6)
    np.testing.assert_allclose(o[:, 2], P.prod(axis=1), rtol=1e-5)
    A = P.copy()
    A[:, 1] = 0.5
    A[:, 2] += 1
    A[:, k] *= 2
    np.testing.assert_allclose(o[:, 3], A.sum(axis=1), rtol=1e-5)


# ------------------------------------------------------------------ methods and tack.math

@tack.kernel
def vv_methods(p, q, out, n3):
    for i in range(len(p)):
        a = p[i]
        b = q[i]
        out[i, 0] = a.dot(b)
        out[i, 1] = a.norm()
        out[i, 2] = a.norm_sqr()
        out[i, 3] = a.sum()
        out[i, 4] = a.min()
        out[i, 5] = a.max()
        out[i, 6] = tack.math.length(a - b)
        out[i, 7] = tack.math.distance(a, b)
        out[i, 8] = a.norm(1.0)
        out[i, 9] = tack.math.dot(a, b)
        n3[i] = a.cross(b) + tack.math.normalize(b) + tack.math.cross(b, a) * 0.0


def test_methods_against_numpy():
    P, Q = points(N, seed=8), points(N, seed=9)
    out = tack.zeros((N, 10), dtype=tack.f32)
    n3 = vzeros(N, 3)
    vv_methods(vecs(P), vecs(Q), out, n3)
    o = out.numpy()
    nrm = np.linalg.norm
    np.testing.assert_allclose(o[:, 0], (P * Q).sum(1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(o[:, 1], nrm(P, axis=1), rtol=1e-6)
    np.testing.assert_allclose(o[:, 2], (P * P).sum(1), rtol=1e-6)
    np.testing.assert_allclose(o[:, 3], P.sum(1), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(o[:, 4], P.min(1))
    np.testing.assert_array_equal(o[:, 5], P.max(1))
    np.testing.assert_allclose(o[:, 6], nrm(P - Q, axis=1), rtol=1e-6)
    np.testing.assert_allclose(o[:, 7], nrm(P - Q, axis=1), rtol=1e-6)
    np.testing.assert_allclose(o[:, 8], np.sqrt((P * P).sum(1) + 1), rtol=1e-6)
    np.testing.assert_allclose(o[:, 9], (P * Q).sum(1), rtol=1e-5, atol=1e-6)
    ref = np.cross(P, Q) + Q / nrm(Q, axis=1)[:, None]
    np.testing.assert_allclose(n3.numpy(), ref, rtol=1e-5, atol=1e-6)


@tack.kernel
def vv_cross2(p, q, out):
    for i in range(len(p)):
        out[i] = p[i].cross(q[i])


def test_cross_of_vec2_is_the_scalar_z():
    P, Q = points(N, 2, seed=10), points(N, 2, seed=11)
    out = scalars(N)
    vv_cross2(vecs(P), vecs(Q), out)
    np.testing.assert_allclose(out.numpy(), P[:, 0] * Q[:, 1] - P[:, 1] * Q[:, 0], rtol=1e-5,
                               atol=1e-6)


@tack.kernel
def vv_elementwise_builtins(p, out):
    for i in range(len(p)):
        a = p[i]
        b = abs(a) + min(a, 0.0) + tack.clamp(a, -0.5, 0.5) + tack.math.fract(a)
        out[i] = b + tack.sqrt(abs(a)) + tack.math.mix(a, [1.0, 2.0, 3.0], 0.25)


def test_elementwise_builtins_apply_per_component():
    P = points(N, seed=12)
    out = vzeros(N, 3)
    vv_elementwise_builtins(vecs(P), out)
    ref = (np.abs(P) + np.minimum(P, 0) + np.clip(P, -0.5, 0.5) + (P - np.floor(P))
           + np.sqrt(np.abs(P)) + P * 0.75 + np.array([1, 2, 3]) * 0.25)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------ masks

@tack.kernel
def vv_masks(p, q, out, flags):
    for i in range(len(p)):
        m = p[i] > q[i]
        out[i] = tack.select(m, p[i], q[i]) + tack.select(p[i].x > 0.0, 1.0, 0.0)
        flags[i, 0] = 1 if any(m) else 0
        flags[i, 1] = 1 if all(m) else 0
        flags[i, 2] = 1 if (p[i] == p[i]).all() else 0


def test_comparisons_are_masks():
    P, Q = points(N, seed=13), points(N, seed=14)
    out = vzeros(N, 3)
    flags = tack.zeros((N, 3), dtype=tack.i32)
    vv_masks(vecs(P), vecs(Q), out, flags)
    m = P > Q
    np.testing.assert_array_equal(out.numpy(), np.where(m, P, Q) + (P[:, :1] > 0))
    f = flags.numpy()
    np.testing.assert_array_equal(f[:, 0], m.any(1))
    np.testing.assert_array_equal(f[:, 1], m.all(1))
    assert f[:, 2].all()


# ------------------------------------------------------------------ matrices

@tack.kernel
def vv_matrices(p, q, out, dets):
    for i in range(len(p)):
        a = p[i]
        b = q[i]
        m = tack.Matrix([[a.x, a.y, a.z], [b.x, b.y, b.z], [1.0, 2.0, 0.5]])
        mt = m.transpose()
        r = m @ a + a @ m + (m @ mt) @ b
        out[i] = r + m[1] + [m[0, 0], m[2][1], mt.trace()]
        dets[i, 0] = m.determinant()
        inv = m.inverse()
        e = inv @ m
        dets[i, 1] = abs(e[0, 0] - 1.0) + abs(e[0, 1]) + abs(e[1, 1] - 1.0) + abs(e[2, 2] - 1.0)
        dets[i, 2] = a @ b
        m2 = tack.Matrix([[a.x, a.y], [b.x, b.y]])
        dets[i, 3] = m2.determinant() + m2.inverse()[0, 1]


def test_matrix_methods_and_products():
    P, Q = points(N, seed=15), points(N, seed=16)
    out = vzeros(N, 3)
    dets = tack.zeros((N, 4), dtype=tack.f32)
    vv_matrices(vecs(P), vecs(Q), out, dets)
    M = np.stack([P, Q, np.broadcast_to([1.0, 2.0, 0.5], P.shape)], axis=1).astype(np.float64)
    Mt = M.transpose(0, 2, 1)
    r = (np.einsum("nij,nj->ni", M, P) + np.einsum("nj,nji->ni", P, M)
         + np.einsum("nij,nj->ni", M @ Mt, Q))
    ref = r + M[:, 1] + np.stack([M[:, 0, 0], M[:, 2, 1], np.trace(M, axis1=1, axis2=2)], 1)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-4, atol=1e-4)
    d = dets.numpy()
    np.testing.assert_allclose(d[:, 0], np.linalg.det(M), rtol=1e-4, atol=1e-5)
    assert (d[:, 1] < 1e-2).all()
    np.testing.assert_allclose(d[:, 2], (P * Q).sum(1), rtol=1e-5, atol=1e-6)
    M2 = np.stack([P[:, :2], Q[:, :2]], axis=1).astype(np.float64)
    np.testing.assert_allclose(d[:, 3], np.linalg.det(M2) + np.linalg.inv(M2)[:, 0, 1],
                               rtol=1e-3, atol=1e-4)


# ------------------------------------------------------------------ whole elements, self-assignment

@tack.kernel
def vv_self_assign(p, q):
    for i in range(len(p)):
        v = p[i]
        v = v.normalized()
        w = q[i]
        v, w = w, v
        q[i] = w
        p[i] = v
        p[i] += [1.0, 0.0, 0.0]
        q[i] = [q[i, 1], q[i, 0], q[i, 2]]


def test_self_assignment_reads_the_right_side_first():
    P, Q = points(N, seed=17), points(N, seed=18)
    p, q = vecs(P), vecs(Q)
    vv_self_assign(p, q)
    Pn = P / np.linalg.norm(P, axis=1)[:, None]
    np.testing.assert_allclose(p.numpy(), Q + [1, 0, 0], rtol=1e-6)
    np.testing.assert_allclose(q.numpy(), Pn[:, [1, 0, 2]], rtol=1e-5)


@tack.kernel
def vv_fill_number(p):
    for i in range(len(p)):
        p[i] = 2.5


def test_a_number_fills_a_whole_element():
    p = vzeros(N, 4)
    vv_fill_number(p)
    assert (p.numpy() == 2.5).all()


# ------------------------------------------------------------------ device functions, random

@tack.func
def reflect(d, n):
    return d - n * (2.0 * d.dot(n))


@tack.func
def split(v):
    return v * 2.0, v.sum()


@tack.kernel
def vv_funcs(p, q, out, sums):
    for i in range(len(p)):
        n = q[i].normalized()
        r = reflect(p[i], n)
        two, s = split(r)
        out[i] = two
        sums[i] = s


def test_device_functions_take_and_return_vectors():
    P, Q = points(N, seed=19), points(N, seed=20)
    out, sums = vzeros(N, 3), scalars(N)
    vv_funcs(vecs(P), vecs(Q), out, sums)
    n = Q / np.linalg.norm(Q, axis=1)[:, None]
    r = P - n * (2 * (P * n).sum(1))[:, None]
    np.testing.assert_allclose(out.numpy(), 2 * r, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(sums.numpy(), r.sum(1), rtol=1e-4, atol=1e-5)


@tack.kernel
def vv_random_directions(out):
    for i in range(len(out)):
        state = tack.random.seed(7, i)
        state, d = tack.random.direction3(state)
        out[i] = d * 2.0


def test_random_directions_are_vectors():
    out = vzeros(N, 3)
    vv_random_directions(out)
    np.testing.assert_allclose(np.linalg.norm(out.numpy(), axis=1), 2.0, rtol=1e-5)


# ------------------------------------------------------------------ the memory model

@pytest.mark.cpu_only("wraps host memory (array_from_ptr over a host address)")
def test_a_whole_element_store_counts_as_a_write():
    backing = np.zeros((4, 3), np.float32)
    ro = tack.array_from_ptr(backing, tack.vec(3, tack.f32), 4)
    assert not ro.writable
    with pytest.raises(ValueError, match="read-only"):
        vv_fill_number(ro)
    assert not backing.any()


# ------------------------------------------------------------------ tack.mat arrays, atomics, fill

def mats(data, dtype=np.float32):
    data = np.ascontiguousarray(data, dtype=dtype)
    return tack.array(data, dtype=tack.mat(data.shape[-2], data.shape[-1], tdt(dtype)))


def test_mat_arrays_are_metadata_like_vec():
    M = rng(21).standard_normal((5, 2, 3)).astype(np.float32)
    m = mats(M)
    assert m.dtype == tack.mat(2, 3, tack.f32) and m.dtype.matrix_shape == (2, 3)
    assert m.shape == (5,) and m.numpy().shape == (5, 2, 3)
    assert m[4, 1, 2] == M[4, 1, 2]
    np.testing.assert_array_equal(m.numpy(), M)
    with pytest.raises(ValueError, match="last two dimensions"):
        tack.array(M, dtype=tack.mat(3, 2, tack.f32))
    with pytest.raises(ValueError, match="at most 4x4"):
        tack.mat(5, 2, tack.f32)
    assert tack.mat(2, 2, tack.f32) != tack.vec(4, tack.f32)


@tack.kernel
def vv_mat_array(m, out, v):
    for i in range(len(m)):
        a = m[i]
        out[i] = a.transpose() @ a
        out[i, 0, 1] = m[i, 2, 2] + a[1, 0]
        v[i] = a @ [1.0, 2.0, 3.0]


def test_mat_array_elements_in_kernels():
    M = rng(22).standard_normal((N, 3, 3)).astype(np.float32)
    out, v = tack.zeros(N, dtype=tack.mat(3, 3, tack.f32)), vzeros(N, 3)
    vv_mat_array(mats(M), out, v)
    R = np.einsum("nji,njk->nik", M, M)
    R[:, 0, 1] = M[:, 2, 2] + M[:, 1, 0]
    np.testing.assert_allclose(out.numpy(), R, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(v.numpy(), M @ np.array([1, 2, 3], np.float32), rtol=1e-5,
                               atol=1e-5)


def test_a_mat2x2_and_a_vec4_array_compile_separately():
    # The variant key tells them apart: a vec4 is indexed (i, c), a mat2x2 (i, r, c).
    @tack.kernel
    def vv_sum_mat(a, out):
        for i in range(len(a)):
            out[i] = a[i, 0, 1]
    m = mats(np.arange(8, dtype=np.float32).reshape(2, 2, 2))
    out = scalars(2)
    vv_sum_mat(m, out)
    assert out.numpy().tolist() == [1.0, 5.0]
    with pytest.raises(tack.CompileError, match="takes 2 indices"):
        vv_sum_mat(vecs(np.zeros((2, 4), np.float32)), out)


@tack.kernel
def vv_vector_atomics(idx, v, acc, old):
    for i in range(len(idx)):
        o = tack.atomic_add(acc, idx[i], v[i])
        old[i] = o * 0.0 + 1.0
        tack.atomic_max(acc, 3, [0.0, 100.0, -100.0])


def test_vector_atomics_update_every_component():
    idx = np.array([0, 1, 1, 2, 0, 0], np.int32)
    V = rng(23).standard_normal((len(idx), 3)).astype(np.float32)
    acc, old = vzeros(4, 3), vzeros(len(idx), 3)
    vv_vector_atomics(tack.array(idx), vecs(V), acc, old)
    ref = np.zeros((4, 3), np.float32)
    np.add.at(ref, idx, V)
    ref[3] = [0.0, 100.0, 0.0]
    np.testing.assert_allclose(acc.numpy(), ref, rtol=1e-5, atol=1e-6)
    assert (old.numpy() == 1.0).all()


@pytest.mark.cpu_only("wraps host memory (array_from_ptr over a host address)")
def test_a_vector_atomic_target_is_checked_for_alignment():
    raw = np.zeros(256, np.uint8)
    start = (-raw.ctypes.data) % 16
    bad = tack.array_from_ptr(raw[start + 2:start + 2 + 48], tack.vec(3, tack.f32), 4,
                              writable=True)
    idx, V = tack.array(np.zeros(2, np.int32)), vecs(np.ones((2, 3)))
    with pytest.raises(ValueError, match="align"):
        vv_vector_atomics(idx, V, bad, vzeros(2, 3))
    assert not raw.any()


def test_fill_with_a_vector_or_matrix_value():
    p = vzeros(5, 3)
    p.fill([1.0, 2.0, 3.0])
    assert (p.numpy() == [1.0, 2.0, 3.0]).all()
    m = tack.zeros(3, dtype=tack.mat(2, 2, tack.f64))
    m.fill(np.array([[1, 2], [3, 4]]))
    assert (m.numpy() == [[1, 2], [3, 4]]).all()
    p.fill(7)
    assert (p.numpy() == 7).all()
    with pytest.raises(ValueError, match="3 values each; got 2"):
        p.fill([1.0, 2.0])


# ------------------------------------------------------------------ cost: vector code == scalar code

@tack.kernel
def vv_pairs_vector(pos, mass, acc):
    for i in range(len(pos)):
        p = pos[i]
        a = tack.Vector([0.0, 0.0, 0.0])
        for j in range(len(pos)):
            d = pos[j] - p
            inv = 1.0 / tack.sqrt(d.norm_sqr() + 1e-4)
            a += d * (mass[j] * inv * inv * inv)
        acc[i] = a


@tack.kernel
def vv_pairs_scalar(pos, mass, acc):
    for i in range(len(pos)):
        px = pos[i, 0]
        py = pos[i, 1]
        pz = pos[i, 2]
        ax = 0.0
        ay = 0.0
        az = 0.0
        for j in range(len(pos)):
            dx = pos[j, 0] - px
            dy = pos[j, 1] - py
            dz = pos[j, 2] - pz
            inv = 1.0 / tack.sqrt(dx * dx + dy * dy + dz * dz + 1e-4)
            s = mass[j] * inv * inv * inv
            ax += dx * s
            ay += dy * s
            az += dz * s
        acc[i, 0] = ax
        acc[i, 1] = ay
        acc[i, 2] = az


@pytest.mark.cpu_only("compares LLVM IR (tack.inspect's optimized mode on the CPU)")
def test_vector_code_optimizes_to_the_scalar_code():
    import collections
    import re
    pos, mass, acc = vzeros(16, 3), scalars(16), vzeros(16, 3)
    counts = []
    for k in (vv_pairs_vector, vv_pairs_scalar):
        text = tack.inspect(k, pos, mass, acc, mode="optimized")
        counts.append(collections.Counter(re.findall(r"= (\w+) ", text)))
    assert counts[0] == counts[1]
    vv_pairs_vector(vecs(points(16)), tack.array(np.ones(16, np.float32)), acc)
    ref = acc.numpy().copy()
    vv_pairs_scalar(vecs(points(16)), tack.array(np.ones(16, np.float32)), acc)
    np.testing.assert_allclose(acc.numpy(), ref, rtol=1e-6)


GRAVITY = (0.0, -9.5, 0.0)  # a module constant tuple, made a vector in the kernel


@tack.kernel
def vv_conditional_and_constant(p, out):
    for i in range(len(p)):
        v = p[i]
        g = tack.Vector(GRAVITY)
        out[i] = (v if v.x > 0.0 else -v) + g
        w = v * 2.0 if v.y > 0.0 else tack.Vector([0.0, 0.0, 0.0])
        out[i] += w


def test_conditional_expressions_of_vectors_and_tuple_constants():
    P = points(N, seed=30)
    out = vzeros(N, 3)
    vv_conditional_and_constant(vecs(P), out)
    ref = np.where(P[:, :1] > 0, P, -P) + [0.0, -9.5, 0.0]
    ref += np.where(P[:, 1:2] > 0, 2 * P, 0.0)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-6)


@tack.kernel
def vv_scalar_geometry(x, y, out):
    for i in range(len(x)):
        out[i, 0] = tack.math.length(x[i])
        out[i, 1] = tack.math.distance(x[i], y[i])
        out[i, 2] = tack.math.normalize(x[i])


def test_length_distance_normalize_of_numbers():
    X = np.array([-2.0, 3.0, 0.5], np.float32)
    Y = np.array([1.0, 1.0, 4.0], np.float32)
    out = tack.zeros((3, 3), dtype=tack.f32)
    vv_scalar_geometry(tack.array(X), tack.array(Y), out)
    np.testing.assert_allclose(out.numpy(), np.stack([abs(X), abs(X - Y), np.sign(X)], 1))


@tack.kernel
def vv_literal_first(b, out):
    for i in range(len(out)):
        v = [1, 2, b[0]]
        u = [b[0], 1, 2]
        w = v + v
        q = u + u
        out[i, 0] = w[2]
        out[i, 1] = q[0]


def test_literals_take_the_typed_component_wherever_it_stands():
    b = tack.array(np.array([200], np.uint8))
    out = tack.zeros((1, 2), dtype=tack.u8)
    vv_literal_first(b, out)
    assert out.numpy().tolist() == [[144, 144]]  # u8 wraps, as 1 + b does
