"""Sorting: ``sort`` (differentiable: the tangent is permuted like the values),
``argsort`` and ``searchsorted`` (integer results, no derivative); and, composed
of these and ``gather`` (so differentiable wherever the picked values are),
``top_k`` and ``sort_by_keys`` (several operands in the lexicographic order of
the first ones).

Ties: ``argsort`` is stable, and ``sort``'s tangent is the tangent gathered at
that stable order, so tied values pass on their tangents in input order.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..backends import backend_for, default_xp, namespace_of
from ..core.ir import ShapedArray
from ..core.primitive import Primitive
from ..core.trace import bind, concrete_or_none, shape_of
from .builders import batch_moving_axis, defjvp, defnondiff, loop_batch_rule
from .indexing import ARRAY, gather
from .structural import convert_element_type_p


def constant(value: np.ndarray, like: Any) -> Any:
    """A NumPy constant moved to the backend of ``like`` (when it is concrete;
    else the default backend's), so that it can meet ``like`` in a primitive.

    >>> import numpy as np
    >>> constant(np.arange(2), np.ones(3)).tolist()
    [0, 1]
    """
    c = concrete_or_none(like)
    xp = namespace_of([c]) if c is not None else default_xp()
    if xp is np or backend_for(xp).absorbs_numpy:  # (Dask indexes with NumPy arrays)
        return value
    return xp.asarray(value)


def take_along(x: Any, idx: Any, axis: int) -> Any:
    """``x`` picked along ``axis`` at ``idx`` (same rank; the other axes broadcast).

    >>> import numpy as np
    >>> take_along(np.array([[1.0, 2.0]]), np.array([[1, 0]]), 1).tolist()
    [[2.0, 1.0]]
    """
    nd = len(shape_of(x))
    arrays = [idx if d == axis else constant(
              np.arange(shape_of(x)[d]).reshape([-1 if k == d else 1 for k in range(nd)]), x)
              for d in range(nd)]
    return gather(x, (ARRAY,) * nd, tuple(arrays))


sort_p = Primitive("sort", lambda xp, x, *, axis: xp.sort(x, axis=axis),
                   lambda x, *, axis: x)
argsort_p = Primitive(
    "argsort", lambda xp, x, *, axis: xp.astype(xp.argsort(x, axis=axis, stable=True),
                                                xp.int64),
    lambda x, *, axis: ShapedArray(x.shape, np.int64))
defjvp(sort_p, lambda g, ans, x, *, axis: take_along(g, bind(argsort_p, x, axis=axis), axis),
       elementwise=False)
defnondiff(argsort_p)
sort_p.batch = batch_moving_axis(sort_p, "axis")
argsort_p.batch = batch_moving_axis(argsort_p, "axis")


def _searchsorted_impl(xp: Any, a: Any, v: Any, *, side: str) -> Any:
    return xp.astype(xp.searchsorted(a, v, side=side), xp.int64)


searchsorted_p = Primitive("searchsorted", _searchsorted_impl,
                           lambda a, v, *, side: ShapedArray(v.shape, np.int64))
defnondiff(searchsorted_p)


def _searchsorted_batch(size: int, vals: list, dims: list, *, side: str) -> tuple:
    """Sorted sequence shared by the batch: one call on all queries; else a loop."""
    (a, v), (da, dv) = vals, dims
    if da is None:
        return bind(searchsorted_p, a, v, side=side), dv
    return loop_batch_rule(searchsorted_p)(size, vals, dims, side=side)


searchsorted_p.batch = _searchsorted_batch


# ------------------------------------------------------------------ compositions
def _reversed(x: Any, axis: int) -> Any:
    return gather(x, (slice(None),) * axis + (slice(None, None, -1),))


def top_k(x: Any, k: int) -> tuple:
    """The ``k`` largest values along the last axis, in descending order, and their
    positions (int32; ties: the lower position first).

    >>> import numpy as np
    >>> v, i = top_k(np.array([1.0, 3.0, 3.0, 2.0]), 3)
    >>> v.tolist(), i.tolist()
    ([3.0, 3.0, 2.0], [1, 2, 3])
    """
    shape = shape_of(x)
    axis, n = len(shape) - 1, shape[-1]
    # a stable descending order, ties by increasing position: the stable ascending
    # order of the reversed values, read backwards, positions mapped i -> n - 1 - i
    order = bind(argsort_p, _reversed(x, axis), axis=axis)
    last = gather(_reversed(order, axis), (slice(None),) * axis + (slice(0, k),))
    idx = bind(convert_element_type_p, np.int64(n - 1) - last, new_dtype=np.dtype(np.int32))
    return take_along(x, idx, axis), idx


def sort_by_keys(operands: list, axis: int, num_keys: int) -> list:
    """``operands`` (one shape) permuted along ``axis`` into the stable
    lexicographic order of ``operands[:num_keys]`` (the first the primary key).

    >>> import numpy as np
    >>> k, v = sort_by_keys([np.array([2, 1, 2]), np.array([1.0, 2.0, 3.0])], 0, 1)
    >>> k.tolist(), v.tolist()
    ([1, 2, 2], [2.0, 1.0, 3.0])
    """
    keys = operands[:num_keys]
    order = bind(argsort_p, keys[-1], axis=axis)
    for key in reversed(keys[:-1]):  # stable sorts from the last key to the first
        order = take_along(order, bind(argsort_p, take_along(key, order, axis), axis=axis),
                           axis)
    return [take_along(op, order, axis) for op in operands]


__all__ = ["sort_p", "argsort_p", "searchsorted_p", "constant", "take_along", "top_k",
           "sort_by_keys"]
