"""``fad.misc.flatten``: a nested container of arrays as one flat vector, with
HIPS autograd's names (``flatten``, ``flatten_func``).

Unlike ``fad.flatten_util.ravel_pytree``, ``unflatten`` keeps the vector's
dtype (a float vector gives float leaves even where the original leaf was an
integer), as autograd's does, so optimisers written on flat vectors hand back
exactly what they computed.

>>> import numpy as np
>>> from fad.misc.flatten import flatten
>>> flat, unflatten = flatten({"b": np.zeros(2), "w": [np.ones((2, 2)), 3.0]})
>>> flat.tolist()
[0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 3.0]
>>> unflatten(flat)["w"][0].shape
(2, 2)
"""

from __future__ import annotations

import math
from typing import Any, Callable

from .. import numpy as fnp
from ..tree import tree_flatten, tree_unflatten


def flatten(value: Any) -> tuple[Any, Callable[[Any], Any]]:
    """``(flat, unflatten)``: the leaves of ``value`` (nested tuples, lists and
    dicts, keys sorted, of arrays and scalars) raveled and concatenated into
    one vector, and the function that rebuilds a container of the same
    structure and leaf shapes from such a vector. Differentiable both ways.

    >>> import fad, fad.numpy as fnp
    >>> from fad.misc.flatten import flatten
    >>> flat, unflatten = flatten((fnp.ones(2), 5.0))
    >>> flat.tolist(), unflatten(fnp.array([1.0, 2.0, 3.0]))[1].tolist()
    ([1.0, 1.0, 5.0], 3.0)
    >>> fad.grad(lambda p: fnp.sum(flatten(p)[0] ** 2))([1.0, fnp.ones(2)])[1].tolist()
    [2.0, 2.0]
    """
    leaves, treedef = tree_flatten(value)
    arrays = [fnp.asarray(x) for x in leaves]
    shapes = [a.shape for a in arrays]
    sizes = [math.prod(s) for s in shapes]
    flat = fnp.concatenate([fnp.ravel(a) for a in arrays]) if arrays else fnp.zeros(0)

    def unflatten(vector: Any) -> Any:
        vector = fnp.asarray(vector)
        out, start = [], 0
        for shape, n in zip(shapes, sizes):
            out.append(fnp.reshape(vector[start:start + n], shape))
            start += n
        return tree_unflatten(treedef, out)
    return flat, unflatten


def flatten_func(func: Callable, example: Any) -> tuple[Callable, Callable, Any]:
    """``(flat_func, unflatten, flat_example)``: ``func`` (whose first argument
    is a container shaped like ``example``) as a function of a flat vector, the
    ``unflatten`` of ``example`` and ``example`` flattened. The result of
    ``flat_func`` is ``func``'s flattened too, except that a scalar stays a
    0-d scalar (autograd's gives it shape ``(1,)``), so ``fad.grad`` applies.

    >>> import fad.numpy as fnp
    >>> from fad.misc.flatten import flatten_func
    >>> f, unflatten, x = flatten_func(lambda p, k: {"a": p["a"] * k}, {"a": fnp.ones(2)})
    >>> f(x, 3.0).tolist()
    [3.0, 3.0]
    >>> import fad
    >>> g, unflatten, x = flatten_func(lambda p: fnp.sum(p["a"] ** 2), {"a": fnp.ones(2)})
    >>> fad.grad(g)(x).tolist()
    [2.0, 2.0]
    """
    flat_example, unflatten = flatten(example)

    def flat_func(x: Any, *args: Any) -> Any:
        out = func(unflatten(x), *args)
        leaves, tree = tree_flatten(out)
        scalar = len(leaves) == 1 and tree.node is None and fnp.ndim(leaves[0]) == 0
        return out if scalar else flatten(out)[0]
    return flat_func, unflatten, flat_example


__all__ = ["flatten", "flatten_func"]
