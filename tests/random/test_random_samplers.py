"""``fad.random``'s samplers: their distributions (Kolmogorov-Smirnov against
SciPy for the continuous ones, chi-square for the discrete ones), shapes and
dtypes, and the same numbers eagerly, under ``jit`` and under ``vmap`` over keys.

The statistical tests run at fixed keys, so they are deterministic: each either
always passes or always fails. The threshold ``p > 1e-3`` is what a correct
sampler fails with probability 1e-3 at a random key, and what a sampler with a
wrong shape of distribution (a wrong scale, a missing tail, a bias of a few
percent at n = 2000) fails almost surely. With some forty such tests, a correct
implementation fails one of them at a given key with probability about 4%: the
key is fixed once (``KEY``) and every test passes at it.
"""

import numpy as np
import pytest
from scipy import stats

import fad
import fad.random as fr

N = 2000
P_MIN = 1e-3
KEY = fr.key(0)

CONTINUOUS = {
    "uniform": (lambda k, s, dt: fr.uniform(k, s, dt), stats.uniform()),
    "uniform(-2, 3)": (lambda k, s, dt: fr.uniform(k, s, dt, -2.0, 3.0),
                       stats.uniform(-2, 5)),
    "normal": (fr.normal, stats.norm()),
    "truncated_normal(-1, 2)": (lambda k, s, dt: fr.truncated_normal(k, -1.0, 2.0, s, dt),
                                stats.truncnorm(-1, 2)),
    "truncated_normal(1.5, inf)": (lambda k, s, dt: fr.truncated_normal(k, 1.5, np.inf, s, dt),
                                   stats.truncnorm(1.5, np.inf)),
    "exponential": (fr.exponential, stats.expon()),
    "laplace": (fr.laplace, stats.laplace()),
    "logistic": (fr.logistic, stats.logistic()),
    "cauchy": (fr.cauchy, stats.cauchy()),
    "gumbel": (fr.gumbel, stats.gumbel_r()),
    "gumbel(high)": (lambda k, s, dt: fr.gumbel(k, s, dt, mode="high"), stats.gumbel_r()),
    "gamma(0.3)": (lambda k, s, dt: fr.gamma(k, 0.3, s, dt), stats.gamma(0.3)),
    "gamma(1)": (lambda k, s, dt: fr.gamma(k, 1.0, s, dt), stats.gamma(1.0)),
    "gamma(4.5)": (lambda k, s, dt: fr.gamma(k, 4.5, s, dt), stats.gamma(4.5)),
    "gamma(300)": (lambda k, s, dt: fr.gamma(k, 300.0, s, dt), stats.gamma(300.0)),
    "loggamma(0.01)": (lambda k, s, dt: fr.loggamma(k, 0.01, s, dt), stats.loggamma(0.01)),
    "loggamma(3)": (lambda k, s, dt: fr.loggamma(k, 3.0, s, dt), stats.loggamma(3.0)),
    "beta(2, 3)": (lambda k, s, dt: fr.beta(k, 2.0, 3.0, s, dt), stats.beta(2, 3)),
    "beta(0.5, 0.5)": (lambda k, s, dt: fr.beta(k, 0.5, 0.5, s, dt), stats.beta(0.5, 0.5)),
    "chisquare(3)": (lambda k, s, dt: fr.chisquare(k, 3.0, s, dt), stats.chi2(3)),
    "t(5)": (lambda k, s, dt: fr.t(k, 5.0, s, dt), stats.t(5)),
    "f(4, 7)": (lambda k, s, dt: fr.f(k, 4.0, 7.0, s, dt), stats.f(4, 7)),
    "lognormal(0.5)": (lambda k, s, dt: fr.lognormal(k, 0.5, s, dt), stats.lognorm(0.5)),
    "pareto(3)": (lambda k, s, dt: fr.pareto(k, 3.0, s, dt), stats.pareto(3)),
    "weibull_min(2, 1.5)": (lambda k, s, dt: fr.weibull_min(k, 2.0, 1.5, s, dt),
                            stats.weibull_min(1.5, scale=2.0)),
    "rayleigh(2)": (lambda k, s, dt: fr.rayleigh(k, 2.0, s, dt), stats.rayleigh(scale=2.0)),
    "maxwell": (fr.maxwell, stats.maxwell()),
    "triangular(0, 1, 3)": (lambda k, s, dt: fr.triangular(k, 0.0, 1.0, 3.0, s, dt),
                            stats.triang(1 / 3, scale=3.0)),
    "wald(0.7)": (lambda k, s, dt: fr.wald(k, 0.7, s, dt), stats.invgauss(0.7)),
    "dirichlet marginal": (lambda k, s, dt: fr.dirichlet(k, np.array([1.0, 2.0, 3.5]), s,
                                                         dt)[..., 1],
                           stats.beta(2.0, 4.5)),
}


