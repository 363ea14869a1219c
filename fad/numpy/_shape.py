"""Shape functions of ``fad.numpy``."""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from ..core.errors import ShapeError
from ..core.trace import bind
from ..primitives import structural as S
from ..primitives.shapes import normalize_axes
from ._base import asarray, cast, dtype_of, static_shape


def _resolve_shape(shape: Any, size: int) -> tuple[int, ...]:
    shape = static_shape(shape, "reshape")
    if shape.count(-1) > 1:
        raise ShapeError(f"can only specify one unknown dimension in shape {shape}")
    if -1 in shape:
        known = math.prod(n for n in shape if n != -1)
        if known == 0 or size % known:
            raise ShapeError(f"cannot reshape an array of size {size} into shape {shape}")
        shape = tuple(size // known if n == -1 else n for n in shape)
    return shape


def reshape(a: Any, newshape: Any = None, order: str = "C", *, shape: Any = None) -> Any:
    """Reshape as ``numpy.reshape`` (one ``-1`` allowed; C order only).

    >>> import fad.numpy as fnp
    >>> fnp.reshape(fnp.ones(6), (2, -1)).shape
    (2, 3)
    """
    if order != "C":
        raise NotImplementedError("fad.numpy.reshape supports order='C' only")
    a = asarray(a)
    target = shape if shape is not None else newshape
    return S.reshape(a, _resolve_shape(target, math.prod(a.shape)))


def ravel(a: Any) -> Any:
    """Flatten to 1-d."""
    a = asarray(a)
    return S.reshape(a, (math.prod(a.shape),))


def transpose(a: Any, axes: Sequence[int] | None = None) -> Any:
    """Permute axes (reverse them by default).

    >>> import fad.numpy as fnp
    >>> fnp.transpose(fnp.ones((2, 3, 4)), (1, 0, 2)).shape
    (3, 2, 4)
    """
    a = asarray(a)
    if axes is None:
        axes = tuple(range(a.ndim))[::-1]
    axes = tuple(int(i) % a.ndim if a.ndim else 0 for i in axes)
    return S.transpose(a, axes)


def swapaxes(a: Any, axis1: int, axis2: int) -> Any:
    """Exchange two axes."""
    a = asarray(a)
    perm = list(range(a.ndim))
    i, j = normalize_axes(axis1, a.ndim)[0], normalize_axes(axis2, a.ndim)[0]
    perm[i], perm[j] = perm[j], perm[i]
    return S.transpose(a, tuple(perm))


def moveaxis(a: Any, source: Any, destination: Any) -> Any:
    """Move axes to new positions, others keep their order."""
    a = asarray(a)
    src = [normalize_axes(s, a.ndim)[0] for s in np.atleast_1d(source)]
    dst = [normalize_axes(d, a.ndim)[0] for d in np.atleast_1d(destination)]
    order = [i for i in range(a.ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return S.transpose(a, tuple(order))


def broadcast_to(array: Any, shape: Any) -> Any:
    """Broadcast to ``shape`` (its derivative sums back)."""
    return S.broadcast_to(asarray(array), static_shape(shape, "fnp.broadcast_to"))


def expand_dims(a: Any, axis: Any) -> Any:
    """Insert length-1 axes at the positions ``axis``.

    >>> import fad.numpy as fnp
    >>> fnp.expand_dims(fnp.ones(3), (0, -1)).shape
    (1, 3, 1)
    """
    a = asarray(a)
    axes = normalize_axes(axis, a.ndim + len(np.atleast_1d(axis)))
    shape = list(a.shape)
    for ax in axes:
        shape.insert(ax, 1)
    return S.reshape(a, tuple(shape))


def squeeze(a: Any, axis: Any = None) -> Any:
    """Remove length-1 axes (all of them, or those in ``axis``)."""
    a = asarray(a)
    if axis is None:
        axes = tuple(i for i, n in enumerate(a.shape) if n == 1)
    else:
        axes = normalize_axes(axis, a.ndim)
        for ax in axes:
            if a.shape[ax] != 1:
                raise ShapeError(f"cannot squeeze axis {ax} of shape {a.shape}: "
                                 "its size is not 1")
    return S.reshape(a, tuple(n for i, n in enumerate(a.shape) if i not in axes))


def _common(arrays: Sequence[Any]) -> list:
    arrays = [asarray(x) for x in arrays]
    if not arrays:
        raise ValueError("need at least one array to concatenate")
    dt = np.result_type(*[dtype_of(x) for x in arrays])
    return [cast(x, dt) for x in arrays]


def concatenate(arrays: Sequence[Any], axis: int | None = 0) -> Any:
    """Join arrays along an existing axis (``axis=None`` flattens first).

    >>> import fad.numpy as fnp
    >>> fnp.concatenate([fnp.ones((2, 1)), fnp.zeros((2, 2))], axis=1).shape
    (2, 3)
    """
    arrays = _common(arrays)
    if axis is None:
        arrays = [ravel(x) for x in arrays]
        axis = 0
    if arrays[0].ndim == 0:
        raise ShapeError("zero-dimensional arrays cannot be concatenated")
    (axis,) = normalize_axes(axis, arrays[0].ndim)
    if len(arrays) == 1:
        return arrays[0]
    return bind(S.concatenate_p, *arrays, axis=axis)


concat = concatenate


def stack(arrays: Sequence[Any], axis: int = 0) -> Any:
    """Join arrays along a new axis.

    >>> import fad.numpy as fnp
    >>> fnp.stack([fnp.ones(3), fnp.zeros(3)], axis=-1).shape
    (3, 2)
    """
    arrays = _common(arrays)
    shapes = {x.shape for x in arrays}
    if len(shapes) != 1:
        raise ShapeError(f"all input arrays must have the same shape, got {sorted(shapes)}")
    return concatenate([expand_dims(x, axis) for x in arrays], axis=axis)


def atleast_1d(a: Any) -> Any:
    a = asarray(a)
    return S.reshape(a, (1,)) if a.ndim == 0 else a
