"""The Poisson distribution (``scipy.stats.poisson``) of mean ``mu``, on the whole
numbers ``k >= loc``. Differentiable in ``mu`` (``k`` and ``loc`` are discrete).

>>> import fad, fad.scipy.stats as fst
>>> round(float(fst.poisson.pmf(2.0, 3.0)), 12)  # 9/2 e^-3
0.224041807655
>>> round(float(fad.grad(fst.poisson.logpmf, argnums=1)(2.0, 3.0)), 12)  # k/mu - 1
-0.333333333333
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import special
from ._common import integer_valued, nan_unless, on_support, shifted
from ._family import exponential_of


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


__all__ = ["logpmf", "pmf", "cdf"]
