"""``fad.numpy.linalg``: values against NumPy (batched too), derivatives against
finite differences (batched too), every ``norm`` order, and the conventions at
zero, at singular matrices and at repeated eigen/singular values."""

import numpy as np
import pytest
from operator_table import HPD, phase_free, separated_complex, svd_invariants

import fad
import fad.numpy as fnp
from fad.testing import (
    assert_grad_matches_finite_differences,
    assert_jit_matches_eager,
    assert_vmap_matches_loop,
)

LA = fnp.linalg
rng = np.random.default_rng(0)


def well(*shape):
    a = rng.uniform(-0.5, 0.5, shape)
    return a + 2 * np.eye(shape[-1])


def spd(*shape):
    b = rng.uniform(-1, 1, shape)
    return b @ np.swapaxes(b, -1, -2) + shape[-1] * np.eye(shape[-1])


A, AB = well(3, 3), well(2, 3, 3)            # one matrix, and a batch of two
S, SB = spd(3, 3), spd(2, 3, 3)
T, W = rng.standard_normal((4, 3)), rng.standard_normal((2, 4))   # tall, wide
B = rng.standard_normal((3, 2))


# ---------------------------------------------------------------- values
@pytest.mark.parametrize("name, args", [
    ("inv", (A,)), ("inv", (AB,)), ("det", (A,)), ("det", (AB,)), ("slogdet", (AB,)),
    ("solve", (A, B)), ("solve", (AB, B)), ("solve", (A, B[:, 0])), ("cholesky", (SB,)),
    ("eigh", (SB,)), ("eigvalsh", (S,)), ("qr", (T,)), ("qr", (AB,)), ("svd", (A,)),
    ("pinv", (T,)), ("pinv", (W,)), ("matrix_rank", (T,)), ("cond", (AB,)),
    ("matrix_power", (A, 3)), ("matrix_power", (AB, -2)), ("matrix_power", (A, 0)),
    ("multi_dot", ([T, A, B],)), ("tensorinv", (np.eye(4).reshape(4, 2, 2) * 2, 1)),
    ("tensorsolve", (np.eye(4).reshape(2, 2, 4) * 2, np.ones((2, 2)))),
    ("svdvals", (T,)), ("trace", (AB,)), ("diagonal", (AB,)), ("vecdot", (A, B[:, 0])),
    ("matrix_transpose", (AB,)), ("cross", (A, A[::-1])), ("outer", (B[:, 0], B[:, 1])),
])
def test_values_match_numpy(name, args):
    got, want = getattr(LA, name)(*args), getattr(np.linalg, name)(*args)
    for g, w in zip(got if isinstance(want, tuple) else [got],
                    want if isinstance(want, tuple) else [want]):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-10, atol=1e-12)
    assert type(got).__name__ == type(want).__name__ or not isinstance(want, tuple)


def test_numpy_semantics_details():
    # triangles: cholesky and eigh read only the lower (UPLO) triangle, as LAPACK
    m = np.array([[4.0, 100.0], [2.0, 3.0]])
    np.testing.assert_allclose(LA.cholesky(np.array([[4.0, 9.0], [2.0, 2.0]])),
                               np.linalg.cholesky(np.array([[4.0, 9.0], [2.0, 2.0]])))
    np.testing.assert_allclose(LA.cholesky(S, upper=True), np.linalg.cholesky(S, upper=True))
    np.testing.assert_allclose(LA.eigh(m)[0], np.linalg.eigh(m)[0])
    np.testing.assert_allclose(LA.eigh(m, UPLO="U")[0], np.linalg.eigh(m, UPLO="U")[0])
    # wide QR is split: R = [R_X | Q^T Y]
    q, r = LA.qr(W)
    np.testing.assert_allclose(np.abs(q @ r - W).max(), 0, atol=1e-12)
    np.testing.assert_allclose(np.abs(r), np.abs(np.linalg.qr(W)[1]), atol=1e-12)
    x, res, rank, s = LA.lstsq(T, B[:, 0].tolist() + [1.0])
    want = np.linalg.lstsq(T, B[:, 0].tolist() + [1.0])
    for g, w in zip((x, res, rank, s), want):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-10)
    assert LA.inv(np.eye(2, dtype=np.float32)).dtype == np.float32
    assert LA.det(np.eye(2, dtype=np.int64)).dtype == np.float64
    with pytest.raises(NotImplementedError, match="full_matrices=False"):
        LA.svd(T)
    with pytest.raises(NotImplementedError, match="mode='reduced'"):
        LA.qr(T, mode="complete")
    with pytest.raises(LA.LinAlgError, match="square"):
        LA.inv(T)


