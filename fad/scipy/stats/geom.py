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
from ...lax import stop_gradient
from .. import special
from ._common import arguments, integer_valued, nan_unless, on_support, shifted
from ._family import exponential_of, log_tails


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


def ppf(q: Any, p: Any, loc: Any = 0) -> Any:
    """The least whole ``k >= 1`` with ``cdf(k) >= q``: ``ceil(log1p(-q) / log1p(-p))``,
    one less where rounding overshot (plus ``loc``); 0 at ``q = 0`` and ``inf`` at
    ``q = 1``, as SciPy; derivative 0.

    >>> import fad.numpy as fnp, fad.scipy.stats as fst
    >>> fst.geom.ppf(fnp.array([0.0, 0.5, 0.75, 0.8, 1.0]), 0.5).tolist()
    [0.0, 1.0, 2.0, 3.0, inf]
    """
    q, p, loc = (stop_gradient(v) for v in arguments("geom.ppf", q, p, loc))
    k = fnp.ceil(fnp.log1p(-q) / fnp.log1p(-p))
    k = fnp.where((cdf(k - 1, p) >= q) & (k > 0), k - 1, k)
    k = fnp.where(q == 1, np.inf, fnp.where(q == 0, 0.0, k))
    return nan_unless(_valid(p) & (q >= 0) & (q <= 1), k + loc)


logcdf = log_tails(
    cdf, sf, ("round(float(fst.geom.logcdf(1.0, 0.25)), 12)  # log(p)", "-1.38629436112"))[0]


__all__ = ["logpmf", "pmf", "cdf", "logcdf", "sf", "logsf", "ppf"]


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