@pytest.mark.parametrize("name", sorted(CONTINUOUS))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_kolmogorov_smirnov(name, dtype):
    """n = 2000 draws at a fixed key against SciPy's CDF; p > 1e-3 (see the
    module's docstring for why this threshold)."""
    sample, dist = CONTINUOUS[name]
    x = sample(KEY, (N,), dtype)
    assert x.shape == (N,) and x.dtype == dtype
    assert np.isfinite(x).all()
    assert stats.kstest(np.asarray(x, np.float64), dist.cdf).pvalue > P_MIN


def _chi_square(counts, probs):
    counts = np.asarray(counts, np.float64)
    expected = np.asarray(probs) * counts.sum()
    assert (expected >= 5).all()  # the chi-square approximation's condition
    return stats.chisquare(counts, expected).pvalue


def test_bernoulli_chi_square():
    x = fr.bernoulli(KEY, 0.3, (N,))
    assert x.dtype == np.bool_
    assert _chi_square([np.sum(~x), np.sum(x)], [0.7, 0.3]) > P_MIN
    p = np.array([0.1, 0.9])
    assert fr.bernoulli(KEY, p).shape == (2,)


def test_categorical_chi_square():
    p = np.array([0.1, 0.2, 0.3, 0.4])
    x = np.asarray(fr.categorical(KEY, np.log(p), shape=(N,)))
    assert _chi_square(np.bincount(x, minlength=4), p) > P_MIN
    # batched logits along axis 0, with a prefix of independent draws
    logits = np.log(np.stack([p, p[::-1]], axis=1))  # (4, 2)
    y = np.asarray(fr.categorical(KEY, logits, axis=0, shape=(N, 2)))
    assert y.shape == (N, 2)
    assert _chi_square(np.bincount(y[:, 1], minlength=4), p[::-1]) > P_MIN


def test_categorical_without_replacement():
    p = np.array([0.1, 0.2, 0.3, 0.4])
    draws = np.asarray(fad.vmap(lambda k: fr.categorical(k, np.log(p), shape=(2,),
                                                          replace=False))(fr.split(KEY, N)))
    assert (draws[:, 0] != draws[:, 1]).all()
    assert _chi_square(np.bincount(draws[:, 0], minlength=4), p) > P_MIN
    # the second draw: P(j second) = sum_{i != j} p_i p_j / (1 - p_i)
    second = np.array([sum(p[i] * p[j] / (1 - p[i]) for i in range(4) if i != j)
                       for j in range(4)])
    assert _chi_square(np.bincount(draws[:, 1], minlength=4), second) > P_MIN
    batched = np.asarray(fr.categorical(KEY, np.zeros((5, 3)), axis=0, shape=(5, 3),
                                        replace=False))
    assert (np.sort(batched, axis=0) == np.arange(5)[:, None]).all()
    with pytest.raises(ValueError, match="without replacement"):
        fr.categorical(KEY, np.zeros(3), shape=(4,), replace=False)


@pytest.mark.parametrize("lo,hi", [(0, 7), (-3, 2), (10, 11)])
def test_randint_chi_square(lo, hi):
    x = np.asarray(fr.randint(KEY, (N,), lo, hi))
    assert x.dtype == np.int64 and x.min() >= lo and x.max() < hi
    counts = np.bincount(x - lo, minlength=hi - lo)
    if hi - lo > 1:
        assert _chi_square(counts, np.full(hi - lo, 1 / (hi - lo))) > P_MIN
    assert fr.randint(KEY, (3,), 0, 5, np.int32).dtype == np.int32
    assert (np.asarray(fr.randint(KEY, (4,), 5, 5)) == 5).all()  # empty range: minval


