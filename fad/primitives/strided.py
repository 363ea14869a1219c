"""Views at a stride: ``windows`` (PyTorch's ``Tensor.unfold``), ``diagonal`` and
``as_strided`` (any shape and strides over an array's elements in row-major order).

On NumPy each is one view of its operand's memory (read-only, as NumPy's own
``sliding_window_view`` and ``diagonal`` are), whose ``base`` is the array owning
that memory, as a slice's is: so the Tensor facade knows the result for a view of
its input, and writes into it (``x.diagonal().add_(1)``) reach the input, as in
PyTorch. Both are linear: the transpose adds each cotangent back at the cells its
element was read from (one scatter-add of a constant table of cells). A namespace
without strided views (the array API standard) gets the same values as a copy.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core.errors import ShapeError
from ..core.ir import ShapedArray
from ..core.primitive import Primitive
from ..core.trace import bind, shape_of
from .builders import deflinear, to_front
from .indexing import ARRAY, Indexer, scatter_add_p
from .sorting import constant
from .structural import reshape, transpose
from .windows import strided_windows


def read_only_view(x: np.ndarray, shape: tuple, strides: tuple, start: int = 0,
                   dtype: Any = None) -> np.ndarray:
    """A read-only view of ``x``'s memory, ``start`` bytes after its first element,
    with this shape and these strides (and elements of ``dtype``, ``x``'s by
    default), whose ``base`` is the array owning that memory (``as_strided``'s is a
    wrapper object).

    >>> x = np.arange(6.0)
    >>> v = read_only_view(x, (2, 2), (16, 8), 8)
    >>> v.tolist(), v.base is x
    ([[1.0, 2.0], [3.0, 4.0]], True)
    """
    if type(x) is not np.ndarray:  # (a NumPy scalar's interface points at a temporary)
        x = np.asarray(x)
    dtype = x.dtype if dtype is None else np.dtype(dtype)
    owner = x if x.base is None else x.base
    if type(owner) is not np.ndarray or not owner.flags.c_contiguous:  # (then as_strided)
        interface = dict(x.__array_interface__, shape=shape, strides=strides,
                         typestr=dtype.str, descr=[("", dtype.str)],
                         data=(x.__array_interface__["data"][0] + start, True))
        return np.asarray(_Memory(interface, x))
    offset = x.__array_interface__["data"][0] - owner.__array_interface__["data"][0] + start
    out = np.ndarray(shape, dtype, buffer=owner, offset=offset, strides=strides)
    out.flags.writeable = False
    return out


class _Memory:
    """``x``'s memory as NumPy's array interface describes it (kept alive by ``base``)."""

    def __init__(self, interface: dict, base: np.ndarray):
        self.__array_interface__ = interface
        self.base = base


def _scatter_cells(ct: Any, cells: tuple, shape: tuple, before: int) -> Any:
    """Zeros of ``shape`` with ``ct`` added at ``cells`` (index arrays for the axes
    after the first ``before``)."""
    return bind(scatter_add_p, ct, *[constant(c, ct) for c in cells],
                indexer=Indexer((slice(None),) * before + (ARRAY,) * len(cells)), shape=shape)


# ------------------------------------------------------------------ windows
def _windows_aval(x: ShapedArray, *, axis: int, size: int, step: int) -> ShapedArray:
    if not 0 <= axis < x.ndim or not 0 <= size <= x.shape[axis] or step < 1:
        raise ShapeError(f"windows of {size} every {step} along axis {axis} do not fit "
                         f"shape {x.shape}")
    shape = list(x.shape)
    shape[axis] = (x.shape[axis] - size) // step + 1
    return ShapedArray(tuple(shape) + (size,), x.dtype)


def _windows_impl(xp: Any, x: Any, *, axis: int, size: int, step: int) -> Any:
    n = (x.shape[axis] - size) // step + 1
    if xp is np:
        s = x.strides
        return read_only_view(x, x.shape[:axis] + (n,) + x.shape[axis + 1:] + (size,),
                              s[:axis] + (s[axis] * step,) + s[axis + 1:] + (s[axis],))
    if size and getattr(getattr(xp, "lib", None), "stride_tricks", None) is not None:
        return strided_windows(xp, x, (axis,), (size,), (step,), (1,), "windows")
    # (empty windows, which Dask's view refuses, or no strided views: copied cells)
    cells = xp.asarray((np.arange(n)[:, None] * step + np.arange(size)).ravel())
    got = xp.take(x, cells, axis=axis)
    return xp.moveaxis(xp.reshape(got, x.shape[:axis] + (n, size) + x.shape[axis + 1:]),
                       axis + 1, -1)


def _windows_transpose(ct: Any, x: Any, *, axis: int, size: int, step: int) -> list:
    # window k's tap j read cell k * step + j: the taps moved next to the window index,
    # one scatter-add of that (n, size) table
    n, nd = shape_of(ct)[axis], len(shape_of(ct))
    moved = transpose(ct, tuple(range(axis + 1)) + (nd - 1,) + tuple(range(axis + 1, nd - 1)))
    cells = np.arange(n)[:, None] * step + np.arange(size)[None, :]
    return [_scatter_cells(moved, (cells,), x.aval.shape, axis)]


windows_p = Primitive("windows", _windows_impl, _windows_aval)
deflinear(windows_p, _windows_transpose)
windows_p.batch = lambda n, vals, dims, *, axis, size, step: (
    bind(windows_p, to_front(vals[0], dims[0]), axis=axis + 1, size=size, step=step), 0)


def windows(x: Any, axis: int, size: int, step: int) -> Any:
    """Every window of ``size`` entries, ``step`` apart, along ``axis``, as a view of
    ``x``: ``axis`` becomes the window index and a trailing axis of ``size`` holds
    each window (PyTorch's ``Tensor.unfold``).

    >>> windows(np.arange(5.0), 0, 2, 2).tolist()
    [[0.0, 1.0], [2.0, 3.0]]
    """
    return bind(windows_p, x, axis=int(axis), size=int(size), step=int(step))


# ------------------------------------------------------------------ diagonal
def _diagonal_geometry(shape: tuple, offset: int, axis1: int, axis2: int) -> tuple:
    """``(first row, first column, length)`` of the diagonal ``offset``."""
    i0, j0 = (0, offset) if offset >= 0 else (-offset, 0)
    return i0, j0, max(0, min(shape[axis1] - i0, shape[axis2] - j0))


def _diagonal_aval(x: ShapedArray, *, offset: int, axis1: int, axis2: int) -> ShapedArray:
    if not (0 <= axis1 < x.ndim and 0 <= axis2 < x.ndim) or axis1 == axis2:
        raise ShapeError(f"diagonal of axes {axis1} and {axis2} of shape {x.shape}")
    rest = tuple(n for i, n in enumerate(x.shape) if i not in (axis1, axis2))
    return ShapedArray(rest + (_diagonal_geometry(x.shape, offset, axis1, axis2)[2],),
                       x.dtype)


def _diagonal_impl(xp: Any, x: Any, *, offset: int, axis1: int, axis2: int) -> Any:
    i0, j0, length = _diagonal_geometry(x.shape, offset, axis1, axis2)
    keep = [i for i in range(x.ndim) if i not in (axis1, axis2)]
    if xp is np:
        s = x.strides
        return read_only_view(x, tuple(x.shape[i] for i in keep) + (length,),
                              tuple(s[i] for i in keep) + (s[axis1] + s[axis2],),
                              (i0 * s[axis1] + j0 * s[axis2]) if length else 0)
    if hasattr(xp, "diagonal"):
        return xp.diagonal(x, offset, axis1, axis2)
    return xp.linalg.diagonal(xp.permute_dims(x, tuple(keep) + (axis1, axis2)), offset=offset)


def _diagonal_transpose(ct: Any, x: Any, *, offset: int, axis1: int, axis2: int) -> list:
    # the diagonal's k-th element is cell (i0 + k, j0 + k) of the (axis1, axis2) planes:
    # scattered there with those axes last, then put back in place
    shape = x.aval.shape
    i0, j0, length = _diagonal_geometry(shape, offset, axis1, axis2)
    keep = [i for i in range(len(shape)) if i not in (axis1, axis2)]
    perm = tuple(keep) + (axis1, axis2)
    k = np.arange(length)
    planes = _scatter_cells(ct, (i0 + k, j0 + k), tuple(shape[i] for i in perm), len(keep))
    return [transpose(planes, tuple(int(i) for i in np.argsort(perm)))]


def _diagonal_batch(size: int, vals: list, dims: list, *, offset: int, axis1: int,
                    axis2: int) -> tuple:
    return bind(diagonal_p, to_front(vals[0], dims[0]), offset=offset, axis1=axis1 + 1,
                axis2=axis2 + 1), 0


diagonal_p = Primitive("diagonal", _diagonal_impl, _diagonal_aval)
deflinear(diagonal_p, _diagonal_transpose)
diagonal_p.batch = _diagonal_batch


def diagonal(x: Any, offset: int, axis1: int, axis2: int) -> Any:
    """The diagonal ``offset`` of the ``(axis1, axis2)`` planes (axes normalised), as
    the last axis (NumPy's and PyTorch's layout), a view of ``x``.

    >>> diagonal(np.arange(9.0).reshape(3, 3), 1, 0, 1).tolist()
    [1.0, 5.0]
    """
    return bind(diagonal_p, x, offset=int(offset), axis1=int(axis1), axis2=int(axis2))


# ------------------------------------------------------------------ as_strided
def _strided_cells(shape: tuple, strides: tuple, offset: int) -> np.ndarray:
    """The row-major position ``offset + sum(i_k * strides_k)`` of each element."""
    cells = np.full(shape, offset, dtype=np.intp)
    for k, (n, s) in enumerate(zip(shape, strides)):
        cells += (np.arange(n, dtype=np.intp) * s).reshape((n,) + (1,) * (len(shape) - k - 1))
    return cells


def _as_strided_aval(x: ShapedArray, *, shape: tuple, strides: tuple,
                     offset: int) -> ShapedArray:
    fits = len(shape) == len(strides) and min(shape + strides + (offset,), default=0) >= 0
    if fits and math.prod(shape):
        fits = offset + sum((n - 1) * s for n, s in zip(shape, strides)) < x.size
    if not fits:
        raise ShapeError(f"shape {shape} at strides {strides} from element {offset} does not "
                         f"fit the {x.size} elements of shape {x.shape}")
    return ShapedArray(shape, x.dtype)


def _as_strided_impl(xp: Any, x: Any, *, shape: tuple, strides: tuple, offset: int) -> Any:
    if xp is np:
        if not x.flags.c_contiguous:
            x = np.ascontiguousarray(x)
        size = x.itemsize
        return read_only_view(x, shape, tuple(s * size for s in strides),
                              offset * size if math.prod(shape) else 0)
    cells = _strided_cells(shape, strides, offset)
    return xp.reshape(xp.take(xp.reshape(x, (-1,)), xp.asarray(cells.ravel())), shape)


def _as_strided_transpose(ct: Any, x: Any, *, shape: tuple, strides: tuple,
                          offset: int) -> list:
    # each element adds its cotangent at the position it was read from (several, for
    # positions read more than once), in x's row-major order
    size = math.prod(x.aval.shape)
    flat = _scatter_cells(ct, (_strided_cells(shape, strides, offset),), (size,), 0)
    return [reshape(flat, x.aval.shape)]


def _as_strided_batch(size: int, vals: list, dims: list, *, shape: tuple, strides: tuple,
                      offset: int) -> tuple:
    # one more leading axis, whose stride is the size of one example
    x = to_front(vals[0], dims[0])
    each = math.prod(shape_of(x)[1:])
    return bind(as_strided_p, x, shape=(size,) + shape, strides=(each,) + strides,
                offset=offset), 0


as_strided_p = Primitive("as_strided", _as_strided_impl, _as_strided_aval)
deflinear(as_strided_p, _as_strided_transpose)
as_strided_p.batch = _as_strided_batch


def as_strided(x: Any, shape: tuple, strides: tuple, offset: int = 0) -> Any:
    """The elements of ``x`` in row-major order, read at ``offset + sum(i_k *
    strides_k)`` for each index ``i`` of ``shape`` (strides and offset counted in
    elements, none negative; elements may be read more than once): a view of ``x``
    on NumPy when ``x`` is row-major, as PyTorch's ``as_strided`` of a contiguous
    tensor.

    >>> as_strided(np.arange(5.0), (3, 2), (1, 1)).tolist()
    [[0.0, 1.0], [1.0, 2.0], [2.0, 3.0]]
    """
    return bind(as_strided_p, x, shape=tuple(int(n) for n in shape),
                strides=tuple(int(s) for s in strides), offset=int(offset))


__all__ = ["read_only_view", "windows_p", "windows", "diagonal_p", "diagonal", "as_strided_p",
           "as_strided"]
