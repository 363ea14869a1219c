"""``fad.scipy.stats`` against ``scipy.stats``: values over grids that reach the
tails (float64, to 1e-12) with broadcasting parameters, derivatives in each
continuous argument against finite differences (``fad.check_grads``), ``jit``
against eager, ``vmap`` against a loop, float32 kept float32, and the errors."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats

import fad
import fad.numpy as fnp
import fad.scipy.stats as fst

X = np.array([-40.0, -7.5, -1.3, -0.2, 0.0, 0.4, 1.7, 6.0, 40.0])[:, None]
Q = np.array([1e-12, 0.01, 0.3, 0.5, 0.77, 0.999])[:, None]
LOC = np.array([0.0, 0.5])
SCALE = 1.5

# distribution -> [(functions, arguments as SciPy takes them, positionally)]
CONTINUOUS = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")
DISCRETE = ("logpmf", "pmf", "cdf", "logcdf", "sf", "logsf")
QD = np.array([0.0, 1e-9, 0.01, 0.3, 0.5, 0.8, 0.999, 1.0, 1.2])  # a discrete ppf's grid
LOCATION_SCALE = [(CONTINUOUS, (X, LOC, SCALE)), (("ppf", "isf"), (Q, LOC, SCALE))]
GRIDS = {
    "norm": LOCATION_SCALE,
    "expon": LOCATION_SCALE,
    "laplace": LOCATION_SCALE,
    "logistic": LOCATION_SCALE,
    "cauchy": LOCATION_SCALE,
    "uniform": [(CONTINUOUS, (X / 4, LOC, SCALE)), (("ppf", "isf"), (Q, LOC, SCALE))],
    "t": [(CONTINUOUS, (X, np.array([1.0, 3.5, 30.0]), 0.3, 1.2)),
          (("ppf", "isf"),
           (np.array([0.0, 1e-12, 0.01, 0.3, 0.4999999, 0.5, 0.77, 1 - 1e-12])[:, None],
                      np.array([1.0, 3.5, 30.0, 1e4]), 0.3, 1.2))],
    "gamma": [(CONTINUOUS, (np.array([-1.0, 1e-3, 0.5, 2.0, 10.0, 60.0])[:, None],
                            np.array([0.5, 1.0, 3.5, 40.0]), 0.0, 1.0)),
              (CONTINUOUS, (np.array([0.2, 3.0]), 2.5, 0.1, 2.0)),
              (("ppf", "isf"), (Q, np.array([0.5, 1.0, 3.5, 40.0]), 0.1, 2.0))],
    "beta": [(CONTINUOUS, (np.array([-0.5, 1e-6, 0.1, 0.5, 0.9, 1 - 1e-6, 1.5])[:, None, None],
                           np.array([0.5, 2.0])[:, None], np.array([0.7, 3.0]))),
             (CONTINUOUS, (np.array([0.3, 1.0]), 2.0, 3.0, 0.1, 2.0)),
             (("ppf", "isf"), (Q[:, None], np.array([0.5, 2.0])[:, None], np.array([0.7, 3.0]), 0.1,
                         2.0))],
    "poisson": [(DISCRETE, (np.array([-1.0, 0, 1, 2.5, 3, 10, 40])[:, None],
                            np.array([0.5, 3.0, 25.0]))),
                (DISCRETE, (np.array([1.0, 4.0]), 2.0, 1.0)),
                (("ppf",), (QD[:, None], np.array([0.5, 3.0, 25.0]), 1.0))],
    "bernoulli": [(DISCRETE, (np.array([-1.0, 0, 0.5, 1, 2])[:, None],
                              np.array([0.0, 0.2, 1.0]))),
                  (("ppf",), (np.array([0.0, 0.5, 0.8, 0.9, 1.0])[:, None],
                              np.array([0.2, 0.5])))],
    "binom": [(DISCRETE, (np.array([-1.0, 0, 1, 3, 4.5, 5, 10])[:, None, None],
                          np.array([5.0, 10.0])[:, None], np.array([0.1, 0.5, 0.93]))),
              (("ppf",), (QD[:, None, None], np.array([1.0, 5.0, 40.0, 2.5])[:, None],
                          np.array([0.1, 0.5, 0.93]), 2.0))],
    "geom": [(DISCRETE, (np.array([0.0, 1, 2, 3.5, 10, 200])[:, None], np.array([0.1, 0.5, 1.0]))),
             (("ppf",), (QD[:, None], np.array([0.1, 0.5, 0.999]), 1.0))],
}
GRIDS_FUNCTIONS = {dist: {fn for fns, _ in rows for fn in fns} for dist, rows in GRIDS.items()}
VALUE_CASES = [(dist, fn, args) for dist, rows in GRIDS.items()
               for fns, args in rows for fn in fns]


def _reference(dist, fn, args):
    """SciPy's value; for a discrete ``logcdf``/``logsf`` (SciPy's is ``log(cdf)``,
    which loses the digits of a probability close to 1) the log of the smaller of
    SciPy's ``cdf`` and ``sf``, or ``log1p`` of minus it."""
    d = getattr(scipy.stats, dist)
    if fn in ("logcdf", "logsf") and "pmf" in GRIDS_FUNCTIONS[dist]:
        p, q = d.cdf(*args), d.sf(*args)
        p, q = (p, q) if fn == "logcdf" else (q, p)
        return np.where(p < 0.5, np.log(p), np.log1p(-q))
    return getattr(d, fn)(*args)


