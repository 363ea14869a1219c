"""The normal distribution (``scipy.stats.norm``, ``jax.scipy.stats.norm``):
``loc`` is the mean, ``scale`` the standard deviation; every function is
differentiable in each argument, and the tails are accurate (``logcdf`` of
-40 is -804.608..., where ``cdf`` underflows).

>>> import fad, fad.scipy.stats as fst
>>> round(float(fst.norm.logcdf(-40.0)), 6)
-804.608442
>>> round(float(fad.grad(fst.norm.logpdf, argnums=2)(1.0, 0.0, 1.0)), 12)  # z^2 - 1, / scale
0.0
"""

from __future__ import annotations

import math
from typing import Any

from ... import numpy as fnp
from .. import special
from ._common import arguments, location_scale, nan_unless

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``-z^2 / 2 - log(sqrt(2 pi) scale)``, ``z = (x - loc) / scale``.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.norm.logpdf(0.0)), 12)
    -0.918938533205
    """
    z, scale, ok, _ = location_scale("norm.logpdf", x, loc, scale)
    return nan_unless(ok, -(z * z) / 2 - _LOG_SQRT_2PI - fnp.log(scale))


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The density ``exp(logpdf)``.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.norm.pdf(1.0, 1.0, 2.0)), 12)
    0.199471140201
    """
    return fnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``ndtr(z)``.

    >>> import fad.scipy.stats as fst
    >>> float(fst.norm.cdf(0.0))
    0.5
    """
    z, _, ok, _ = location_scale("norm.cdf", x, loc, scale)
    return nan_unless(ok, special.ndtr(z))


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``log_ndtr(z)``, accurate far in the lower tail.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.norm.logcdf(-10.0)), 9)
    -53.231285151
    """
    z, _, ok, _ = location_scale("norm.logcdf", x, loc, scale)
    return nan_unless(ok, special.log_ndtr(z))


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The survival function ``1 - cdf = ndtr(-z)``.

    >>> import fad.scipy.stats as fst
    >>> float(fst.norm.sf(40.0)) == float(fst.norm.cdf(-40.0))
    True
    """
    z, _, ok, _ = location_scale("norm.sf", x, loc, scale)
    return nan_unless(ok, special.ndtr(-z))


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``log_ndtr(-z)``, accurate far in the upper tail.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.norm.logsf(10.0)), 9)
    -53.231285151
    """
    z, _, ok, _ = location_scale("norm.logsf", x, loc, scale)
    return nan_unless(ok, special.log_ndtr(-z))


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The quantile function ``loc + scale ndtri(q)``.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.norm.ppf(0.975)), 10)
    1.9599639845
    """
    q, loc, scale = arguments("norm.ppf", q, loc, scale)
    return nan_unless(scale > 0, loc + scale * special.ndtri(q))


def isf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The inverse survival function ``loc - scale ndtri(q)``.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.norm.isf(0.025)), 10)
    1.9599639845
    """
    q, loc, scale = arguments("norm.isf", q, loc, scale)
    return nan_unless(scale > 0, loc - scale * special.ndtri(q))


__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]
