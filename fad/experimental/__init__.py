"""Experimental APIs, as ``jax.experimental``: ``fad.experimental.ode`` (JAX's
``odeint``, a Dormand-Prince solver staged by ``jit``).

>>> from fad.experimental.ode import odeint
>>> import fad.numpy as fnp
>>> float(odeint(lambda y, t: -y, 1.0, fnp.array([0.0, 1.0]))[1].round(6))
0.367879
"""

from . import ode

__all__ = ["ode"]


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