def _ids(case):
    return f"{case[0]}.{case[1]}"


@pytest.mark.parametrize("case", VALUE_CASES, ids=[_ids(c) for c in VALUE_CASES])
def test_values_match_scipy(case):
    dist, fn, args = case
    with np.errstate(all="ignore"):
        want = _reference(dist, fn, args)
        got = getattr(getattr(fst, dist), fn)(*args)
    assert got.shape == np.shape(want) and got.dtype == np.float64
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-300)


def test_tails():
    """Far in the tails, where the distribution function underflows."""
    np.testing.assert_allclose(float(fst.norm.logcdf(-40.0)), scipy.stats.norm.logcdf(-40.0),
                               rtol=1e-14)
    np.testing.assert_allclose(float(fst.norm.logsf(40.0)), scipy.stats.norm.logsf(40.0),
                               rtol=1e-14)
    assert float(fad.grad(fst.norm.logcdf)(-40.0)) == pytest.approx(40.02496883, rel=1e-8)
    assert float(fst.logistic.logcdf(-800.0)) == -800.0
    assert float(fst.expon.logcdf(1e-300)) == pytest.approx(np.log(1e-300), rel=1e-14)


def test_invalid_parameters_give_nan():
    assert np.isnan(float(fst.norm.pdf(0.0, 0.0, -1.0)))
    assert np.isnan(float(fst.gamma.logpdf(1.0, -2.0)))
    assert np.isnan(float(fst.bernoulli.pmf(1.0, 1.5)))
    assert np.isnan(float(fst.t.cdf(1.0, 0.0)))


