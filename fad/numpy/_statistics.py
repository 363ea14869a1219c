"""Statistics of ``fad.numpy`` (NumPy's chapter of that name): averages and
variances, order statistics (``median``, ``quantile``... and their NaN-ignoring
forms), correlations, counting in bins (``bincount``, ``digitize``) and
interpolation, as composites of ``fad.numpy`` functions (so they are
differentiable wherever their pieces are)."""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

from ..core.errors import ConcretizationError
from ..core.trace import Tracer, bind, concrete_or_none
from ..primitives import indexing as P
from ..primitives.reductions import reduce_sum_p
from ..primitives.shapes import normalize_axes
from ..primitives.sorting import constant
from . import _contractions as C
from . import _indexing as I
from . import _math as M
from . import _reductions as R
from . import _shape as S
from ._base import asarray, cast, concrete_array, dtype_of, promote, promote_all
from ._base import no_out as _no_out
from ._complex import conj, imag, real
from ._indexing import diagonal
from ._math import _float, _stat_float, divide, multiply, sqrt, subtract
from ._reductions import nansum
from ._shape import atleast_2d
from ._sorting import searchsorted, sort


def mean(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
         keepdims: bool = False) -> Any:
    """Arithmetic mean over ``axis`` (integers average in float64).

    >>> import fad.numpy as fnp
    >>> float(fnp.mean(fnp.array([1, 2, 3, 4])))
    2.5
    """
    _no_out(out)
    a = asarray(a)
    dt = np.dtype(dtype) if dtype is not None else dtype_of(a)
    if dt.kind not in "fc":
        dt = np.dtype(np.float64)
    axes = normalize_axes(axis, a.ndim)
    n = math.prod(a.shape[i] for i in axes)
    # NumPy sums float16 in float32 (a float16 sum of 6e4 + 6e4 overflows)
    acc = np.dtype(np.float32) if dt == np.float16 and dtype is None else dt
    total = R._reduce(reduce_sum_p, cast(a, acc), axis, keepdims)
    out = divide(total, float(n)) if n else multiply(total, float("nan"))
    return out if acc == dt else cast(out, dt)


def var(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: int = 0,
        keepdims: bool = False) -> Any:
    """Variance ``mean(|x - mean(x)|^2)`` with ``ddof`` as NumPy.

    >>> import fad.numpy as fnp
    >>> float(fnp.var(fnp.array([1.0, 3.0])))
    1.0
    """
    _no_out(out)
    a = asarray(a)
    centered = subtract(a, mean(a, axis, dtype, keepdims=True))
    axes = normalize_axes(axis, a.ndim)
    n = math.prod(a.shape[i] for i in axes)
    if dtype_of(centered).kind == "c":  # |c|^2, a real array (as NumPy)
        re, im = real(centered), imag(centered)
        ss = R.sum(multiply(re, re) + multiply(im, im), axis, keepdims=keepdims)
    else:
        ss = R.sum(multiply(centered, centered), axis, keepdims=keepdims)
    return divide(ss, float(builtins.max(n - ddof, 0)))  # (NumPy: inf, or nan, when ddof >= n)


def std(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: int = 0,
        keepdims: bool = False) -> Any:
    """Standard deviation, ``sqrt(var)``.

    Where the spread is 0 (all values equal) the derivative is 0, not NaN:
    ``std`` is a scaled Euclidean norm of ``x - mean(x)``, and at 0 a norm's
    subgradients fill a ball whose smallest element is 0 (the convention fad
    uses for ``abs`` at 0, and the value HIPS autograd's tests expect; JAX
    returns NaN, the 0/0 of the chain rule through ``sqrt``).

    >>> import fad, fad.numpy as fnp
    >>> float(fnp.std(fnp.array([1.0, 3.0])))
    1.0
    >>> fad.grad(fnp.std)(fnp.array([2.0, 2.0])).tolist()
    [0.0, 0.0]
    """
    return spread_sqrt(var(a, axis, dtype, out, ddof, keepdims))


def spread_sqrt(v: Any) -> Any:
    """``sqrt(v)`` whose derivative is 0 where ``v == 0`` (double ``where``: the
    ``sqrt`` branch never sees 0, so no 0/0 reaches any derivative)."""
    zero = M.equal(v, 0)
    return M.where(zero, 0, sqrt(M.where(zero, 1, v)))


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
        avg = mean(a, axis, keepdims=keepdims)
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
    if not isinstance(frac, Tracer):  # NumPy weights, moved to the data's backend
        frac = constant(frac, srt)
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
    res = mean(I.take(srt, idx, axis=-1), axis=-1)
    if n and dtype_of(srt).kind in "fc":  # a NaN (sorted last) makes the median NaN
        res = M.where(M.isnan(srt[..., -1]), np.nan, res)
    return _keep(res, a.shape, axis, keepdims)


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
    return spread_sqrt(nanvar(a, axis, dtype, out, ddof, keepdims))


def interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None,
           period: Any = None) -> Any:
    """Piecewise-linear interpolation (``xp`` increasing); differentiable in
    ``x``, ``xp`` and ``fp``.

    >>> import fad.numpy as fnp
    >>> fnp.interp(fnp.array([0.5, 1.5, 3.0]), [0.0, 1.0, 2.0], [0.0, 10.0, 0.0]).tolist()
    [5.0, 5.0, 0.0]
    """
    if period is not None:
        raise NotImplementedError("interp: period= is not supported")
    xp_, fp_ = _float(xp), _float(fp)
    x = _float(x)
    x, xp_, fp_ = promote_all(x, xp_, fp_)
    n = xp_.shape[0]
    i = M.clip(M.subtract(searchsorted(xp_, x, side="right"), 1), 0, max(n - 2, 0))
    j = M.minimum(M.add(i, 1), n - 1)
    x0, x1, f0, f1 = I.take(xp_, i), I.take(xp_, j), I.take(fp_, i), I.take(fp_, j)
    span = M.subtract(x1, x0)
    flat = M.equal(span, 0)
    t = M.divide(M.subtract(x, x0), M.where(flat, 1.0, span))
    out = M.where(flat, f0, M.add(f0, M.multiply(t, M.subtract(f1, f0))))
    lo = I.take(fp_, 0) if left is None else left
    hi = I.take(fp_, n - 1) if right is None else right
    out = M.where(M.less(x, I.take(xp_, 0)), lo, out)
    return M.where(M.greater(x, I.take(xp_, n - 1)), hi, out)


def cov(m: Any, y: Any = None, rowvar: bool = True, bias: bool = False,
        ddof: int | None = None, fweights: Any = None, aweights: Any = None, *,
        dtype: Any = None) -> Any:
    """Covariance matrix of the rows (variables) of ``m``; ``fweights`` (integer
    repeat counts) and ``aweights`` (observation weights) weigh the columns, as
    NumPy's.

    >>> import fad.numpy as fnp
    >>> fnp.cov(fnp.array([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])).tolist()
    [[1.0, -1.0], [-1.0, 1.0]]
    >>> fnp.cov(fnp.array([0.0, 1.0, 2.0]), fweights=fnp.array([1, 1, 2])).round(4).tolist()
    0.9167
    """
    x = atleast_2d(_float(m))
    if not rowvar and x.shape[0] != 1:
        x = S.transpose(x)
    if y is not None:
        yy = atleast_2d(_float(y))
        if not rowvar and yy.shape[0] != 1:
            yy = S.transpose(yy)
        x = S.concatenate(promote_all(x, yy), axis=0)
    n = x.shape[1]
    ddof = (0 if bias else 1) if ddof is None else ddof
    w = None if fweights is None else _float(fweights)
    if aweights is not None:
        w = _float(aweights) if w is None else M.multiply(w, _float(aweights))
    if w is None:
        xc = M.subtract(x, mean(x, axis=1, keepdims=True))
        c = M.divide(C.matmul(xc, _adjoint(xc)), float(n - ddof))
    else:  # the weighted mean, and the weighted sum of products over NumPy's factor
        w_sum = R.sum(w)
        xc = M.subtract(x, M.divide(R.sum(M.multiply(x, w), axis=1, keepdims=True), w_sum))
        if ddof == 0:
            fact = w_sum
        elif aweights is None:
            fact = M.subtract(w_sum, ddof)
        else:
            fact = M.subtract(w_sum, M.divide(M.multiply(ddof, R.sum(M.multiply(
                w, _float(aweights)))), w_sum))
        c = M.divide(C.matmul(M.multiply(xc, w), _adjoint(xc)), fact)
    c = S.squeeze(c) if c.shape == (1, 1) else c
    return c if dtype is None else cast(c, np.dtype(dtype))


def _adjoint(x: Any) -> Any:
    """The conjugate transpose of a matrix (the transpose of a real one): complex
    variables' covariances are ``E[(x - mean) conj(y - mean)]``, as NumPy's."""
    t = S.transpose(x)
    return conj(t) if dtype_of(t).kind == "c" else t


def corrcoef(x: Any, y: Any = None, rowvar: bool = True, *, dtype: Any = None) -> Any:
    """Pearson correlation coefficients.

    >>> import fad.numpy as fnp
    >>> fnp.corrcoef(fnp.array([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])).round(6).tolist()
    [[1.0, -1.0], [-1.0, 1.0]]
    """
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return M.divide(c, c)
    d = M.sqrt(real(diagonal(c)))  # (a variance is real: its imaginary part is rounding)
    c = M.divide(M.divide(c, S.reshape(d, (-1, 1))), S.reshape(d, (1, -1)))
    if dtype_of(c).kind != "c":
        return M.clip(c, -1, 1)
    # NumPy clips the real and imaginary parts apart
    return M.add(M.clip(real(c), -1, 1), M.multiply(M.clip(imag(c), -1, 1), 1j))


