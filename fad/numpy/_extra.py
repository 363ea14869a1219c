"""The rest of NumPy's namespace: more elementwise math, scans and products,
shape and indexing helpers, sorting, creation helpers, and the functional forms
of the array methods.

Most functions are exact composites of primitives (a gather with a reversed
slice is ``flip``; a select with a constant mask is ``triu``); the others bind
the primitives of ``fad/primitives/{cumulative,sorting,special}.py``.
"""

from __future__ import annotations

import builtins
import math
from collections import namedtuple
from typing import Any, Sequence

import numpy as np

from ..core.errors import ConcretizationError
from ..core.trace import Tracer, bind, concrete_or_none
from ..primitives import cumulative as Cu
from ..primitives import sorting as So
from ..primitives.shapes import normalize_axes
from ..primitives.sorting import constant
from . import _contractions as C
from . import _indexing as I
from . import _math as M
from . import _reductions as R
from . import _shape as S
from ._base import asarray, cast, concrete_array, dtype_of, operand, promote
from ._base import no_out as _no_out
from ._creation import copy
from ._indexing import choose, compress, diagonal
from ._math import _stat_float
from ._shape import _axis_arg, _bcast, _slice, flip, repeat


def _acc_dtype(a: Any, dtype: Any) -> np.dtype:
    """NumPy's accumulator dtype: small ints and bools accumulate in int64."""
    dt = np.dtype(dtype) if dtype is not None else dtype_of(a)
    if dtype is None and (dt.kind == "b" or dt.kind in "iu" and dt.itemsize < 8):
        dt = np.dtype(np.uint64 if dt.kind == "u" else np.int64)
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
    res = R._reduce(Cu.reduce_prod_p, a, axis, keepdims)
    return res if initial is None else M.multiply(res, initial)