# ---------------------------------------------------------------- derivatives
# (function, arguments, the positions of its continuous arguments)
GRAD_CASES = [
    ("norm.logpdf", (0.7, 0.2, 1.3), (0, 1, 2)),
    ("norm.cdf", (0.7, 0.2, 1.3), (0, 1, 2)),
    ("norm.logcdf", (-30.0, 0.2, 1.3), (0, 1, 2)),
    ("norm.logsf", (3.0, 0.2, 1.3), (0, 1, 2)),
    ("norm.ppf", (0.3, 0.2, 1.3), (0, 1, 2)),
    ("t.logpdf", (0.7, 3.5, 0.2, 1.3), (0, 1, 2, 3)),
    ("t.cdf", (0.7, 3.5, 0.2, 1.3), (0, 2, 3)),
    ("t.cdf", (0.0, 2.0), (0,)),
    ("t.logsf", (1.5, 4.0, 0.2, 1.3), (0, 2, 3)),
    ("t.ppf", (0.2, 4.0, 0.2, 1.3), (0, 2, 3)),
    ("t.ppf", (0.5, 2.5), (0,)),
    ("t.ppf", (0.3, 2.5), (0,)),
    ("gamma.ppf", (0.3, 2.5, 0.2, 1.3), (0, 1, 2, 3)),
    ("beta.ppf", (0.3, 2.5, 1.5, 0.2, 1.3), (0, 3, 4)),
    ("t.isf", (0.2, 4.0, 0.2, 1.3), (0, 2, 3)),
    ("gamma.isf", (0.05, 2.5, 0.2, 1.3), (0, 1, 2, 3)),
    ("beta.isf", (0.05, 2.5, 1.5, 0.2, 1.3), (0, 1, 2, 3, 4)),
    ("gamma.logpdf", (2.0, 3.5, 0.2, 1.3), (0, 1, 2, 3)),
    ("gamma.cdf", (2.0, 3.5, 0.2, 1.3), (0, 1, 2, 3)),
    ("gamma.logsf", (2.0, 1.5), (0, 1)),
    ("beta.logpdf", (0.3, 2.5, 1.5, 0.0, 1.0), (0, 1, 2, 3, 4)),
    ("beta.cdf", (0.3, 2.5, 1.5, 0.05, 1.1), (0, 3, 4)),
    ("beta.logsf", (0.3, 2.5, 1.5), (0,)),
    ("poisson.logpmf", (3.0, 2.5), (1,)),
    ("poisson.cdf", (3.0, 2.5), (1,)),
    ("bernoulli.logpmf", (1.0, 0.3), (1,)),
    ("bernoulli.cdf", (0.0, 0.3), (1,)),
    ("binom.logpmf", (2.0, 5.0, 0.3), (2,)),
    ("binom.cdf", (2.0, 5.0, 0.3), (2,)),
    ("geom.logpmf", (3.0, 0.3), (1,)),
    ("geom.cdf", (3.0, 0.3), (1,)),
    ("geom.logcdf", (3.0, 0.3), (1,)),
    ("binom.sf", (2.0, 5.0, 0.3), (2,)),
    ("binom.logcdf", (2.0, 5.0, 0.3), (2,)),
    ("poisson.logsf", (3.0, 2.5), (1,)),
    ("bernoulli.logsf", (0.0, 0.3), (1,)),
    ("expon.logcdf", (0.7, 0.2, 1.3), (0, 1, 2)),
    ("expon.isf", (0.3, 0.2, 1.3), (0, 1, 2)),
    ("laplace.logcdf", (0.7, 0.2, 1.3), (0, 1, 2)),
    ("laplace.ppf", (0.3, 0.2, 1.3), (0, 1, 2)),
    ("logistic.logpdf", (0.7, 0.2, 1.3), (0, 1, 2)),
    ("logistic.logsf", (0.7, 0.2, 1.3), (0, 1, 2)),
    ("cauchy.logcdf", (0.7, 0.2, 1.3), (0, 1, 2)),
    ("cauchy.ppf", (0.3, 0.2, 1.3), (0, 1, 2)),
    ("uniform.logpdf", (0.7, 0.2, 1.3), (1, 2)),
    ("uniform.cdf", (0.7, 0.2, 1.3), (0, 1, 2)),
]


def _function(name):
    dist, fn = name.split(".")
    return getattr(getattr(fst, dist), fn)


@pytest.mark.parametrize("name, args, wrt", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_derivatives_match_finite_differences(name, args, wrt):
    f = _function(name)
    for i in wrt:
        def one(v, i=i):
            return f(*args[:i], v, *args[i + 1:])
        fad.check_grads(one, (np.array(args[i]),), order=2, atol=1e-5, rtol=1e-5)


def test_gamma_derivative_in_shape_matches_scipy_differences():
    """d/da of the distribution function (a series) against SciPy's own values."""
    a, x, h = 3.5, 2.0, 1e-6
    want = (scipy.stats.gamma.cdf(x, a + h) - scipy.stats.gamma.cdf(x, a - h)) / (2 * h)
    got = float(fad.grad(fst.gamma.cdf, argnums=1)(x, a))
    assert got == pytest.approx(want, rel=1e-7)


def test_multivariate_normal():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(3, 3))
    cov = a @ a.T + 3 * np.eye(3)
    mean = rng.normal(size=3)
    x = rng.normal(size=(4, 2, 3))
    for args in [(x, mean, cov), (x[0, 0], mean, cov), (x, None, cov), (x, mean, 2.0),
                 (x, mean, np.array([1.0, 2.0, 3.0])), (np.array([0.1, 0.5, 2.0]), 1.0, 2.0),
                 (0.3, 1.0, 2.0)]:
        want = scipy.stats.multivariate_normal.logpdf(*args)
        got = fst.multivariate_normal.logpdf(*args)
        assert got.shape == np.shape(want)
        np.testing.assert_allclose(got, want, rtol=1e-12)
        np.testing.assert_allclose(fst.multivariate_normal.pdf(*args),
                                   scipy.stats.multivariate_normal.pdf(*args), rtol=1e-12)
    fad.check_grads(lambda x, m, c: fst.multivariate_normal.logpdf(x, m, c @ c.T),
                    (x[0], mean, np.linalg.cholesky(cov)), order=2, atol=1e-5, rtol=1e-5)
    with pytest.raises(NotImplementedError, match="allow_singular"):
        fst.multivariate_normal.logpdf(x, mean, cov, allow_singular=True)
    with pytest.raises(ValueError, match="last axis"):
        fst.multivariate_normal.logpdf(np.zeros(4), mean, cov)


