"""The logistic distribution (``scipy.stats.logistic``): distribution function
``expit(z)``. Differentiable in ``x``, ``loc`` and ``scale``.

>>> import fad, fad.scipy.stats as fst
>>> float(fst.logistic.cdf(0.0)), float(fad.grad(fst.logistic.logcdf)(0.0))
(0.5, 0.5)
"""

from __future__ import annotations

from typing import Any

from ... import numpy as fnp
from .. import special
from ._family import location_scale_family


def _softplus(z: Any) -> Any:
    """``log(1 + e^z)``, without overflow."""
    return fnp.logaddexp(0.0, z)


logpdf, pdf, cdf, logcdf, sf, logsf, ppf, isf = location_scale_family(__name__, {
    "logpdf": lambda z: -fnp.abs(z) - 2 * fnp.log1p(fnp.exp(-fnp.abs(z))),
    "cdf": special.expit,
    "logcdf": lambda z: -_softplus(-z),
    "sf": lambda z: special.expit(-z),
    "logsf": lambda z: -_softplus(z),
    "ppf": special.logit,
    "isf": lambda q: -special.logit(q),
}, {
    "logpdf": ("``-|z| - 2 log1p(e^-|z|) - log(scale)``.",
               "round(float(fst.logistic.logpdf(0.0)), 12)", "-1.38629436112"),
    "pdf": ("The density ``exp(logpdf)``.", "float(fst.logistic.pdf(0.0))", "0.25"),
    "cdf": ("``expit(z)``.", "round(float(fst.logistic.cdf(1.0)), 12)", "0.73105857863"),
    "logcdf": ("``-log1p(e^-z)``, accurate in both tails.",
               "float(fst.logistic.logcdf(-40.0))", "-40.0"),
    "sf": ("``expit(-z)``.", "round(float(fst.logistic.sf(-1.0)), 12)", "0.73105857863"),
    "logsf": ("``-log1p(e^z)``.", "float(fst.logistic.logsf(40.0))", "-40.0"),
    "ppf": ("``logit(q)``.", "float(fst.logistic.ppf(0.5))", "0.0"),
    "isf": ("``-logit(q)``.", "round(float(fst.logistic.isf(0.25)), 12)", "1.098612288668"),
})

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