# ---------------------------------------------------------------- derivatives
CASES = {
    "inv": (LA.inv, (AB,)),
    "solve": (LA.solve, (AB, rng.standard_normal((2, 3, 2)))),
    "solve_vector": (LA.solve, (A, B[:, 0])),
    "det": (LA.det, (AB,)),
    "slogdet": (lambda a: LA.slogdet(a)[1], (AB,)),
    "cholesky": (LA.cholesky, (SB,)),
    "eigh": (lambda a: (LA.eigh(a)[0], phase_free(fnp, LA.eigh(a)[1])), (SB,)),
    "qr_tall": (LA.qr, (np.stack([T, T[::-1]]),)),
    "qr_wide": (LA.qr, (W + np.eye(2, 4) * 2,)),
    "svd_tall": (lambda a: svd_invariants(fnp, *LA.svd(a, full_matrices=False)), (T,)),
    "svd_wide": (lambda a: svd_invariants(fnp, *LA.svd(a, full_matrices=False)), (W,)),
    "pinv": (LA.pinv, (T,)),
    "lstsq": (lambda a, b: LA.lstsq(a, b)[0], (T, rng.standard_normal(4))),
    "matrix_power": (lambda a: LA.matrix_power(a, -3), (A,)),
    "cond": (LA.cond, (AB,)),
    "tensorsolve": (LA.tensorsolve, (well(4, 4).reshape(2, 2, 4), np.ones((2, 2)))),
}


@pytest.mark.parametrize("name", list(CASES))
def test_derivatives_against_finite_differences(name):
    f, args = CASES[name]
    assert_grad_matches_finite_differences(f, args, order=2, atol=1e-4, rtol=1e-4)




def test_float32_derivatives():
    a = AB.astype(np.float32)
    for f in (LA.inv, LA.det, lambda x: LA.eigh(x + np.swapaxes(x, -1, -2))[0]):
        g = fad.grad(lambda x: fnp.sum(f(x)))(a)
        assert g.dtype == np.float32
        assert_grad_matches_finite_differences(f, (a,), atol=5e-2, rtol=5e-2)


# ---------------------------------------------------------------- norms
VEC_ORDS = [None, 2, 1, -1, np.inf, -np.inf, 0, 3, 0.5, -2]
MAT_ORDS = [None, "fro", "nuc", 2, -2, 1, -1, np.inf, -np.inf]


