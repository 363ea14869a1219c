"""Reductions of ``fad.numpy``: ``axis`` (int, tuple, negative, None) and ``keepdims``."""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

from ..core.trace import bind
from ..primitives import reductions as R
from ..primitives.shapes import normalize_axes
from ..primitives.structural import reshape
from ._base import asarray, cast, dtype_of
from ._base import no_out as _no_out
from ._math import divide, multiply, not_equal, sqrt, subtract


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
    dt = np.dtype(dtype) if dtype is not None else dtype_of(a)
    if dtype is None and dt.kind in "biu" and dt.itemsize < 8 or dt.kind == "b":
        dt = np.dtype(np.uint64 if dt.kind == "u" else np.int64)
    return _reduce(R.reduce_sum_p, cast(a, dt), axis, keepdims)


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
    total = _reduce(R.reduce_sum_p, cast(a, acc), axis, keepdims)
    out = divide(total, float(n)) if n else multiply(total, float("nan"))
    return out if acc == dt else cast(out, dt)


def max(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> Any:
    """Maximum over ``axis``; the derivative is shared equally among ties.

    >>> import fad.numpy as fnp
    >>> float(fnp.max(fnp.array([1.0, 3.0, 2.0])))
    3.0
    """
    _no_out(out)
    return _reduce(R.reduce_max_p, asarray(a), axis, keepdims)


def min(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> Any:
    """Minimum over ``axis``; the derivative is shared equally among ties."""
    _no_out(out)
    return _reduce(R.reduce_min_p, asarray(a), axis, keepdims)


amax, amin = max, min


def _arg(prim: Any, a: Any, axis: Any, keepdims: bool) -> Any:
    a = asarray(a)
    if axis is None:
        out = bind(prim, reshape(a, (a.size,)), axis=0)
        return reshape(out, (1,) * a.ndim) if keepdims else out
    (ax,) = normalize_axes(axis, a.ndim)
    out = bind(prim, a, axis=ax)
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
    """Index of the minimum (not differentiable)."""
    _no_out(out)
    return _arg(R.argmin_p, a, axis, keepdims)


def any(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> Any:
    """Whether any element is true."""
    _no_out(out)
    return _reduce(R.reduce_or_p, _truth(a), axis, keepdims)


def all(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> Any:
    """Whether every element is true."""
    _no_out(out)
    return _reduce(R.reduce_and_p, _truth(a), axis, keepdims)


def _truth(a: Any) -> Any:
    """Each element's truth value (a complex number is true if either part is)."""
    a = asarray(a)
    return not_equal(a, 0) if dtype_of(a).kind == "c" else cast(a, np.dtype(bool))


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
        from ._complex import imag, real
        re, im = real(centered), imag(centered)
        ss = sum(multiply(re, re) + multiply(im, im), axis, keepdims=keepdims)
    else:
        ss = sum(multiply(centered, centered), axis, keepdims=keepdims)
    return divide(ss, float(builtins.max(n - ddof, 0)))  # (NumPy: inf, or nan, when ddof >= n)


def std(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: int = 0,
        keepdims: bool = False) -> Any:
    """Standard deviation, ``sqrt(var)``."""
    return sqrt(var(a, axis, dtype, out, ddof, keepdims))