def ptp(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> Any:
    """Peak to peak, ``max - min``.

    >>> import fad.numpy as fnp
    >>> float(fnp.ptp(fnp.array([1.0, 5.0, 2.0])))
    4.0
    """
    _no_out(out)
    return M.subtract(R.max(a, axis, keepdims=keepdims), R.min(a, axis, keepdims=keepdims))


def average(a: Any, axis: Any = None, weights: Any = None, returned: bool = False, *,
            keepdims: bool = False) -> Any:
    """Weighted mean, ``sum(a w) / sum(w)`` (``weights`` 1-d along one ``axis``, or
    ``a``'s shape).

    >>> import fad.numpy as fnp
    >>> float(fnp.average(fnp.array([1.0, 3.0]), weights=fnp.array([3.0, 1.0])))
    1.5
    """
    a = asarray(a)
    if weights is None:
        avg = R.mean(a, axis, keepdims=keepdims)
        n = a.size // builtins.max(math.prod(avg.shape), 1)
        scl = S.broadcast_to(asarray(np.asarray(n, dtype_of(avg))), avg.shape)
        return (avg, scl) if returned else avg
    w = asarray(weights)
    if w.shape != a.shape:
        if axis is None or w.ndim != 1:
            raise TypeError("1D weights expected when shapes of a and weights differ.")
        ax = normalize_axes(axis, a.ndim)[0]
        w = S.reshape(w, tuple(-1 if i == ax else 1 for i in range(a.ndim)))
        w = S.broadcast_to(w, a.shape)
    _, (a, w) = promote("true_divide", a, w)
    scl = R.sum(w, axis, keepdims=keepdims)
    avg = M.divide(R.sum(M.multiply(a, w), axis, keepdims=keepdims), scl)
    return (avg, S.broadcast_to(scl, avg.shape)) if returned else avg


def _keep(out: Any, shape: tuple, axis: Any, keepdims: bool) -> Any:
    if not keepdims:
        return out
    axes = normalize_axes(axis, len(shape))
    return S.reshape(out, tuple(1 if i in axes else n for i, n in enumerate(shape)))


def _moved_last(a: Any, axis: Any) -> Any:
    """``a`` with the axes of ``axis`` merged into one last axis."""
    a = asarray(a)
    if axis is None:
        return S.ravel(a)
    axes = normalize_axes(axis, a.ndim)
    kept = [i for i in range(a.ndim) if i not in axes]
    a = S.transpose(a, tuple(kept) + axes)
    return S.reshape(a, tuple(a.shape[:len(kept)]) + (-1,))


def quantile(a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
             method: str = "linear", keepdims: bool = False) -> Any:
    """Quantiles with NumPy's default ``linear`` method (also ``lower``,
    ``higher``, ``nearest``, ``midpoint``); ``q`` must be concrete (not under
    ``jit``). The derivative flows to the (one or two) order statistics used,
    and, for ``linear``, to ``q``.

    >>> import fad.numpy as fnp
    >>> float(fnp.quantile(fnp.array([1.0, 2.0, 3.0, 4.0]), 0.5))
    2.5
    """
    _no_out(out)
    a = asarray(a)
    qc = concrete_or_none(q)
    if qc is None:
        raise ConcretizationError("quantile: q must be concrete (not traced)")
    qc = np.asarray(qc, dtype=np.float64)
    if np.any((qc < 0) | (qc > 1)):
        raise ValueError("Quantiles must be in the range [0, 1]")
    srt = sort(_moved_last(_stat_float(a), axis), axis=-1)
    n = srt.shape[-1]
    pos = qc * (n - 1)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, n - 1)
    frac = pos - lo
    if method == "lower":
        hi, frac = lo, np.zeros_like(frac)
    elif method == "higher":
        lo = np.ceil(pos).astype(np.int64)
        hi, frac = lo, np.zeros_like(frac)
    elif method == "nearest":
        lo = np.around(pos).astype(np.int64)
        hi, frac = lo, np.zeros_like(frac)
    elif method == "midpoint":
        frac = np.where(pos == lo, 0.0, 0.5)
    elif method != "linear":
        raise NotImplementedError(f"quantile method {method!r} is not supported")
    elif isinstance(q, Tracer):  # differentiable in q too: the weight is traced
        frac = M.subtract(M.multiply(asarray(q), float(n - 1)), lo.astype(np.float64))
    x_lo, x_hi = I.take(srt, constant(lo, srt), axis=-1), I.take(srt, constant(hi, srt),
                                                                  axis=-1)
    frac = frac.astype(dtype_of(srt))
    # NumPy's linear interpolation: lo + (hi - lo) * frac, from the nearer end
    res = M.where(frac >= 0.5, M.subtract(x_hi, M.multiply(M.subtract(x_hi, x_lo), 1 - frac)),
                  M.add(x_lo, M.multiply(M.subtract(x_hi, x_lo), frac)))
    if qc.ndim:  # the axes of q first, as NumPy
        res = S.moveaxis(res, tuple(range(-qc.ndim, 0)), tuple(range(qc.ndim)))
    if not isinstance(q, int | float):  # an array q takes part in NumPy's promotion
        res = cast(res, np.result_type(dtype_of(res), np.asarray(q).dtype))
    if keepdims:
        shape = a.shape
        axes = normalize_axes(axis, a.ndim)
        keep = tuple(1 if i in axes else s for i, s in enumerate(shape))
        res = S.reshape(res, qc.shape + keep)
    return res


def percentile(a: Any, q: Any, axis: Any = None, out: Any = None,
               overwrite_input: bool = False, method: str = "linear",
               keepdims: bool = False) -> Any:
    """Percentiles: ``quantile(a, q / 100)``.

    >>> import fad.numpy as fnp
    >>> float(fnp.percentile(fnp.array([1.0, 2.0, 3.0]), 50))
    2.0
    """
    qc = concrete_or_none(q)
    if qc is None:
        raise ConcretizationError("percentile: q must be concrete (not traced)")
    if np.any((np.asarray(qc) < 0) | (np.asarray(qc) > 100)):
        raise ValueError("Percentiles must be in the range [0, 100]")
    if isinstance(q, Tracer):  # (differentiable in q)
        return quantile(a, M.divide(q, 100), axis, out, overwrite_input, method, keepdims)
    q = qc / 100 if isinstance(qc, int | float) else np.true_divide(qc, 100)
    return quantile(a, q, axis, out, overwrite_input, method, keepdims)