@pytest.mark.parametrize("ord", VEC_ORDS, ids=str)
def test_vector_norms(ord):
    x = rng.standard_normal((3, 4))
    for axis, kd in [(0, False), (1, True), (-1, False)]:
        np.testing.assert_allclose(LA.norm(x, ord, axis, kd), np.linalg.norm(x, ord, axis, kd),
                                   rtol=1e-12)
    np.testing.assert_allclose(LA.norm(x[0], ord), np.linalg.norm(x[0], ord), rtol=1e-12)
    if ord != 0:
        assert_grad_matches_finite_differences(lambda v: LA.norm(v, ord, axis=1), (x,),
                                               order=2, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("ord", MAT_ORDS, ids=str)
def test_matrix_norms(ord):
    x = rng.standard_normal((2, 3, 4))
    for axis, kd in [((1, 2), False), ((2, 1), True), ((0, 2), False)]:
        np.testing.assert_allclose(LA.norm(x, ord, axis, kd), np.linalg.norm(x, ord, axis, kd),
                                   rtol=1e-12)
    np.testing.assert_allclose(LA.norm(x[0], ord), np.linalg.norm(x[0], ord), rtol=1e-12)
    assert_grad_matches_finite_differences(lambda a: LA.norm(a, ord, axis=(1, 2)), (x,),
                                           order=2, atol=1e-4, rtol=1e-4)


def test_norm_defaults_and_array_api_norms():
    x = rng.standard_normal((2, 3, 4))
    np.testing.assert_allclose(LA.norm(x), np.linalg.norm(x))
    np.testing.assert_allclose(LA.norm(x, keepdims=True), np.linalg.norm(x, keepdims=True))
    np.testing.assert_allclose(LA.vector_norm(x, axis=(0, 2), ord=3),
                               np.linalg.vector_norm(x, axis=(0, 2), ord=3))
    np.testing.assert_allclose(LA.matrix_norm(x, ord=2), np.linalg.matrix_norm(x, ord=2))
    with pytest.raises(ValueError):
        LA.norm(x, 2)


# ---------------------------------------------------------------- conventions
ZERO_NORMS = [*[(o, (3,)) for o in (None, 2, 1, -1, np.inf, -np.inf, 3)],
              *[(o, (2, 3)) for o in (None, "fro", "nuc", 2, -2, 1, np.inf)]]


@pytest.mark.parametrize("ord, shape", ZERO_NORMS, ids=lambda v: str(v).replace(" ", ""))
def test_norm_at_zero_is_a_zero_subgradient(ord, shape):
    f, x = (lambda a: LA.norm(a, ord)), np.zeros(shape)
    assert float(f(x)) == 0.0
    for g in (fad.grad(f)(x), fad.jacfwd(f)(x)):
        assert np.all(g == 0), g
    assert np.all(np.isfinite(fad.hessian(f)(x)))


def test_norm_zero_row_in_batch():
    x = np.array([[0.0, 0.0], [3.0, 4.0]])
    g = fad.jacrev(lambda x: fnp.linalg.norm(x, axis=1))(x)
    np.testing.assert_allclose(g[1, 1], [0.6, 0.8])
    assert np.all(g[0] == 0)


def test_det_at_singular_matrices():
    a = np.array([[1.0, 2.0], [2.0, 4.0]])  # rank 1: gradient = adj(A)^T, not NaN
    np.testing.assert_allclose(fad.grad(LA.det)(a), [[4.0, -2.0], [-2.0, 1.0]], atol=1e-12)
    b = np.diag([1.0, 2.0, 0.0])           # rank 2
    np.testing.assert_allclose(fad.grad(LA.det)(b), np.diag([0.0, 0.0, 2.0]), atol=1e-12)
    assert np.all(fad.grad(LA.det)(np.zeros((3, 3))) == 0)


def test_repeated_eigen_and_singular_values():
    eye = np.eye(3)
    # functions of the values only get exact, finite derivatives (to second order)
    np.testing.assert_allclose(fad.grad(lambda a: fnp.sum(LA.eigvalsh(a)))(eye), eye)
    np.testing.assert_allclose(fad.grad(lambda a: LA.norm(a, "nuc"))(eye), eye, atol=1e-12)
    np.testing.assert_allclose(fad.grad(lambda a: fnp.sum(LA.svdvals(a) ** 2))(2 * eye),
                               4 * eye, atol=1e-12)
    h = fad.hessian(lambda a: fnp.sum(LA.eigvalsh(a)))(eye)
    np.testing.assert_allclose(h, 0, atol=1e-12)
    # eigenvectors at a repeated eigenvalue: finite (the undefined terms are 0)
    g = fad.grad(lambda a: fnp.sum(LA.eigh(a)[1] ** 3))(eye)
    assert np.all(np.isfinite(g))


def test_cholesky_and_eigh_read_the_lower_triangle():
    g = fad.grad(lambda a: fnp.sum(LA.cholesky(a)))(S)
    assert np.all(np.triu(g, 1) == 0)
    g = fad.grad(lambda a: fnp.sum(LA.eigh(a, UPLO="U")[0] ** 2))(S)
    assert np.all(np.tril(g, -1) == 0)


# ---------------------------------------------------------------- complex matrices
def cwell(*shape, dtype=np.complex128):
    return (well(*shape) + 1j * rng.uniform(-0.5, 0.5, shape)).astype(dtype)


CA, CAB = cwell(3, 3), cwell(2, 3, 3)
CH, CHB = HPD.sample(rng, (3, 3)), HPD.sample(rng, (2, 3, 3))
CT, CW = separated_complex(rng, (4, 3)), separated_complex(rng, (2, 4))
CB = rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))