def test_permutation_is_uniform():
    keys = fr.split(KEY, 2400)
    perms = np.asarray(fad.vmap(lambda k: fr.permutation(k, 4))(keys))
    assert (np.sort(perms, axis=1) == np.arange(4)).all()
    codes = perms @ np.array([64, 16, 4, 1])
    _, counts = np.unique(codes, return_counts=True)
    assert len(counts) == 24 and _chi_square(counts, np.full(24, 1 / 24)) > P_MIN


def test_permutation_of_arrays():
    x = np.arange(12.0).reshape(3, 4)
    y = np.asarray(fr.permutation(KEY, x, axis=1))
    assert sorted(y[0].tolist()) == x[0].tolist()
    assert (np.sort(y, axis=1) == x).all()
    assert np.array_equal(y[1] - y[0], np.full(4, 4.0))  # whole columns move
    z = np.asarray(fr.permutation(KEY, x, axis=1, independent=True))
    assert (np.sort(z, axis=1) == x).all()
    with pytest.raises(ValueError):
        fr.permutation(KEY, np.float64(3.0))
    assert np.array_equal(fr.permutation(KEY, np.array(5)), fr.permutation(KEY, 5))
    assert np.array_equal(fr.choice(KEY, np.int32(5), (3,)), fr.choice(KEY, 5, (3,)))


def test_choice():
    p = np.array([0.5, 0.25, 0.125, 0.125])
    x = np.asarray(fr.choice(KEY, 4, (N,), p=p))
    assert _chi_square(np.bincount(x, minlength=4), p) > P_MIN
    x = np.asarray(fr.choice(KEY, 5, (N,)))
    assert _chi_square(np.bincount(x, minlength=5), np.full(5, 0.2)) > P_MIN
    no_repeat = np.asarray(fr.choice(KEY, 10, (2, 5), replace=False))
    assert sorted(no_repeat.ravel().tolist()) == list(range(10))
    weighted = np.asarray(fr.choice(KEY, 10, (6,), replace=False, p=np.arange(1.0, 11) / 55))
    assert len(set(weighted.tolist())) == 6
    a = np.arange(20.0).reshape(4, 5)
    assert fr.choice(KEY, a, (3,), axis=1).shape == (4, 3)
    with pytest.raises(ValueError, match="without replacement"):
        fr.choice(KEY, 3, (4,), replace=False)
    with pytest.raises(ValueError, match="p must have shape"):
        fr.choice(KEY, 3, (4,), p=np.ones(2) / 2)


@pytest.mark.parametrize("lam", [0.7, 4.0, 35.0])
def test_poisson_chi_square(lam):
    x = np.asarray(fr.poisson(KEY, lam, (N,)))
    assert x.dtype == np.int64 and x.min() >= 0
    dist = stats.poisson(lam)
    lo, hi = int(dist.ppf(0.01)), int(dist.ppf(0.99))
    edges = np.arange(lo, hi + 1)  # bins: <= lo, each value, > hi
    counts = [np.sum(x <= lo)] + [np.sum(x == v) for v in edges[1:]] + [np.sum(x > hi)]
    probs = [dist.cdf(lo)] + [dist.pmf(v) for v in edges[1:]] + [dist.sf(hi)]
    keep = np.array(probs) * N >= 5  # merge the small bins into the last kept one
    counts, probs = np.asarray(counts, float), np.asarray(probs)
    c = [0.0]
    q = [0.0]
    for ci, pi, k in zip(counts, probs, keep):
        c[-1] += ci
        q[-1] += pi
        if k:
            c.append(0.0)
            q.append(0.0)
    c[-2] += c[-1]
    q[-2] += q[-1]
    assert _chi_square(c[:-1], np.array(q[:-1]) / sum(q[:-1])) > P_MIN


