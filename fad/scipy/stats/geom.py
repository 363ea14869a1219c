"""The geometric distribution (``scipy.stats.geom``): the number of trials up to
the first success, ``k = 1, 2, ...`` (shifted by ``loc``), success probability
``p``. Differentiable in ``p``.

>>> import fad, fad.scipy.stats as fst
>>> float(fst.geom.pmf(2.0, 0.5)), float(fad.grad(fst.geom.logpmf, 1)(1.0, 0.5))
(0.25, 2.0)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import numpy as fnp
from .. import special
from ._common import integer_valued, nan_unless, on_support, shifted
from ._family import exponential_of


def _valid(p: Any) -> Any:
    return (p > 0) & (p <= 1)


def logpmf(k: Any, p: Any, loc: Any = 0) -> Any:
    """``(k - 1) log(1 - p) + log(p)`` for whole ``k >= 1``, ``-inf`` elsewhere.

    >>> import fad.scipy.stats as fst
    >>> float(fst.geom.logpmf(0.0, 0.5))
    -inf
    """
    k, (p,) = shifted("geom.logpmf", k, p, loc)
    value = on_support((k >= 1) & integer_valued(k), k,
                       lambda k: special.xlog1py(k - 1, -p) + fnp.log(p), -np.inf, safe=1.0)
    return nan_unless(_valid(p), value)


pmf = exponential_of(logpmf, "pmf", "The probability ``exp(logpmf)``.",
                     "float(fst.geom.pmf(1.0, 0.25))", "0.25")


def cdf(k: Any, p: Any, loc: Any = 0) -> Any:
    """``1 - (1 - p)^floor(k)`` (``-expm1(k log1p(-p))``), 0 below 1.

    >>> import fad.scipy.stats as fst
    >>> float(fst.geom.cdf(2.5, 0.5))
    0.75
    """
    k, (p,) = shifted("geom.cdf", k, p, loc, floor=True)
    value = on_support(k >= 1, k, lambda k: -fnp.expm1(k * fnp.log1p(-p)), 0.0, safe=1.0)
    return nan_unless(_valid(p), value)


def logsf(k: Any, p: Any, loc: Any = 0) -> Any:
    """``floor(k) log(1 - p)``, 0 below 1.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.geom.logsf(2.0, 0.5)), 12)
    -1.38629436112
    """
    k, (p,) = shifted("geom.logsf", k, p, loc, floor=True)
    value = on_support(k >= 1, k, lambda k: k * fnp.log1p(-p), 0.0, safe=1.0)
    return nan_unless(_valid(p), value)


sf = exponential_of(logsf, "sf", "``(1 - p)^floor(k)``, 1 below 1.",
                    "float(fst.geom.sf(2.0, 0.5))", "0.25")


__all__ = ["logpmf", "pmf", "cdf", "sf", "logsf"]
