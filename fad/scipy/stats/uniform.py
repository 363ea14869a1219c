"""The uniform distribution (``scipy.stats.uniform``) on ``[loc, loc + scale]``.
Differentiable in ``x``, ``loc`` and ``scale`` (away from the ends).

>>> import fad, fad.scipy.stats as fst
>>> float(fst.uniform.cdf(0.25)), float(fad.grad(fst.uniform.cdf, 2)(0.25, 0.0, 1.0))
(0.25, -0.25)
"""

from __future__ import annotations

import numpy as np

from ... import numpy as fnp
from ._family import location_scale_family

logpdf, pdf, cdf, logcdf, sf, logsf, ppf, isf = location_scale_family(__name__, {
    "logpdf": lambda z: fnp.where((z >= 0) & (z <= 1), 0.0, -np.inf),
    "cdf": lambda z: fnp.clip(z, 0.0, 1.0),
    "logcdf": lambda z: fnp.log(fnp.clip(z, 0.0, 1.0)),
    "sf": lambda z: 1 - fnp.clip(z, 0.0, 1.0),
    "logsf": lambda z: fnp.log1p(-fnp.clip(z, 0.0, 1.0)),
    "ppf": lambda q: q,
    "isf": lambda q: 1 - q,
}, {
    "logpdf": ("``-log(scale)`` on the interval, ``-inf`` off it.",
               "round(float(fst.uniform.logpdf(1.0, 0.0, 2.0)), 12)", "-0.69314718056"),
    "pdf": ("The density ``exp(logpdf)``.", "float(fst.uniform.pdf(3.0, 0.0, 2.0))", "0.0"),
    "cdf": ("``z`` clipped to ``[0, 1]``.", "float(fst.uniform.cdf(1.0, 0.0, 2.0))", "0.5"),
    "logcdf": ("``log(cdf)``.", "float(fst.uniform.logcdf(-1.0))", "-inf"),
    "sf": ("``1 - cdf``.", "float(fst.uniform.sf(0.25))", "0.75"),
    "logsf": ("``log(sf)``.", "float(fst.uniform.logsf(2.0))", "-inf"),
    "ppf": ("``loc + scale q``.", "float(fst.uniform.ppf(0.5, 1.0, 2.0))", "2.0"),
    "isf": ("``loc + scale (1 - q)``.", "float(fst.uniform.isf(0.25))", "0.75"),
})

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
