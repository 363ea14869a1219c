"""``fad.scipy.linalg`` against SciPy: values (pivoting LU, every triangular-solve
variant, expm with and without squarings), derivatives (check_grads, expm's
Fréchet derivative), jit against eager, vmap against a loop, errors. The
operator table's rows (``solve_triangular lu lu_solve cho_solve expm sqrtm``...)
add the property laws."""

import numpy as np
import pytest
import scipy.linalg as sl

import fad
import fad.numpy as fnp
import fad.scipy.linalg as fsl
from fad.testing import assert_jit_matches_eager, assert_vmap_matches_loop

rng = np.random.default_rng(0)
A = rng.standard_normal((4, 4))            # pivoting happens (no diagonal dominance)
B = rng.standard_normal((4, 2))
AC = A + 1j * rng.standard_normal((4, 4))
SPD = A @ A.T + 4 * np.eye(4)


@pytest.mark.parametrize("trans", [0, 1, 2, "N", "T", "C"])
@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("unit", [False, True])
def test_solve_triangular_matches_scipy(trans, lower, unit):
    for a, b in [(A, B), (AC, B + 1j), (A, B[:, 0])]:
        np.testing.assert_allclose(
            fsl.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=unit),
            sl.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=unit),
            rtol=1e-10, atol=1e-12)


def test_solve_triangular_batched_and_derivatives():
    a = np.stack([A, 2 * A]) + 4 * np.eye(4)
    b = rng.standard_normal((2, 4, 3))
    f = lambda a, b: fsl.solve_triangular(a, b, trans=1, lower=True)
    np.testing.assert_allclose(f(a, b), sl.solve_triangular(a, b, trans=1, lower=True))
    fad.check_grads(f, (a, b), order=2, modes=("fwd", "rev"))
    assert_vmap_matches_loop(f, [a, b])
    assert_jit_matches_eager(f, [a, b])
    # a vector b broadcast against a batch of matrices
    np.testing.assert_allclose(fsl.solve_triangular(a, B[:, 0], lower=True),
                               sl.solve_triangular(a, np.stack([B[:, :1]] * 2), lower=True)[..., 0])


def test_solve_triangular_reverse_mode_is_a_triangular_solve():
    jaxpr = fad.make_jaxpr(fad.grad(lambda b: fnp.sum(fsl.solve_triangular(A, b))))(B)
    names = [e.primitive.name for e in jaxpr.jaxpr.eqns]
    assert "solve_triangular" in names and "inv" not in names and "solve" not in names


def test_lu_matches_scipy_with_pivoting():
    for a in (A, AC, A.astype(np.float32)):
        p, low, up = fsl.lu(a)
        p2, l2, u2 = sl.lu(a)
        tol = 1e-5 if a.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(p, p2)
        np.testing.assert_allclose(low, l2, atol=tol)
        np.testing.assert_allclose(up, u2, atol=tol)
        assert low.dtype == up.dtype == p.dtype == a.dtype
        pl, u3 = fsl.lu(a, permute_l=True)
        np.testing.assert_allclose(pl @ u3, a, atol=tol * 10)
    lu, piv = fsl.lu_factor(A)
    lu2, piv2 = sl.lu_factor(A)
    np.testing.assert_allclose(lu, lu2)
    np.testing.assert_array_equal(piv, piv2)


@pytest.mark.parametrize("trans", [0, 1, 2])
def test_lu_solve_matches_scipy(trans):
    for a, b in [(A, B), (AC, B), (A, B[:, 0])]:
        np.testing.assert_allclose(fsl.lu_solve(fsl.lu_factor(a), b, trans=trans),
                                   sl.lu_solve(sl.lu_factor(a), b, trans=trans), rtol=1e-10)


def test_lu_derivatives_with_pivoting():
    fad.check_grads(lambda a: fsl.lu(a)[1] + fsl.lu(a)[2], (A,), order=2, modes=("fwd", "rev"))
    fad.check_grads(lambda a, b: fsl.lu_solve(fsl.lu_factor(a), b, trans=1), (A, B), order=2,
                    modes=("fwd", "rev"))
    stack = np.stack([A, A.T])
    assert_vmap_matches_loop(lambda a: fsl.lu(a)[2], [stack])
    assert_jit_matches_eager(lambda a: fsl.lu(a)[1], [A])
    assert_jit_matches_eager(fad.grad(lambda a: fnp.sum(fsl.lu(a)[2] ** 2)), [A])


def test_cholesky_and_cho_solve():
    np.testing.assert_allclose(fsl.cholesky(SPD), sl.cholesky(SPD))
    np.testing.assert_allclose(fsl.cholesky(SPD, lower=True), sl.cholesky(SPD, lower=True))
    for lower in (False, True):
        for b in (B, B[:, 0]):
            np.testing.assert_allclose(fsl.cho_solve(fsl.cho_factor(SPD, lower=lower), b),
                                       sl.cho_solve(sl.cho_factor(SPD, lower=lower), b))
    np.testing.assert_allclose(fsl.solve(SPD, B, assume_a="pos"), np.linalg.solve(SPD, B))


@pytest.mark.parametrize("scale", [0.01, 1.0, 10.0, 60.0])
def test_expm_matches_scipy(scale):
    for a in (A * scale, AC * scale):
        want = sl.expm(a)
        tol = dict(rtol=1e-9, atol=1e-12 * np.abs(want).max())
        np.testing.assert_allclose(fsl.expm(a), want, **tol)
        np.testing.assert_allclose(fad.jit(fsl.expm)(a), want, **tol)
    got = fsl.expm((A * scale).astype(np.float32))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, sl.expm(A * scale), rtol=2e-4,
                               atol=1e-5 * np.abs(sl.expm(A * scale)).max())