def test_geometric_and_rademacher_chi_square():
    x = np.asarray(fr.geometric(KEY, 0.3, (N,)))
    assert x.dtype == np.int64 and x.min() >= 1
    k = np.arange(1, 12)
    probs = np.append(0.3 * 0.7 ** (k - 1), 0.7 ** 11)
    counts = np.append(np.bincount(x, minlength=13)[1:12], np.sum(x > 11))
    assert _chi_square(counts, probs) > P_MIN
    assert fr.geometric(KEY, 1.0, (3,)).tolist() == [1, 1, 1]
    r = np.asarray(fr.rademacher(KEY, (N,)))
    assert set(r.tolist()) == {-1, 1}
    assert _chi_square([np.sum(r < 0), np.sum(r > 0)], [0.5, 0.5]) > P_MIN


@pytest.mark.parametrize("n,m,shape", [(4, None, ()), (5, 2, (3,)), (2, 4, ())])
def test_orthogonal_matrices(n, m, shape):
    q = np.asarray(fr.orthogonal(KEY, n, shape, m=m))
    assert q.shape == shape + (n, n if m is None else m)
    small = min(q.shape[-2:])
    gram = (np.swapaxes(q, -1, -2) @ q if q.shape[-2] >= q.shape[-1]
            else q @ np.swapaxes(q, -1, -2))
    np.testing.assert_allclose(gram, np.broadcast_to(np.eye(small), gram.shape), atol=1e-12)


def test_poisson_edge_cases():
    x = fr.poisson(KEY, np.array([0.0, -1.0, np.nan, np.inf, 1e6]))
    assert x[:4].tolist() == [0, -1, -1, -1]
    assert abs(int(x[4]) - 1e6) < 6 * 1e3
    assert fr.poisson(KEY, 3.0, (2,), np.int32).dtype == np.int32


def test_multivariate_normal_moments():
    mean = np.array([1.0, -2.0, 0.5])
    a = np.array([[2.0, 0.3, 0.0], [0.3, 1.0, -0.4], [0.0, -0.4, 0.5]])
    cov = a @ a.T
    for method in ("cholesky", "eigh", "svd"):
        x = np.asarray(fr.multivariate_normal(KEY, mean, cov, (4 * N,), method=method))
        assert x.shape == (4 * N, 3)
        se = np.sqrt(np.diag(cov) / len(x))
        assert (np.abs(x.mean(0) - mean) < 4 * se).all()
        c = np.cov(x.T)
        se_cov = np.sqrt((cov ** 2 + np.outer(np.diag(cov), np.diag(cov))) / len(x))
        assert (np.abs(c - cov) < 5 * se_cov).all()
    batched = fr.multivariate_normal(KEY, np.zeros((4, 1, 2)), np.eye(2))
    assert batched.shape == (4, 1, 2)
    with pytest.raises(ValueError, match=r"\(\.\.\., n, n\)"):
        fr.multivariate_normal(KEY, np.zeros(2), np.eye(3))


def test_dirichlet_sums_to_one():
    p = np.asarray(fr.dirichlet(KEY, np.array([0.5, 1.0, 2.0]), (100,)))
    assert p.shape == (100, 3) and np.allclose(p.sum(-1), 1.0) and (p >= 0).all()


def test_tiny_shape_parameters_stay_finite():
    """Gamma numbers of a = 0.01 underflow to 0 half the time; beta and dirichlet
    work from their logarithms, so they stay finite (and mostly 0 or 1)."""
    b = np.asarray(fr.beta(KEY, 0.01, 0.02, (N,)))
    assert np.isfinite(b).all() and (b >= 0).all() and (b <= 1).all()
    assert abs(np.mean(b > 0.5) - 1 / 3) < 0.05  # the mass at 1 -> a / (a + b) as a, b -> 0
    d = np.asarray(fr.dirichlet(KEY, np.full(4, 0.01), (100,)))
    assert np.isfinite(d).all() and np.allclose(d.sum(-1), 1.0)
    lg = np.asarray(fr.loggamma(KEY, 1e-3, (100,)))
    assert np.isfinite(lg).all() and lg.min() < -745  # below exp's range
    a = np.array([0.3, 2.0, 500.0])
    np.testing.assert_allclose(np.exp(fr.loggamma(KEY, a)), fr.gamma(KEY, a), rtol=1e-14)


