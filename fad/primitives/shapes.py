"""Shape and dtype rules shared by many primitives (NumPy's own rules)."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ..core.errors import ShapeError
from ..core.ir import ShapedArray


def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    first = shapes[0]
    if all(s == first for s in shapes):
        return first
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise ShapeError("shapes " + ", ".join(map(str, shapes)) +
                         " cannot be broadcast together") from None


def elementwise(*avals: ShapedArray, dtype: Any = None) -> ShapedArray:
    """Aval of an elementwise op: broadcast shapes; the operands' dtype (or ``dtype``)."""
    shape = broadcast_shapes(*(a.shape for a in avals))
    if dtype is None:
        dtype = avals[0].dtype
        for a in avals[1:]:
            if a.dtype != dtype:
                raise ShapeError(f"operands of different dtypes {dtype} and {a.dtype}; "
                                 "fad.numpy promotes them before the primitive")
    return ShapedArray(shape, dtype)


def same(x: ShapedArray, **_: Any) -> ShapedArray:
    return x


@functools.lru_cache(maxsize=4096)
def ufunc_result_dtype(name: str, *operands: Any) -> np.dtype:
    """NumPy's result dtype of ufunc ``name`` on operands given as dtypes or
    Python scalar types (which are weak, NEP 50)."""
    probes = [t(1) if isinstance(t, type) else np.ones((), t) for t in operands]
    with np.errstate(all="ignore"):
        return np.asarray(getattr(np, name)(*probes)).dtype


def normalize_axes(axis: Any, ndim: int) -> tuple[int, ...]:
    """``axis`` (None, int or tuple, possibly negative) as sorted positive ints."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int | np.integer) else tuple(axis)
    out = []
    for a in axes:
        a = int(a)
        if not -max(ndim, 1) <= a < max(ndim, 1):  # a 0-d array takes axis 0 or -1
            raise np.exceptions.AxisError(a, ndim)
        out.append(a % ndim if ndim else 0)
    if len(set(out)) != len(out):
        raise ValueError(f"repeated axis in {axis}")
    return tuple(sorted(out)) if ndim else ()
