"""The exponential distribution (``scipy.stats.expon``): density ``e^-z`` on
``z = (x - loc) / scale >= 0``. Differentiable in ``x``, ``loc`` and ``scale``.

>>> import fad, fad.scipy.stats as fst
>>> round(float(fst.expon.cdf(1.0)), 12), float(fad.grad(fst.expon.logpdf)(1.0))
(0.632120558829, -1.0)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import numpy as fnp
from ._common import on_support
from ._family import location_scale_family


def _log1mexp(z: Any) -> Any:
    """``log(1 - e^-z)`` for ``z > 0``: through ``expm1`` near 0, ``log1p`` beyond
    ``log 2`` (each accurate where the other cancels)."""
    return fnp.where(z < math.log(2), fnp.log(-fnp.expm1(-z)), fnp.log1p(-fnp.exp(-z)))


logpdf, pdf, cdf, logcdf, sf, logsf, ppf, isf = location_scale_family(__name__, {
    "logpdf": lambda z: on_support(z >= 0, z, lambda z: -z, -np.inf),
    "cdf": lambda z: -fnp.expm1(-fnp.maximum(z, 0.0)),
    "logcdf": lambda z: on_support(z > 0, z, _log1mexp, -np.inf),
    "sf": lambda z: fnp.exp(-fnp.maximum(z, 0.0)),
    "logsf": lambda z: -fnp.maximum(z, 0.0),
    "ppf": lambda q: -fnp.log1p(-q),
    "isf": lambda q: -fnp.log(q),
}, {
    "logpdf": ("``-z - log(scale)`` for ``z >= 0``, ``-inf`` below.",
               "float(fst.expon.logpdf(2.0))", "-2.0"),
    "pdf": ("The density ``exp(logpdf)``.", "float(fst.expon.pdf(-1.0))", "0.0"),
    "cdf": ("``1 - e^-z`` (``-expm1(-z)``), 0 below 0.", "float(fst.expon.cdf(1e-20))", "1e-20"),
    "logcdf": ("``log(1 - e^-z)``, accurate near 0 and in the upper tail.",
               "round(float(fst.expon.logcdf(1.0)), 12)", "-0.458675145387"),
    "sf": ("``e^-z``, 1 below 0.", "round(float(fst.expon.sf(1.0)), 12)", "0.367879441171"),
    "logsf": ("``-z``, 0 below 0.", "float(fst.expon.logsf(3.0))", "-3.0"),
    "ppf": ("``loc - scale log(1 - q)``.",
            "round(float(fst.expon.ppf(0.5)), 12)", "0.69314718056"),
    "isf": ("``loc - scale log(q)``.", "round(float(fst.expon.isf(0.5)), 12)", "0.69314718056"),
})

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
