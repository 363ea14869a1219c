"""Array manipulation of ``fad.numpy`` (NumPy's chapter of that name): changing
shapes, transposing, joining, splitting, tiling, adding and removing elements,
rearranging and padding. Most are exact composites of primitives (a gather with
a reversed slice is ``flip``; a broadcast is ``tile``)."""

from __future__ import annotations

import builtins
import math
from typing import Any, Sequence

import numpy as np

from ..core.errors import ConcretizationError, ShapeError
from ..core.trace import Tracer, bind, concrete_or_none
from ..primitives import cumulative as Cu
from ..primitives import structural as S
from ..primitives.indexing import gather
from ..primitives.shapes import normalize_axes
from ..primitives.sorting import constant
from ._base import asarray, cast, concrete_array, dtype_of, promote_all, static_shape


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
    """Flatten to 1-d.

    >>> import fad.numpy as fnp
    >>> fnp.ravel(fnp.ones((2, 3))).shape
    (6,)
    """
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
    """Exchange two axes.

    >>> import fad.numpy as fnp
    >>> fnp.swapaxes(fnp.zeros((2, 3, 4)), 0, 2).shape
    (4, 3, 2)
    """
    a = asarray(a)
    perm = list(range(a.ndim))
    i, j = normalize_axes(axis1, a.ndim)[0], normalize_axes(axis2, a.ndim)[0]
    perm[i], perm[j] = perm[j], perm[i]
    return S.transpose(a, tuple(perm))