def test_dirichlet():
    alpha = np.array([0.7, 2.0, 3.5])
    x = np.array([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8], [0.6, 0.3, 0.1]]).T  # components first
    for xi in (x, x[:, 0], x[:2]):
        np.testing.assert_allclose(fst.dirichlet.logpdf(xi, alpha),
                                   scipy.stats.dirichlet.logpdf(xi, alpha), rtol=1e-12)
        np.testing.assert_allclose(fst.dirichlet.pdf(xi, alpha),
                                   scipy.stats.dirichlet.pdf(xi, alpha), rtol=1e-12)
    fad.check_grads(fst.dirichlet.logpdf, (x, alpha), order=2, atol=1e-5, rtol=1e-5)
    with pytest.raises(ValueError, match="components"):
        fst.dirichlet.logpdf(np.ones(5) / 5, alpha)


# ---------------------------------------------------------------- transformations
TRANSFORM_CASES = [
    ("norm.logcdf", (0.0, 1.0)), ("t.cdf", (3.0, 0.1, 1.2)), ("gamma.logpdf", (2.5, 0.0, 1.5)),
    ("beta.cdf", (2.0, 3.0, 0.0, 4.0)), ("poisson.pmf", (2.5,)), ("binom.cdf", (6.0, 0.3)),
    ("laplace.logsf", (0.2, 1.1)), ("logistic.cdf", (0.2, 1.1)), ("cauchy.pdf", (0.2, 1.1)),
    ("expon.logpdf", (0.2, 1.1)), ("uniform.logcdf", (-0.5, 3.0)), ("geom.logpmf", (0.3,)),
    ("bernoulli.logpmf", (0.3,)),
]
POINTS = np.array([0.0, 1.0, 2.0, 3.5, 5.0])


@pytest.mark.parametrize("name, params", TRANSFORM_CASES, ids=[c[0] for c in TRANSFORM_CASES])
def test_jit_vmap_and_float32(name, params):
    f = _function(name)
    eager = f(POINTS, *params)
    np.testing.assert_allclose(fad.jit(lambda x: f(x, *params))(POINTS), eager, rtol=1e-13)
    batched = fad.vmap(lambda x: f(x, *params))(POINTS)
    np.testing.assert_allclose(batched, [f(p, *params) for p in POINTS], rtol=1e-13)
    single = f(POINTS.astype(np.float32), *params)
    assert single.dtype == np.float32
    np.testing.assert_allclose(single, eager, rtol=2e-5, atol=1e-30)


def test_vmap_of_grad_in_a_parameter():
    g = fad.vmap(fad.grad(lambda s: fst.norm.logpdf(1.0, 0.0, s)))
    np.testing.assert_allclose(g(np.array([0.5, 1.0, 2.0])),
                               [1 / s ** 3 - 1 / s for s in (0.5, 1.0, 2.0)], rtol=1e-13)


def test_zero_dim_and_empty_and_integers():
    assert fst.norm.pdf(0).shape == () and fst.norm.pdf(0).dtype == np.float64
    assert fst.gamma.cdf(np.zeros((0, 3)), 2.0).shape == (0, 3)
    assert fst.poisson.pmf(np.arange(3), 1).dtype == np.float64
    with pytest.raises(TypeError, match="fad.scipy.stats.norm.cdf takes real numbers"):
        fst.norm.cdf(np.array([1j]))
    assert float(fnp.sum(fst.poisson.pmf(fnp.arange(60.0), 7.0))) == pytest.approx(1.0)
