"""Gradients with respect to a covariance are symmetric, as JAX's
(``multivariate_normal``'s density and sampler differentiate through the
covariance's symmetric part); ``fad.numpy.linalg.cholesky`` keeps NumPy's
convention (its value and derivative read one triangle)."""

import numpy as np
import pytest

import fad
import fad.numpy as fnp
import fad.random as fr
import fad.scipy.linalg as fsl
import fad.scipy.stats as fss

C = np.array([[2.0, 0.5], [0.5, 1.0]])
X, MU = np.array([0.3, -0.2]), np.array([0.1, 0.2])


@pytest.fixture
def jax(jax64):
    return jax64


def test_covariance_gradients_match_jax(jax):
    import jax.numpy as jnp
    import jax.scipy.linalg as jsl
    import jax.scipy.stats as jss
    pairs = [
        (lambda c: fss.multivariate_normal.logpdf(X, MU, c),
         lambda c: jss.multivariate_normal.logpdf(X, MU, c)),
        (lambda c: fnp.sum(fr.multivariate_normal(fr.key(0), MU, c, (3,)) ** 2),
         lambda c: jnp.sum(jax.random.multivariate_normal(jax.random.key(0), MU, c, (3,)) ** 2)),
    ]
    for ours, theirs in pairs:
        g = fad.grad(ours)(C)
        np.testing.assert_allclose(g, jax.grad(theirs)(C), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(g, g.T, rtol=1e-14)
        np.testing.assert_allclose(fad.jit(fad.grad(ours))(C), g, rtol=1e-12)
        h = fad.hessian(ours)(C)
        np.testing.assert_allclose(h, jax.hessian(theirs)(C), rtol=1e-8, atol=1e-10)
    # a symmetric-input cholesky: fad.numpy's and JAX's agree
    g = fad.grad(lambda c: fnp.sum(fnp.linalg.cholesky((c + c.T) / 2) ** 3))(C)
    j = jax.grad(lambda c: jnp.sum(jnp.linalg.cholesky(c) ** 3))(C)
    np.testing.assert_allclose(g, j, rtol=1e-12)
    # jax.scipy.linalg's cho_factor reads one triangle for its value but not for its
    # derivative; symmetrised, its gradient is fad's
    g = fad.grad(lambda c: fnp.sum(fsl.cho_solve(fsl.cho_factor((c + c.T) / 2), X)))(C)
    j = np.asarray(jax.grad(lambda c: jnp.sum(jsl.cho_solve(jsl.cho_factor(c), X)))(C))
    np.testing.assert_allclose(g, (j + j.T) / 2, rtol=1e-12)


def test_value_reads_one_triangle_as_numpy():
    a = np.array([[4.0, 100.0], [2.0, 3.0]])
    np.testing.assert_allclose(fss.multivariate_normal.logpdf(X, MU, a),
                               fss.multivariate_normal.logpdf(X, MU, np.tril(a) + np.tril(a, -1).T))
    np.testing.assert_allclose(fnp.linalg.cholesky(a), np.linalg.cholesky(a), rtol=1e-14)
    np.testing.assert_allclose(fnp.linalg.eigh(a, UPLO="U")[0],
                               np.linalg.eigh(a, UPLO="U")[0], rtol=1e-14)
