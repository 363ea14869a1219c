"""The Cauchy distribution (``scipy.stats.cauchy``): density
``1 / (pi (1 + z^2))``. Differentiable in ``x``, ``loc`` and ``scale``.

>>> import fad, fad.scipy.stats as fst
>>> float(fst.cauchy.cdf(1.0)), float(fad.grad(fst.cauchy.logpdf)(1.0))
(0.75, -1.0)
"""

from __future__ import annotations

import math
from typing import Any

from ... import numpy as fnp
from ._common import arguments, location_scale, log_probability, nan_unless


def _cdf(z: Any) -> Any:
    """``1/2 + atan(z) / pi``, written ``atan2(1, -z) / pi`` below 0 (no
    cancellation in the lower tail) and ``1 - atan2(1, z) / pi`` above."""
    return fnp.where(z < 0, fnp.arctan2(1.0, -z) / math.pi, 1 - fnp.arctan2(1.0, z) / math.pi)


def _ppf(q: Any) -> Any:
    """``tan(pi (q - 1/2))``, written ``-1 / tan(pi q)`` and ``1 / tan(pi (1 - q))``
    in the tails (no rounding of ``q - 1/2`` there)."""
    low, high = q < 0.25, q > 0.75
    middle = fnp.tan(math.pi * (fnp.where(low | high, 0.5, q) - 0.5))
    return fnp.where(low, -1 / fnp.tan(math.pi * fnp.where(low, q, 0.25)),
                     fnp.where(high, 1 / fnp.tan(math.pi * (1 - fnp.where(high, q, 0.75))),
                               middle))


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``-log(pi scale (1 + z^2))``.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.cauchy.logpdf(0.0)), 12)
    -1.144729885849
    """
    z, scale, ok, _ = location_scale("cauchy.logpdf", x, loc, scale)
    return nan_unless(ok, -math.log(math.pi) - fnp.log1p(z * z) - fnp.log(scale))


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The density ``exp(logpdf)``.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.cauchy.pdf(0.0)), 12)
    0.318309886184
    """
    return fnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``1/2 + atan(z) / pi``.

    >>> import fad.scipy.stats as fst
    >>> float(fst.cauchy.cdf(-1.0))
    0.25
    """
    z, scale, ok, _ = location_scale("cauchy.cdf", x, loc, scale)
    return nan_unless(ok, _cdf(z))


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``log(cdf)``, accurate in both tails.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.cauchy.logcdf(-1.0)), 12)
    -1.38629436112
    """
    z, scale, ok, _ = location_scale("cauchy.logcdf", x, loc, scale)
    return nan_unless(ok, log_probability(_cdf(z), _cdf(-z)))


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``1/2 - atan(z) / pi``.

    >>> import fad.scipy.stats as fst
    >>> float(fst.cauchy.sf(1.0))
    0.25
    """
    z, scale, ok, _ = location_scale("cauchy.sf", x, loc, scale)
    return nan_unless(ok, _cdf(-z))


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``log(sf)``, accurate in both tails.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.cauchy.logsf(1.0)), 12)
    -1.38629436112
    """
    z, scale, ok, _ = location_scale("cauchy.logsf", x, loc, scale)
    return nan_unless(ok, log_probability(_cdf(-z), _cdf(z)))


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``tan(pi (q - 1/2))``.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.cauchy.ppf(0.75)), 12)
    1.0
    """
    q, loc, scale = arguments("cauchy.ppf", q, loc, scale)
    return nan_unless(scale > 0, loc + scale * _ppf(q))


def isf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``-ppf(q)`` (the distribution is symmetric).

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.cauchy.isf(0.25)), 12)
    1.0
    """
    q, loc, scale = arguments("cauchy.isf", q, loc, scale)
    return nan_unless(scale > 0, loc - scale * _ppf(q))


__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]

