"""The exponential distribution (``scipy.stats.expon``): density ``e^-z`` on
``z = (x - loc) / scale >= 0``. Differentiable in ``x``, ``loc`` and ``scale``.

>>> import fad, fad.scipy.stats as fst
>>> round(float(fst.expon.cdf(1.0)), 12), float(fad.grad(fst.expon.logpdf)(1.0))
(0.632120558829, -1.0)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import numpy as fnp
from ._common import arguments, location_scale, nan_unless, on_support


def _log1mexp(z: Any) -> Any:
    """``log(1 - e^-z)`` for ``z > 0``: through ``expm1`` near 0, ``log1p`` beyond
    ``log 2`` (each accurate where the other cancels)."""
    return fnp.where(z < math.log(2), fnp.log(-fnp.expm1(-z)), fnp.log1p(-fnp.exp(-z)))


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``-z - log(scale)`` for ``z >= 0``, ``-inf`` below.

    >>> import fad.scipy.stats as fst
    >>> float(fst.expon.logpdf(2.0))
    -2.0
    """
    z, scale, ok, _ = location_scale("expon.logpdf", x, loc, scale)
    return nan_unless(ok, on_support(z >= 0, z, lambda z: -z, -np.inf) - fnp.log(scale))


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The density ``exp(logpdf)``.

    >>> import fad.scipy.stats as fst
    >>> float(fst.expon.pdf(-1.0))
    0.0
    """
    return fnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``1 - e^-z`` (``-expm1(-z)``), 0 below 0.

    >>> import fad.scipy.stats as fst
    >>> float(fst.expon.cdf(1e-20))
    1e-20
    """
    z, scale, ok, _ = location_scale("expon.cdf", x, loc, scale)
    return nan_unless(ok, -fnp.expm1(-fnp.maximum(z, 0.0)))


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``log(1 - e^-z)``, accurate near 0 and in the upper tail.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.expon.logcdf(1.0)), 12)
    -0.458675145387
    """
    z, scale, ok, _ = location_scale("expon.logcdf", x, loc, scale)
    return nan_unless(ok, on_support(z > 0, z, _log1mexp, -np.inf))


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``e^-z``, 1 below 0.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.expon.sf(1.0)), 12)
    0.367879441171
    """
    z, scale, ok, _ = location_scale("expon.sf", x, loc, scale)
    return nan_unless(ok, fnp.exp(-fnp.maximum(z, 0.0)))


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``-z``, 0 below 0.

    >>> import fad.scipy.stats as fst
    >>> float(fst.expon.logsf(3.0))
    -3.0
    """
    z, scale, ok, _ = location_scale("expon.logsf", x, loc, scale)
    return nan_unless(ok, -fnp.maximum(z, 0.0))


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``loc - scale log(1 - q)``.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.expon.ppf(0.5)), 12)
    0.69314718056
    """
    q, loc, scale = arguments("expon.ppf", q, loc, scale)
    return nan_unless(scale > 0, loc - scale * fnp.log1p(-q))


def isf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``loc - scale log(q)``.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.expon.isf(0.5)), 12)
    0.69314718056
    """
    q, loc, scale = arguments("expon.isf", q, loc, scale)
    return nan_unless(scale > 0, loc - scale * fnp.log(q))


__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]

