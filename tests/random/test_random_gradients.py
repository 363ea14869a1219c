"""Reparameterised samplers: derivatives in their parameters at a fixed key.

The inverse-CDF samplers (``uniform``, ``normal``-based, ``truncated_normal``,
``multivariate_normal``) are smooth functions of their parameters at a fixed key:
``fad.check_grads`` compares them with finite differences. ``gamma``'s numbers
come from a rejection sampler, whose output at a fixed key is not the inverse
CDF, so its implicit gradient ``dx/da = -(dP/da) / p`` is checked against the
derivative of SciPy's inverse CDF at the sample's quantile, and ``beta`` and
``dirichlet`` (made from it) by the unbiasedness of the gradient: the mean of
``dx/da`` over many draws is ``d E[x] / da``.
"""

import numpy as np
import pytest
from scipy import special

import fad
import fad.numpy as fnp
import fad.random as fr
from fad.random._gamma import _dx_da

KEY = fr.key(3)


def test_uniform_bounds():
    fad.check_grads(lambda lo, hi: fr.uniform(KEY, (5,), minval=lo, maxval=hi),
                    (np.array(0.5), np.array(2.0)), order=2)


def test_normal_location_scale():
    fad.check_grads(lambda m, s: m + s * fr.normal(KEY, (4,)), (np.array(0.3), np.array(1.5)))


def test_truncated_normal_bounds():
    fad.check_grads(lambda lo, hi: fr.truncated_normal(KEY, lo, hi, (6,)),
                    (np.array([-0.7]), np.array([1.2])), atol=1e-6, rtol=1e-6)


def test_multivariate_normal_mean_and_cov():
    def f(mean, a):
        return fr.multivariate_normal(KEY, mean, a @ a.T + fnp.eye(3), (4,))
    a = np.array([[1.0, 0.2, 0.0], [0.1, 0.8, 0.3], [0.0, -0.2, 0.5]])
    fad.check_grads(f, (np.array([0.1, -0.3, 2.0]), a), atol=1e-6, rtol=1e-6)


@pytest.mark.parametrize("name,f,args", [
    ("lognormal", lambda s: fr.lognormal(KEY, s, (4,)), (0.7,)),
    ("pareto", lambda b: fr.pareto(KEY, b, (4,)), (2.5,)),
    ("weibull_min", lambda s, c: fr.weibull_min(KEY, s, c, (4,)), (2.0, 1.5)),
    ("rayleigh", lambda s: fr.rayleigh(KEY, s, (4,)), (1.3,)),
    ("triangular", lambda a, m, b: fr.triangular(KEY, a, m, b, (6,)), (-1.0, 0.5, 2.0)),
    ("wald", lambda m: fr.wald(KEY, m, (4,)), (0.8,)),
])
def test_transformed_samplers(name, f, args):
    fad.check_grads(f, tuple(np.array(a) for a in args), atol=1e-6, rtol=1e-6)


def _inverse_cdf_derivative(a, x, h=1e-6):
    """d/da of the quantile at fixed probability, by a central difference of
    SciPy's inverse (the upper tail's functions above the median)."""
    p = special.gammainc(a, x)
    if p > 0.5:
        q = special.gammaincc(a, x)
        return (special.gammainccinv(a + h, q) - special.gammainccinv(a - h, q)) / (2 * h)
    return (special.gammaincinv(a + h, p) - special.gammaincinv(a - h, p)) / (2 * h)


@pytest.mark.parametrize("a", [0.05, 0.4, 1.0, 3.0, 30.0, 150.0, 250.0, 2000.0])
def test_gamma_implicit_derivative_against_scipy(a):
    """Below a = 200 the series agrees to about 1e-8, the finite difference's own
    accuracy (1e-5 at a = 0.05, where x(a) = (p Gamma(a + 1))^(1/a) bends
    sharply); above, Wilson-Hilferty's derivative to 2e-4."""
    xs = special.gammaincinv(a, np.array([1e-4, 0.05, 0.5, 0.95, 0.9999]))
    got = np.asarray(_dx_da(np.full(5, a), xs))
    want = np.array([_inverse_cdf_derivative(a, x) for x in xs])
    np.testing.assert_allclose(got, want, rtol=1e-5 if a < 0.1 else 1e-6 if a < 200 else 2e-4)


