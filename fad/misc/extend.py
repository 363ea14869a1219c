"""``fad.misc.extend``: HIPS autograd's way of giving a function its own
derivative (``primitive`` and ``defvjp``), on ``fad.custom_vjp``.

>>> import fad, fad.numpy as fnp
>>> from fad.misc.extend import defvjp, primitive
>>> @primitive
... def cube(x):
...     return x ** 3
>>> defvjp(cube, lambda ans, x: lambda g: g * 3 * x ** 2)
>>> float(fad.grad(cube)(2.0))
12.0
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from ..transforms.custom import custom_vjp
from ..transforms.leaves import zeros_like


class primitive:
    """``fun`` with derivatives given by ``defvjp`` instead of traced through.
    Until a derivative is given for an argument, its cotangent is zero.

    >>> import fad
    >>> from fad.misc.extend import defvjp, primitive
    >>> double = primitive(lambda x: 2 * x)
    >>> defvjp(double, lambda ans, x: lambda g: 5 * g)   # a deliberate lie
    >>> float(fad.grad(double)(1.0))
    5.0
    """

    def __init__(self, fun: Callable):
        self.fun = fun
        self.vjps: dict[int, Callable] = {}
        functools.update_wrapper(self, fun)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not self.vjps:
            return self.fun(*args, **kwargs)
        fun, vjps = self.fun, self.vjps

        def fwd(*xs: Any) -> tuple:
            ans = fun(*xs, **kwargs)
            return ans, (ans, xs)

        def bwd(res: tuple, g: Any) -> tuple:
            ans, xs = res
            return tuple(vjps[i](ans, *xs, **kwargs)(g) if i in vjps else zeros_like(x)
                         for i, x in enumerate(xs))
        call = custom_vjp(lambda *xs: fun(*xs, **kwargs))
        call.defvjp(fwd, bwd)
        return call(*args)


def defvjp(fun: primitive, *vjpmakers: Callable | None, argnums: Any = None) -> None:
    """Give ``fun`` (made by ``primitive``) its vector-Jacobian products: one
    ``vjpmaker(ans, *args, **kwargs) -> (lambda g: cotangent)`` per argument,
    in order (or for the arguments ``argnums``); ``None`` for an argument
    that gets a zero cotangent.

    >>> import fad
    >>> from fad.misc.extend import defvjp, primitive
    >>> mul = primitive(lambda x, y: x * y)
    >>> defvjp(mul, lambda ans, x, y: lambda g: g * y, lambda ans, x, y: lambda g: g * x)
    >>> [float(v) for v in fad.grad(mul, (0, 1))(2.0, 3.0)]
    [3.0, 2.0]
    """
    for i, maker in zip(range(len(vjpmakers)) if argnums is None else argnums, vjpmakers):
        if maker is not None:
            fun.vjps[i] = maker


__all__ = ["defvjp", "primitive"]
