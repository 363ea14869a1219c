"""Sorting: ``sort`` (differentiable: the tangent is permuted like the values),
``argsort`` and ``searchsorted`` (integer results, no derivative).

Ties: ``argsort`` is stable, and ``sort``'s tangent is the tangent gathered at
that stable order, so tied values pass on their tangents in input order.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.ir import ShapedArray
from ..core.primitive import Primitive
from ..core.trace import bind, shape_of
from .batching import to_front
from .indexing import ARRAY, gather
from .rules import defjvp, defnondiff


def take_along(x: Any, idx: Any, axis: int) -> Any:
    """``x`` picked along ``axis`` at ``idx`` (same rank; the other axes broadcast)."""
    nd = len(shape_of(x))
    arrays = [idx if d == axis else
              np.arange(shape_of(x)[d]).reshape([-1 if k == d else 1 for k in range(nd)])
              for d in range(nd)]
    return gather(x, (ARRAY,) * nd, tuple(arrays))


def _axis_batch(prim: Primitive):
    def rule(size: int, vals: list, dims: list, *, axis: int) -> tuple:
        return bind(prim, to_front(vals[0], dims[0]), axis=axis + 1), 0
    return rule


sort_p = Primitive("sort", lambda xp, x, *, axis: xp.sort(x, axis=axis),
                   lambda x, *, axis: x)
argsort_p = Primitive(
    "argsort", lambda xp, x, *, axis: xp.astype(xp.argsort(x, axis=axis, stable=True),
                                                xp.int64),
    lambda x, *, axis: ShapedArray(x.shape, np.int64))
defjvp(sort_p, lambda g, ans, x, *, axis: take_along(g, bind(argsort_p, x, axis=axis), axis),
       elementwise=False)
defnondiff(argsort_p)
sort_p.batch = _axis_batch(sort_p)
argsort_p.batch = _axis_batch(argsort_p)


def _searchsorted_impl(xp: Any, a: Any, v: Any, *, side: str) -> Any:
    return xp.astype(xp.searchsorted(a, v, side=side), xp.int64)


searchsorted_p = Primitive("searchsorted", _searchsorted_impl,
                           lambda a, v, *, side: ShapedArray(v.shape, np.int64))
defnondiff(searchsorted_p)
