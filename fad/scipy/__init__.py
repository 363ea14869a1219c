"""SciPy-shaped functions on fad's primitives, traced and differentiable (as
``jax.scipy``): ``fad.scipy.special``, ``fad.scipy.stats``, ``fad.scipy.linalg``,
``fad.scipy.signal``, ``fad.scipy.integrate`` (with SciPy's ``odeint``; JAX's is
``fad.experimental.ode.odeint``).

>>> import fad.scipy.special as fsp
>>> round(float(fsp.erf(1.0)), 6)
0.842701
"""

from . import integrate, linalg, signal, special, stats

__all__ = ["integrate", "linalg", "signal", "special", "stats"]


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
