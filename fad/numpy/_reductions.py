"""Reductions of ``fad.numpy``, NumPy's sums, products and differences and its
extrema: ``axis`` (int, tuple, negative, None) and ``keepdims``, the scans
(``cumsum``...), their NaN-ignoring forms, and finite differences."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..backends.x64 import narrow_dtype
from ..core.trace import bind
from ..primitives import cumulative as Cu
from ..primitives import reductions as R
from ..primitives.shapes import normalize_axes
from ..primitives.structural import reshape
from . import _math as M
from . import _shape as S
from ._base import asarray, cast, dtype_of, index_result
from ._base import no_out as _no_out
from ._math import _float, not_equal
from ._shape import _axis_arg, _slice


def _reduce(prim: Any, x: Any, axis: Any, keepdims: bool) -> Any:
    shape = x.shape
    axes = normalize_axes(axis, len(shape))
    out = bind(prim, x, axes=axes) if axes else x
    if keepdims:
        out = reshape(out, R.keepdims_shape(shape, axes))
    return out


def sum(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
        keepdims: bool = False) -> Any:
    """Sum over ``axis`` as ``numpy.sum`` (bools and small ints sum as int64).

    >>> import fad.numpy as fnp
    >>> fnp.sum(fnp.ones((2, 3)), axis=-1, keepdims=True).shape
    (2, 1)
    """
    _no_out(out)
    a = asarray(a)
    return _reduce(R.reduce_sum_p, cast(a, _acc_dtype(a, dtype)), axis, keepdims)


def max(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> Any:
    """Maximum over ``axis``; the derivative is shared equally among ties.

    >>> import fad.numpy as fnp
    >>> float(fnp.max(fnp.array([1.0, 3.0, 2.0])))
    3.0
    """
    _no_out(out)
    return _reduce(R.reduce_max_p, asarray(a), axis, keepdims)


def min(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> Any:
    """Minimum over ``axis``; the derivative is shared equally among ties.

    >>> import fad, fad.numpy as fnp
    >>> float(fnp.min(fnp.array([3.0, 1.0, 2.0])))
    1.0
    >>> fad.grad(lambda x: fnp.min(x))(fnp.array([1.0, 1.0, 2.0])).tolist()
    [0.5, 0.5, 0.0]
    """
    _no_out(out)
    return _reduce(R.reduce_min_p, asarray(a), axis, keepdims)


amax, amin = max, min


def _arg(prim: Any, a: Any, axis: Any, keepdims: bool) -> Any:
    a = asarray(a)
    if axis is None:
        out = index_result(bind(prim, reshape(a, (a.size,)), axis=0))
        return reshape(out, (1,) * a.ndim) if keepdims else out
    (ax,) = normalize_axes(axis, a.ndim)
    out = index_result(bind(prim, a, axis=ax))
    return reshape(out, R.keepdims_shape(a.shape, (ax,))) if keepdims else out


def argmax(a: Any, axis: Any = None, out: Any = None, *, keepdims: bool = False) -> Any:
    """Index of the maximum (not differentiable).

    >>> import fad.numpy as fnp
    >>> int(fnp.argmax(fnp.array([1.0, 3.0, 2.0])))
    1
    """
    _no_out(out)
    return _arg(R.argmax_p, a, axis, keepdims)


def argmin(a: Any, axis: Any = None, out: Any = None, *, keepdims: bool = False) -> Any:
    """Index of the minimum (not differentiable).

    >>> import fad.numpy as fnp
    >>> int(fnp.argmin(fnp.array([3.0, 1.0, 2.0])))
    1
    """
    _no_out(out)
    return _arg(R.argmin_p, a, axis, keepdims)


def any(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> Any:
    """Whether any element is true.

    >>> import fad.numpy as fnp
    >>> fnp.any(fnp.array([0.0, 2.0])).item()
    True
    """
    _no_out(out)
    return _reduce(R.reduce_or_p, _truth(a), axis, keepdims)


def all(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> Any:
    """Whether every element is true.

    >>> import fad.numpy as fnp
    >>> fnp.all(fnp.array([True, False])).item(), fnp.all(fnp.ones((2, 2)), axis=0).tolist()
    (False, [True, True])
    """
    _no_out(out)
    return _reduce(R.reduce_and_p, _truth(a), axis, keepdims)


def _truth(a: Any) -> Any:
    """Each element's truth value (a complex number is true if either part is)."""
    a = asarray(a)
    return not_equal(a, 0) if dtype_of(a).kind == "c" else cast(a, np.dtype(bool))


