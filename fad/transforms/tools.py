"""Tools around the transformations: ``eval_shape`` (shapes without computing)
and ``disable_jit`` (jitted functions run eagerly, for debugging)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..core.ir import ShapedArray
from ..tree import tree_map, tree_unflatten
from .arguments import require_callable
from .autodiff import make_jaxpr
from .jit import Jitted, select_call


def _abstract(x: Any) -> Any:
    """A leaf as ``make_jaxpr`` takes it: objects with only a ``shape`` and a
    ``dtype`` (``ShapedArray``, ``jax.ShapeDtypeStruct``) become ``ShapedArray``."""
    if isinstance(x, ShapedArray) or isinstance(x, np.ndarray):
        return x
    shape, dtype = getattr(x, "shape", None), getattr(x, "dtype", None)
    if shape is not None and dtype is not None and not hasattr(x, "__array__"):
        return ShapedArray(tuple(shape), dtype)
    return x


def eval_shape(fun: Callable, *args: Any, **kwargs: Any) -> Any:
    """The shapes and dtypes of ``fun(*args, **kwargs)``, as a pytree of
    ``ShapedArray``, found by abstract tracing: no array operation is computed.
    Arguments may be arrays, scalars or anything with a ``shape`` and a ``dtype``
    (``ShapedArray``, ``jax.ShapeDtypeStruct``).

    >>> import fad, fad.numpy as fnp
    >>> fad.eval_shape(lambda x, w: {"y": fnp.tanh(x @ w)},
    ...                fad.ShapedArray((1000, 784), "float32"), fnp.ones((784, 10), "float32"))
    {'y': ShapedArray(f32[1000,10])}
    """
    require_callable(fun, "fad.eval_shape")
    args = tree_map(_abstract, args)
    closed = make_jaxpr(lambda *a: fun(*a, **kwargs))(*args)
    return tree_unflatten(closed.out_tree, [ShapedArray(v.aval.shape, v.aval.dtype)
                                            for v in closed.outvars])


class disable_jit:
    """``with fad.disable_jit():`` runs every ``fad.jit`` function eagerly (as
    plain Python, each operation on arrays), so that ``print`` and a debugger see
    values; transformations other than ``jit`` still apply. Process-wide while the
    block runs (the switch rebinds ``Jitted.__call__``, so that compiled calls pay
    nothing outside the block). Nests.

    >>> import fad, fad.numpy as fnp
    >>> @fad.jit
    ... def f(x):
    ...     print(type(x).__name__)
    ...     return x + 1
    >>> with fad.disable_jit():
    ...     _ = f(fnp.ones(2))
    ndarray
    """

    def __enter__(self) -> disable_jit:
        Jitted.eager_depth += 1
        select_call()
        return self

    def __exit__(self, *exc: Any) -> None:
        Jitted.eager_depth -= 1
        select_call()


__all__ = ["eval_shape", "disable_jit"]
