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
from ..primitives.indexing import gather
from ..primitives.shapes import normalize_axes
from ..primitives.sorting import constant
from . import _contractions as C
from . import _creation as K
from . import _indexing as I
from . import _math as M
from . import _reductions as R
from . import _shape as S
from ._base import asarray, cast, dtype_of, operand, promote
from ._base import no_out as _no_out
from ._math import _stat_float


# ================================================================== scans, products
def _axis_arg(a: Any, axis: Any) -> tuple:
    """``(a, axis)`` with ``axis=None`` meaning the flattened array."""
    a = asarray(a)
    if axis is None:
        return S.ravel(a), 0
    return a, normalize_axes(axis, a.ndim)[0]


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


def _slice(a: Any, axis: int, start: int, stop: int, step: int | None = None) -> Any:
    return gather(a, (slice(None),) * axis + (slice(start, stop, step),))


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


def matrix_transpose(x: Any, /) -> Any:
    """Swap the last two axes.

    >>> import fad.numpy as fnp
    >>> fnp.matrix_transpose(fnp.ones((4, 2, 3))).shape
    (4, 3, 2)
    """
    return S.swapaxes(x, -1, -2)


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


def _bcast(xs: list) -> list:
    xs = [asarray(x) for x in xs]
    shape = np.broadcast_shapes(*[x.shape for x in xs])
    return [S.broadcast_to(x, shape) for x in xs]


def trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None,
          out: Any = None) -> Any:
    """Sum along diagonals (``offset``, any pair of axes).

    >>> import fad.numpy as fnp
    >>> float(fnp.trace(fnp.eye(3), offset=0))
    3.0
    """
    _no_out(out)
    return R.sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)


# ================================================================== shapes
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
    a = S.reshape(a, tuple(x for n in shape for x in (1, n)))
    a = S.broadcast_to(a, tuple(x for r, n in zip(reps, shape) for x in (r, n)))
    return S.reshape(a, tuple(r * n for r, n in zip(reps, shape)))


def repeat(a: Any, repeats: Any, axis: int | None = None) -> Any:
    """Repeat each element (a broadcast for a scalar count, a gather otherwise).

    >>> import fad.numpy as fnp
    >>> fnp.repeat(fnp.array([1.0, 2.0]), 2).tolist()
    [1.0, 1.0, 2.0, 2.0]
    """
    a, ax = _axis_arg(a, axis)
    if a.ndim == 0:
        a = S.reshape(a, (1,))
    r = concrete_or_none(repeats)
    if r is None:
        raise ConcretizationError("repeat: repeats must be concrete (the output shape "
                                  "depends on it)")
    r = np.asarray(r)
    if r.ndim == 0 or r.size == 1:
        k = int(r.reshape(()))
        shape = a.shape
        b = S.reshape(a, shape[:ax + 1] + (1,) + shape[ax + 1:])
        b = S.broadcast_to(b, shape[:ax + 1] + (k,) + shape[ax + 1:])
        return S.reshape(b, shape[:ax] + (shape[ax] * k,) + shape[ax + 1:])
    return I.take(a, constant(np.repeat(np.arange(a.shape[ax]), r), a), axis=ax)


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
        return S.reshape(roll(S.ravel(a), shift, 0), a.shape)
    shifts, axes = np.broadcast_arrays(np.asarray(shift), np.asarray(axis))
    for s, ax in zip(shifts.ravel(), axes.ravel()):
        ax = normalize_axes(int(ax), a.ndim)[0]
        n = a.shape[ax]
        if n == 0:
            continue
        s = int(s) % n
        if s:
            a = S.concatenate([_slice(a, ax, n - s, n), _slice(a, ax, 0, n - s)], axis=ax)
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
        return S.transpose(flip(m, a1), perm)
    return flip(S.transpose(m, perm), a1)


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
            a = I.take(a, constant(idx, a), axis=ax)
    return a


def _pad_scalar(v: Any, a: Any) -> Any:
    if isinstance(v, Tracer):
        return cast(v, dtype_of(a))
    return np.asarray(v).astype(dtype_of(a)).item()