def test_gamma_gradient_is_the_rule_of_the_sample():
    a = np.array([0.5, 2.0, 7.0])
    g = fad.jacfwd(lambda a: fr.gamma(KEY, a))(a)
    x = fr.gamma(KEY, a)
    np.testing.assert_allclose(np.diag(g), _dx_da(a, x), rtol=1e-12)
    assert np.array_equal(fad.jacrev(lambda a: fr.gamma(KEY, a))(a), g)
    # under jit, and vmap over keys, the same numbers
    grad = fad.grad(lambda a: fr.gamma(KEY, a))
    assert np.isclose(fad.jit(grad)(2.0), grad(2.0), rtol=1e-13)
    keys = fr.split(KEY, 3)
    per_key = fad.vmap(lambda k: fad.grad(lambda a: fr.gamma(k, a))(2.0))(keys)
    loop = [fad.grad(lambda a, k=k: fr.gamma(k, a))(2.0) for k in keys]
    np.testing.assert_allclose(per_key, loop, rtol=1e-13)


def test_loggamma_gradient_is_gammas_over_x():
    a = np.array([1e-3, 0.5, 2.0, 7.0, 300.0])
    g = np.diag(fad.jacfwd(lambda a: fr.loggamma(KEY, a))(a))
    x = fr.gamma(KEY, a)
    np.testing.assert_allclose(g[1:], _dx_da(a, x)[1:] / x[1:], rtol=1e-10)
    # where x is tiny, P(a, x) ~ x^a / Gamma(a + 1) gives d log x / da =
    # (digamma(a + 1) - log x) / a, up to a relative O(x)
    log_x = float(fr.loggamma(KEY, a[:1])[0])
    assert log_x < -100
    np.testing.assert_allclose(g[0], (special.digamma(1 + a[0]) - log_x) / a[0], rtol=1e-12)


@pytest.mark.parametrize("a", [0.3, 2.5, 400.0])
def test_gamma_gradient_is_unbiased(a):
    """E[x] = a, so the mean of dx/da is 1 (to a few standard errors)."""
    g = np.asarray(fad.grad(lambda a: fnp.sum(fr.gamma(KEY, a, (4000,))))(a)) / 4000
    per_draw = np.asarray(_dx_da(np.full(4000, a), fr.gamma(KEY, a, (4000,))))
    assert np.isclose(g, per_draw.mean(), rtol=1e-12)
    assert abs(g - 1.0) < 5 * per_draw.std() / np.sqrt(4000)


def test_beta_and_dirichlet_gradients_are_unbiased():
    n, a, b = 4000, 2.0, 3.0
    ga, gb = fad.grad(lambda a, b: fnp.mean(fr.beta(KEY, a, b, (n,))), argnums=(0, 1))(a, b)
    # E[X] = a / (a + b): d/da = b / (a + b)^2, d/db = -a / (a + b)^2
    assert abs(ga - b / (a + b) ** 2) < 0.01 and abs(gb + a / (a + b) ** 2) < 0.01
    alpha = np.array([1.0, 2.0, 3.0])
    jac = fad.jacrev(lambda al: fnp.mean(fr.dirichlet(KEY, al, (n,)), axis=0))(alpha)
    s = alpha.sum()
    want = (np.eye(3) * s - alpha[:, None]) / s ** 2  # d(alpha_i / s) / d alpha_j
    np.testing.assert_allclose(jac, want, atol=0.01)


def test_gamma_float32_and_tiny_shapes():
    x = fr.gamma(KEY, np.float32(0.01), (1000,), np.float32)
    assert x.dtype == np.float32 and (x >= 0).all()
    g = fad.grad(lambda a: fnp.sum(fr.gamma(KEY, a, (1000,))))(1e-3)
    assert np.isfinite(g)


def test_gamma_second_derivative_and_vmap_over_shapes():
    """The rule is written in fad's operations: its own derivative is d2x/da2 at
    fixed CDF (a central difference of SciPy's inverse CDF)."""
    x = float(fr.gamma(KEY, 2.0))
    p, h = special.gammainc(2.0, x), 1e-4
    want = (special.gammaincinv(2 + h, p) - 2 * x + special.gammaincinv(2 - h, p)) / h ** 2
    got = fad.grad(fad.grad(lambda a: fr.gamma(KEY, a)))(2.0)
    np.testing.assert_allclose(got, want, rtol=1e-5)  # the second difference's accuracy
    a = np.array([0.5, 2.0, 5.0])
    assert np.array_equal(fad.vmap(lambda a: fr.gamma(KEY, a))(a),
                          [fr.gamma(KEY, x) for x in a])
    np.testing.assert_allclose(fad.vmap(fad.grad(lambda a: fr.gamma(KEY, a)))(a),
                               [fad.grad(lambda a: fr.gamma(KEY, a))(x) for x in a],
                               rtol=1e-13)