def _acc_dtype(a: Any, dtype: Any) -> np.dtype:
    """NumPy's accumulator dtype: small ints and bools accumulate in int64 (in
    float32 mode, as JAX without x64, in int32)."""
    dt = np.dtype(dtype) if dtype is not None else dtype_of(a)
    if dt.kind == "b" or dtype is None and dt.kind in "iu" and dt.itemsize < 8:
        dt = narrow_dtype(np.uint64 if dt.kind == "u" else np.int64)
    return dt


def _scan(prim: Any, a: Any, axis: Any, dtype: Any, out: Any) -> Any:
    _no_out(out)
    a, ax = _axis_arg(a, axis)
    a = cast(a, _acc_dtype(a, dtype))
    if a.ndim == 0:
        return S.reshape(a, (1,))
    return bind(prim, a, axis=ax, reverse=False)


def cumsum(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
    """Cumulative sum (``axis=None``: of the flattened array). Linear: its
    derivative is the cumulative sum taken backwards.

    >>> import fad.numpy as fnp
    >>> fnp.cumsum(fnp.array([[1, 2], [3, 4]]), axis=0).tolist()
    [[1, 2], [4, 6]]
    """
    return _scan(Cu.cumsum_p, a, axis, dtype, out)


def cumprod(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
    """Cumulative product; its derivative uses products only (exact at zeros).

    >>> import fad, fad.numpy as fnp
    >>> fnp.cumprod(fnp.array([1.0, 2.0, 3.0])).tolist()
    [1.0, 2.0, 6.0]
    >>> fad.grad(lambda x: fnp.cumprod(x)[-1])(fnp.array([2.0, 0.0, 3.0])).tolist()
    [0.0, 6.0, 0.0]
    """
    return _scan(Cu.cumprod_p, a, axis, dtype, out)


def _cumulative(prim: Any, x: Any, axis: Any, dtype: Any, include_initial: bool,
                initial: float) -> Any:
    x = asarray(x)
    if axis is None:
        if x.ndim > 1:
            raise ValueError("axis must be given for arrays of more than one dimension")
        axis = 0
    out = _scan(prim, x, axis, dtype, None)
    if include_initial:
        ax = normalize_axes(axis, out.ndim)[0]
        widths = [(0, 0)] * out.ndim
        widths[ax] = (1, 0)
        out = Cu.pad(out, tuple(widths), initial)
    return out


def cumulative_sum(x: Any, /, *, axis: Any = None, dtype: Any = None, out: Any = None,
                   include_initial: bool = False) -> Any:
    """The Array API's ``cumulative_sum`` (``include_initial`` prepends 0).

    >>> import fad.numpy as fnp
    >>> fnp.cumulative_sum(fnp.array([1.0, 2.0]), include_initial=True).tolist()
    [0.0, 1.0, 3.0]
    """
    _no_out(out)
    return _cumulative(Cu.cumsum_p, x, axis, dtype, include_initial, 0)


def cumulative_prod(x: Any, /, *, axis: Any = None, dtype: Any = None, out: Any = None,
                    include_initial: bool = False) -> Any:
    """The Array API's ``cumulative_prod`` (``include_initial`` prepends 1).

    >>> import fad.numpy as fnp
    >>> fnp.cumulative_prod(fnp.array([2.0, 3.0]), include_initial=True).tolist()
    [1.0, 2.0, 6.0]
    """
    _no_out(out)
    return _cumulative(Cu.cumprod_p, x, axis, dtype, include_initial, 1)


def prod(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
         keepdims: bool = False, initial: Any = None) -> Any:
    """Product over ``axis``. The derivative is the product of the *other*
    elements (from prefix and suffix products): exact where elements are 0.

    >>> import fad, fad.numpy as fnp
    >>> float(fnp.prod(fnp.array([2.0, 3.0, 4.0])))
    24.0
    >>> fad.grad(fnp.prod)(fnp.array([2.0, 0.0, 4.0])).tolist()
    [0.0, 8.0, 0.0]
    """
    _no_out(out)
    a = asarray(a)
    a = cast(a, _acc_dtype(a, dtype))
    res = _reduce(Cu.reduce_prod_p, a, axis, keepdims)
    return res if initial is None else M.multiply(res, initial)


def _nan_fill(a: Any, value: float) -> Any:
    a = asarray(a)
    return M.where(M.isnan(a), value, a) if dtype_of(a).kind in "fc" else a


def nansum(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
           keepdims: bool = False) -> Any:
    """Sum treating NaN as 0.

    >>> import fad.numpy as fnp
    >>> float(fnp.nansum(fnp.array([1.0, fnp.nan, 2.0])))
    3.0
    """
    return sum(_nan_fill(a, 0.0), axis, dtype, out, keepdims)


def nanprod(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
            keepdims: bool = False) -> Any:
    """Product treating NaN as 1.

    >>> import fad.numpy as fnp
    >>> float(fnp.nanprod(fnp.array([2.0, fnp.nan, 3.0])))
    6.0
    """
    return prod(_nan_fill(a, 1.0), axis, dtype, out, keepdims)


def nanmax(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> Any:
    """Maximum ignoring NaN.

    >>> import fad.numpy as fnp
    >>> float(fnp.nanmax(fnp.array([1.0, fnp.nan, 3.0])))
    3.0
    """
    return max(_nan_fill(a, -np.inf), axis, out, keepdims)


def nanmin(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> Any:
    """Minimum ignoring NaN.

    >>> import fad.numpy as fnp
    >>> float(fnp.nanmin(fnp.array([1.0, fnp.nan, 3.0])))
    1.0
    """
    return min(_nan_fill(a, np.inf), axis, out, keepdims)


def nanargmax(a: Any, axis: Any = None, out: Any = None, *, keepdims: bool = False) -> Any:
    """Index of the maximum ignoring NaN.

    >>> import fad.numpy as fnp
    >>> int(fnp.nanargmax(fnp.array([1.0, fnp.nan, 3.0])))
    2
    """
    return argmax(_nan_fill(a, -np.inf), axis, out, keepdims=keepdims)


def nanargmin(a: Any, axis: Any = None, out: Any = None, *, keepdims: bool = False) -> Any:
    """Index of the minimum ignoring NaN.

    >>> import fad.numpy as fnp
    >>> int(fnp.nanargmin(fnp.array([1.0, fnp.nan, 3.0])))
    0
    """
    return argmin(_nan_fill(a, np.inf), axis, out, keepdims=keepdims)


def nancumsum(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
    """Cumulative sum treating NaN as 0.

    >>> import fad.numpy as fnp
    >>> fnp.nancumsum(fnp.array([1.0, fnp.nan, 2.0])).tolist()
    [1.0, 1.0, 3.0]
    """
    return cumsum(_nan_fill(a, 0.0), axis, dtype, out)


def nancumprod(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
    """Cumulative product treating NaN as 1.

    >>> import fad.numpy as fnp
    >>> fnp.nancumprod(fnp.array([2.0, fnp.nan, 2.0])).tolist()
    [2.0, 2.0, 4.0]
    """
    return cumprod(_nan_fill(a, 1.0), axis, dtype, out)


def diff(a: Any, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None
         ) -> Any:
    """``n``-th discrete difference along ``axis``.

    >>> import fad.numpy as fnp
    >>> fnp.diff(fnp.array([1.0, 4.0, 9.0])).tolist()
    [3.0, 5.0]
    """
    a = asarray(a)
    ax = normalize_axes(axis, a.ndim)[0]

    def edge(e: Any) -> list:
        if e is None:
            return []
        e = asarray(e)
        shape = a.shape[:ax] + (1,) + a.shape[ax + 1:]
        return [S.broadcast_to(e, shape) if e.ndim == 0 else e]
    parts = edge(prepend) + [a] + edge(append)
    if len(parts) > 1:
        a = S.concatenate(parts, axis=ax)
    for _ in range(n):
        m = a.shape[ax]
        a = M.subtract(_slice(a, ax, 1, m), _slice(a, ax, 0, m - 1))
    return a


def ediff1d(ary: Any, to_end: Any = None, to_begin: Any = None) -> Any:
    """Differences of the flattened array, with optional ends.

    >>> import fad.numpy as fnp
    >>> fnp.ediff1d(fnp.array([1.0, 2.0, 4.0])).tolist()
    [1.0, 2.0]
    """
    d = diff(S.ravel(asarray(ary)))
    parts = [S.ravel(asarray(to_begin))] if to_begin is not None else []
    parts.append(d)
    if to_end is not None:
        parts.append(S.ravel(asarray(to_end)))
    return S.concatenate(parts) if len(parts) > 1 else d


def trapezoid(y: Any, x: Any = None, dx: float = 1.0, axis: int = -1) -> Any:
    """Trapezoidal rule integral along ``axis``.

    >>> import fad.numpy as fnp
    >>> float(fnp.trapezoid(fnp.array([1.0, 2.0, 3.0])))
    4.0
    """
    y = asarray(y)
    ax = normalize_axes(axis, y.ndim)[0]
    n = y.shape[ax]
    d = dx if x is None else diff(x, axis=axis if asarray(x).ndim > 1 else -1)
    if x is not None and asarray(x).ndim == 1 and y.ndim > 1:
        d = S.reshape(d, tuple(-1 if i == ax else 1 for i in range(y.ndim)))
    mid = M.multiply(M.add(_slice(y, ax, 1, n), _slice(y, ax, 0, n - 1)), 0.5)
    return sum(M.multiply(d, mid), axis=ax)


def gradient(f: Any, *varargs: Any, axis: Any = None, edge_order: int = 1) -> Any:
    """Central differences inside, one-sided at the ends (scalar spacings,
    ``edge_order=1``); a list for several axes, as NumPy.

    >>> import fad.numpy as fnp
    >>> fnp.gradient(fnp.array([1.0, 4.0, 9.0, 16.0])).tolist()
    [3.0, 4.0, 6.0, 7.0]
    """
    if edge_order != 1:
        raise NotImplementedError("gradient: edge_order=2 is not supported")
    f = _float(f)
    axes = list(range(f.ndim)) if axis is None else \
        [a % f.ndim for a in np.atleast_1d(axis).tolist()]
    spacing = list(varargs) if len(varargs) > 1 else list(varargs) * len(axes) or \
        [1.0] * len(axes)
    out = []
    for ax, h in zip(axes, spacing):
        if np.ndim(h) != 0:
            raise NotImplementedError("gradient: coordinate arrays are not supported, "
                                      "only scalar spacings")
        n = f.shape[ax]
        if n < 2:
            raise ValueError("Shape of array too small to calculate a numerical gradient")
        sl = lambda a, b: _slice(f, ax, a, b)
        inner = M.divide(M.subtract(sl(2, n), sl(0, n - 2)), 2.0 * h)
        first = M.divide(M.subtract(sl(1, 2), sl(0, 1)), h)
        last = M.divide(M.subtract(sl(n - 1, n), sl(n - 2, n - 1)), h)
        out.append(S.concatenate([first, inner, last], axis=ax))
    return out[0] if len(out) == 1 else tuple(out)