def test_expm_derivatives():
    # the Fréchet derivative L(A, E) against SciPy's, and second order
    E = rng.standard_normal((4, 4))
    for a in (0.3 * A, 5 * A):
        _, t = fad.jvp(fsl.expm, (a,), (E,))
        np.testing.assert_allclose(t, sl.expm_frechet(a, E)[1], rtol=1e-8)
    fad.check_grads(fsl.expm, (A,), order=2, modes=("fwd", "rev"))
    loss = lambda a: fnp.sum(fsl.expm(a) ** 2)
    np.testing.assert_allclose(fad.jit(fad.grad(loss))(3 * A), fad.grad(loss)(3 * A),
                               rtol=1e-9)
    np.testing.assert_allclose(fad.jit(fad.hessian(loss))(A), fad.hessian(loss)(A), rtol=1e-8)


def test_expm_batched_with_different_squarings():
    stack = np.stack([0.1 * A, 20 * A])
    want = np.stack([sl.expm(x) for x in stack])
    for f in (fsl.expm, fad.vmap(fsl.expm), fad.jit(fad.vmap(fsl.expm)), fad.jit(fsl.expm)):
        np.testing.assert_allclose(f(stack), want, rtol=1e-9, atol=1e-12 * np.abs(want).max())


def test_sqrtm():
    np.testing.assert_allclose(fsl.sqrtm(SPD), sl.sqrtm(SPD), rtol=1e-10)
    a = A + 5 * np.eye(4)  # not symmetric: the Schur method
    x = fsl.sqrtm(a)
    np.testing.assert_allclose(x @ x, a, atol=1e-10)
    fad.check_grads(fsl.sqrtm, (SPD,), order=2, modes=("fwd", "rev"))
    fad.check_grads(fsl.sqrtm, (a,), order=1, modes=("fwd", "rev"))
    assert np.isnan(fsl.sqrtm(-np.eye(2))).all()  # no real square root
    np.testing.assert_allclose(fsl.sqrtm(-np.eye(2) + 0j), 1j * np.eye(2))
    assert_vmap_matches_loop(fsl.sqrtm, [np.stack([SPD, 2 * SPD])])


def test_delegates_with_scipy_signatures():
    np.testing.assert_allclose(fsl.inv(A), sl.inv(A))
    np.testing.assert_allclose(fsl.det(A), sl.det(A))
    np.testing.assert_allclose(fsl.solve(A, B), sl.solve(A, B))
    for lower in (False, True):
        for kind in ("sym", "her"):
            np.testing.assert_allclose(fsl.solve(AC, B, assume_a=kind, lower=lower),
                                       sl.solve(AC, B, assume_a=kind, lower=lower))
    w, v = fsl.eigh(SPD, lower=False)
    np.testing.assert_allclose(w, sl.eigh(SPD, lower=False)[0])
    np.testing.assert_allclose(fsl.eigh(SPD, eigvals_only=True), sl.eigh(SPD, eigvals_only=True))
    np.testing.assert_allclose(fsl.svd(A, compute_uv=False), sl.svd(A, compute_uv=False))
    u, s, vh = fsl.svd(A)
    np.testing.assert_allclose((u * s) @ vh, A, atol=1e-12)
    tall = rng.standard_normal((4, 2))
    for mode in ("full", "economic", "r"):
        for a in (A, tall, tall.T):
            if mode == "full" and a is tall:
                continue
            got, want = fsl.qr(a, mode=mode), sl.qr(a, mode=mode)
            assert len(got) == len(want)
            for g, w in zip(got, want):
                np.testing.assert_allclose(np.abs(g), np.abs(w), atol=1e-12)


def test_block_diag_matches_scipy():
    parts = (np.ones((2, 2)), 3.0, np.arange(3.0), np.zeros((0, 2)))
    np.testing.assert_allclose(fsl.block_diag(*parts), sl.block_diag(*parts))
    assert fsl.block_diag(np.ones((1, 1), np.float32)).dtype == np.float32
    g = fad.grad(lambda a, b: fnp.sum(fsl.block_diag(a, b) * 2.0), argnums=(0, 1))(
        np.ones((2, 2)), np.ones(3))
    np.testing.assert_allclose(g[0], 2 * np.ones((2, 2)))


def test_errors_name_the_function():
    with pytest.raises(ValueError, match="solve_triangular: trans"):
        fsl.solve_triangular(A, B, trans=3)
    with pytest.raises(ValueError, match="solve_triangular: b of shape"):
        fsl.solve_triangular(A, np.ones(3))
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        fsl.expm(np.ones((2, 3)))
    with pytest.raises(NotImplementedError, match="generalized"):
        fsl.eigh(SPD, SPD)
    with pytest.raises(ValueError, match="assume_a"):
        fsl.solve(A, B, assume_a="banded")
    with pytest.raises(ValueError, match="block_diag"):
        fsl.block_diag(np.ones((2, 2, 2)))


def test_expm_matches_jax():
    jsl = pytest.importorskip("jax.scipy.linalg")
    import jax
    jax.config.update("jax_enable_x64", True)
    for a in (0.5 * A, 8 * A):
        np.testing.assert_allclose(fsl.expm(a), np.asarray(jsl.expm(a)), rtol=1e-9)
