"""The Bernoulli distribution (``scipy.stats.bernoulli``): ``k = 1`` with
probability ``p``, ``k = 0`` otherwise (shifted by ``loc``). Differentiable in
``p``.

>>> import fad, fad.scipy.stats as fst
>>> float(fst.bernoulli.pmf(1.0, 0.3)), float(fad.grad(fst.bernoulli.logpmf, 1)(0.0, 0.5))
(0.3, -2.0)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import numpy as fnp
from .. import special
from ._common import arguments, nan_unless, on_support, shifted
from ._family import exponential_of, log_tails


def _valid(p: Any) -> Any:
    return (p >= 0) & (p <= 1)


def logpmf(k: Any, p: Any, loc: Any = 0) -> Any:
    """``k log(p) + (1 - k) log(1 - p)`` for ``k`` in {0, 1}, ``-inf`` elsewhere.

    >>> import fad.scipy.stats as fst
    >>> float(fst.bernoulli.logpmf(2.0, 0.5))
    -inf
    """
    k, (p,) = shifted("bernoulli.logpmf", k, p, loc)
    value = on_support((k == 0) | (k == 1), k, lambda k: special.xlogy(k, p)
                       + special.xlog1py(1 - k, -p), -np.inf)
    return nan_unless(_valid(p), value)


pmf = exponential_of(logpmf, "pmf", "The probability ``exp(logpmf)``.",
                     "float(fst.bernoulli.pmf(0.0, 0.25))", "0.75")


def cdf(k: Any, p: Any, loc: Any = 0) -> Any:
    """0 for ``k < 0``, ``1 - p`` for ``0 <= k < 1``, 1 above.

    >>> import fad.scipy.stats as fst
    >>> float(fst.bernoulli.cdf(0.5, 0.25))
    0.75
    """
    k, (p,) = shifted("bernoulli.cdf", k, p, loc)
    return nan_unless(_valid(p), fnp.where(k < 0, 0.0, fnp.where(k < 1, 1 - p, 1.0)))


def sf(k: Any, p: Any, loc: Any = 0) -> Any:
    """1 for ``k < 0``, ``p`` for ``0 <= k < 1``, 0 above.

    >>> import fad.scipy.stats as fst
    >>> float(fst.bernoulli.sf(0.5, 0.25))
    0.25
    """
    k, (p,) = shifted("bernoulli.sf", k, p, loc)
    return nan_unless(_valid(p), fnp.where(k < 0, 1.0, fnp.where(k < 1, p, 0.0)))


def ppf(q: Any, p: Any, loc: Any = 0) -> Any:
    """The least ``k`` with ``cdf(k) >= q``: ``-1`` at ``q = 0`` (as SciPy), 0 up to
    ``q = 1 - p``, 1 above; NaN outside ``[0, 1]``.

    >>> import fad.numpy as fnp, fad.scipy.stats as fst
    >>> fst.bernoulli.ppf(fnp.array([0.0, 0.5, 0.9]), 0.3).tolist()
    [-1.0, 0.0, 1.0]
    """
    q, p, loc = arguments("bernoulli.ppf", q, p, loc)
    k = fnp.where(q == 0, -1.0, fnp.where(q <= 1 - p, fnp.zeros_like(q), fnp.ones_like(q)))
    return nan_unless(_valid(p) & (q >= 0) & (q <= 1), k + loc)


logcdf, logsf = log_tails(
    cdf, sf, ("float(fst.bernoulli.logcdf(2.0, 0.25))", "0.0"),
    ("float(fst.bernoulli.logsf(-1.0, 0.25))", "0.0"))


__all__ = ["logpmf", "pmf", "cdf", "logcdf", "sf", "logsf", "ppf"]


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
