"""``fad.flatten_util``: a pytree of arrays as one flat vector (``jax.flatten_util``).

>>> import fad.numpy as fnp
>>> from fad.flatten_util import ravel_pytree
>>> flat, unravel = ravel_pytree({"w": fnp.ones((2, 2)), "b": fnp.zeros(1)})
>>> flat.shape, unravel(flat)["w"].shape
((5,), (2, 2))
"""

from __future__ import annotations

import math
from typing import Any, Callable

from . import numpy as fnp
from .numpy._base import dtype_of
from .tree import tree_flatten, tree_unflatten


def ravel_pytree(pytree: Any) -> tuple[Any, Callable[[Any], Any]]:
    """``(flat, unravel)``: the leaves of ``pytree`` raveled and concatenated into
    one vector of their common dtype, and the function that rebuilds a tree of
    the same structure, leaf shapes and dtypes from such a vector. Works on
    tracers, so ``grad``, ``jit`` and ``vmap`` see through both.

    >>> import numpy as np
    >>> flat, unravel = ravel_pytree((np.ones(2, np.float32), [np.arange(2)]))
    >>> flat.tolist(), flat.dtype
    ([1.0, 1.0, 0.0, 1.0], dtype('float64'))
    >>> import fad.tree
    >>> [a.dtype.name for a in fad.tree.tree_leaves(unravel(flat))]
    ['float32', 'int64']
    """
    leaves, treedef = tree_flatten(pytree)
    arrays = [fnp.asarray(x) for x in leaves]
    shapes = [a.shape for a in arrays]
    dtypes = [dtype_of(a) for a in arrays]  # (NumPy's dtypes, whatever the backend)
    sizes = [math.prod(s) for s in shapes]
    dtype = fnp.result_type(*dtypes) if arrays else fnp.float64
    flat = (fnp.concatenate([fnp.ravel(fnp.astype(a, dtype)) for a in arrays])
            if arrays else fnp.zeros(0, dtype))
    total = sum(sizes)

    def unravel(vector: Any) -> Any:
        vector = fnp.asarray(vector)
        if vector.shape != (total,):
            raise ValueError(f"ravel_pytree's unravel: expected a vector of shape "
                             f"({total},), got one of shape {vector.shape}")
        out, start = [], 0
        for shape, dt, n in zip(shapes, dtypes, sizes):
            out.append(fnp.astype(fnp.reshape(vector[start:start + n], shape), dt))
            start += n
        return tree_unflatten(treedef, out)
    return flat, unravel


__all__ = ["ravel_pytree"]


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
