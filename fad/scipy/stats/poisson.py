"""The Poisson distribution (``scipy.stats.poisson``) of mean ``mu``, on the whole
numbers ``k >= loc``. Differentiable in ``mu`` (``k`` and ``loc`` are discrete);
``ppf`` is integer-valued and has derivative 0.

>>> import fad, fad.scipy.stats as fst
>>> round(float(fst.poisson.pmf(2.0, 3.0)), 12)  # 9/2 e^-3
0.224041807655
>>> round(float(fad.grad(fst.poisson.logpmf, argnums=1)(2.0, 3.0)), 12)  # k/mu - 1
-0.333333333333
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


def logpmf(k: Any, mu: Any, loc: Any = 0) -> Any:
    """``k log(mu) - mu - gammaln(k + 1)`` for whole ``k >= 0`` (``k - loc``),
    ``-inf`` elsewhere.

    >>> import fad.scipy.stats as fst
    >>> float(fst.poisson.logpmf(0.0, 2.0)), float(fst.poisson.logpmf(1.5, 2.0))
    (-2.0, -inf)
    """
    k, (mu,) = shifted("poisson.logpmf", k, mu, loc)
    value = on_support((k >= 0) & integer_valued(k), k, lambda k: special.xlogy(k, mu)
                       - special.gammaln(k + 1) - mu, -np.inf)
    return nan_unless(mu >= 0, value)


pmf = exponential_of(logpmf, "pmf", "The probability ``exp(logpmf)``.",
                     "round(float(fst.poisson.pmf(0.0, 2.0)), 12)", "0.135335283237")


def cdf(k: Any, mu: Any, loc: Any = 0) -> Any:
    """``P(K <= k) = gammaincc(floor(k) + 1, mu)``, 0 for ``k < 0``.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.poisson.cdf(1.0, 2.0)), 12)  # 3 e^-2
    0.40600584971
    """
    k, (mu,) = shifted("poisson.cdf", k, mu, loc, floor=True)
    value = on_support(k >= 0, k, lambda k: special.gammaincc(k + 1, mu), 0.0)
    return nan_unless(mu >= 0, value)


def sf(k: Any, mu: Any, loc: Any = 0) -> Any:
    """``P(K > k) = gammainc(floor(k) + 1, mu)``, 1 for ``k < 0``.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.poisson.sf(1.0, 2.0)), 12)  # 1 - 3 e^-2
    0.59399415029
    """
    k, (mu,) = shifted("poisson.sf", k, mu, loc, floor=True)
    value = on_support(k >= 0, k, lambda k: special.gammainc(k + 1, mu), 1.0)
    return nan_unless(mu >= 0, value)


# ppf bisects on the whole numbers between -1 and mu + 20 sqrt(mu) + 40 (where the
# upper tail is below 1e-80), halving the interval this many times
PPF_BISECTIONS = 64


def ppf(q: Any, mu: Any, loc: Any = 0) -> Any:
    """The quantile function: the least whole ``k`` with ``cdf(k) >= q`` (plus
    ``loc``); ``-1`` at ``q = 0``, ``inf`` at ``q = 1``, NaN for ``q`` outside
    ``[0, 1]`` or ``mu < 0``.

    >>> import fad.scipy.stats as fst
    >>> [float(v) for v in fst.poisson.ppf([0.0, 0.3, 1.0], 3.0)]
    [-1.0, 2.0, inf]
    """
    q, mu, loc = (stop_gradient(v) for v in arguments("poisson.ppf", q, mu, loc))
    rate = fnp.maximum(mu, 0.0)
    k = whole_number_quantile(q, fnp.ceil(rate + 20 * fnp.sqrt(rate) + 40),
                              lambda k: special.gammaincc(k + 1, rate) >= q, PPF_BISECTIONS)
    k = fnp.where(q == 1, np.inf, k)
    return nan_unless((mu >= 0) & (q >= 0) & (q <= 1), k + loc)


logcdf, logsf = log_tails(
    cdf, sf, ("round(float(fst.poisson.logcdf(0.0, 2.0)), 12)  # -mu", "-2.0"),
    ("float(fst.poisson.logsf(-1.0, 2.0))", "0.0"))


__all__ = ["logpmf", "pmf", "cdf", "logcdf", "sf", "logsf", "ppf"]


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
