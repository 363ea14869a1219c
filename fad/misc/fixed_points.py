"""``fad.misc.fixed_points``: a fixed point found by iteration, differentiated
through the fixed point itself (HIPS autograd's ``fixed_point``).

>>> import fad, fad.numpy as fnp
>>> from fad.misc.fixed_points import fixed_point
>>> newton = lambda a: lambda x: 0.5 * (x + a / x)
>>> close = lambda x, y: fnp.abs(x - y)
>>> round(float(fixed_point(newton, 2.0, 1.0, close, 1e-12)), 12)
1.414213562373
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from .. import numpy as fnp
from ..transforms.autodiff import vjp
from ..transforms.custom import custom_vjp


@functools.partial(custom_vjp, nondiff_argnums=(0, 3, 4))
def fixed_point(f: Callable, a: Any, x0: Any, distance: Callable, tol: float) -> Any:
    """Iterate ``x <- f(a)(x)`` from ``x0`` until ``distance(x, x_prev) <= tol``
    and return ``x``. The derivative in ``a`` is that of the exact fixed point
    ``x* = f(a)(x*)``, computed by a second fixed-point iteration (on the
    adjoint ``w = g + (df/dx)^T w``) rather than by differentiating the loop;
    it is itself differentiable, so ``grad(grad(...))`` works. ``x0`` gets a
    zero gradient. Python control flow decides when to stop: call it eagerly
    or under ``grad``, not under ``jit``.

    >>> import fad, fad.numpy as fnp
    >>> from fad.misc.fixed_points import fixed_point
    >>> step = lambda a: lambda x: x - 0.05 * (x ** 2 - a)
    >>> root = lambda a: fixed_point(step, a, 10.0, lambda x, y: fnp.abs(x - y), 1e-10)
    >>> round(float(fad.grad(root)(2.0)), 6)   # 1 / (2 sqrt 2)
    0.353553
    """
    step = f(a)
    x, x_prev = step(x0), x0
    while distance(x, x_prev) > tol:
        x, x_prev = step(x), x
    return x


def _adjoint_iteration(f: Callable) -> Callable:
    # w -> g + (d f(a)(x) / dx)^T w at the fixed point x, as a function of (a, x, g)
    def iteration(params: tuple) -> Callable:
        a, x, g = params
        pull = vjp(f(a), x)[1]
        return lambda w: pull(w)[0] + g
    return iteration


def _fwd(f: Callable, a: Any, x0: Any, distance: Callable, tol: float) -> tuple:
    x = fixed_point(f, a, x0, distance, tol)
    return x, (a, x, x0)


def _bwd(f: Callable, distance: Callable, tol: float, res: tuple, g: Any) -> tuple:
    a, x, x0 = res
    w = fixed_point(_adjoint_iteration(f), (a, x, g), fnp.zeros_like(x), distance, tol)
    a_bar = vjp(lambda a_: f(a_)(x), a)[1](w)[0]
    return a_bar, fnp.zeros_like(x0)


fixed_point.defvjp(_fwd, _bwd)

__all__ = ["fixed_point"]
