"""The uniform distribution (``scipy.stats.uniform``) on ``[loc, loc + scale]``.
Differentiable in ``x``, ``loc`` and ``scale`` (away from the ends).

>>> import fad, fad.scipy.stats as fst
>>> float(fst.uniform.cdf(0.25)), float(fad.grad(fst.uniform.cdf, 2)(0.25, 0.0, 1.0))
(0.25, -0.25)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import numpy as fnp
from ._common import arguments, location_scale, nan_unless


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``-log(scale)`` on the interval, ``-inf`` off it.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.uniform.logpdf(1.0, 0.0, 2.0)), 12)
    -0.69314718056
    """
    z, scale, ok, _ = location_scale("uniform.logpdf", x, loc, scale)
    return nan_unless(ok, fnp.where((z >= 0) & (z <= 1), 0.0, -np.inf) - fnp.log(scale))


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The density ``exp(logpdf)``.

    >>> import fad.scipy.stats as fst
    >>> float(fst.uniform.pdf(3.0, 0.0, 2.0))
    0.0
    """
    return fnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``z`` clipped to ``[0, 1]``.

    >>> import fad.scipy.stats as fst
    >>> float(fst.uniform.cdf(1.0, 0.0, 2.0))
    0.5
    """
    z, scale, ok, _ = location_scale("uniform.cdf", x, loc, scale)
    return nan_unless(ok, fnp.clip(z, 0.0, 1.0))


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``log(cdf)``.

    >>> import fad.scipy.stats as fst
    >>> float(fst.uniform.logcdf(-1.0))
    -inf
    """
    z, scale, ok, _ = location_scale("uniform.logcdf", x, loc, scale)
    return nan_unless(ok, fnp.log(fnp.clip(z, 0.0, 1.0)))


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``1 - cdf``.

    >>> import fad.scipy.stats as fst
    >>> float(fst.uniform.sf(0.25))
    0.75
    """
    z, scale, ok, _ = location_scale("uniform.sf", x, loc, scale)
    return nan_unless(ok, 1 - fnp.clip(z, 0.0, 1.0))


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``log(sf)``.

    >>> import fad.scipy.stats as fst
    >>> float(fst.uniform.logsf(2.0))
    -inf
    """
    z, scale, ok, _ = location_scale("uniform.logsf", x, loc, scale)
    return nan_unless(ok, fnp.log1p(-fnp.clip(z, 0.0, 1.0)))


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``loc + scale q``.

    >>> import fad.scipy.stats as fst
    >>> float(fst.uniform.ppf(0.5, 1.0, 2.0))
    2.0
    """
    q, loc, scale = arguments("uniform.ppf", q, loc, scale)
    return nan_unless(scale > 0, loc + scale * q)


def isf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``loc + scale (1 - q)``.

    >>> import fad.scipy.stats as fst
    >>> float(fst.uniform.isf(0.25))
    0.75
    """
    q, loc, scale = arguments("uniform.isf", q, loc, scale)
    return nan_unless(scale > 0, loc + scale * (1 - q))


__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]

