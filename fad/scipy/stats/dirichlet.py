"""The Dirichlet distribution (``scipy.stats.dirichlet``) of concentrations
``alpha`` (a vector of ``K > 1`` positive numbers) on the simplex. ``x`` holds the
components on its first axis, shape ``(K,)`` or ``(K, ...)`` (or ``K - 1``
components, the last then being ``1 - sum``), as in SciPy. Differentiable in
``x`` and ``alpha``; unlike SciPy, ``x`` is not checked to lie on the simplex.

>>> import fad, fad.numpy as fnp, fad.scipy.stats as fst
>>> round(float(fst.dirichlet.pdf(fnp.array([0.2, 0.3, 0.5]), fnp.array([1.0, 1.0, 1.0]))), 12)
2.0
"""

from __future__ import annotations

from typing import Any

from ... import numpy as fnp
from .. import special
from ._common import arguments
from ._family import exponential_of


def logpdf(x: Any, alpha: Any) -> Any:
    """``sum_i (alpha_i - 1) log x_i - log B(alpha)``, summed over the first axis.

    >>> import fad, fad.numpy as fnp, fad.scipy.stats as fst
    >>> alpha = fnp.array([1.0, 2.0, 3.0])
    >>> round(float(fst.dirichlet.logpdf(fnp.array([0.2, 0.3, 0.5]), alpha)), 12)
    1.504077396776
    """
    x, alpha = arguments("dirichlet.logpdf", x, alpha)
    if alpha.ndim != 1 or alpha.shape[0] < 2:
        raise ValueError("fad.scipy.stats.dirichlet: alpha must be a vector of at least "
                         f"2 concentrations (got shape {alpha.shape})")
    k = alpha.shape[0]
    if x.ndim == 0 or x.shape[0] not in (k, k - 1):
        raise ValueError(f"fad.scipy.stats.dirichlet: x must have {k} (or {k - 1}) "
                         f"components on its first axis (got shape {x.shape})")
    if x.shape[0] == k - 1:
        x = fnp.concatenate([x, 1 - fnp.sum(x, axis=0, keepdims=True)], axis=0)
    a = fnp.reshape(alpha, (k,) + (1,) * (x.ndim - 1))
    log_beta = fnp.sum(special.gammaln(alpha)) - special.gammaln(fnp.sum(alpha))
    return fnp.sum(special.xlogy(a - 1, x), axis=0) - log_beta


pdf = exponential_of(
    logpdf, "pdf", "The density ``exp(logpdf)``.",
    "fst.dirichlet.pdf(fnp.array([[0.5, 0.25], [0.5, 0.75]]), fnp.array([2.0, 1.0])).tolist()",
    "[1.0, 0.5]")


__all__ = ["logpdf", "pdf"]


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
