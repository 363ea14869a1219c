"""The Cauchy distribution (``scipy.stats.cauchy``): density
``1 / (pi (1 + z^2))``. Differentiable in ``x``, ``loc`` and ``scale``.

>>> import fad, fad.scipy.stats as fst
>>> float(fst.cauchy.cdf(1.0)), float(fad.grad(fst.cauchy.logpdf)(1.0))
(0.75, -1.0)
"""

from __future__ import annotations

import math
from typing import Any

from ... import numpy as fnp
from ._common import log_probability
from ._family import location_scale_family


def _cdf(z: Any) -> Any:
    """``1/2 + atan(z) / pi``, written ``atan2(1, -z) / pi`` below 0 (no
    cancellation in the lower tail) and ``1 - atan2(1, z) / pi`` above."""
    return fnp.where(z < 0, fnp.arctan2(1.0, -z) / math.pi, 1 - fnp.arctan2(1.0, z) / math.pi)


def _ppf(q: Any) -> Any:
    """``tan(pi (q - 1/2))``, written ``-1 / tan(pi q)`` and ``1 / tan(pi (1 - q))``
    in the tails (no rounding of ``q - 1/2`` there)."""
    low, high = q < 0.25, q > 0.75
    middle = fnp.tan(math.pi * (fnp.where(low | high, 0.5, q) - 0.5))
    return fnp.where(low, -1 / fnp.tan(math.pi * fnp.where(low, q, 0.25)),
                     fnp.where(high, 1 / fnp.tan(math.pi * (1 - fnp.where(high, q, 0.75))),
                               middle))


logpdf, pdf, cdf, logcdf, sf, logsf, ppf, isf = location_scale_family(__name__, {
    "logpdf": lambda z: -math.log(math.pi) - fnp.log1p(z * z),
    "cdf": _cdf,
    "logcdf": lambda z: log_probability(_cdf(z), _cdf(-z)),
    "sf": lambda z: _cdf(-z),
    "logsf": lambda z: log_probability(_cdf(-z), _cdf(z)),
    "ppf": _ppf,
    "isf": lambda q: -_ppf(q),
}, {
    "logpdf": ("``-log(pi scale (1 + z^2))``.",
               "round(float(fst.cauchy.logpdf(0.0)), 12)", "-1.144729885849"),
    "pdf": ("The density ``exp(logpdf)``.",
            "round(float(fst.cauchy.pdf(0.0)), 12)", "0.318309886184"),
    "cdf": ("``1/2 + atan(z) / pi``.", "float(fst.cauchy.cdf(-1.0))", "0.25"),
    "logcdf": ("``log(cdf)``, accurate in both tails.",
               "round(float(fst.cauchy.logcdf(-1.0)), 12)", "-1.38629436112"),
    "sf": ("``1/2 - atan(z) / pi``.", "float(fst.cauchy.sf(1.0))", "0.25"),
    "logsf": ("``log(sf)``, accurate in both tails.",
              "round(float(fst.cauchy.logsf(1.0)), 12)", "-1.38629436112"),
    "ppf": ("``tan(pi (q - 1/2))``.", "round(float(fst.cauchy.ppf(0.75)), 12)", "1.0"),
    "isf": ("``-ppf(q)`` (the distribution is symmetric).",
            "round(float(fst.cauchy.isf(0.25)), 12)", "1.0"),
})

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
