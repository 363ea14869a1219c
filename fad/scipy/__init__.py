"""SciPy-shaped functions on fad's primitives, traced and differentiable (as
``jax.scipy``): ``fad.scipy.special`` and ``fad.scipy.stats``.

>>> import fad.scipy.special as fsp
>>> round(float(fsp.erf(1.0)), 6)
0.842701
"""

from . import special, stats

__all__ = ["special", "stats"]