def diag(v: Any, k: int = 0) -> Any:
    """The ``k``-th diagonal of a matrix, or a matrix with ``v`` on that diagonal.
    The matrix is built by padding and reshaping (no multiplication by 0).

    >>> import fad.numpy as fnp
    >>> fnp.diag(fnp.array([1.0, 2.0])).tolist()
    [[1.0, 0.0], [0.0, 2.0]]
    >>> fnp.diag(fnp.array([[1, 2], [3, 4]]), 1).tolist()
    [2]
    """
    v = asarray(v)
    if v.ndim == 2:
        return diagonal(v, k)
    if v.ndim != 1:
        raise ValueError("Input must be 1- or 2-d.")
    n = v.shape[0]
    m = n + builtins.abs(k)
    # element i goes to flat index i (m + 1) + front of the (m, m) matrix
    front = k if k >= 0 else -k * m
    flat = S.ravel(Cu.pad(S.reshape(v, (n, 1)), ((0, 0), (0, m)), 0))
    total = front + n * (m + 1)
    flat = Cu.pad(flat, ((front, builtins.max(m * m - total, 0)),), 0)
    return S.reshape(_slice(flat, 0, 0, m * m), (m, m))


def diagflat(v: Any, k: int = 0) -> Any:
    """A matrix with the flattened ``v`` on diagonal ``k``.

    >>> import fad.numpy as fnp
    >>> fnp.diagflat(fnp.array([[1, 2]])).tolist()
    [[1, 0], [0, 2]]
    """
    return diag(S.ravel(asarray(v)), k)


def diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    """Diagonal of the ``(axis1, axis2)`` planes, as the last axis (NumPy's layout).

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
    rest = [i for i in range(a.ndim) if i not in (a1, a2)]
    a = S.transpose(a, tuple(rest) + (a1, a2))
    n, m = a.shape[-2:]
    i0, j0 = (0, offset) if offset >= 0 else (-offset, 0)
    length = builtins.max(0, builtins.min(n - i0, m - j0))
    i = np.arange(i0, i0 + length)
    return I.getitem(a, (Ellipsis, constant(i, a), constant(i - i0 + j0, a)))


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


def atleast_2d(*arys: Any) -> Any:
    """Views with at least two dimensions.

    >>> import fad.numpy as fnp
    >>> fnp.atleast_2d(fnp.ones(3)).shape
    (1, 3)
    """
    out = [asarray(a) for a in arys]
    out = [S.reshape(a, (1,) * (2 - a.ndim) + a.shape) if a.ndim < 2 else a for a in out]
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
        out.append(S.reshape(a, shape) if shape is not None else a)
    return out[0] if len(out) == 1 else tuple(out)


def hstack(tup: Sequence, *, dtype: Any = None) -> Any:
    """Concatenate along axis 1 (axis 0 for 1-d arrays).

    >>> import fad.numpy as fnp
    >>> fnp.hstack([fnp.ones(2), fnp.zeros(1)]).tolist()
    [1.0, 1.0, 0.0]
    """
    arrs = [S.atleast_1d(a) for a in tup]
    out = S.concatenate(arrs, axis=0 if arrs[0].ndim == 1 else 1)
    return out if dtype is None else cast(out, np.dtype(dtype))


def vstack(tup: Sequence, *, dtype: Any = None) -> Any:
    """Concatenate along axis 0 after making inputs at least 2-d.

    >>> import fad.numpy as fnp
    >>> fnp.vstack([fnp.ones(2), fnp.zeros(2)]).shape
    (2, 2)
    """
    out = S.concatenate([atleast_2d(a) for a in tup], axis=0)
    return out if dtype is None else cast(out, np.dtype(dtype))


row_stack = vstack


def dstack(tup: Sequence) -> Any:
    """Concatenate along axis 2 after making inputs at least 3-d.

    >>> import fad.numpy as fnp
    >>> fnp.dstack([fnp.ones(2), fnp.zeros(2)]).shape
    (1, 2, 2)
    """
    return S.concatenate([atleast_3d(a) for a in tup], axis=2)


def column_stack(tup: Sequence) -> Any:
    """Stack 1-d arrays as columns.

    >>> import fad.numpy as fnp
    >>> fnp.column_stack([fnp.ones(2), fnp.zeros(2)]).tolist()
    [[1.0, 0.0], [1.0, 0.0]]
    """
    arrs = [asarray(a) for a in tup]
    return S.concatenate([S.reshape(a, (-1, 1)) if a.ndim < 2 else a for a in arrs], axis=1)


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
        parts = [S.reshape(p, (1,) * (nd - p.ndim) + p.shape) for p in parts]
        return S.concatenate(parts, axis=-(d - level))
    return rec(arrays, 0)


def append(arr: Any, values: Any, axis: int | None = None) -> Any:
    """Values appended at the end (flattened when ``axis`` is None).

    >>> import fad.numpy as fnp
    >>> fnp.append(fnp.array([1.0]), [2.0, 3.0]).tolist()
    [1.0, 2.0, 3.0]
    """
    if axis is None:
        return S.concatenate([S.ravel(asarray(arr)), S.ravel(asarray(values))])
    return S.concatenate([arr, values], axis=axis)


def delete(arr: Any, obj: Any, axis: int | None = None) -> Any:
    """A copy without the entries ``obj`` along ``axis`` (a gather of the rest).

    >>> import fad.numpy as fnp
    >>> fnp.delete(fnp.array([1.0, 2.0, 3.0]), 1).tolist()
    [1.0, 3.0]
    """
    a, ax = _axis_arg(arr, axis)
    n = a.shape[ax]
    keep = np.ones(n, dtype=bool)
    keep[np.arange(n)[obj] if isinstance(obj, slice) else np.asarray(obj)] = False
    return I.take(a, constant(np.nonzero(keep)[0], a), axis=ax)


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
    v = S.moveaxis(S.reshape(v, (1,) * (a.ndim - v.ndim) + v.shape), 0, ax)
    v = S.broadcast_to(v, a.shape[:ax] + (v.shape[ax],) + a.shape[ax + 1:])
    return S.concatenate([_slice(a, ax, 0, i), v, _slice(a, ax, i, n)], axis=ax)


def resize(a: Any, new_shape: Any) -> Any:
    """Repeat the flattened array cyclically to fill ``new_shape``.

    >>> import fad.numpy as fnp
    >>> fnp.resize(fnp.array([1, 2, 3]), (2, 2)).tolist()
    [[1, 2], [3, 1]]
    """
    flat = S.ravel(asarray(a))
    shape = (int(new_shape),) if isinstance(new_shape, int | np.integer) else \
        tuple(int(n) for n in new_shape)
    total = math.prod(shape)
    if flat.shape[0] == 0 or total == 0:
        return K.zeros(shape, dtype_of(flat))
    reps = -(-total // flat.shape[0])
    return S.reshape(_slice(tile(flat, reps), 0, 0, total), shape)


def permute_dims(a: Any, /, axes: Any = None) -> Any:
    """The Array API's name for ``transpose``.

    >>> import fad.numpy as fnp
    >>> fnp.permute_dims(fnp.ones((2, 3)), (1, 0)).shape
    (3, 2)
    """
    return S.transpose(a, axes)


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
    return S.moveaxis(a, axis, start)


def broadcast_arrays(*args: Any) -> tuple:
    """Broadcast the arguments against each other.

    >>> import fad.numpy as fnp
    >>> [x.shape for x in fnp.broadcast_arrays(fnp.ones(3), fnp.ones((2, 1)))]
    [(2, 3), (2, 3)]
    """
    return tuple(_bcast(list(args)))


broadcast_shapes = np.broadcast_shapes


def copy(a: Any, order: str = "K", subok: bool = False) -> Any:
    """A copy (arrays are immutable here, so the same value).

    >>> import fad.numpy as fnp
    >>> fnp.copy(fnp.array([1.0])).tolist()
    [1.0]
    """
    return K.array(a, copy=True)


def asanyarray(a: Any, dtype: Any = None) -> Any:
    """``asarray``.

    >>> import fad.numpy as fnp
    >>> fnp.asanyarray([1, 2]).tolist()
    [1, 2]
    """
    return asarray(a, dtype)


ascontiguousarray = asanyarray


def astype(x: Any, dtype: Any, /, *, copy: bool = True) -> Any:
    """Convert to ``dtype`` (float to float keeps the derivative).

    >>> import fad.numpy as fnp
    >>> fnp.astype(fnp.ones(2), fnp.float32).dtype
    dtype('float32')
    """
    return cast(asarray(x), np.dtype(dtype))


# ================================================================== creation
def tri(N: int, M: int | None = None, k: int = 0, dtype: Any = float) -> Any:
    """Ones at and below diagonal ``k``.

    >>> import fad.numpy as fnp
    >>> fnp.tri(2).tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    """
    return asarray(np.tri(N, M, k, dtype=dtype))


def meshgrid(*xi: Any, copy: bool = True, sparse: bool = False, indexing: str = "xy"
             ) -> tuple:
    """Coordinate grids from coordinate vectors (differentiable in each vector).

    >>> import fad.numpy as fnp
    >>> [g.shape for g in fnp.meshgrid(fnp.ones(2), fnp.ones(3))]
    [(3, 2), (3, 2)]
    """
    xs = [S.ravel(asarray(x)) for x in xi]
    nd = len(xs)
    out = []
    for i, x in enumerate(xs):
        shape = [1] * nd
        shape[i] = -1
        if indexing == "xy" and nd > 1 and i < 2:
            shape[0], shape[1] = shape[1], shape[0]
        out.append(S.reshape(x, tuple(shape)))
    if not sparse:
        out = _bcast(out)
    return tuple(out)


def _traced(*values: Any) -> bool:
    return any(isinstance(v, Tracer) for v in values)


def traced_linspace(start: Any, stop: Any, num: int, endpoint: bool = True,
                    dtype: Any = None) -> Any:
    """``linspace`` with traced ends, differentiable in them: NumPy's formula
    ``start + k (stop - start) / div``, the last sample exactly ``stop``."""
    start, stop = asarray(start), asarray(stop)
    start, stop = M.add(start, 0.0), M.add(stop, 0.0)  # (integer ends: float samples)
    div = num - 1 if endpoint else num
    k = K.arange(num, dtype=np.result_type(start.dtype, stop.dtype))
    k = S.reshape(k, (num,) + (1,) * builtins.max(np.ndim(start), np.ndim(stop)))
    out = start + k * ((stop - start) / builtins.max(div, 1))
    if endpoint and num > 1:
        out = S.concatenate([out[:-1], M.add(K.zeros_like(out[-1:]), stop)])
    return out if dtype is None else out.astype(dtype)


def logspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True,
             base: float = 10.0, dtype: Any = None, axis: int = 0) -> Any:
    """``base ** linspace(start, stop)`` (differentiable in traced ends).

    >>> import fad.numpy as fnp
    >>> fnp.logspace(0, 2, 3).tolist()
    [1.0, 10.0, 100.0]
    """
    if _traced(start, stop, base) and axis == 0:
        out = M.power(base, traced_linspace(start, stop, num, endpoint))
        return out if dtype is None else out.astype(dtype)
    return asarray(np.logspace(start, stop, num, endpoint, base, dtype, axis))


def geomspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True,
              dtype: Any = None, axis: int = 0) -> Any:
    """A geometric progression from ``start`` to ``stop`` (differentiable in
    traced ends, which keep their sign).

    >>> import fad.numpy as fnp
    >>> fnp.geomspace(1, 100, 3).tolist()
    [1.0, 10.0, 100.0]
    """
    if _traced(start, stop) and axis == 0:
        start, stop = asarray(start), asarray(stop)
        sign = M.sign(start)
        out = sign * M.exp(traced_linspace(M.log(M.abs(start)), M.log(M.abs(stop)), num,
                                           endpoint))
        if num > 0:  # the ends exactly, as NumPy
            ends = [M.add(K.zeros_like(out[:1]), start), out[1:-1] if endpoint else out[1:]]
            ends += [M.add(K.zeros_like(out[-1:]), stop)] if endpoint and num > 1 else []
            out = S.concatenate(ends)
        return out if dtype is None else out.astype(dtype)
    return asarray(np.geomspace(start, stop, num, endpoint, dtype, axis))


def indices(dimensions: Sequence[int], dtype: Any = int, sparse: bool = False) -> Any:
    """Grid indices (constants).

    >>> import fad.numpy as fnp
    >>> fnp.indices((2, 2)).shape
    (2, 2, 2)
    """
    out = np.indices(dimensions, dtype, sparse)
    return tuple(asarray(o) for o in out) if sparse else asarray(out)


def fromfunction(function: Any, shape: Sequence[int], *, dtype: Any = float,
                 **kwargs: Any) -> Any:
    """Call ``function`` on the index grids of ``shape``.

    >>> import fad.numpy as fnp
    >>> fnp.fromfunction(lambda i, j: i + j, (2, 2)).tolist()
    [[0.0, 1.0], [1.0, 2.0]]
    """
    return function(*[asarray(g) for g in np.indices(shape, dtype=dtype)], **kwargs)


def _host_fn(name: str) -> Any:
    """A NumPy function of static (integer) arguments whose results are constants."""
    f = getattr(np, name)

    def fn(*args: Any, **kwargs: Any) -> Any:
        out = f(*args, **kwargs)
        return tuple(asarray(o) for o in out) if isinstance(out, tuple) else asarray(out)
    fn.__name__ = name
    fn.__doc__ = (f"``numpy.{name}`` on static arguments; the result is a constant.\n\n"
                  f"    >>> import fad.numpy as fnp\n    >>> callable(fnp.{name})\n    True\n")
    return fn


diag_indices = _host_fn("diag_indices")
tril_indices = _host_fn("tril_indices")
triu_indices = _host_fn("triu_indices")
mask_indices = _host_fn("mask_indices")


def _concrete(x: Any, fn: str) -> np.ndarray:
    c = concrete_or_none(asarray(x))
    if c is None:
        raise ConcretizationError(f"{fn}: the argument must be concrete (its result's "
                                  "shape depends on the data); it is traced abstractly "
                                  "here (under fad.jit / make_jaxpr)")
    return np.asarray(c)


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


# ================================================================== indexing
def compress(condition: Any, a: Any, axis: int | None = None, out: Any = None) -> Any:
    """The slices of ``a`` along ``axis`` where ``condition`` is true (concrete).

    >>> import fad.numpy as fnp
    >>> fnp.compress([True, False, True], fnp.array([1.0, 2.0, 3.0])).tolist()
    [1.0, 3.0]
    """
    _no_out(out)
    cond = _concrete(condition, "compress").astype(bool)
    a, ax = _axis_arg(a, axis)
    return I.take(a, np.nonzero(cond)[0], axis=ax)


def extract(condition: Any, arr: Any) -> Any:
    """``ravel(arr)[ravel(condition)]`` (concrete condition).

    >>> import fad.numpy as fnp
    >>> fnp.extract(fnp.array([True, False]), fnp.array([1.0, 2.0])).tolist()
    [1.0]
    """
    cond = _concrete(condition, "extract").astype(bool).ravel()
    return I.take(S.ravel(asarray(arr)), np.nonzero(cond)[0])


def argwhere(a: Any) -> Any:
    """Indices of the non-zero elements, one row each (concrete).

    >>> import fad.numpy as fnp
    >>> fnp.argwhere(fnp.array([0.0, 1.0, 1.0])).tolist()
    [[1], [2]]
    """
    return asarray(np.argwhere(_concrete(a, "argwhere")))


def flatnonzero(a: Any) -> Any:
    """Indices of the non-zero elements of the flattened array (concrete).

    >>> import fad.numpy as fnp
    >>> fnp.flatnonzero(fnp.array([0.0, 2.0])).tolist()
    [1]
    """
    return asarray(np.flatnonzero(_concrete(a, "flatnonzero")))


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
    c = _concrete(ar, "unique")
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

