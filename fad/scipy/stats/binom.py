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
from ...lax import stop_gradient
from .. import special
from ._common import (
    arguments,
    integer_valued,
    nan_unless,
    on_support,
    shifted,
    whole_number_quantile,
)
from ._family import exponential_of, log_tails


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


def sf(k: Any, n: Any, p: Any, loc: Any = 0) -> Any:
    """``P(K > k) = betainc(k + 1, n - k, p)`` for ``k = floor(k)`` in ``[0, n)``;
    1 below, 0 from ``n`` on (accurate where ``cdf`` is close to 1).

    >>> import fad.scipy.stats as fst
    >>> float(fst.binom.sf(1.0, 2.0, 0.5))
    0.25
    """
    k, (n, p) = shifted("binom.sf", k, n, p, loc, floor=True)
    inner = (k >= 0) & (k < n)
    value = on_support(inner, k, lambda k: special.betainc(k + 1, n - k, p), 1.0, safe=0.0)
    return nan_unless(_valid(n, p), fnp.where(k >= n, 0.0, value))


def ppf(q: Any, n: Any, p: Any, loc: Any = 0) -> Any:
    """The least whole ``k`` with ``cdf(k) >= q`` (plus ``loc``): ``-1`` at ``q = 0``,
    NaN outside ``[0, 1]`` or for invalid ``n``, ``p``; derivative 0.

    >>> import fad.numpy as fnp, fad.scipy.stats as fst
    >>> fst.binom.ppf(fnp.array([0.0, 0.3, 0.8, 1.0]), 4.0, 0.5).tolist()
    [-1.0, 1.0, 3.0, 4.0]
    """
    q, n, p, loc = (stop_gradient(v) for v in arguments("binom.ppf", q, n, p, loc))
    size = fnp.where(_valid(n, p), n, 0.0)
    k = whole_number_quantile(q, size, lambda k: cdf(k, size, p) >= q,
                              PPF_BISECTIONS)
    k = fnp.where(q == 1, size, k)  # (cdf rounds to 1 below n)
    return nan_unless(_valid(n, p) & (q >= 0) & (q <= 1), k + loc)


# ppf bisects on the whole numbers in [-1, n]: this many halvings cover n < 2^62
PPF_BISECTIONS = 64


logcdf, logsf = log_tails(
    cdf, sf, ("round(float(fst.binom.logcdf(0.0, 3.0, 0.5)), 12)  # log(1/8)", "-2.07944154168"),
    ("round(float(fst.binom.logsf(2.0, 3.0, 0.5)), 12)  # log(1/8)", "-2.07944154168"))


__all__ = ["logpmf", "pmf", "cdf", "logcdf", "sf", "logsf", "ppf"]


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
