"""``scipy.stats``'s distributions, traced and differentiable (as
``jax.scipy.stats``): one module per family, each with the functions SciPy's
distribution has (``logpdf pdf cdf logcdf sf logsf ppf``, ``logpmf pmf cdf`` for
the discrete ones), its shape parameters, ``loc`` and ``scale``, broadcast
together as NumPy does. Values follow ``scipy.stats`` (NaN for an invalid
parameter, ``-inf`` log-density off the support); each function is
differentiable in every continuous argument, except where a module says.

>>> import fad, fad.scipy.stats as fst
>>> round(float(fst.norm.logpdf(1.0, 0.0, 2.0)), 9)
-1.737085714
>>> round(float(fad.grad(fst.gamma.logpdf, argnums=1)(2.0, 3.0)), 12)  # log x - digamma(a)
-0.229637154539
"""

from . import (
    bernoulli,
    beta,
    binom,
    cauchy,
    dirichlet,
    expon,
    gamma,
    geom,
    laplace,
    logistic,
    multivariate_normal,
    norm,
    poisson,
    t,
    uniform,
)

__all__ = ["bernoulli", "beta", "binom", "cauchy", "dirichlet", "expon", "gamma", "geom",
           "laplace", "logistic", "multivariate_normal", "norm", "poisson", "t", "uniform"]


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
