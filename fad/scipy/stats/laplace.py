"""The Laplace distribution (``scipy.stats.laplace``): density ``e^-|z| / 2``.
Differentiable in ``x``, ``loc`` and ``scale`` (at ``x = loc`` the derivative of
``|z|`` is taken as 0).

>>> import fad, fad.scipy.stats as fst
>>> float(fst.laplace.cdf(0.0)), float(fad.grad(fst.laplace.logpdf)(2.0))
(0.5, -1.0)
"""

from __future__ import annotations

import math
from typing import Any

from ... import numpy as fnp
from ._common import arguments, location_scale, nan_unless


def _cdf(z: Any) -> Any:
    """``e^z / 2`` below 0, ``1 - e^-z / 2`` above."""
    half_tail = 0.5 * fnp.exp(-fnp.abs(z))
    return fnp.where(z < 0, half_tail, 1 - half_tail)


def _logcdf(z: Any) -> Any:
    """``z - log 2`` below 0, ``log1p(-e^-z / 2)`` above."""
    return fnp.where(z < 0, fnp.minimum(z, 0.0) - math.log(2),
                     fnp.log1p(-0.5 * fnp.exp(-fnp.abs(z))))


def _ppf(q: Any) -> Any:
    return fnp.where(q < 0.5, fnp.log(2 * q), -fnp.log(2 - 2 * q))



def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``-|z| - log(2 scale)``.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.laplace.logpdf(0.0)), 12)
    -0.69314718056
    """
    z, scale, ok, _ = location_scale("laplace.logpdf", x, loc, scale)
    return nan_unless(ok, -fnp.abs(z) - math.log(2) - fnp.log(scale))


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The density ``exp(logpdf)``.

    >>> import fad.scipy.stats as fst
    >>> float(fst.laplace.pdf(0.0))
    0.5
    """
    return fnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``e^z / 2`` below 0, ``1 - e^-z / 2`` above.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.laplace.cdf(-1.0)), 12)
    0.183939720586
    """
    z, scale, ok, _ = location_scale("laplace.cdf", x, loc, scale)
    return nan_unless(ok, _cdf(z))


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``z - log 2`` below 0, ``log1p(-e^-z / 2)`` above.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.laplace.logcdf(-40.0)), 12)
    -40.69314718056
    """
    z, scale, ok, _ = location_scale("laplace.logcdf", x, loc, scale)
    return nan_unless(ok, _logcdf(z))


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``cdf(-z)`` (the distribution is symmetric).

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.laplace.sf(1.0)), 12)
    0.183939720586
    """
    z, scale, ok, _ = location_scale("laplace.sf", x, loc, scale)
    return nan_unless(ok, _cdf(-z))


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``logcdf(-z)``.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.laplace.logsf(40.0)), 12)
    -40.69314718056
    """
    z, scale, ok, _ = location_scale("laplace.logsf", x, loc, scale)
    return nan_unless(ok, _logcdf(-z))


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``log(2q)`` below the median, ``-log(2 - 2q)`` above.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.laplace.ppf(0.75)), 12)
    0.69314718056
    """
    q, loc, scale = arguments("laplace.ppf", q, loc, scale)
    return nan_unless(scale > 0, loc + scale * _ppf(q))


def isf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``ppf(1 - q)``, by symmetry ``-ppf(q)``.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.laplace.isf(0.25)), 12)
    0.69314718056
    """
    q, loc, scale = arguments("laplace.isf", q, loc, scale)
    return nan_unless(scale > 0, loc + scale * -_ppf(q))


__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]

