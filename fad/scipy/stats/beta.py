"""The beta distribution (``scipy.stats.beta``) of shapes ``a`` and ``b``: density
``z^(a-1) (1-z)^(b-1) / B(a, b)`` on ``0 <= z <= 1``. Every function is
differentiable in every argument: ``cdf logcdf sf logsf`` through the incomplete
beta function (in ``a`` and ``b`` by its series), ``ppf`` through its inverse.

>>> import fad, fad.scipy.stats as fst
>>> round(float(fst.beta.cdf(0.5, 2.0, 1.0)), 12)  # z^2
0.25
>>> round(float(fad.grad(fst.beta.cdf, argnums=1)(0.5, 2.0, 1.0)), 12)  # z^a log z
-0.17328679514
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import numpy as fnp
from .. import special
from ._common import arguments, location_scale, nan_unless, on_support
from ._family import exponential_of, log_tails


def _valid(name: str, x: Any, a: Any, b: Any, loc: Any, scale: Any) -> tuple:
    z, scale, ok, (a, b) = location_scale(f"beta.{name}", x, loc, scale, a, b)
    return z, a, b, scale, ok & (a > 0) & (b > 0)


def logpdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``(a-1) log z + (b-1) log(1-z) - betaln(a, b) - log(scale)``.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.beta.logpdf(0.5, 2.0, 2.0)), 12)  # log(3/2)
    0.405465108108
    """
    z, a, b, scale, ok = _valid("logpdf", x, a, b, loc, scale)
    inside = on_support((z >= 0) & (z <= 1), z, lambda z: special.xlogy(a - 1, z)
                        + special.xlog1py(b - 1, -z), -np.inf)
    return nan_unless(ok, inside - special.betaln(a, b) - fnp.log(scale))


pdf = exponential_of(logpdf, "pdf", "The density ``exp(logpdf)``.",
                     "round(float(fst.beta.pdf(0.5, 2.0, 2.0)), 12)", "1.5")


def _unit(z: Any) -> Any:
    return fnp.clip(z, 0.0, 1.0)


def cdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``betainc(a, b, z)``.

    >>> import fad.scipy.stats as fst
    >>> float(fst.beta.cdf(2.0, 2.0, 3.0))
    1.0
    """
    z, a, b, _, ok = _valid("cdf", x, a, b, loc, scale)
    return nan_unless(ok, special.betainc(a, b, _unit(z)))


def sf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``betainc(b, a, 1 - z)``, accurate in the upper tail.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.beta.sf(0.5, 2.0, 1.0)), 12)
    0.75
    """
    z, a, b, _, ok = _valid("sf", x, a, b, loc, scale)
    return nan_unless(ok, special.betainc(b, a, 1 - _unit(z)))


def _quantile(name: str, inverse: Any, q: Any, a: Any, b: Any, loc: Any, scale: Any) -> Any:
    """``loc + scale inverse(a, b, q)``, NaN for invalid arguments."""
    q, a, b, loc, scale = arguments(f"beta.{name}", q, a, b, loc, scale)
    ok = (scale > 0) & (a > 0) & (b > 0) & (q >= 0) & (q <= 1)
    return nan_unless(ok, loc + scale * inverse(a, b, q))


def ppf(q: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The quantile function ``loc + scale betaincinv(a, b, q)``.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.beta.ppf(0.25, 2.0, 1.0)), 12)  # sqrt(q)
    0.5
    """
    return _quantile("ppf", special.betaincinv, q, a, b, loc, scale)


def isf(q: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The inverse of ``sf``: ``loc + scale betainccinv(a, b, q)``, accurate for tiny ``q``.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.beta.isf(0.75, 2.0, 1.0)), 12)  # sqrt(1 - q)
    0.5
    """
    return _quantile("isf", special.betainccinv, q, a, b, loc, scale)


logcdf, logsf = log_tails(
    cdf, sf, ("round(float(fst.beta.logcdf(0.5, 2.0, 1.0)), 12)  # log(1/4)", "-1.38629436112"),
    ("round(float(fst.beta.logsf(0.5, 1.0, 2.0)), 12)  # log(1/4)", "-1.38629436112"))


__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
