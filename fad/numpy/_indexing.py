"""``x[index]`` with NumPy's rules: ints, slices, ``None``, ``...``, integer arrays,
and boolean masks (which need concrete values: their result shape depends on
the data)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..backends import default_xp, namespace_of
from ..core.errors import ConcretizationError
from ..core.trace import Tracer, concrete_or_none
from ..primitives.indexing import ARRAY, gather
from ._base import asarray, dtype_of, static_value


def _static_int(i: Any) -> int | None:
    if isinstance(i, bool | np.bool_):
        return None
    if isinstance(i, int | np.integer):
        return int(i)
    return None


def _slice_part(v: Any) -> int | None:
    if v is None:
        return None
    if isinstance(v, Tracer):
        v = static_value(v, "A slice bound (x[a:b] has b - a elements)")
    return int(v)


def _nonzero_concrete(mask: Any) -> tuple:
    c = concrete_or_none(mask)
    if c is None:
        raise ConcretizationError(
            "boolean-mask indexing needs concrete values (the result's shape depends on "
            "the data), but this mask is traced abstractly (under fad.jit / "
            "fad.make_jaxpr). Use fnp.where(mask, x, 0) to keep a fixed shape.")
    return tuple(np.nonzero(np.asarray(c)))


def getitem(x: Any, index: Any) -> Any:
    """``x[index]`` as NumPy; reverse mode scatters back with repeated indices summed.

    >>> import fad.numpy as fnp
    >>> x = fnp.arange(12.0).reshape(3, 4)
    >>> x[1:, None, [0, 3]].shape
    (2, 1, 2)
    """
    x = asarray(x)
    if not isinstance(index, tuple):
        index = (index,)
    x, index = _expand_0d_masks(x, index)
    items: list = []
    arrays: list = []
    widths = [0 if i is None or i is Ellipsis else np.ndim(i) if _is_mask(i) else 1
              for i in index]
    axis = 0  # the axis of x that the next index item reads
    for i, w in zip(index, widths):
        if i is Ellipsis:
            axis += x.ndim - sum(widths)
        if _is_mask(i) and w:
            _check_mask(x.shape, axis, np.shape(i))
        axis += w
        if i is None or i is Ellipsis:
            items.append(i)
        elif isinstance(i, slice):
            items.append(slice(_slice_part(i.start), _slice_part(i.stop),
                               _slice_part(i.step)))
        elif _static_int(i) is not None:
            items.append(_static_int(i))
        else:
            arr = asarray(i)
            if dtype_of(arr).kind == "b":
                for part in _nonzero_concrete(arr):
                    items.append(ARRAY)
                    arrays.append(part)
            elif dtype_of(arr).kind in "iu":
                if not isinstance(arr, Tracer) and arr.ndim == 0:
                    items.append(int(arr))
                else:
                    items.append(ARRAY)
                    arrays.append(arr)
            else:
                raise IndexError("only integers, slices (`:`), ellipsis (`...`), "
                                 "numpy.newaxis (`None`) and integer or boolean arrays "
                                 f"are valid indices, got {dtype_of(arr)}")
    return gather(x, tuple(items), tuple(arrays))


def _check_mask(shape: tuple, axis: int, mask: tuple) -> None:
    """NumPy's IndexError for a boolean mask that does not fit the axes it indexes."""
    for k, n in enumerate(mask):
        if axis + k >= len(shape) or shape[axis + k] != n:
            size = shape[axis + k] if axis + k < len(shape) else 0
            raise IndexError(f"boolean index did not match indexed array along axis "
                             f"{axis + k}; size of axis is {size} but size of "
                             f"corresponding boolean axis is {n}")


def _is_mask(i: Any) -> bool:
    if isinstance(i, bool | np.bool_):
        return True
    return getattr(i, "dtype", None) is not None and dtype_of(i).kind == "b"


def _expand_0d_masks(x: Any, index: tuple) -> tuple:
    """NumPy reads a 0-d boolean index as a new length-1 axis indexed by the
    mask's nonzero (``True`` keeps it, ``False`` empties it): do the same."""
    if not any(_is_mask(i) and np.ndim(i) == 0 for i in index):
        return x, index
    width = [0 if i is None or i is Ellipsis else np.ndim(i) if _is_mask(i) else 1
             for i in index]
    shape, pos, new = list(x.shape), 0, []
    for i, w in zip(index, width):
        if _is_mask(i) and np.ndim(i) == 0:
            shape.insert(pos, 1)
            i, w = np.flatnonzero(bool(i)), 1
        new.append(i)
        pos += len(x.shape) - sum(width) if i is Ellipsis else w
    from ._shape import reshape
    return reshape(x, tuple(shape)), tuple(new)


def nonzero(a: Any) -> tuple:
    """Indices of the non-zero elements (concrete values only; not differentiable)."""
    return tuple(asarray(i) for i in _nonzero_concrete(asarray(a) != 0))


def take(a: Any, indices: Any, axis: int | None = None) -> Any:
    """Take elements along an axis (``axis=None``: of the flattened array).

    >>> import fad.numpy as fnp
    >>> fnp.take(fnp.arange(5.0), fnp.array([4, 0])).tolist()
    [4.0, 0.0]
    """
    a = asarray(a)
    if axis is None:
        from ._shape import ravel
        a, axis = ravel(a), 0
    axis = axis % a.ndim
    return getitem(a, (slice(None),) * axis + (asarray(indices),))


def take_along_axis(arr: Any, indices: Any, axis: int | None) -> Any:
    """Pick values along ``axis`` at ``indices`` (as from ``argsort``)."""
    arr = asarray(arr)
    indices = asarray(indices)
    if axis is None:
        from ._shape import ravel
        return take(ravel(arr), indices)
    axis = axis % arr.ndim
    index = []
    for d in range(arr.ndim):
        if d == axis:
            index.append(indices)
        else:
            shape = [1] * arr.ndim
            shape[d] = arr.shape[d]
            xp = namespace_of([concrete_or_none(arr)]) if concrete_or_none(arr) is not None \
                else default_xp()
            index.append(xp.reshape(xp.arange(arr.shape[d]), tuple(shape)))
    return getitem(arr, tuple(index))
