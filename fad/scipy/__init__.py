"""SciPy-shaped functions on fad's primitives, traced and differentiable (as
``jax.scipy``): ``fad.scipy.special``.

>>> import fad.scipy.special as fsp
>>> round(float(fsp.erf(1.0)), 6)
0.842701
"""

from . import special

__all__ = ["special"]


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