COMPLEX_CASES = {
    "inv": (LA.inv, (CAB,)),
    "solve": (LA.solve, (CAB, np.stack([CB, CB[::-1]]))),
    "solve_vector": (LA.solve, (CA, CB[:, 0])),
    "det": (LA.det, (CAB,)),
    "slogdet": (lambda a: tuple(LA.slogdet(a)), (CAB,)),
    "cholesky": (LA.cholesky, (CHB,)),
    "cholesky_upper": (lambda a: LA.cholesky(a, upper=True), (CH,)),
    "eigh": (lambda a: (LA.eigh(a)[0], phase_free(fnp, LA.eigh(a)[1])), (CHB,)),
    "eigh_upper": (lambda a: phase_free(fnp, LA.eigh(a, UPLO="U")[1]), (CH,)),
    "eigh_reconstruct": (lambda a: (lambda w, v: (v * w[..., None, :]) @ fnp.conj(
        fnp.swapaxes(v, -1, -2)))(*LA.eigh(a)), (CHB,)),
    "qr_tall": (LA.qr, (CT,)),
    "qr_wide": (LA.qr, (CW + np.eye(2, 4) * 2,)),
    "qr_batched": (LA.qr, (CAB,)),
    "svd_tall": (lambda a: svd_invariants(fnp, *LA.svd(a, full_matrices=False)), (CT,)),
    "svd_wide": (lambda a: svd_invariants(fnp, *LA.svd(a, full_matrices=False)), (CW,)),
    "svd_reconstruct": (lambda a: (lambda u, s, vh: (u * s[..., None, :]) @ vh)(
        *LA.svd(a, full_matrices=False)), (CT,)),
    "svdvals": (LA.svdvals, (CW,)),
    "pinv": (LA.pinv, (CT,)),
    "lstsq": (lambda a, b: LA.lstsq(a, b)[0], (CT, CT[:, 0] * 1j + 0.5)),
    "cond": (LA.cond, (CAB,)),
    "matrix_power": (lambda a: LA.matrix_power(a, -3), (CA,)),
}


@pytest.mark.parametrize("name", list(COMPLEX_CASES))
def test_complex_derivatives_against_finite_differences(name):
    """Second order, forward and reverse; directions ``a + ib`` (fad.check_grads)."""
    f, args = COMPLEX_CASES[name]
    assert_grad_matches_finite_differences(f, args, order=2, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("name, args", [
    ("inv", (CAB,)), ("det", (CAB,)), ("slogdet", (CAB,)), ("solve", (CAB, CB)),
    ("solve", (CA, CB[:, 0])), ("cholesky", (CHB,)), ("eigvalsh", (CHB,)),
    ("qr", (CT,)), ("qr", (CW,)), ("svd", (CAB,)), ("svdvals", (CT,)), ("pinv", (CW,)),
    ("cond", (CAB,)), ("matrix_rank", (CT,)), ("lstsq", (CT, CB[:, 0].tolist() + [1j])),
])
def test_complex_values_and_dtypes_match_numpy(name, args):
    got, want = getattr(LA, name)(*args), getattr(np.linalg, name)(*args)
    got = got if isinstance(want, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        if w.dtype.kind in "fc":  # (lstsq's rank: NumPy's is int32)
            assert g.dtype == w.dtype, (name, g.dtype, w.dtype)
        if name == "qr":  # columns of Q (rows of R) up to a sign (LAPACK vs split wide QR)
            g, w = np.abs(g), np.abs(w)
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


def test_complex_hermitian_inputs_read_one_triangle_like_numpy():
    # not Hermitian: LAPACK reads the lower (or upper) triangle and the diagonal's real part
    a = CH + np.triu(rng.standard_normal((3, 3)), 1) + 0.3j * np.eye(3)
    for uplo in ("L", "U"):
        w, v = LA.eigh(a, UPLO=uplo)
        w0, v0 = np.linalg.eigh(a, UPLO=uplo)
        assert np.asarray(w).dtype == np.float64
        np.testing.assert_allclose(w, w0, rtol=1e-12)
        np.testing.assert_allclose(np.abs(v), np.abs(v0), atol=1e-10)
    b = CH + np.triu(rng.standard_normal((3, 3)), 1)
    c = CH + np.tril(rng.standard_normal((3, 3)), -1)
    np.testing.assert_allclose(LA.cholesky(b), np.linalg.cholesky(b), rtol=1e-12)
    np.testing.assert_allclose(LA.cholesky(c, upper=True), np.linalg.cholesky(c, upper=True),
                               rtol=1e-12)
    g = fad.grad(lambda a: fnp.sum(fnp.abs(LA.cholesky(a)) ** 2))(CH)
    assert np.all(np.triu(g, 1) == 0)


def test_complex_slogdet_conventions():
    sign, logabsdet = LA.slogdet(CAB)
    s0, l0 = np.linalg.slogdet(CAB)
    assert (sign.dtype, logabsdet.dtype) == (np.complex128, np.float64)
    np.testing.assert_allclose(np.abs(sign), 1.0, rtol=1e-12)
    np.testing.assert_allclose(sign, s0, rtol=1e-12)
    np.testing.assert_allclose(logabsdet, l0, rtol=1e-12)
    # grad of log|det A| = Re(log det A) is A^-T in JAX's convention (df/dx - i df/dy:
    # the derivative of the holomorphic log det, as for any Re(h(z)))
    g = fad.grad(lambda a: LA.slogdet(a)[1])(CA)
    np.testing.assert_allclose(g, np.linalg.inv(CA).T, rtol=1e-10)
    # d sign = sign * i Im tr(A^-1 dA)
    t = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))
    (s, _), (ds, dl) = fad.jvp(lambda a: tuple(LA.slogdet(a)), (CA,), (t,))
    tr = np.trace(np.linalg.inv(CA) @ t)
    np.testing.assert_allclose(ds, s * 1j * tr.imag, rtol=1e-10)
    np.testing.assert_allclose(dl, tr.real, rtol=1e-10)


