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
from ._common import arguments, location_scale, nan_unless


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
    return nan_unless(ok, 0.5 + fnp.arctan(z) / math.pi)


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``log(cdf)``.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.cauchy.logcdf(-1.0)), 12)
    -1.38629436112
    """
    z, scale, ok, _ = location_scale("cauchy.logcdf", x, loc, scale)
    return nan_unless(ok, fnp.log(0.5 + fnp.arctan(z) / math.pi))


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``1/2 - atan(z) / pi``.

    >>> import fad.scipy.stats as fst
    >>> float(fst.cauchy.sf(1.0))
    0.25
    """
    z, scale, ok, _ = location_scale("cauchy.sf", x, loc, scale)
    return nan_unless(ok, 0.5 - fnp.arctan(z) / math.pi)


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``log(sf)``.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.cauchy.logsf(1.0)), 12)
    -1.38629436112
    """
    z, scale, ok, _ = location_scale("cauchy.logsf", x, loc, scale)
    return nan_unless(ok, fnp.log(0.5 - fnp.arctan(z) / math.pi))


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``tan(pi (q - 1/2))``.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.cauchy.ppf(0.75)), 12)
    1.0
    """
    q, loc, scale = arguments("cauchy.ppf", q, loc, scale)
    return nan_unless(scale > 0, loc + scale * fnp.tan(math.pi * (q - 0.5)))


def isf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``tan(pi (1/2 - q))``.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.cauchy.isf(0.25)), 12)
    1.0
    """
    q, loc, scale = arguments("cauchy.isf", q, loc, scale)
    return nan_unless(scale > 0, loc + scale * fnp.tan(math.pi * (0.5 - q)))


__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]

