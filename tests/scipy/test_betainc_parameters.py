"""The incomplete beta function's derivatives in its parameters ``a`` and ``b``
(and through it the t and beta distributions' in their shapes), and the Poisson
quantile function."""

import numpy as np
import pytest
import scipy.special
import scipy.stats

import fad
import fad.scipy.special as fsp
import fad.scipy.stats as fst

# the grid: a, b in [0.5, 50], x in (0.01, 0.99)
_A = np.array([0.5, 1.3, 7.0, 50.0])
_X = np.array([0.01, 0.2, 0.5, 0.8, 0.99])
A, B, X = (v.ravel() for v in np.meshgrid(_A, _A, _X, indexing="ij"))


def _central(f, i, args, h=1e-5):
    up, down = list(args), list(args)
    up[i], down[i] = args[i] + h, args[i] - h
    return (f(*up) - f(*down)) / (2 * h)


@pytest.mark.parametrize("i", [0, 1])
def test_betainc_parameter_derivatives_match_scipy_differences(i):
    got = np.asarray(fad.vmap(fad.grad(fsp.betainc, argnums=i))(A, B, X))
    want = _central(scipy.special.betainc, i, (A, B, X))
    # the central difference itself carries about 1e-11 of rounding error
    np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-10)


def test_betainc_parameter_derivatives_match_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.scipy.special as jsp
    try:
        want = jax.grad(jsp.betainc, argnums=(0, 1))(2.0, 3.0, 0.4)
    except ValueError:
        pytest.skip("JAX has no derivative of betainc in a and b")
    got = fad.grad(fsp.betainc, argnums=(0, 1))(2.0, 3.0, 0.4)
    np.testing.assert_allclose(got, want, rtol=1e-8)


def test_betainc_parameter_derivatives_second_order_and_edges():
    a, b, x = np.array([0.7, 3.0, 12.0]), np.array([2.5, 0.6, 9.0]), np.array([0.3, 0.9, 0.55])
    fad.check_grads(lambda a, b: fsp.betainc(a, b, x), (a, b), order=2, atol=1e-6, rtol=1e-6)
    # at x = 0 and x = 1 the value is 0 or 1 whatever a and b: the derivative is 0
    da, db = fad.grad(lambda a, b: fsp.betainc(a, b, np.array([0.0, 1.0])).sum(),
                      argnums=(0, 1))(2.0, 3.0)
    assert float(da) == 0.0 and float(db) == 0.0
    # float32 stays float32
    g = fad.grad(fsp.betainc)(np.float32(2.0), np.float32(3.0), np.float32(0.4))
    assert g.dtype == np.float32
    assert float(g) == pytest.approx(-0.2408693760875566, rel=1e-4)


def test_betainc_parameter_derivatives_under_jit_and_vmap():
    grad = fad.grad(lambda a, b, x: fsp.betainc(a, b, x), argnums=(0, 1))
    eager = [np.asarray(grad(a, b, x)) for a, b, x in zip(A[:8], B[:8], X[:8])]
    batched = fad.jit(fad.vmap(grad))(A[:8], B[:8], X[:8])
    np.testing.assert_allclose(np.stack(batched, axis=1), eager, rtol=1e-12)


@pytest.mark.parametrize("i", [0, 1])
def test_betaincinv_parameter_derivatives(i):
    a, b, y = np.array([0.8, 2.5, 30.0]), np.array([4.0, 0.7, 20.0]), np.array([0.1, 0.5, 0.95])
    got = np.asarray(fad.vmap(fad.grad(fsp.betaincinv, argnums=i))(a, b, y))
    want = _central(scipy.special.betaincinv, i, (a, b, y), h=1e-6)
    np.testing.assert_allclose(got, want, rtol=1e-7)
    fad.check_grads(lambda p: fsp.betaincinv(*(p if j == i else v for j, v in
                                                enumerate((a, b, y)))), ((a, b, y)[i],),
                    order=1, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("name", ["cdf", "sf", "logcdf", "logsf", "ppf"])
def test_t_derivative_in_df(name):
    f, ref = getattr(fst.t, name), getattr(scipy.stats.t, name)
    x = (np.array([0.02, 0.3, 0.5, 0.7, 0.97]) if name == "ppf"
         else np.array([-3.0, -0.4, 0.0, 0.8, 5.0]))
    df = np.array([0.7, 2.5, 4.0, 9.0, 40.0])
    got = np.asarray(fad.vmap(fad.grad(f, argnums=1))(x, df))
    want = _central(ref, 1, (x, df), h=1e-6)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)
    if name in ("cdf", "ppf"):
        fad.check_grads(lambda d: f(x, d), (df,), order=2, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("name", ["cdf", "sf", "logcdf", "logsf", "ppf"])
def test_beta_derivatives_in_shapes(name):
    f, ref = getattr(fst.beta, name), getattr(scipy.stats.beta, name)
    x, a, b = np.array([0.05, 0.4, 0.9]), np.array([0.6, 3.0, 20.0]), np.array([2.0, 0.9, 15.0])
    for i in (1, 2):
        got = np.asarray(fad.vmap(fad.grad(f, argnums=i))(x, a, b))
        want = _central(ref, i, (x, a, b), h=1e-6)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)
    fad.check_grads(lambda a, b: f(x, a, b), (a, b), order=1, atol=1e-5, rtol=1e-5)


def test_poisson_ppf_and_sf_match_scipy():
    q = np.array([0.0, 1e-12, 0.001, 0.3, 0.5, 0.9, 0.999999, 1.0, 1.2, -0.1, np.nan])
    mu = np.array([0.0, 1e-3, 0.5, 3.0, 40.0, 1e4])[:, None]
    np.testing.assert_array_equal(fst.poisson.ppf(q, mu), scipy.stats.poisson.ppf(q, mu))
    assert np.isnan(float(fst.poisson.ppf(0.3, -1.0)))
    assert float(fst.poisson.ppf(0.3, 3.0, 2.0)) == scipy.stats.poisson.ppf(0.3, 3.0, loc=2)
    assert float(fad.grad(fst.poisson.ppf, argnums=1)(0.3, 3.0)) == 0.0
    k = np.array([-1.0, 0.0, 2.5, 7.0, 30.0])
    np.testing.assert_allclose(fst.poisson.sf(k, mu), scipy.stats.poisson.sf(k, mu),
                               rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(fad.jit(fst.poisson.ppf)(q, mu), fst.poisson.ppf(q, mu))
    fad.check_grads(lambda m: fst.poisson.sf(k[1:], m), (np.array([0.5, 2.0, 8.0, 3.0]),),
                    order=2, atol=1e-5, rtol=1e-5)


def test_betainc_parameter_derivatives_far_from_the_grid():
    """Large and unequal parameters, x near the ends: the branch that converges sooner."""
    a, b = np.array([500.0, 2000.0, 0.05, 1000.0, 3.0]), np.array([0.5, 3.0, 0.05, 1000.0, 4000.0])
    x = np.array([0.995, 0.998, 0.5, 0.49, 0.001])
    for i in (0, 1):
        got = np.asarray(fad.vmap(fad.grad(fsp.betainc, argnums=i))(a, b, x))
        h = 1e-6 * np.maximum(1.0, (a, b)[i])
        want = _central(scipy.special.betainc, i, (a, b, x), h=h)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)
