"""``fad.random``: random numbers with explicit keys, as ``jax.random``.

A key is an array; functions that draw numbers take a key first and never
change it. ``split`` makes new independent keys from one. The generator is
Threefry-2x32 (20 rounds) on counters, bit for bit JAX's default
(``jax_threefry_partitionable``): ``split``, ``fold_in``, ``bits`` and
``uniform`` give JAX's numbers; every sampler traces, so it runs eagerly, under
``jit`` and under ``vmap`` over keys with the same numbers.

>>> import fad, fad.random as fr
>>> k1, k2 = fr.split(fr.key(0))
>>> fr.normal(k1, (2, 3)).shape
(2, 3)
>>> bool((fad.jit(fr.uniform)(k2) == fr.uniform(k2)).all())
True
"""

from ._continuous import (
    cauchy,
    exponential,
    gumbel,
    laplace,
    logistic,
    multivariate_normal,
    normal,
    truncated_normal,
    uniform,
)
from ._derived import (
    chisquare,
    f,
    geometric,
    lognormal,
    maxwell,
    orthogonal,
    pareto,
    rademacher,
    rayleigh,
    t,
    triangular,
    wald,
    weibull_min,
)
from ._discrete import bernoulli, categorical, choice, permutation, poisson, randint
from ._gamma import beta, dirichlet, gamma, loggamma
from ._keys import PRNGKey, bits, fold_in, key, key_data, split, wrap_key_data

__all__ = ["key", "PRNGKey", "key_data", "wrap_key_data", "split", "fold_in", "bits", "uniform",
           "normal", "truncated_normal", "exponential", "laplace", "logistic", "cauchy", "gumbel",
           "multivariate_normal", "bernoulli", "categorical", "randint", "permutation", "choice",
           "poisson", "gamma", "loggamma", "beta", "dirichlet", "chisquare", "t", "f", "lognormal",
           "pareto", "weibull_min", "rayleigh", "maxwell", "triangular", "wald", "geometric",
           "rademacher", "orthogonal"]


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
