"""The Laplace distribution (``scipy.stats.laplace``): density ``e^-|z| / 2``.
Differentiable in ``x``, ``loc`` and ``scale`` (at ``x = loc`` the derivative of
``|z|`` is taken as 0).

>>> import fad, fad.scipy.stats as fst
>>> float(fst.laplace.cdf(0.0)), float(fad.grad(fst.laplace.logpdf)(2.0))
(0.5, -1.0)
"""

from __future__ import annotations

import math
from typing import Any

from ... import numpy as fnp
from ._family import location_scale_family


def _cdf(z: Any) -> Any:
    """``e^z / 2`` below 0, ``1 - e^-z / 2`` above."""
    half_tail = 0.5 * fnp.exp(-fnp.abs(z))
    return fnp.where(z < 0, half_tail, 1 - half_tail)


def _logcdf(z: Any) -> Any:
    """``z - log 2`` below 0, ``log1p(-e^-z / 2)`` above."""
    return fnp.where(z < 0, fnp.minimum(z, 0.0) - math.log(2),
                     fnp.log1p(-0.5 * fnp.exp(-fnp.abs(z))))


def _ppf(q: Any) -> Any:
    return fnp.where(q < 0.5, fnp.log(2 * q), -fnp.log(2 - 2 * q))


logpdf, pdf, cdf, logcdf, sf, logsf, ppf, isf = location_scale_family(__name__, {
    "logpdf": lambda z: -fnp.abs(z) - math.log(2),
    "cdf": _cdf,
    "logcdf": _logcdf,
    "sf": lambda z: _cdf(-z),
    "logsf": lambda z: _logcdf(-z),
    "ppf": _ppf,
    "isf": lambda q: -_ppf(q),
}, {
    "logpdf": ("``-|z| - log(2 scale)``.",
               "round(float(fst.laplace.logpdf(0.0)), 12)", "-0.69314718056"),
    "pdf": ("The density ``exp(logpdf)``.", "float(fst.laplace.pdf(0.0))", "0.5"),
    "cdf": ("``e^z / 2`` below 0, ``1 - e^-z / 2`` above.",
            "round(float(fst.laplace.cdf(-1.0)), 12)", "0.183939720586"),
    "logcdf": ("``z - log 2`` below 0, ``log1p(-e^-z / 2)`` above.",
               "round(float(fst.laplace.logcdf(-40.0)), 12)", "-40.69314718056"),
    "sf": ("``cdf(-z)`` (the distribution is symmetric).",
           "round(float(fst.laplace.sf(1.0)), 12)", "0.183939720586"),
    "logsf": ("``logcdf(-z)``.", "round(float(fst.laplace.logsf(40.0)), 12)", "-40.69314718056"),
    "ppf": ("``log(2q)`` below the median, ``-log(2 - 2q)`` above.",
            "round(float(fst.laplace.ppf(0.75)), 12)", "0.69314718056"),
    "isf": ("``ppf(1 - q)``, by symmetry ``-ppf(q)``.",
            "round(float(fst.laplace.isf(0.25)), 12)", "0.69314718056"),
})

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