def moveaxis(a: Any, source: Any, destination: Any) -> Any:
    """Move axes to new positions, others keep their order.

    >>> import fad.numpy as fnp
    >>> fnp.moveaxis(fnp.zeros((2, 3, 4)), 0, -1).shape
    (3, 4, 2)
    """
    a = asarray(a)
    src = [normalize_axes(s, a.ndim)[0] for s in np.atleast_1d(source)]
    dst = [normalize_axes(d, a.ndim)[0] for d in np.atleast_1d(destination)]
    order = [i for i in range(a.ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return S.transpose(a, tuple(order))


def broadcast_to(array: Any, shape: Any) -> Any:
    """Broadcast to ``shape`` (its derivative sums back).

    >>> import fad, fad.numpy as fnp
    >>> fnp.broadcast_to(fnp.arange(3.0), (2, 3)).shape
    (2, 3)
    >>> fad.grad(lambda x: fnp.sum(fnp.broadcast_to(x, (2, 3))))(fnp.ones(3)).tolist()
    [2.0, 2.0, 2.0]
    """
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
    """Remove length-1 axes (all of them, or those in ``axis``).

    >>> import fad.numpy as fnp
    >>> fnp.squeeze(fnp.ones((1, 3, 1))).shape, fnp.squeeze(fnp.ones((1, 3, 1)), axis=0).shape
    ((3,), (3, 1))
    """
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


def concatenate(arrays: Sequence[Any], axis: int | None = 0) -> Any:
    """Join arrays along an existing axis (``axis=None`` flattens first).

    >>> import fad.numpy as fnp
    >>> fnp.concatenate([fnp.ones((2, 1)), fnp.zeros((2, 2))], axis=1).shape
    (2, 3)
    """
    arrays = promote_all(*arrays)
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
    arrays = promote_all(*arrays)
    shapes = {x.shape for x in arrays}
    if len(shapes) != 1:
        raise ShapeError(f"all input arrays must have the same shape, got {sorted(shapes)}")
    return concatenate([expand_dims(x, axis) for x in arrays], axis=axis)


def atleast_1d(a: Any) -> Any:
    """``a`` with at least one axis (a scalar becomes shape ``(1,)``).

    >>> import fad.numpy as fnp
    >>> fnp.atleast_1d(3.0).shape
    (1,)
    """
    a = asarray(a)
    return S.reshape(a, (1,)) if a.ndim == 0 else a


def _axis_arg(a: Any, axis: Any) -> tuple:
    """``(a, axis)`` with ``axis=None`` meaning the flattened array."""
    a = asarray(a)
    if axis is None:
        return ravel(a), 0
    return a, normalize_axes(axis, a.ndim)[0]


def _slice(a: Any, axis: int, start: int, stop: int, step: int | None = None) -> Any:
    return gather(a, (slice(None),) * axis + (slice(start, stop, step),))


def matrix_transpose(x: Any, /) -> Any:
    """Swap the last two axes.

    >>> import fad.numpy as fnp
    >>> fnp.matrix_transpose(fnp.ones((4, 2, 3))).shape
    (4, 3, 2)
    """
    return swapaxes(x, -1, -2)


def _bcast(xs: list) -> list:
    xs = [asarray(x) for x in xs]
    shape = np.broadcast_shapes(*[x.shape for x in xs])
    return [broadcast_to(x, shape) for x in xs]


def _split_points(n: int, sections: Any, even: bool) -> list:
    if isinstance(sections, int | np.integer):
        k = int(sections)
        if k <= 0:
            raise ValueError("number sections must be larger than 0.")
        if even and n % k:
            raise ValueError("array split does not result in an equal division")
        each, extra = builtins.divmod(n, k)
        sizes = [each + 1] * extra + [each] * (k - extra)
        return list(np.cumsum([0] + sizes))
    pts = [0] + [int(i) for i in sections] + [n]
    return pts


def array_split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list:
    """Split into sub-arrays (sections may differ by one in size).

    >>> import fad.numpy as fnp
    >>> [p.tolist() for p in fnp.array_split(fnp.arange(5.0), 2)]
    [[0.0, 1.0, 2.0], [3.0, 4.0]]
    """
    return _split(ary, indices_or_sections, axis, even=False)


def split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list:
    """Split into equal sections, or at the given indices.

    >>> import fad.numpy as fnp
    >>> [p.shape for p in fnp.split(fnp.ones((4, 2)), [1, 3])]
    [(1, 2), (2, 2), (1, 2)]
    """
    return _split(ary, indices_or_sections, axis, even=True)


def _split(ary: Any, sections: Any, axis: int, even: bool) -> list:
    a = asarray(ary)
    ax = normalize_axes(axis, a.ndim)[0]
    n = a.shape[ax]
    pts = _split_points(n, sections, even)
    out = []
    for lo, hi in zip(pts[:-1], pts[1:]):
        lo, hi = builtins.min(int(lo), n), builtins.min(builtins.max(int(hi), 0), n)
        out.append(_slice(a, ax, lo, builtins.max(lo, hi)))
    return out


def hsplit(ary: Any, indices_or_sections: Any) -> list:
    """Split along axis 1 (axis 0 for 1-d).

    >>> import fad.numpy as fnp
    >>> len(fnp.hsplit(fnp.ones((2, 4)), 2))
    2
    """
    a = asarray(ary)
    return split(a, indices_or_sections, axis=1 if a.ndim > 1 else 0)


def vsplit(ary: Any, indices_or_sections: Any) -> list:
    """Split along axis 0.

    >>> import fad.numpy as fnp
    >>> len(fnp.vsplit(fnp.ones((4, 2)), 2))
    2
    """
    return split(ary, indices_or_sections, axis=0)


def dsplit(ary: Any, indices_or_sections: Any) -> list:
    """Split along axis 2.

    >>> import fad.numpy as fnp
    >>> len(fnp.dsplit(fnp.ones((1, 2, 4)), 2))
    2
    """
    return split(ary, indices_or_sections, axis=2)


def unstack(x: Any, /, *, axis: int = 0) -> tuple:
    """The slices along ``axis``, as a tuple.

    >>> import fad.numpy as fnp
    >>> [p.tolist() for p in fnp.unstack(fnp.eye(2))]
    [[1.0, 0.0], [0.0, 1.0]]
    """
    x = asarray(x)
    ax = normalize_axes(axis, x.ndim)[0]
    return tuple(gather(x, (slice(None),) * ax + (i,)) for i in range(x.shape[ax]))


def tile(A: Any, reps: Any) -> Any:
    """Repeat the whole array ``reps`` times along each axis (a broadcast: exact).

    >>> import fad.numpy as fnp
    >>> fnp.tile(fnp.array([1.0, 2.0]), 2).tolist()
    [1.0, 2.0, 1.0, 2.0]
    """
    a = asarray(A)
    reps = (int(reps),) if isinstance(reps, int | np.integer) else tuple(int(r) for r in reps)
    nd = builtins.max(a.ndim, len(reps))
    reps = (1,) * (nd - len(reps)) + reps
    shape = (1,) * (nd - a.ndim) + a.shape
    a = reshape(a, tuple(x for n in shape for x in (1, n)))
    a = broadcast_to(a, tuple(x for r, n in zip(reps, shape) for x in (r, n)))
    return reshape(a, tuple(r * n for r, n in zip(reps, shape)))


def repeat(a: Any, repeats: Any, axis: int | None = None) -> Any:
    """Repeat each element (a broadcast for a scalar count, a gather otherwise).

    >>> import fad.numpy as fnp
    >>> fnp.repeat(fnp.array([1.0, 2.0]), 2).tolist()
    [1.0, 1.0, 2.0, 2.0]
    """
    from ._indexing import take
    a, ax = _axis_arg(a, axis)
    if a.ndim == 0:
        a = reshape(a, (1,))
    r = concrete_or_none(repeats)
    if r is None:
        raise ConcretizationError("repeat: repeats must be concrete (the output shape "
                                  "depends on it)")
    r = np.asarray(r)
    if r.ndim == 0 or r.size == 1:
        k = int(r.reshape(()))
        shape = a.shape
        b = reshape(a, shape[:ax + 1] + (1,) + shape[ax + 1:])
        b = broadcast_to(b, shape[:ax + 1] + (k,) + shape[ax + 1:])
        return reshape(b, shape[:ax] + (shape[ax] * k,) + shape[ax + 1:])
    return take(a, constant(np.repeat(np.arange(a.shape[ax]), r), a), axis=ax)


def flip(m: Any, axis: Any = None) -> Any:
    """Reverse the order of elements along ``axis`` (all axes by default).

    >>> import fad.numpy as fnp
    >>> fnp.flip(fnp.array([[1, 2], [3, 4]]), 1).tolist()
    [[2, 1], [4, 3]]
    """
    m = asarray(m)
    axes = normalize_axes(axis, m.ndim)
    if not axes:
        return m
    return gather(m, tuple(slice(None, None, -1) if i in axes else slice(None)
                           for i in range(m.ndim)))


def fliplr(m: Any) -> Any:
    """Reverse axis 1.

    >>> import fad.numpy as fnp
    >>> fnp.fliplr(fnp.eye(2)).tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    return flip(m, 1)


def flipud(m: Any) -> Any:
    """Reverse axis 0.

    >>> import fad.numpy as fnp
    >>> fnp.flipud(fnp.array([1, 2])).tolist()
    [2, 1]
    """
    return flip(m, 0)


def roll(a: Any, shift: Any, axis: Any = None) -> Any:
    """Rotate elements along ``axis`` (the flattened array by default).

    >>> import fad.numpy as fnp
    >>> fnp.roll(fnp.array([1, 2, 3, 4]), 1).tolist()
    [4, 1, 2, 3]
    """
    a = asarray(a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), a.shape)
    shifts, axes = np.broadcast_arrays(np.asarray(shift), np.asarray(axis))
    for s, ax in zip(shifts.ravel(), axes.ravel()):
        ax = normalize_axes(int(ax), a.ndim)[0]
        n = a.shape[ax]
        if n == 0:
            continue
        s = int(s) % n
        if s:
            a = concatenate([_slice(a, ax, n - s, n), _slice(a, ax, 0, n - s)], axis=ax)
    return a


def rot90(m: Any, k: int = 1, axes: tuple = (0, 1)) -> Any:
    """Rotate by 90 degrees ``k`` times in the plane of ``axes``.

    >>> import fad.numpy as fnp
    >>> fnp.rot90(fnp.array([[1, 2], [3, 4]])).tolist()
    [[2, 4], [1, 3]]
    """
    m = asarray(m)
    k %= 4
    a0, a1 = (normalize_axes(x, m.ndim)[0] for x in axes)
    if k == 0:
        return m
    if k == 2:
        return flip(flip(m, a0), a1)
    perm = list(range(m.ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return transpose(flip(m, a1), perm)
    return flip(transpose(m, perm), a1)


def _pad_widths(pad_width: Any, ndim: int) -> list:
    w = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (ndim, 2))
    if np.any(w < 0):
        raise ValueError("index can't contain negative values")
    return [(int(lo), int(hi)) for lo, hi in w]


def _pad_values(values: Any, ndim: int) -> list:
    """One ``(before, after)`` pair of fill values per axis (NumPy's broadcasting)."""
    if isinstance(values, Tracer) or np.ndim(values) == 0:
        return [(values, values)] * ndim
    v = np.empty(np.shape(values), dtype=object)
    v[...] = values
    return [tuple(row) for row in np.broadcast_to(v, (ndim, 2))]


def pad(array: Any, pad_width: Any, mode: str = "constant", **kwargs: Any) -> Any:
    """Pad as ``numpy.pad``: ``constant`` (``constant_values``), ``edge``,
    ``reflect``, ``symmetric`` and ``wrap``. Constant padding is the linear
    ``pad`` primitive (its transpose slices the interior back out); the other
    modes gather each axis at ``numpy.pad(arange(n), ...)``: exact, any order.

    >>> import fad.numpy as fnp
    >>> fnp.pad(fnp.array([1.0, 2.0]), (1, 2), constant_values=9).tolist()
    [9.0, 1.0, 2.0, 9.0, 9.0]
    >>> fnp.pad(fnp.array([1.0, 2.0, 3.0]), 2, mode="reflect").tolist()
    [3.0, 2.0, 1.0, 2.0, 3.0, 2.0, 1.0]
    """
    from ._indexing import take
    a = asarray(array)
    widths = _pad_widths(pad_width, a.ndim)
    if mode == "constant":
        values = _pad_values(kwargs.pop("constant_values", 0), a.ndim)
        if kwargs:
            raise TypeError(f"pad: unsupported keyword arguments {sorted(kwargs)}")
        flat = [v for pair in values for v in pair]
        if all(v is flat[0] for v in flat) or not any(isinstance(v, Tracer) for v in flat) \
                and all(np.asarray(v) == np.asarray(flat[0]) for v in flat):
            return Cu.pad(a, tuple(widths), _pad_scalar(flat[0], a))
        for ax, ((lo, hi), (vlo, vhi)) in enumerate(zip(widths, values)):
            for side, (w, v) in enumerate(((lo, vlo), (hi, vhi))):
                if w:
                    ws = [(0, 0)] * a.ndim
                    ws[ax] = (w, 0) if side == 0 else (0, w)
                    a = Cu.pad(a, tuple(ws), _pad_scalar(v, a))
        return a
    if mode not in ("edge", "reflect", "symmetric", "wrap"):
        raise NotImplementedError(f"fad.numpy.pad: mode {mode!r} is not supported "
                                  "(constant, edge, reflect, symmetric, wrap are)")
    for ax, (lo, hi) in enumerate(widths):
        if lo or hi:
            idx = np.pad(np.arange(a.shape[ax]), (lo, hi), mode=mode, **kwargs)
            a = take(a, constant(idx, a), axis=ax)
    return a


def _pad_scalar(v: Any, a: Any) -> Any:
    if isinstance(v, Tracer):
        return cast(v, dtype_of(a))
    return np.asarray(v).astype(dtype_of(a)).item()


def atleast_2d(*arys: Any) -> Any:
    """Views with at least two dimensions.

    >>> import fad.numpy as fnp
    >>> fnp.atleast_2d(fnp.ones(3)).shape
    (1, 3)
    """
    out = [asarray(a) for a in arys]
    out = [reshape(a, (1,) * (2 - a.ndim) + a.shape) if a.ndim < 2 else a for a in out]
    return out[0] if len(out) == 1 else tuple(out)


def atleast_3d(*arys: Any) -> Any:
    """Views with at least three dimensions (NumPy's placement of new axes).

    >>> import fad.numpy as fnp
    >>> fnp.atleast_3d(fnp.ones(3)).shape
    (1, 3, 1)
    """
    out = []
    for a in arys:
        a = asarray(a)
        shape = {0: (1, 1, 1), 1: (1,) + a.shape + (1,), 2: a.shape + (1,)}.get(a.ndim)
        out.append(reshape(a, shape) if shape is not None else a)
    return out[0] if len(out) == 1 else tuple(out)


def hstack(tup: Sequence, *, dtype: Any = None) -> Any:
    """Concatenate along axis 1 (axis 0 for 1-d arrays).

    >>> import fad.numpy as fnp
    >>> fnp.hstack([fnp.ones(2), fnp.zeros(1)]).tolist()
    [1.0, 1.0, 0.0]
    """
    arrs = [atleast_1d(a) for a in tup]
    out = concatenate(arrs, axis=0 if arrs[0].ndim == 1 else 1)
    return out if dtype is None else cast(out, np.dtype(dtype))


def vstack(tup: Sequence, *, dtype: Any = None) -> Any:
    """Concatenate along axis 0 after making inputs at least 2-d.

    >>> import fad.numpy as fnp
    >>> fnp.vstack([fnp.ones(2), fnp.zeros(2)]).shape
    (2, 2)
    """
    out = concatenate([atleast_2d(a) for a in tup], axis=0)
    return out if dtype is None else cast(out, np.dtype(dtype))


row_stack = vstack


def dstack(tup: Sequence) -> Any:
    """Concatenate along axis 2 after making inputs at least 3-d.

    >>> import fad.numpy as fnp
    >>> fnp.dstack([fnp.ones(2), fnp.zeros(2)]).shape
    (1, 2, 2)
    """
    return concatenate([atleast_3d(a) for a in tup], axis=2)


def column_stack(tup: Sequence) -> Any:
    """Stack 1-d arrays as columns.

    >>> import fad.numpy as fnp
    >>> fnp.column_stack([fnp.ones(2), fnp.zeros(2)]).tolist()
    [[1.0, 0.0], [1.0, 0.0]]
    """
    arrs = [asarray(a) for a in tup]
    return concatenate([reshape(a, (-1, 1)) if a.ndim < 2 else a for a in arrs], axis=1)


def block(arrays: Any) -> Any:
    """Assemble an array from nested lists of blocks.

    >>> import fad.numpy as fnp
    >>> fnp.block([[fnp.eye(2), fnp.zeros((2, 1))]]).shape
    (2, 3)
    """
    def depth(x: Any) -> int:
        return 1 + depth(x[0]) if isinstance(x, list) else 0
    d = depth(arrays)

    def rec(x: Any, level: int) -> Any:
        if not isinstance(x, list):
            a = asarray(x)
            return a
        parts = [rec(e, level + 1) for e in x]
        nd = builtins.max(builtins.max(p.ndim for p in parts), d)
        parts = [reshape(p, (1,) * (nd - p.ndim) + p.shape) for p in parts]
        return concatenate(parts, axis=-(d - level))
    return rec(arrays, 0)


def append(arr: Any, values: Any, axis: int | None = None) -> Any:
    """Values appended at the end (flattened when ``axis`` is None).

    >>> import fad.numpy as fnp
    >>> fnp.append(fnp.array([1.0]), [2.0, 3.0]).tolist()
    [1.0, 2.0, 3.0]
    """
    if axis is None:
        return concatenate([ravel(asarray(arr)), ravel(asarray(values))])
    return concatenate([arr, values], axis=axis)


def delete(arr: Any, obj: Any, axis: int | None = None) -> Any:
    """A copy without the entries ``obj`` along ``axis`` (a gather of the rest).

    >>> import fad.numpy as fnp
    >>> fnp.delete(fnp.array([1.0, 2.0, 3.0]), 1).tolist()
    [1.0, 3.0]
    """
    from ._indexing import take
    a, ax = _axis_arg(arr, axis)
    n = a.shape[ax]
    keep = np.ones(n, dtype=bool)
    keep[np.arange(n)[obj] if isinstance(obj, slice) else np.asarray(obj)] = False
    return take(a, constant(np.nonzero(keep)[0], a), axis=ax)


def insert(arr: Any, obj: Any, values: Any, axis: int | None = None) -> Any:
    """``values`` inserted before the index ``obj`` (an int) along ``axis``.

    >>> import fad.numpy as fnp
    >>> fnp.insert(fnp.array([1.0, 3.0]), 1, 2.0).tolist()
    [1.0, 2.0, 3.0]
    """
    a, ax = _axis_arg(arr, axis)
    if not isinstance(obj, int | np.integer):
        raise NotImplementedError("fad.numpy.insert supports a single integer index")
    n = a.shape[ax]
    i = int(obj) + n * (obj < 0)
    # NumPy: values made at least a.ndim-d, their first axis moved to ``axis``
    v = cast(asarray(values), dtype_of(a))
    v = moveaxis(reshape(v, (1,) * (a.ndim - v.ndim) + v.shape), 0, ax)
    v = broadcast_to(v, a.shape[:ax] + (v.shape[ax],) + a.shape[ax + 1:])
    return concatenate([_slice(a, ax, 0, i), v, _slice(a, ax, i, n)], axis=ax)


def resize(a: Any, new_shape: Any) -> Any:
    """Repeat the flattened array cyclically to fill ``new_shape``.

    >>> import fad.numpy as fnp
    >>> fnp.resize(fnp.array([1, 2, 3]), (2, 2)).tolist()
    [[1, 2], [3, 1]]
    """
    from ._creation import zeros
    flat = ravel(asarray(a))
    shape = (int(new_shape),) if isinstance(new_shape, int | np.integer) else \
        tuple(int(n) for n in new_shape)
    total = math.prod(shape)
    if flat.shape[0] == 0 or total == 0:
        return zeros(shape, dtype_of(flat))
    reps = -(-total // flat.shape[0])
    return reshape(_slice(tile(flat, reps), 0, 0, total), shape)


def permute_dims(a: Any, /, axes: Any = None) -> Any:
    """The Array API's name for ``transpose``.

    >>> import fad.numpy as fnp
    >>> fnp.permute_dims(fnp.ones((2, 3)), (1, 0)).shape
    (3, 2)
    """
    return transpose(a, axes)


def rollaxis(a: Any, axis: int, start: int = 0) -> Any:
    """Roll ``axis`` backwards until it lies before ``start``.

    >>> import fad.numpy as fnp
    >>> fnp.rollaxis(fnp.ones((3, 4, 5)), 2).shape
    (5, 3, 4)
    """
    a = asarray(a)
    n = a.ndim
    axis = normalize_axes(axis, n)[0]
    if start < 0:
        start += n
    if axis < start:
        start -= 1
    if axis == start:
        return a
    return moveaxis(a, axis, start)


def broadcast_arrays(*args: Any) -> tuple:
    """Broadcast the arguments against each other.

    >>> import fad.numpy as fnp
    >>> [x.shape for x in fnp.broadcast_arrays(fnp.ones(3), fnp.ones((2, 1)))]
    [(2, 3), (2, 3)]
    """
    return tuple(_bcast(list(args)))


broadcast_shapes = np.broadcast_shapes


def trim_zeros(filt: Any, trim: str = "fb") -> Any:
    """Drop leading (``f``) and trailing (``b``) zeros of a 1-d array (concrete).

    >>> import fad.numpy as fnp
    >>> fnp.trim_zeros(fnp.array([0.0, 1.0, 2.0, 0.0])).tolist()
    [1.0, 2.0]
    """
    c = concrete_array(filt, "trim_zeros")
    nz = np.flatnonzero(c)
    if nz.size == 0:
        return _slice(asarray(filt), 0, 0, 0)
    lo = int(nz[0]) if "f" in trim.lower() else 0
    hi = int(nz[-1]) + 1 if "b" in trim.lower() else c.shape[0]
    return _slice(asarray(filt), 0, lo, hi)
