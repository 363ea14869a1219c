"""Sorting: ``sort`` (differentiable: the tangent is permuted like the values),
``argsort`` and ``searchsorted`` (integer results, no derivative).

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
