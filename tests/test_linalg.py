"""``fad.numpy.linalg``: values against NumPy (batched too), derivatives against
finite differences (batched too), every ``norm`` order, and the conventions at
zero, at singular matrices and at repeated eigen/singular values."""

import numpy as np
import pytest

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
    with pytest.raises(NotImplementedError, match="eig"):
        LA.eig(A)
    with pytest.raises(LA.LinAlgError, match="square"):
        LA.inv(T)


# ---------------------------------------------------------------- derivatives
def _sym_proj(v):
    """Sign-invariant products of eigen/singular vectors."""
    return v * v[..., :1, :]


CASES = {
    "inv": (LA.inv, (AB,)),
    "solve": (LA.solve, (AB, rng.standard_normal((2, 3, 2)))),
    "solve_vector": (LA.solve, (A, B[:, 0])),
    "det": (LA.det, (AB,)),
    "slogdet": (lambda a: LA.slogdet(a)[1], (AB,)),
    "cholesky": (LA.cholesky, (SB,)),
    "eigh": (lambda a: (LA.eigh(a)[0], _sym_proj(LA.eigh(a)[1])), (SB,)),
    "qr_tall": (LA.qr, (np.stack([T, T[::-1]]),)),
    "qr_wide": (LA.qr, (W + np.eye(2, 4) * 2,)),
    "svd_tall": (lambda a: (lambda u, s, vh: (s, u * vh[:, :1].T, vh * u[:1].T))(
        *LA.svd(a, full_matrices=False)), (T,)),
    "svd_wide": (lambda a: (lambda u, s, vh: (s, u * vh[:, :1].T, vh * u[:1].T))(
        *LA.svd(a, full_matrices=False)), (W,)),
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


@pytest.mark.parametrize("name", ["inv", "det", "slogdet", "cholesky", "eigh", "qr_tall",
                                  "svd_tall", "solve"])
def test_vmap_and_jit(name):
    f, args = CASES[name]
    assert_jit_matches_eager(f, args)
    batched = [np.stack([x, x * 1.01]) for x in args]
    assert_vmap_matches_loop(f, batched)
    assert_vmap_matches_loop(fad.grad(lambda *a: fnp.sum(fad.tree.tree_leaves(f(*a))[0])),
                             batched)


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
@pytest.mark.parametrize("ord", VEC_ORDS[:6] + ["fro_matrix", "nuc", "2_matrix"], ids=str)
def test_norm_at_zero_is_a_zero_subgradient(ord):
    if isinstance(ord, str):
        o = {"fro_matrix": "fro", "nuc": "nuc", "2_matrix": 2}[ord]
        f, x = (lambda a: LA.norm(a, o)), np.zeros((2, 3))
    else:
        f, x = (lambda a: LA.norm(a, ord)), np.zeros(3)
    assert float(f(x)) == 0.0
    for g in (fad.grad(f)(x), fad.jacfwd(f)(x)):
        assert np.all(g == 0), g
    assert np.all(np.isfinite(fad.hessian(f)(x)))


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
