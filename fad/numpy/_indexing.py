"""Indexing routines of ``fad.numpy``: ``x[index]`` with NumPy's rules (ints,
slices, ``None``, ``...``, integer arrays, and boolean masks, which need
concrete values: their result shape depends on the data), ``take``, the
selections (``select``, ``choose``, ``compress``...), ``nonzero``, diagonals and
triangles (a select with a constant mask is ``triu``), and index arithmetic."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..backends import default_xp, namespace_of
from ..core.errors import ConcretizationError
from ..core.trace import Tracer, concrete_or_none
from ..primitives.indexing import ARRAY, gather
from ..primitives.shapes import normalize_axes
from ..primitives.sorting import constant
from ..primitives.strided import diagonal as strided_diagonal
from . import _math as M
from . import _shape as S
from ._base import asarray, concrete_array, dtype_of, numpy_constant, static_value
from ._base import no_out as _no_out
from ._shape import _axis_arg, _bcast, ravel, reshape


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
    x, items, arrays = parse_index(x, index)
    return gather(x, items, arrays)


def parse_index(x: Any, index: Any) -> tuple:
    """``(x, items, arrays)``: the static items of ``x[index]`` (``ARRAY`` where an
    integer index array goes) and those arrays, a boolean mask turned into its
    nonzero (concrete values only). ``x`` comes back reshaped when a 0-d boolean
    index adds an axis."""
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
    return x, tuple(items), tuple(arrays)


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
    return reshape(x, tuple(shape)), tuple(new)


def nonzero(a: Any) -> tuple:
    """Indices of the non-zero elements (concrete values only; not differentiable).

    >>> import fad.numpy as fnp
    >>> [i.tolist() for i in fnp.nonzero(fnp.array([0, 3, 0, 4]))]
    [[1, 3]]
    """
    return tuple(asarray(i) for i in _nonzero_concrete(asarray(a) != 0))


def take(a: Any, indices: Any, axis: int | None = None) -> Any:
    """Take elements along an axis (``axis=None``: of the flattened array).

    >>> import fad.numpy as fnp
    >>> fnp.take(fnp.arange(5.0), fnp.array([4, 0])).tolist()
    [4.0, 0.0]
    """
    a = asarray(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = axis % a.ndim
    return getitem(a, (slice(None),) * axis + (asarray(indices),))


def take_along_axis(arr: Any, indices: Any, axis: int | None) -> Any:
    """Pick values along ``axis`` at ``indices`` (as from ``argsort``).

    >>> import fad.numpy as fnp
    >>> x = fnp.array([[3.0, 1.0, 2.0]])
    >>> fnp.take_along_axis(x, fnp.argsort(x, axis=1), axis=1).tolist()
    [[1.0, 2.0, 3.0]]
    """
    arr = asarray(arr)
    indices = asarray(indices)
    if axis is None:
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


def diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    """Diagonal of the ``(axis1, axis2)`` planes, as the last axis (NumPy's layout):
    on NumPy a read-only view, as NumPy's.

    >>> import fad.numpy as fnp
    >>> fnp.diagonal(fnp.arange(9.0).reshape(3, 3), 1).tolist()
    [1.0, 5.0]
    """
    a = asarray(a)
    if a.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    a1, a2 = normalize_axes(axis1, a.ndim)[0], normalize_axes(axis2, a.ndim)[0]
    if a1 == a2:
        raise ValueError("axis1 and axis2 cannot be the same")
    return strided_diagonal(a, offset, a1, a2)


def tril(m: Any, k: int = 0) -> Any:
    """Lower triangle of the last two axes (a select with a constant mask).

    >>> import fad.numpy as fnp
    >>> fnp.tril(fnp.ones((2, 2))).tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    """
    m = asarray(m)
    r, c = (m.shape[-2:] if m.ndim >= 2 else (m.shape[-1],) * 2)
    return M.where(constant(np.tri(r, c, k, dtype=bool), m), m, _zero(m))


def triu(m: Any, k: int = 0) -> Any:
    """Upper triangle of the last two axes.

    >>> import fad.numpy as fnp
    >>> fnp.triu(fnp.ones((2, 2))).tolist()
    [[1.0, 1.0], [0.0, 1.0]]
    """
    m = asarray(m)
    r, c = (m.shape[-2:] if m.ndim >= 2 else (m.shape[-1],) * 2)
    return M.where(constant(np.tri(r, c, k - 1, dtype=bool), m), _zero(m), m)


def _zero(m: Any) -> Any:
    """A weak (Python) zero of ``m``'s kind: keeps ``m``'s dtype and backend."""
    return dtype_of(m).type(0).item()


diag_indices = numpy_constant("diag_indices", __name__)
tril_indices = numpy_constant("tril_indices", __name__)
triu_indices = numpy_constant("triu_indices", __name__)
mask_indices = numpy_constant("mask_indices", __name__)
ix_ = numpy_constant("ix_", __name__)


def tril_indices_from(arr: Any, k: int = 0) -> tuple:
    """Indices of the lower triangle of ``arr``.

    >>> import fad.numpy as fnp
    >>> len(fnp.tril_indices_from(fnp.ones((2, 2))))
    2
    """
    a = asarray(arr)
    return tril_indices(a.shape[-2], k, a.shape[-1])


def triu_indices_from(arr: Any, k: int = 0) -> tuple:
    """Indices of the upper triangle of ``arr``.

    >>> import fad.numpy as fnp
    >>> len(fnp.triu_indices_from(fnp.ones((2, 2))))
    2
    """
    a = asarray(arr)
    return triu_indices(a.shape[-2], k, a.shape[-1])


def diag_indices_from(arr: Any) -> tuple:
    """Indices of the main diagonal of ``arr``.

    >>> import fad.numpy as fnp
    >>> len(fnp.diag_indices_from(fnp.ones((2, 2))))
    2
    """
    a = asarray(arr)
    return diag_indices(a.shape[0], a.ndim)


def unravel_index(indices: Any, shape: Sequence[int], order: str = "C") -> tuple:
    """Flat indices to coordinate arrays (traced indices allowed: integer maths).

    >>> import fad.numpy as fnp
    >>> [int(i) for i in fnp.unravel_index(5, (2, 3))]
    [1, 2]
    """
    if order != "C":
        raise NotImplementedError("unravel_index supports order='C' only")
    idx = asarray(indices)
    out = []
    for n in reversed(shape):
        out.append(M.remainder(idx, n))
        idx = M.floor_divide(idx, n)
    return tuple(reversed(out))


def ravel_multi_index(multi_index: Sequence, dims: Sequence[int], mode: str = "raise",
                      order: str = "C") -> Any:
    """Coordinate arrays to flat indices.

    >>> import fad.numpy as fnp
    >>> int(fnp.ravel_multi_index((1, 2), (2, 3)))
    5
    """
    if order != "C" or mode != "raise":
        raise NotImplementedError("ravel_multi_index supports mode='raise', order='C'")
    flat = asarray(0)
    for i, n in zip(multi_index, dims):
        flat = M.add(M.multiply(flat, n), asarray(i))
    return flat


def compress(condition: Any, a: Any, axis: int | None = None, out: Any = None) -> Any:
    """The slices of ``a`` along ``axis`` where ``condition`` is true (concrete).

    >>> import fad.numpy as fnp
    >>> fnp.compress([True, False, True], fnp.array([1.0, 2.0, 3.0])).tolist()
    [1.0, 3.0]
    """
    _no_out(out)
    cond = concrete_array(condition, "compress").astype(bool)
    a, ax = _axis_arg(a, axis)
    return take(a, np.nonzero(cond)[0], axis=ax)


def extract(condition: Any, arr: Any) -> Any:
    """``ravel(arr)[ravel(condition)]`` (concrete condition).

    >>> import fad.numpy as fnp
    >>> fnp.extract(fnp.array([True, False]), fnp.array([1.0, 2.0])).tolist()
    [1.0]
    """
    cond = concrete_array(condition, "extract").astype(bool).ravel()
    return take(S.ravel(asarray(arr)), np.nonzero(cond)[0])


def argwhere(a: Any) -> Any:
    """Indices of the non-zero elements, one row each (concrete).

    >>> import fad.numpy as fnp
    >>> fnp.argwhere(fnp.array([0.0, 1.0, 1.0])).tolist()
    [[1], [2]]
    """
    return asarray(np.argwhere(concrete_array(a, "argwhere")))


def flatnonzero(a: Any) -> Any:
    """Indices of the non-zero elements of the flattened array (concrete).

    >>> import fad.numpy as fnp
    >>> fnp.flatnonzero(fnp.array([0.0, 2.0])).tolist()
    [1]
    """
    return asarray(np.flatnonzero(concrete_array(a, "flatnonzero")))


def select(condlist: Sequence, choicelist: Sequence, default: Any = 0) -> Any:
    """The first choice whose condition holds, elementwise (a chain of ``where``).

    >>> import fad.numpy as fnp
    >>> x = fnp.array([-1.0, 0.5, 2.0])
    >>> fnp.select([x < 0, x > 1], [-x, 2 * x], default=0.0).tolist()
    [1.0, 0.0, 4.0]
    """
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    out = default
    for c, v in zip(reversed(condlist), reversed(choicelist)):
        out = M.where(c, v, out)
    return asarray(out)


def choose(a: Any, choices: Sequence, out: Any = None, mode: str = "raise") -> Any:
    """``choices[a[i]][i]`` elementwise (a chain of ``where`` on the index).

    >>> import fad.numpy as fnp
    >>> fnp.choose(fnp.array([1, 0]), [fnp.array([1.0, 2.0]), fnp.array([3.0, 4.0])]).tolist()
    [3.0, 2.0]
    """
    _no_out(out)
    a = asarray(a)
    n = len(choices)
    if mode == "wrap":
        a = M.remainder(a, n)
    elif mode == "clip":
        a = M.clip(a, 0, n - 1)
    res = choices[0]
    for i in range(1, n):
        res = M.where(M.equal(a, i), choices[i], res)
    return _bcast([res, a])[0]