def test_complex_norms():
    x = rng.standard_normal((2, 3, 4)) + 1j * rng.standard_normal((2, 3, 4))
    for ord in VEC_ORDS:
        want = np.linalg.norm(x, ord, axis=-1)
        got = LA.norm(x, ord, axis=-1)
        assert np.asarray(got).dtype == np.float64
        np.testing.assert_allclose(got, want, rtol=1e-12)
        if ord != 0:
            assert_grad_matches_finite_differences(lambda v: LA.norm(v, ord, axis=-1), (x,),
                                                   order=2, atol=1e-4, rtol=1e-4)
    for ord in MAT_ORDS:
        np.testing.assert_allclose(LA.norm(x, ord, axis=(1, 2)),
                                   np.linalg.norm(x, ord, axis=(1, 2)), rtol=1e-12)
        assert_grad_matches_finite_differences(lambda a: LA.norm(a, ord, axis=(1, 2)), (x,),
                                               order=1, atol=1e-4, rtol=1e-4)
    # real-valued: the gradient is df/dx - i df/dy, i.e. conj(x) / |x| for the 2-norm
    v = x[0, 0]
    np.testing.assert_allclose(fad.grad(LA.norm)(v), np.conj(v) / np.linalg.norm(v),
                               rtol=1e-12)
    assert np.all(fad.grad(LA.norm)(np.zeros(3, complex)) == 0)


@pytest.mark.parametrize("kind", ["real", "complex"])
@pytest.mark.parametrize("name", ["inv", "det", "slogdet", "cholesky", "eigh", "qr_tall",
                                  "svd_tall", "solve"])
def test_vmap_and_jit(name, kind):
    f, args = (CASES if kind == "real" else COMPLEX_CASES)[name]
    assert_jit_matches_eager(f, args)
    batched = [np.stack([x, x * 1.01]) for x in args]
    assert_vmap_matches_loop(f, batched)
    loss = lambda *a: fnp.sum(fnp.abs(fad.tree.tree_leaves(f(*a))[0]) ** 2)
    assert_vmap_matches_loop(fad.grad(loss), batched)


def test_complex64_derivatives_and_dtypes():
    a = CAB.astype(np.complex64)
    h = CHB.astype(np.complex64)
    assert LA.eigh(h)[0].dtype == np.float32 and LA.svd(a)[1].dtype == np.float32
    assert LA.slogdet(a)[1].dtype == np.float32 and LA.norm(a).dtype == np.float32
    for f, x in ((LA.inv, a), (LA.det, a), (LA.eigvalsh, h), (LA.svdvals, a),
                 (lambda x: LA.slogdet(x)[1], a)):
        g = fad.grad(lambda x: fnp.sum(fnp.abs(f(x)) ** 2))(x)
        assert g.dtype == np.complex64
        assert_grad_matches_finite_differences(f, (x,), atol=5e-2, rtol=5e-2)


def test_complex_gauge_of_eigh_and_svd_vectors():
    """JAX's gauge: the derivatives of eigenvectors keep Im diag(V^H dV) = 0, those of
    right singular vectors diag(V^H dV) = 0 (the phase change is in U)."""
    t = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))
    (w, v), (dw, dv) = fad.jvp(LA.eigh, (CH,), (t + t.conj().T,))
    assert dw.dtype == np.float64
    np.testing.assert_allclose(np.diag(v.conj().T @ dv).imag, 0, atol=1e-12)
    (u, s, vh), (du, ds, dvh) = fad.jvp(lambda a: tuple(LA.svd(a)), (CA,), (t,))
    np.testing.assert_allclose(np.diag(dvh @ vh.conj().T), 0, atol=1e-12)
    # and the reconstruction's tangent is the input's
    np.testing.assert_allclose((du * s) @ vh + (u * ds) @ vh + (u * s) @ dvh, t, atol=1e-12)
