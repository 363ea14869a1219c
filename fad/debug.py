"""``fad.debug``: looking at values inside transformed functions.

``fad.debug.print`` prints the concrete values of its arguments whenever the
function runs: eagerly, inside ``jit`` (at every call of the compiled function,
not once when it is traced), inside ``grad`` (the forward values) and inside
``vmap`` (once per example, as JAX does).

>>> import fad, fad.numpy as fnp
>>> @fad.jit
... def f(x):
...     fad.debug.print("x = {}", x)
...     return x * 2
>>> _ = f(fnp.array([1.0, 2.0]))
x = [1. 2.]
>>> _ = f(fnp.array([3.0, 4.0]))
x = [3. 4.]
"""

from __future__ import annotations

import builtins
from typing import Any, Callable

from .core.trace import Tracer, bind
from .primitives.effects import debug_callback_p
from .transforms.autodiff import stop_gradient
from .tree import tree_flatten, tree_unflatten


def callback(fun: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    """Call ``fun(*args, **kwargs)`` with the concrete values of the arguments (any
    pytrees) whenever the surrounding function runs, also inside ``jit``, ``grad``
    and ``vmap`` (once per example); its result is ignored. Never removed by jit's
    optimiser, although it computes nothing.

    >>> import fad, fad.numpy as fnp
    >>> seen = []
    >>> g = fad.grad(lambda x: (fad.debug.callback(seen.append, x), x * x)[1])
    >>> float(g(3.0)), [float(v) for v in seen]
    (6.0, [3.0])
    """
    leaves, tree = tree_flatten((args, kwargs))
    traced = [i for i, x in enumerate(leaves) if isinstance(x, Tracer)]

    def call(*values: Any) -> None:
        full = list(leaves)
        for i, v in zip(traced, values):
            full[i] = v
        a, k = tree_unflatten(tree, full)
        fun(*a, **k)
    bind(debug_callback_p, *[stop_gradient(leaves[i]) for i in traced], callback=call)


def print(fmt: str, *args: Any, **kwargs: Any) -> None:  # noqa: A001 (jax.debug.print)
    """Print ``fmt.format(*args, **kwargs)`` with the concrete values of the
    arguments whenever the surrounding function runs (see ``callback``).

    >>> import fad, fad.numpy as fnp
    >>> _ = fad.vmap(lambda x: fad.debug.print("x={x}", x=x) or x)(fnp.arange(2.0))
    x=0.0
    x=1.0
    """
    if not isinstance(fmt, str):
        raise TypeError(f"fad.debug.print: the format must be a str, got "
                        f"{type(fmt).__name__} (fad.debug.print('x = {{}}', x))")
    callback(lambda *a, **k: builtins.print(fmt.format(*a, **k)), *args, **kwargs)


__all__ = ["print", "callback"]


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