def test_truncated_normal_stays_inside():
    x = np.asarray(fr.truncated_normal(KEY, np.array([-1.0, 0.0, 3.0]),
                                       np.array([1.0, 0.001, 3.5]), (N, 3)))
    assert (x > [-1, 0, 3]).all() and (x < [1, 0.001, 3.5]).all()


def test_empty_and_scalar_shapes():
    for f in (fr.uniform, fr.normal, fr.exponential, fr.gumbel, fr.cauchy):
        assert f(KEY).shape == ()
        assert f(KEY, (0, 2)).shape == (0, 2)
    assert fr.gamma(KEY, np.ones((0, 3))).shape == (0, 3)
    assert fr.gamma(KEY, 2.0).shape == ()
    assert fr.randint(KEY, (), 0, 3).shape == ()
    assert fr.poisson(KEY, 2.0).shape == ()
    assert fr.choice(KEY, 5).shape == ()


SAMPLERS = {
    "uniform": lambda k: fr.uniform(k, (3,), minval=-1.0, maxval=2.0),
    "normal": lambda k: fr.normal(k, (3,)),
    "normal32": lambda k: fr.normal(k, (3,), np.float32),
    "truncated_normal": lambda k: fr.truncated_normal(k, -1.0, 1.0, (3,)),
    "exponential": lambda k: fr.exponential(k, (3,)),
    "laplace": lambda k: fr.laplace(k, (3,)),
    "logistic": lambda k: fr.logistic(k, (3,)),
    "cauchy": lambda k: fr.cauchy(k, (3,)),
    "gumbel": lambda k: fr.gumbel(k, (3,)),
    "gamma": lambda k: fr.gamma(k, np.array([0.5, 2.0, 300.0])),
    "beta": lambda k: fr.beta(k, 2.0, 3.0, (3,)),
    "dirichlet": lambda k: fr.dirichlet(k, np.ones(3)),
    "multivariate_normal": lambda k: fr.multivariate_normal(k, np.zeros(2), np.eye(2), (2,)),
    "bernoulli": lambda k: fr.bernoulli(k, 0.5, (3,)),
    "categorical": lambda k: fr.categorical(k, np.zeros(4), shape=(3,)),
    "categorical_no_replace": lambda k: fr.categorical(k, np.zeros((4, 2)), 0, (3, 2), False),
    "randint": lambda k: fr.randint(k, (3,), 0, 9),
    "permutation": lambda k: fr.permutation(k, 5),
    "choice": lambda k: fr.choice(k, 5, (3,), p=np.ones(5) / 5),
    "choice_no_replace": lambda k: fr.choice(k, 5, (3,), replace=False),
    "poisson": lambda k: fr.poisson(k, np.array([0.5, 3.0, 40.0])),
    "bits": lambda k: fr.bits(k, (3,), np.uint64),
    "t": lambda k: fr.t(k, 4.0, (3,)),
    "wald": lambda k: fr.wald(k, 0.7, (3,)),
    "geometric": lambda k: fr.geometric(k, 0.3, (3,)),
    "orthogonal": lambda k: fr.orthogonal(k, 3),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_eager_jit_and_vmap_agree(name):
    f = SAMPLERS[name]
    keys = fr.split(fr.key(7), 4)
    loop = np.stack([np.asarray(f(k)) for k in keys])
    assert np.array_equal(np.asarray(fad.jit(f)(keys[0])), loop[0])
    assert np.array_equal(np.asarray(fad.vmap(f)(keys)), loop)


def test_jit_draws_with_one_program():
    f = fad.jit(lambda k: fr.normal(k, (1000,)))
    a, b = f(fr.key(0)), f(fr.key(1))  # a new key reuses the traced program
    assert not np.array_equal(a, b) and np.array_equal(a, fr.normal(fr.key(0), (1000,)))
