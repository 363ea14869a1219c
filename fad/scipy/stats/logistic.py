"""The logistic distribution (``scipy.stats.logistic``): distribution function
``expit(z)``. Differentiable in ``x``, ``loc`` and ``scale``.

>>> import fad, fad.scipy.stats as fst
>>> float(fst.logistic.cdf(0.0)), float(fad.grad(fst.logistic.logcdf)(0.0))
(0.5, 0.5)
"""

from __future__ import annotations

from typing import Any

from ... import numpy as fnp
from .. import special
from ._common import arguments, location_scale, nan_unless


def _softplus(z: Any) -> Any:
    """``log(1 + e^z)``, without overflow."""
    return fnp.logaddexp(0.0, z)


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``-|z| - 2 log1p(e^-|z|) - log(scale)``.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.logistic.logpdf(0.0)), 12)
    -1.38629436112
    """
    z, scale, ok, _ = location_scale("logistic.logpdf", x, loc, scale)
    return nan_unless(ok, -fnp.abs(z) - 2 * fnp.log1p(fnp.exp(-fnp.abs(z))) - fnp.log(scale))


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The density ``exp(logpdf)``.

    >>> import fad.scipy.stats as fst
    >>> float(fst.logistic.pdf(0.0))
    0.25
    """
    return fnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``expit(z)``.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.logistic.cdf(1.0)), 12)
    0.73105857863
    """
    z, scale, ok, _ = location_scale("logistic.cdf", x, loc, scale)
    return nan_unless(ok, special.expit(z))


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``-log1p(e^-z)``, accurate in both tails.

    >>> import fad.scipy.stats as fst
    >>> float(fst.logistic.logcdf(-40.0))
    -40.0
    """
    z, scale, ok, _ = location_scale("logistic.logcdf", x, loc, scale)
    return nan_unless(ok, -_softplus(-z))


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``expit(-z)``.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.logistic.sf(-1.0)), 12)
    0.73105857863
    """
    z, scale, ok, _ = location_scale("logistic.sf", x, loc, scale)
    return nan_unless(ok, special.expit(-z))


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``-log1p(e^z)``.

    >>> import fad.scipy.stats as fst
    >>> float(fst.logistic.logsf(40.0))
    -40.0
    """
    z, scale, ok, _ = location_scale("logistic.logsf", x, loc, scale)
    return nan_unless(ok, -_softplus(z))


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``logit(q)``.

    >>> import fad.scipy.stats as fst
    >>> float(fst.logistic.ppf(0.5))
    0.0
    """
    q, loc, scale = arguments("logistic.ppf", q, loc, scale)
    return nan_unless(scale > 0, loc + scale * special.logit(q))


def isf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``-logit(q)``.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.logistic.isf(0.25)), 12)
    1.098612288668
    """
    q, loc, scale = arguments("logistic.isf", q, loc, scale)
    return nan_unless(scale > 0, loc - scale * special.logit(q))


__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]