def digitize(x: Any, bins: Any, right: bool = False) -> Any:
    """Indices of the bins (increasing ``bins``) containing ``x``; no derivative.

    >>> import fad.numpy as fnp
    >>> fnp.digitize(fnp.array([0.5, 1.5]), fnp.array([0.0, 1.0, 2.0])).tolist()
    [1, 2]
    """
    return searchsorted(bins, x, side="left" if right else "right")


def bincount(x: Any, /, weights: Any = None, minlength: int = 0) -> Any:
    """Counts (or sums of ``weights``) per non-negative integer of ``x`` (concrete
    ``x``); differentiable in ``weights`` (a scatter-add).

    >>> import fad.numpy as fnp
    >>> fnp.bincount(fnp.array([0, 2, 2]), weights=fnp.array([1.0, 2.0, 3.0])).tolist()
    [1.0, 0.0, 5.0]
    """
    xc = concrete_array(x, "bincount").astype(np.int64)
    n = max(int(xc.max()) + 1 if xc.size else 0, minlength)
    if weights is None:
        return asarray(np.bincount(xc, minlength=minlength))
    w = asarray(weights)
    if dtype_of(w).kind not in "f":
        w = cast(w, np.dtype(np.float64))
    return bind(P.scatter_add_p, w, xc, indexer=P.Indexer((P.ARRAY,)), shape=(n,))


def _nan_quantile_1(srt: Any, cnt: Any, q: float) -> Any:
    pos = M.multiply(q, M.subtract(cnt, 1))
    lo = M.floor(pos)
    hi = M.minimum(M.add(lo, 1), M.subtract(cnt, 1))
    frac = M.subtract(pos, lo)
    idx = lambda v: S.expand_dims(cast(M.maximum(v, 0), np.dtype(np.int64)), -1)
    x_lo = S.squeeze(I.take_along_axis(srt, idx(lo), -1), -1)
    x_hi = S.squeeze(I.take_along_axis(srt, idx(hi), -1), -1)
    val = M.add(x_lo, M.multiply(frac, M.subtract(x_hi, x_lo)))
    return M.where(M.equal(cnt, 0), np.nan, val)


def nanquantile(a: Any, q: Any, axis: Any = None, out: Any = None,
                overwrite_input: bool = False, method: str = "linear",
                keepdims: bool = False) -> Any:
    """Quantiles of the non-NaN elements (linear method; NaN sorts last, so the
    order statistics are gathered at indices computed from the count).

    >>> import fad.numpy as fnp
    >>> float(fnp.nanquantile(fnp.array([1.0, fnp.nan, 3.0]), 0.5))
    2.0
    """
    _no_out(out)
    if method != "linear":
        raise NotImplementedError("nanquantile supports method='linear' only")
    a = _float(a)
    qc = concrete_or_none(q)
    if qc is None:
        raise ConcretizationError("nanquantile: q must be concrete (not traced)")
    qs = np.asarray(qc, np.float64)
    srt = sort(_moved_last(a, axis), axis=-1)
    cnt = cast(R.sum(M.logical_not(M.isnan(srt)), axis=-1), dtype_of(srt))
    vals = [_nan_quantile_1(srt, cnt, float(v)) for v in qs.ravel()]
    res = S.reshape(S.stack(vals), qs.shape + vals[0].shape) if qs.ndim else vals[0]
    if keepdims:
        axes = tuple(range(a.ndim)) if axis is None else \
            tuple(v % a.ndim for v in np.atleast_1d(axis).tolist())
        res = S.reshape(res, qs.shape + tuple(1 if i in axes else n
                                              for i, n in enumerate(a.shape)))
    return res


def nanpercentile(a: Any, q: Any, axis: Any = None, out: Any = None,
                  overwrite_input: bool = False, method: str = "linear",
                  keepdims: bool = False) -> Any:
    """Percentiles of the non-NaN elements.

    >>> import fad.numpy as fnp
    >>> float(fnp.nanpercentile(fnp.array([1.0, fnp.nan, 3.0]), 50))
    2.0
    """
    qc = concrete_or_none(q)
    if qc is None:
        raise ConcretizationError("nanpercentile: q must be concrete (not traced)")
    return nanquantile(a, np.true_divide(qc, 100), axis, out, overwrite_input, method,
                       keepdims)


def nanmedian(a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
              keepdims: bool = False) -> Any:
    """Median of the non-NaN elements.

    >>> import fad.numpy as fnp
    >>> float(fnp.nanmedian(fnp.array([1.0, fnp.nan, 3.0, 10.0])))
    3.0
    """
    return nanquantile(a, 0.5, axis, out, keepdims=keepdims)
