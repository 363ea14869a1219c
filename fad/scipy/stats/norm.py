"""The normal distribution (``scipy.stats.norm``, ``jax.scipy.stats.norm``):
``loc`` is the mean, ``scale`` the standard deviation; every function is
differentiable in each argument, and the tails are accurate (``logcdf`` of
-40 is -804.608..., where ``cdf`` underflows).

>>> import fad, fad.scipy.stats as fst
>>> round(float(fst.norm.logcdf(-40.0)), 6)
-804.608442
>>> round(float(fad.grad(fst.norm.logpdf, argnums=2)(1.0, 0.0, 1.0)), 12)  # z^2 - 1, / scale
0.0
"""

from __future__ import annotations

import math

from .. import special
from ._family import location_scale_family

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


logpdf, pdf, cdf, logcdf, sf, logsf, ppf, isf = location_scale_family(__name__, {
    "logpdf": lambda z: -(z * z) / 2 - _LOG_SQRT_2PI,
    "cdf": special.ndtr,
    "logcdf": special.log_ndtr,
    "sf": lambda z: special.ndtr(-z),
    "logsf": lambda z: special.log_ndtr(-z),
    "ppf": special.ndtri,
    "isf": lambda q: -special.ndtri(q),
}, {
    "logpdf": ("``-z^2 / 2 - log(sqrt(2 pi) scale)``, ``z = (x - loc) / scale``.",
               "round(float(fst.norm.logpdf(0.0)), 12)", "-0.918938533205"),
    "pdf": ("The density ``exp(logpdf)``.",
            "round(float(fst.norm.pdf(1.0, 1.0, 2.0)), 12)", "0.199471140201"),
    "cdf": ("``ndtr(z)``.", "float(fst.norm.cdf(0.0))", "0.5"),
    "logcdf": ("``log_ndtr(z)``, accurate far in the lower tail.",
               "round(float(fst.norm.logcdf(-10.0)), 9)", "-53.231285151"),
    "sf": ("The survival function ``1 - cdf = ndtr(-z)``.",
           "float(fst.norm.sf(40.0)) == float(fst.norm.cdf(-40.0))", "True"),
    "logsf": ("``log_ndtr(-z)``, accurate far in the upper tail.",
              "round(float(fst.norm.logsf(10.0)), 9)", "-53.231285151"),
    "ppf": ("The quantile function ``loc + scale ndtri(q)``.",
            "round(float(fst.norm.ppf(0.975)), 10)", "1.9599639845"),
    "isf": ("The inverse survival function ``loc - scale ndtri(q)``.",
            "round(float(fst.norm.isf(0.025)), 10)", "1.9599639845"),
})

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
