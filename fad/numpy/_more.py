"""Statistics, interpolation and small helpers of NumPy, as composites of
``fad.numpy`` functions (so they are differentiable wherever their pieces are),
and the functions ``fad.numpy`` deliberately does not provide.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from ..core.errors import ConcretizationError
from ..core.trace import Tracer, bind, concrete_or_none
from ..primitives import indexing as P
from . import _contractions as C
from . import _creation as K
from . import _indexing as I
from . import _math as M
from . import _reductions as R
from . import _shape as S
from ._base import asarray, cast, concrete_array, dtype_of, numpy_constant
from ._base import no_out as _no_out
from ._extra import _moved_last, searchsorted, sort
from ._indexing import diagonal
from ._math import _float
from ._shape import _slice, atleast_2d


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
    _, (x, xp_, fp_) = _common(x, xp_, fp_)
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


def _common(*xs: Any) -> tuple:
    xs = [asarray(x) for x in xs]
    dt = np.result_type(*[dtype_of(x) for x in xs])
    return dt, [cast(x, dt) for x in xs]


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


def cov(m: Any, y: Any = None, rowvar: bool = True, bias: bool = False,
        ddof: int | None = None, fweights: Any = None, aweights: Any = None, *,
        dtype: Any = None) -> Any:
    """Covariance matrix of the rows (variables) of ``m`` (no weights).

    >>> import fad.numpy as fnp
    >>> fnp.cov(fnp.array([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])).tolist()
    [[1.0, -1.0], [-1.0, 1.0]]
    """
    if fweights is not None or aweights is not None:
        raise NotImplementedError("cov: fweights / aweights are not supported")
    x = atleast_2d(_float(m))
    if not rowvar and x.shape[0] != 1:
        x = S.transpose(x)
    if y is not None:
        yy = atleast_2d(_float(y))
        if not rowvar and yy.shape[0] != 1:
            yy = S.transpose(yy)
        x = S.concatenate(list(_common(x, yy)[1]), axis=0)
    n = x.shape[1]
    ddof = (0 if bias else 1) if ddof is None else ddof
    xc = M.subtract(x, R.mean(x, axis=1, keepdims=True))
    c = M.divide(C.matmul(xc, S.transpose(xc)), float(n - ddof))
    c = S.squeeze(c) if c.shape == (1, 1) else c
    return c if dtype is None else cast(c, np.dtype(dtype))


def corrcoef(x: Any, y: Any = None, rowvar: bool = True, *, dtype: Any = None) -> Any:
    """Pearson correlation coefficients.

    >>> import fad.numpy as fnp
    >>> fnp.corrcoef(fnp.array([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])).round(6).tolist()
    [[1.0, -1.0], [-1.0, 1.0]]
    """
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return M.divide(c, c)
    d = M.sqrt(diagonal(c))
    c = M.divide(M.divide(c, S.reshape(d, (-1, 1))), S.reshape(d, (1, -1)))
    return M.clip(c, -1, 1)


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


def apply_along_axis(func1d: Callable, axis: int, arr: Any, *args: Any, **kwargs: Any
                     ) -> Any:
    """Apply ``func1d`` to every 1-d slice along ``axis`` (a loop; results stacked
    where the axis was).

    >>> import fad.numpy as fnp
    >>> fnp.apply_along_axis(fnp.sum, 1, fnp.ones((2, 3))).tolist()
    [3.0, 3.0]
    """
    a = asarray(arr)
    ax = axis % a.ndim
    moved = S.moveaxis(a, ax, -1)
    lead = moved.shape[:-1]
    rows = S.reshape(moved, (-1, moved.shape[-1]))
    outs = [asarray(func1d(rows[i], *args, **kwargs)) for i in range(rows.shape[0])]
    res = S.reshape(S.stack(outs), lead + outs[0].shape)
    if outs[0].ndim == 0:
        return res
    return S.moveaxis(res, tuple(range(len(lead), res.ndim)),
                      tuple(range(ax, ax + outs[0].ndim)))


def apply_over_axes(func: Callable, a: Any, axes: Any) -> Any:
    """``func(a, axis)`` for each axis in turn, keeping dimensions.

    >>> import fad.numpy as fnp
    >>> fnp.apply_over_axes(fnp.sum, fnp.ones((2, 3)), [0, 1]).tolist()
    [[6.0]]
    """
    val = asarray(a)
    for ax in np.atleast_1d(axes).tolist():
        res = asarray(func(val, ax))
        val = res if res.ndim == val.ndim else S.expand_dims(res, ax)
    return val


def piecewise(x: Any, condlist: Any, funclist: Sequence, *args: Any, **kw: Any) -> Any:
    """Evaluate ``funclist[i]`` where ``condlist[i]`` holds (later conditions win;
    one extra function is the default). Every function is evaluated everywhere:
    keep them finite (double where) where they are not selected.

    >>> import fad.numpy as fnp
    >>> x = fnp.array([-1.0, 2.0])
    >>> fnp.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v ** 2]).tolist()
    [1.0, 4.0]
    """
    x = asarray(x)
    if isinstance(condlist, Tracer) or not isinstance(condlist, list | tuple):
        condlist = [condlist]
    out = K.zeros(x.shape, dtype_of(x))
    conds = list(condlist)
    if len(funclist) == len(conds) + 1:
        rest = M.logical_not(R.any(S.stack([asarray(c) for c in conds]), axis=0))
        conds.append(rest)
    for c, f in zip(conds, funclist):
        val = f(x, *args, **kw) if callable(f) else f
        out = M.where(c, val, out)
    return out


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


def result_type(*arrays_and_dtypes: Any) -> np.dtype:
    """NumPy's promotion of the arguments' dtypes (traced arrays included).

    >>> import fad.numpy as fnp
    >>> fnp.result_type(fnp.ones(2, fnp.float32), 1.0)
    dtype('float32')
    """
    keys = [x.dtype if isinstance(x, Tracer) else x for x in arrays_and_dtypes]
    return np.result_type(*keys)


bartlett, blackman, hamming, hanning, kaiser = (
    numpy_constant(name, __name__) for name in ("bartlett", "blackman", "hamming", "hanning",
                                                 "kaiser"))
can_cast, promote_types, min_scalar_type = np.can_cast, np.promote_types, np.min_scalar_type
issubdtype, isdtype, finfo, iinfo = np.issubdtype, np.isdtype, np.finfo, np.iinfo


# ---------------------------------------------------------------- not supported
def _unsupported(name: str, why: str) -> Any:
    def fn(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"fad.numpy.{name} is not supported: {why}")
    fn.__name__ = name
    fn.__doc__ = f"Not supported: ``numpy.{name}`` ({why})."
    return fn


_MUTATES = ("it modifies its argument in place and fad's arrays are immutable; build "
            "the result functionally (fnp.where, fnp.concatenate, x[idx] gathers)")
# NumPy functions of the covered categories that fad.numpy does not provide, and why
# (tests/test_numpy_coverage.py checks that each raises NotImplementedError naming it).
NOT_SUPPORTED = {
    "put": _MUTATES, "put_along_axis": _MUTATES, "place": _MUTATES, "putmask": _MUTATES,
    "fill_diagonal": _MUTATES, "copyto": _MUTATES,
    "frexp": "mantissa/exponent split of the float representation (no derivative); "
             "use NumPy on concrete values",
    "spacing": "distance to the next float (representation-level, no derivative)",
    "nextafter": "next representable float (representation-level, no derivative)",
    "i0": "modified Bessel function of order 0: not implemented yet",
    "histogram": "data-dependent bins, no derivative; use NumPy on concrete values",
    "histogram2d": "data-dependent bins, no derivative; use NumPy on concrete values",
    "histogramdd": "data-dependent bins, no derivative; use NumPy on concrete values",
    "histogram_bin_edges": "data-dependent bins; use NumPy on concrete values",
    "einsum_path": "a contraction-order planner, not a computation; fad.numpy.einsum "
                   "plans its own contractions",
    "unwrap": "phase unwrapping (discontinuous): not implemented yet",
}
(put, put_along_axis, place, putmask, fill_diagonal, copyto, frexp, spacing, nextafter, i0,
 histogram, histogram2d, histogramdd, histogram_bin_edges, einsum_path, unwrap) = (
    _unsupported(name, why) for name, why in NOT_SUPPORTED.items())