def median(a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
           keepdims: bool = False) -> Any:
    """Median (the mean of the two middle values for an even count).

    >>> import fad.numpy as fnp
    >>> float(fnp.median(fnp.array([3.0, 1.0, 2.0, 10.0])))
    2.5
    """
    _no_out(out)
    a = asarray(a)
    srt = sort(_moved_last(_stat_float(a), axis), axis=-1)
    n = srt.shape[-1]
    idx = constant(np.array(sorted({(n - 1) // 2, n // 2})), srt)
    res = R.mean(I.take(srt, idx, axis=-1), axis=-1)
    if n and dtype_of(srt).kind in "fc":  # a NaN (sorted last) makes the median NaN
        res = M.where(M.isnan(srt[..., -1]), np.nan, res)
    return _keep(res, a.shape, axis, keepdims)


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
    return R.sum(_nan_fill(a, 0.0), axis, dtype, out, keepdims)


def nanprod(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
            keepdims: bool = False) -> Any:
    """Product treating NaN as 1.

    >>> import fad.numpy as fnp
    >>> float(fnp.nanprod(fnp.array([2.0, fnp.nan, 3.0])))
    6.0
    """
    return prod(_nan_fill(a, 1.0), axis, dtype, out, keepdims)


def _count(a: Any, axis: Any, keepdims: bool) -> Any:
    """How many elements are not NaN, in ``a``'s real float dtype (so that a
    float32 mean stays float32)."""
    a = asarray(a)
    n = R.sum(M.logical_not(M.isnan(a)), axis, keepdims=keepdims)
    return cast(n, np.finfo(dtype_of(a)).dtype)


def nanmean(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
            keepdims: bool = False) -> Any:
    """Mean of the non-NaN elements.

    >>> import fad.numpy as fnp
    >>> float(fnp.nanmean(fnp.array([1.0, fnp.nan, 3.0])))
    2.0
    """
    _no_out(out)
    a = _stat_float(a)
    return M.divide(nansum(a, axis, dtype, keepdims=keepdims), _count(a, axis, keepdims))


def nanvar(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: int = 0,
           keepdims: bool = False) -> Any:
    """Variance of the non-NaN elements.

    >>> import fad.numpy as fnp
    >>> float(fnp.nanvar(fnp.array([1.0, fnp.nan, 3.0])))
    1.0
    """
    _no_out(out)
    a = _stat_float(a)
    d = M.subtract(a, nanmean(a, axis, dtype, keepdims=True))
    if dtype_of(d).kind == "c":  # |d|^2, a real array (as NumPy)
        from ._complex import imag, real
        d2 = M.add(M.multiply(real(d), real(d)), M.multiply(imag(d), imag(d)))
    else:
        d2 = M.multiply(d, d)
    ss = nansum(d2, axis, keepdims=keepdims)
    return M.divide(ss, M.subtract(_count(a, axis, keepdims), ddof))


def nanstd(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: int = 0,
           keepdims: bool = False) -> Any:
    """Standard deviation of the non-NaN elements.

    >>> import fad.numpy as fnp
    >>> float(fnp.nanstd(fnp.array([1.0, fnp.nan, 3.0])))
    1.0
    """
    return M.sqrt(nanvar(a, axis, dtype, out, ddof, keepdims))


def nanmax(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> Any:
    """Maximum ignoring NaN.

    >>> import fad.numpy as fnp
    >>> float(fnp.nanmax(fnp.array([1.0, fnp.nan, 3.0])))
    3.0
    """
    return R.max(_nan_fill(a, -np.inf), axis, out, keepdims)


def nanmin(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> Any:
    """Minimum ignoring NaN.

    >>> import fad.numpy as fnp
    >>> float(fnp.nanmin(fnp.array([1.0, fnp.nan, 3.0])))
    1.0
    """
    return R.min(_nan_fill(a, np.inf), axis, out, keepdims)


def nanargmax(a: Any, axis: Any = None, out: Any = None, *, keepdims: bool = False) -> Any:
    """Index of the maximum ignoring NaN.

    >>> import fad.numpy as fnp
    >>> int(fnp.nanargmax(fnp.array([1.0, fnp.nan, 3.0])))
    2
    """
    return R.argmax(_nan_fill(a, -np.inf), axis, out, keepdims=keepdims)


def nanargmin(a: Any, axis: Any = None, out: Any = None, *, keepdims: bool = False) -> Any:
    """Index of the minimum ignoring NaN.

    >>> import fad.numpy as fnp
    >>> int(fnp.nanargmin(fnp.array([1.0, fnp.nan, 3.0])))
    0
    """
    return R.argmin(_nan_fill(a, np.inf), axis, out, keepdims=keepdims)


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


def count_nonzero(a: Any, axis: Any = None, *, keepdims: bool = False) -> Any:
    """Number of non-zero elements.

    >>> import fad.numpy as fnp
    >>> int(fnp.count_nonzero(fnp.array([0.0, 1.0, 2.0])))
    2
    """
    return R.sum(M.not_equal(asarray(a), 0), axis, keepdims=keepdims)


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
    return R.sum(M.multiply(d, mid), axis=ax)


def convolve(a: Any, v: Any, mode: str = "full") -> Any:
    """Discrete linear convolution of two 1-d arrays (``full``, ``same``, ``valid``).

    >>> import fad.numpy as fnp
    >>> fnp.convolve(fnp.array([1.0, 2.0]), fnp.array([1.0, 1.0])).tolist()
    [1.0, 3.0, 2.0]
    """
    a, v = C._promote_all(a, v)
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError("convolve: both inputs must be 1-d")
    if a.shape[0] < v.shape[0]:
        a, v = v, a
    n, m = a.shape[0], v.shape[0]
    if m == 0:
        raise ValueError("v cannot be empty")
    padded = Cu.pad(a, ((m - 1, m - 1),), 0.0)
    # window k holds padded[k : k + m]; full convolution = windows @ reversed v
    idx = np.arange(n + m - 1)[:, None] + np.arange(m)[None, :]
    full = C.matmul(I.getitem(padded, (constant(idx, padded),)), flip(v))
    if mode == "full":
        return full
    if mode == "same":
        start = (m - 1) // 2
        return _slice(full, 0, start, start + n)
    if mode == "valid":
        return _slice(full, 0, m - 1, n)
    raise ValueError(f"mode must be 'full', 'same' or 'valid', got {mode!r}")


def correlate(a: Any, v: Any, mode: str = "valid") -> Any:
    """Cross-correlation of two 1-d arrays (real): ``convolve(a, v[::-1])``.

    >>> import fad.numpy as fnp
    >>> fnp.correlate(fnp.array([1.0, 2.0, 3.0]), fnp.array([0.0, 1.0])).tolist()
    [2.0, 3.0]
    """
    a, v = C._promote_all(a, v)
    return _correlate(a, _conj(v), mode)  # NumPy conjugates v (complex arrays)


def _correlate(a: Any, v: Any, mode: str) -> Any:
    if a.shape[0] < v.shape[0]:
        return flip(_correlate(v, a, mode))
    return convolve(a, flip(v), mode)


def _conj(x: Any) -> Any:
    from ._complex import conj
    return conj(x)


def vdot(a: Any, b: Any, /) -> Any:
    """Dot product of the flattened arrays.

    >>> import fad.numpy as fnp
    >>> float(fnp.vdot(fnp.ones((2, 2)), fnp.ones((2, 2))))
    4.0
    """
    a, b = C._promote_all(a, b)
    return C.matmul(S.ravel(_conj(a)), S.ravel(b))  # conj(a): NumPy's, for complex


def vecdot(x1: Any, x2: Any, /, *, axis: int = -1) -> Any:
    """Dot product of vectors along ``axis`` (broadcasting the rest).

    >>> import fad.numpy as fnp
    >>> fnp.vecdot(fnp.ones((2, 3)), fnp.ones(3)).tolist()
    [3.0, 3.0]
    """
    return R.sum(M.multiply(_conj(asarray(x1)), x2), axis=axis)  # conj(x1), as NumPy


def matvec(x1: Any, x2: Any, /) -> Any:
    """Matrix-vector products over stacks.

    >>> import fad.numpy as fnp
    >>> fnp.matvec(fnp.eye(2), fnp.array([1.0, 2.0])).tolist()
    [1.0, 2.0]
    """
    return S.squeeze(C.matmul(x1, S.expand_dims(x2, -1)), -1)


def vecmat(x1: Any, x2: Any, /) -> Any:
    """Vector-matrix products over stacks.

    >>> import fad.numpy as fnp
    >>> fnp.vecmat(fnp.array([1.0, 2.0]), fnp.eye(2)).tolist()
    [1.0, 2.0]
    """
    return S.squeeze(C.matmul(S.expand_dims(_conj(asarray(x1)), -2), x2), -2)  # as NumPy


def kron(a: Any, b: Any) -> Any:
    """Kronecker product (an outer product regrouped: exact).

    >>> import fad.numpy as fnp
    >>> fnp.kron(fnp.eye(2), fnp.ones((1, 2))).tolist()
    [[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0]]
    """
    a, b = C._promote_all(a, b)
    nd = builtins.max(a.ndim, b.ndim)
    a = S.reshape(a, (1,) * (nd - a.ndim) + a.shape)
    b = S.reshape(b, (1,) * (nd - b.ndim) + b.shape)
    ai = S.reshape(a, tuple(x for n in a.shape for x in (n, 1)))
    bi = S.reshape(b, tuple(x for n in b.shape for x in (1, n)))
    return S.reshape(M.multiply(ai, bi), tuple(p * q for p, q in zip(a.shape, b.shape)))


def cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1,
          axis: int | None = None) -> Any:
    """Cross product of 3-vectors (or 2-vectors, giving the z component).

    >>> import fad.numpy as fnp
    >>> fnp.cross(fnp.array([1.0, 0.0, 0.0]), fnp.array([0.0, 1.0, 0.0])).tolist()
    [0.0, 0.0, 1.0]
    """
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = C._promote_all(a, b)
    a, b = S.moveaxis(a, axisa, -1), S.moveaxis(b, axisb, -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError("incompatible dimensions for cross product (dimension must be 2 or 3)")
    comp = [lambda x, i=i: x[..., i] for i in range(3)]
    a0, a1 = comp[0](a), comp[1](a)
    b0, b1 = comp[0](b), comp[1](b)
    z = M.subtract(M.multiply(a0, b1), M.multiply(a1, b0))
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return z
    a2 = comp[2](a) if a.shape[-1] == 3 else 0.0
    b2 = comp[2](b) if b.shape[-1] == 3 else 0.0
    x = M.subtract(M.multiply(a1, b2), M.multiply(a2, b1))
    y = M.subtract(M.multiply(a2, b0), M.multiply(a0, b2))
    out = S.stack(_bcast([x, y, z]), axis=-1)
    return S.moveaxis(out, -1, axisc)


def trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None,
          out: Any = None) -> Any:
    """Sum along diagonals (``offset``, any pair of axes).

    >>> import fad.numpy as fnp
    >>> float(fnp.trace(fnp.eye(3), offset=0))
    3.0
    """
    _no_out(out)
    return R.sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)


def astype(x: Any, dtype: Any, /, *, copy: bool = True) -> Any:
    """Convert to ``dtype`` (float to float keeps the derivative).

    >>> import fad.numpy as fnp
    >>> fnp.astype(fnp.ones(2), fnp.float32).dtype
    dtype('float32')
    """
    return cast(asarray(x), np.dtype(dtype))


def _immutable(name: str) -> Any:
    def fn(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f"fad.numpy.{name} is not supported: it modifies its argument in place, and "
            "fad's arrays are immutable. Build the result functionally instead (fnp.where, "
            "fnp.concatenate, or x[idx] gathers).")
    fn.__name__ = name
    fn.__doc__ = f"Not supported: ``numpy.{name}`` mutates its argument."
    return fn


# ================================================================== sorting
def sort(a: Any, axis: int | None = -1, kind: Any = None, order: Any = None, *,
         stable: Any = None) -> Any:
    """Sorted copy (``axis=None`` flattens). Differentiable: the tangent is
    gathered at the (stable) sorting permutation.

    >>> import fad, fad.numpy as fnp
    >>> fnp.sort(fnp.array([3.0, 1.0, 2.0])).tolist()
    [1.0, 2.0, 3.0]
    >>> fad.grad(lambda x: fnp.sort(x)[0])(fnp.array([3.0, 1.0, 2.0])).tolist()
    [0.0, 1.0, 0.0]
    """
    if order is not None:
        raise NotImplementedError("sort: order= (structured arrays) is not supported")
    a, ax = _axis_arg(a, axis)
    if a.ndim == 0:
        return a
    return bind(So.sort_p, a, axis=ax)


def argsort(a: Any, axis: int | None = -1, kind: Any = None, order: Any = None, *,
            stable: Any = None) -> Any:
    """Indices that sort ``a`` (always stable).

    >>> import fad.numpy as fnp
    >>> fnp.argsort(fnp.array([3.0, 1.0, 2.0])).tolist()
    [1, 2, 0]
    """
    if order is not None:
        raise NotImplementedError("argsort: order= (structured arrays) is not supported")
    a, ax = _axis_arg(a, axis)
    if a.ndim == 0:
        return S.reshape(asarray(np.zeros((), np.int64)), ())
    return bind(So.argsort_p, a, axis=ax)


def partition(a: Any, kth: Any, axis: int | None = -1, kind: str = "introselect",
              order: Any = None) -> Any:
    """A valid partition: the fully sorted array.

    >>> import fad.numpy as fnp
    >>> fnp.partition(fnp.array([3.0, 1.0, 2.0]), 1).tolist()
    [1.0, 2.0, 3.0]
    """
    return sort(a, axis)


def argpartition(a: Any, kth: Any, axis: int | None = -1, kind: str = "introselect",
                 order: Any = None) -> Any:
    """A valid partitioning permutation: ``argsort``.

    >>> import fad.numpy as fnp
    >>> fnp.argpartition(fnp.array([3.0, 1.0, 2.0]), 1).tolist()
    [1, 2, 0]
    """
    return argsort(a, axis)


def lexsort(keys: Sequence, axis: int = -1) -> Any:
    """Indirect stable sort on several keys, the last one primary.

    >>> import fad.numpy as fnp
    >>> fnp.lexsort([fnp.array([1, 0, 1]), fnp.array([0, 0, 1])]).tolist()
    [1, 0, 2]
    """
    keys = [asarray(k) for k in keys]
    idx = argsort(keys[0], axis=axis)
    for k in keys[1:]:
        perm = argsort(I.take_along_axis(k, idx, axis=axis), axis=axis)
        idx = I.take_along_axis(idx, perm, axis=axis)
    return idx


def searchsorted(a: Any, v: Any, side: str = "left", sorter: Any = None) -> Any:
    """Insertion indices of ``v`` into the sorted 1-d ``a`` (no derivative).

    >>> import fad.numpy as fnp
    >>> fnp.searchsorted(fnp.array([1.0, 2.0, 3.0]), fnp.array([2.5, 0.0])).tolist()
    [2, 0]
    """
    a = asarray(a)
    if sorter is not None:
        a = I.take(a, sorter)
    _, (a, v) = promote("add", a, operand(v))
    v = asarray(v)
    return bind(So.searchsorted_p, a, v, side=side)


UniqueAll = namedtuple("UniqueAll", "values indices inverse_indices counts")


def unique(ar: Any, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: int | None = None, *,
           equal_nan: bool = True) -> Any:
    """Sorted unique elements (concrete values); the values are gathered from
    ``ar``, so they carry its derivative.

    >>> import fad.numpy as fnp
    >>> fnp.unique(fnp.array([2.0, 1.0, 2.0])).tolist()
    [1.0, 2.0]
    """
    if axis is not None:
        raise NotImplementedError("unique: axis= is not supported")
    c = concrete_array(ar, "unique")
    _, index, inverse, counts = np.unique(c, True, True, True, equal_nan=equal_nan)
    values = I.take(S.ravel(asarray(ar)), index)
    out = [values]
    if return_index:
        out.append(asarray(index))
    if return_inverse:
        out.append(asarray(inverse.reshape(c.shape)))
    if return_counts:
        out.append(asarray(counts))
    return out[0] if len(out) == 1 else tuple(out)


def unique_values(x: Any) -> Any:
    """Unique values (Array API name).

    >>> import fad.numpy as fnp
    >>> fnp.unique_values(fnp.array([1.0, 1.0])).tolist()
    [1.0]
    """
    return unique(x)


def unique_counts(x: Any) -> tuple:
    """``(values, counts)`` of the unique elements.

    >>> import fad.numpy as fnp
    >>> fnp.unique_counts(fnp.array([1.0, 1.0]))[1].tolist()
    [2]
    """
    return unique(x, return_counts=True)


def unique_inverse(x: Any) -> tuple:
    """``(values, inverse_indices)``.

    >>> import fad.numpy as fnp
    >>> fnp.unique_inverse(fnp.array([2.0, 1.0]))[1].tolist()
    [1, 0]
    """
    return unique(x, return_inverse=True)


def unique_all(x: Any) -> tuple:
    """``(values, indices, inverse_indices, counts)``.

    >>> import fad.numpy as fnp
    >>> fnp.unique_all(fnp.array([2.0, 1.0])).counts.tolist()
    [1, 1]
    """
    return UniqueAll(*unique(x, True, True, True))


# ================================================================== tracer methods
def _sort_method(self: Any, axis: int = -1, kind: Any = None, order: Any = None) -> None:
    raise TypeError("x.sort() sorts in place, and fad's arrays are immutable: "
                    "use x = fnp.sort(x)")


METHODS = {
    "prod": prod, "cumsum": cumsum, "cumprod": cumprod, "argsort": argsort,
    "repeat": repeat, "round": M.round, "__round__": lambda self, nd=None: M.round(self, nd or 0),
    "diagonal": diagonal, "trace": trace, "nonzero": I.nonzero, "copy": copy,
    "compress": lambda self, condition, axis=None, out=None: compress(condition, self, axis,
                                                                      out),
    "choose": lambda self, choices, out=None, mode="raise": choose(self, choices, out, mode),
    "searchsorted": searchsorted, "sort": _sort_method, "ptp": ptp,
    "__divmod__": M.divmod, "__rdivmod__": lambda self, other: M.divmod(other, self),
    "fill": _immutable("ndarray.fill"), "put": _immutable("ndarray.put"),
    "itemset": _immutable("ndarray.itemset"),
}


def install() -> None:
    for name, fn in METHODS.items():
        setattr(Tracer, name, fn)


install()

