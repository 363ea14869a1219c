"""The binomial distribution (``scipy.stats.binom``): the number of successes in
``n`` trials of probability ``p``, ``k = 0 ... n`` (shifted by ``loc``).
Differentiable in ``p`` (``k``, ``n`` and ``loc`` are discrete).

>>> import fad, fad.scipy.stats as fst
>>> float(fst.binom.pmf(1.0, 2.0, 0.5)), float(fad.grad(fst.binom.logpmf, 2)(1.0, 2.0, 0.5))
(0.5, 0.0)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import numpy as fnp
from .. import special
from ._common import integer_valued, nan_unless, on_support, shifted
from ._family import exponential_of


def _valid(n: Any, p: Any) -> Any:
    return (n >= 0) & integer_valued(n) & (p >= 0) & (p <= 1)


def logpmf(k: Any, n: Any, p: Any, loc: Any = 0) -> Any:
    """``log C(n, k) + k log(p) + (n - k) log(1 - p)`` for whole ``0 <= k <= n``,
    ``-inf`` elsewhere.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.binom.logpmf(0.0, 3.0, 0.5)), 12)  # log(1/8)
    -2.07944154168
    """
    k, (n, p) = shifted("binom.logpmf", k, n, p, loc)

    def inside(k: Any) -> Any:
        log_choose = special.gammaln(n + 1) - (special.gammaln(k + 1)
                                               + special.gammaln(n - k + 1))
        return log_choose + special.xlogy(k, p) + special.xlog1py(n - k, -p)
    value = on_support((k >= 0) & (k <= n) & integer_valued(k), k, inside, -np.inf, safe=0.0)
    return nan_unless(_valid(n, p), value)


pmf = exponential_of(logpmf, "pmf", "The probability ``exp(logpmf)``.",
                     "round(float(fst.binom.pmf(3.0, 3.0, 0.5)), 12)", "0.125")


def cdf(k: Any, n: Any, p: Any, loc: Any = 0) -> Any:
    """``P(K <= k) = betainc(n - k, k + 1, 1 - p)`` for ``k = floor(k)`` in
    ``[0, n)``; 0 below, 1 from ``n`` on.

    >>> import fad.scipy.stats as fst
    >>> float(fst.binom.cdf(1.0, 2.0, 0.5))
    0.75
    """
    k, (n, p) = shifted("binom.cdf", k, n, p, loc, floor=True)
    inner = (k >= 0) & (k < n)
    value = on_support(inner, k, lambda k: special.betainc(n - k, k + 1, 1 - p), 0.0, safe=0.0)
    return nan_unless(_valid(n, p), fnp.where(k >= n, 1.0, value))


__all__ = ["logpmf", "pmf", "cdf"]
