"""``fad.misc.optimizers``: HIPS autograd's loop-style optimisers.

Each runs the whole optimisation: ``adam(grad, x0, callback=None,
num_iters=100, step_size=0.001, ...)`` calls ``grad(x, i)`` at iteration
``i`` (``x`` shaped like ``x0``: an array or nested tuples, lists and dicts of
them), calls ``callback(x, i, g)`` if given, and returns the final ``x``. The
updates are written in ``fad.numpy`` on the flattened parameters, so the
optimisers themselves can be differentiated. For pure, jit-friendly update
rules see ``fad.optim``.

>>> import fad, fad.numpy as fnp
>>> from fad.misc.optimizers import adam
>>> loss = lambda p, i: fnp.sum((p["w"] - 3.0) ** 2)
>>> p = adam(fad.grad(loss), {"w": fnp.zeros(2)}, num_iters=300, step_size=0.1)
>>> [round(float(v), 3) for v in p["w"]]
[3.0, 3.0]
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from .. import numpy as fnp
from .flatten import flatten


def _on_flat(step: Callable) -> Callable:
    # ``step`` optimises a flat vector; the wrapper takes and returns containers
    @functools.wraps(step)
    def optimise(grad: Callable, x0: Any, callback: Callable | None = None,
                 *args: Any, **kwargs: Any) -> Any:
        flat0, unflatten = flatten(x0)

        def flat_grad(x: Any, i: int) -> Any:
            return flatten(grad(unflatten(x), i))[0]
        flat_callback = None
        if callback is not None:
            def flat_callback(x: Any, i: int, g: Any) -> None:
                callback(unflatten(x), i, unflatten(g))
        return unflatten(step(flat_grad, flat0, flat_callback, *args, **kwargs))
    return optimise


@_on_flat
def sgd(grad: Callable, x: Any, callback: Callable | None = None, num_iters: int = 200,
        step_size: float = 0.1, mass: float = 0.9) -> Any:
    """Gradient descent with momentum: ``v <- mass v - (1 - mass) g``,
    ``x <- x + step_size v`` (``v`` starts at zero).

    >>> import fad.numpy as fnp
    >>> from fad.misc.optimizers import sgd
    >>> sgd(lambda x, i: 2 * x, fnp.array([1.0]), num_iters=1, step_size=0.5).tolist()
    [0.9]
    """
    velocity = fnp.zeros(len(x))
    for i in range(num_iters):
        g = grad(x, i)
        if callback:
            callback(x, i, g)
        velocity = mass * velocity - (1.0 - mass) * g
        x = x + step_size * velocity
    return x


@_on_flat
def rmsprop(grad: Callable, x: Any, callback: Callable | None = None, num_iters: int = 100,
            step_size: float = 0.1, gamma: float = 0.9, eps: float = 10**-8) -> Any:
    """RMSProp: ``s <- gamma s + (1 - gamma) g**2`` (``s`` starts at one),
    ``x <- x - step_size g / (sqrt(s) + eps)``.

    >>> import fad.numpy as fnp
    >>> from fad.misc.optimizers import rmsprop
    >>> x = rmsprop(lambda x, i: 2 * x, fnp.array([1.0]), num_iters=1, step_size=0.1)
    >>> round(float(x[0]), 6)
    0.824588
    """
    avg_sq_grad = fnp.ones(len(x))
    for i in range(num_iters):
        g = grad(x, i)
        if callback:
            callback(x, i, g)
        avg_sq_grad = avg_sq_grad * gamma + g**2 * (1 - gamma)
        x = x - step_size * g / (fnp.sqrt(avg_sq_grad) + eps)
    return x


@_on_flat
def adam(grad: Callable, x: Any, callback: Callable | None = None, num_iters: int = 100,
         step_size: float = 0.001, b1: float = 0.9, b2: float = 0.999,
         eps: float = 10**-8) -> Any:
    """Adam: first and second moment estimates ``m``, ``v`` (starting at zero),
    bias-corrected, ``x <- x - step_size m_hat / (sqrt(v_hat) + eps)``.

    >>> import fad.numpy as fnp
    >>> from fad.misc.optimizers import adam
    >>> adam(lambda x, i: 2 * x, fnp.array([1.0]), num_iters=1, step_size=0.1).round(6).tolist()
    [0.9]
    """
    m = fnp.zeros(len(x))
    v = fnp.zeros(len(x))
    for i in range(num_iters):
        g = grad(x, i)
        if callback:
            callback(x, i, g)
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * (g**2) + b2 * v
        mhat = m / (1 - b1 ** (i + 1))
        vhat = v / (1 - b2 ** (i + 1))
        x = x - step_size * mhat / (fnp.sqrt(vhat) + eps)
    return x


__all__ = ["adam", "rmsprop", "sgd"]
