"""Scans and products along axes: ``cumsum``, ``cumprod``, ``cummax``,
``cummin``, ``cumlogsumexp``, ``reduce_prod``; and ``pad`` (constant padding),
which the scans use to shift arrays.

``cumsum`` is linear: its transpose is the cumulative sum in the other
direction. ``cumprod`` and ``reduce_prod`` have tangents written with scans of
products only (never a division), so they are exact where some ``x`` is zero.
``cummax``/``cummin`` pass each output the tangent of its running argmax (on
ties, the latest in scan order); ``cumlogsumexp``'s tangent is the running
softmax-weighted sum of tangents, by a scan of (value, tangent) pairs whose
weights never exceed 1 (stable for any magnitude).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from ..backends import backend_for
from ..core.errors import ShapeError
from ..core.ir import ShapedArray
from ..core.linear import is_undefined
from ..core.primitive import Primitive
from ..core.trace import bind, shape_of
from .builders import batch_moving_axis, defjvp, deflinear, loop_batch_rule, to_front, zeros_like
from .elementwise import eq_p, select
from .indexing import gather, slice_axis
from .reductions import _reduced, reduce_sum_p
from .sorting import constant, take_along
from .special import _weight as logaddexp_weight
from .special import logaddexp_p
from .structural import broadcast_to, reshape, transpose


def _flip(xp: Any, x: Any, axis: int, on: bool) -> Any:
    return xp.flip(x, axis=axis) if on else x


def _scan_impl(primitive: str, name: str, fallback: str):
    """The standard's ``name`` (``cumulative_sum``), else the namespace's older
    ``fallback`` (``cumsum``), else NotImplementedError naming the primitive."""
    def impl(xp: Any, x: Any, *, axis: int, reverse: bool) -> Any:
        f = getattr(xp, name, None) or backend_for(xp).function(primitive, fallback)
        return _flip(xp, f(_flip(xp, x, axis, reverse), axis=axis, dtype=x.dtype), axis, reverse)
    return impl


def _accumulate_impl(name: str):
    """``xp.<name>.accumulate`` (a NumPy ufunc's) along the axis, else a
    Hillis-Steele scan of ``xp.<name>`` (log2(n) rounds) on namespaces without it."""
    def impl(xp: Any, x: Any, *, axis: int, reverse: bool) -> Any:
        f = getattr(xp, name)
        x = _flip(xp, x, axis, reverse)
        if hasattr(f, "accumulate"):
            return _flip(xp, f.accumulate(x, axis=axis), axis, reverse)
        concat = getattr(xp, "concat", None) or xp.concatenate
        n, k = x.shape[axis], 1
        while k < n:
            part = [slice(None)] * x.ndim
            part[axis] = slice(0, k)
            head = x[tuple(part)]
            part[axis] = slice(k, None)
            later = x[tuple(part)]
            part[axis] = slice(0, n - k)
            x = concat([head, f(x[tuple(part)], later)], axis=axis)
            k *= 2
        return _flip(xp, x, axis, reverse)
    return impl


def _scan_aval(x: ShapedArray, *, axis: int, reverse: bool) -> ShapedArray:
    if not 0 <= axis < max(x.ndim, 1):
        raise ShapeError(f"scan axis {axis} out of range for shape {x.shape}")
    return x


# ------------------------------------------------------------------ cumsum
cumsum_p = Primitive("cumsum", _scan_impl("cumsum", "cumulative_sum", "cumsum"), _scan_aval)
deflinear(cumsum_p, lambda ct, x, *, axis, reverse: [cumsum(ct, axis, not reverse)])
cumsum_p.batch = batch_moving_axis(cumsum_p, "axis")


def cumsum(x: Any, axis: int, reverse: bool = False) -> Any:
    """Bind ``cumsum`` (``reverse``: summing from the end).

    >>> import numpy as np
    >>> cumsum(np.array([1.0, 2.0, 3.0]), 0, reverse=True).tolist()
    [6.0, 5.0, 3.0]
    """
    return bind(cumsum_p, x, axis=axis, reverse=reverse)


# ------------------------------------------------------------------ pad
def _pad_aval(x: ShapedArray, v: ShapedArray, *, widths: tuple) -> ShapedArray:
    if len(widths) != x.ndim or any(lo < 0 or hi < 0 for lo, hi in widths):
        raise ShapeError(f"pad widths {widths} do not fit shape {x.shape}")
    return ShapedArray(tuple(n + lo + hi for n, (lo, hi) in zip(x.shape, widths)), x.dtype)


def _pad_impl(xp: Any, x: Any, v: Any, *, widths: tuple) -> Any:
    shape = tuple(n + lo + hi for n, (lo, hi) in zip(x.shape, widths))
    out = xp.full(shape, v, dtype=x.dtype) if isinstance(v, int | float | complex) else \
        xp.zeros(shape, dtype=x.dtype) + xp.astype(v, x.dtype)
    out[tuple(slice(lo, lo + n) for n, (lo, _) in zip(x.shape, widths))] = x
    return out


def _interior(ct: Any, widths: tuple) -> Any:
    shape = shape_of(ct)
    return gather(ct, tuple(slice(lo, n - hi) for n, (lo, hi) in zip(shape, widths)))


def _pad_transpose(ct: Any, x: Any, v: Any, *, widths: tuple) -> list:
    inner = _interior(ct, widths)
    # the padding value fills every cell outside the interior
    ct_v = bind(reduce_sum_p, ct, axes=tuple(range(len(widths)))) - \
        bind(reduce_sum_p, inner, axes=tuple(range(len(widths)))) if is_undefined(v) else None
    return [inner if is_undefined(x) else None, ct_v]


def _pad_jvp(primals: list, tangents: list, *, widths: tuple) -> tuple:
    # linear in (x, value); a missing tangent is a zero of x's backend / a Python 0
    (x, v), (gx, gv) = primals, tangents
    gx = zeros_like(x) if gx is None else gx
    return bind(pad_p, x, v, widths=widths), bind(pad_p, gx, 0.0 if gv is None else gv,
                                                  widths=widths)


pad_p = Primitive("pad", _pad_impl, _pad_aval)
pad_p.jvp = _pad_jvp
pad_p.transpose = _pad_transpose


def _pad_batch(size: int, vals: list, dims: list, *, widths: tuple) -> tuple:
    (x, v), (dx, dv) = vals, dims
    if dv is not None:
        return loop_batch_rule(pad_p)(size, vals, dims, widths=widths)
    return bind(pad_p, to_front(x, dx, size), v, widths=((0, 0),) + tuple(widths)), 0


pad_p.batch = _pad_batch


def pad(x: Any, widths: tuple, value: Any = 0.0) -> Any:
    """Constant padding; ``widths`` one ``(before, after)`` pair per axis.

    >>> import numpy as np
    >>> pad(np.array([1.0]), ((1, 2),), 5.0).tolist()
    [5.0, 1.0, 5.0, 5.0]
    """
    widths = tuple((int(lo), int(hi)) for lo, hi in widths)
    if not any(lo or hi for lo, hi in widths):
        return x
    return bind(pad_p, x, value, widths=widths)


def shift(x: Any, axis: int, k: int, fill: float, reverse: bool = False) -> Any:
    """``x`` moved ``k`` places along ``axis`` (towards the end, or the start when
    ``reverse``), the vacated places filled with ``fill``.

    >>> import numpy as np
    >>> shift(np.array([1.0, 2.0, 3.0]), 0, 1, 0.0).tolist()
    [0.0, 1.0, 2.0]
    """
    n = shape_of(x)[axis]
    k = min(k, n)
    widths = [(0, 0)] * len(shape_of(x))
    widths[axis] = (0, k) if reverse else (k, 0)
    kept = slice_axis(x, axis, k, n) if reverse else slice_axis(x, axis, 0, n - k)
    return pad(kept, tuple(widths), fill)


# ------------------------------------------------------------------ cumprod
def pair_scan(pair: tuple, fills: tuple, combine: Any, axis: int, reverse: bool) -> tuple:
    """The inclusive scan of a tuple of arrays by an associative
    ``combine(earlier, later)``, in Hillis-Steele rounds (shifts by 1, 2, 4...;
    ``fills`` is the identity element, one value per array).

    >>> import numpy as np
    >>> pair_scan((np.array([1.0, 2.0, 3.0]),), (0.0,),
    ...           lambda a, b: (a[0] + b[0],), 0, False)[0].tolist()
    [1.0, 3.0, 6.0]
    """
    n, k = shape_of(pair[0])[axis], 1
    while k < n:
        earlier = tuple(shift(v, axis, k, f, reverse) for v, f in zip(pair, fills))
        pair = combine(earlier, pair)
        k *= 2
    return pair


def _cumprod_jvp(primals: list, tangents: list, *, axis: int, reverse: bool) -> tuple:
    """Tangent by a scan over (value, tangent) pairs:
    (y, t) * (y', t') = (y y', t y' + y t'). Only products: exact at zeros."""
    (x,), (g,) = primals, tangents
    ans = bind(cumprod_p, x, axis=axis, reverse=reverse)
    _, t = pair_scan((x, g), (1.0, 0.0), lambda a, b: (b[0] * a[0], b[1] * a[0] + b[0] * a[1]),
                     axis, reverse)
    return ans, t


cumprod_p = Primitive("cumprod", _scan_impl("cumprod", "cumulative_prod", "cumprod"), _scan_aval)
cumprod_p.jvp = _cumprod_jvp
cumprod_p.batch = batch_moving_axis(cumprod_p, "axis")


def cumprod(x: Any, axis: int, reverse: bool = False) -> Any:
    """Bind ``cumprod``.

    >>> import numpy as np
    >>> cumprod(np.array([1.0, 2.0, 3.0]), 0).tolist()
    [1.0, 2.0, 6.0]
    """
    return bind(cumprod_p, x, axis=axis, reverse=reverse)


# ------------------------------------------------------------------ cummax, cummin
def _running_arg_jvp(primals: list, tangents: list, *, prim: Primitive, axis: int,
                     reverse: bool) -> tuple:
    """Each output's tangent is that of its running argmax (argmin): the position
    closest to it, in scan order, where ``x`` equals its own running extremum
    (the latest such position forwards, so the cummax of the positions; the
    earliest backwards, the reversed cummin)."""
    (x,), (g,) = primals, tangents
    ans = bind(prim, x, axis=axis, reverse=reverse)
    shape = shape_of(x)
    n = shape[axis]
    pos = broadcast_to(constant(np.arange(n, dtype=np.int64).reshape(
        [-1 if d == axis else 1 for d in range(len(shape))]), x), shape)
    marked = select(bind(eq_p, x, ans), pos, n if reverse else -1)  # (weak: any backend)
    idx = bind(cummin_p if reverse else cummax_p, marked, axis=axis, reverse=reverse)
    return ans, take_along(g, idx, axis)


def _running_extremum(name: str, xp_name: str) -> Primitive:
    prim = Primitive(name, _accumulate_impl(xp_name), _scan_aval)
    prim.jvp = functools.partial(_running_arg_jvp, prim=prim)
    prim.batch = batch_moving_axis(prim, "axis")
    return prim


cummax_p = _running_extremum("cummax", "maximum")
cummin_p = _running_extremum("cummin", "minimum")


# ------------------------------------------------------------------ cumlogsumexp
def _cumlogsumexp_jvp(primals: list, tangents: list, *, axis: int, reverse: bool) -> tuple:
    """y_i = log sum_{j<=i} e^{x_j}, dy_i = sum_{j<=i} e^{x_j - y_i} dx_j: a scan of
    (y, t) pairs, (y, t) + (y', t') = (logaddexp(y, y'), t w(y, y') + t' w(y', y)),
    w(a, b) = logistic(a - b) <= 1 (logaddexp's own partials)."""
    (x,), (g,) = primals, tangents
    ans = bind(cumlogsumexp_p, x, axis=axis, reverse=reverse)

    def combine(a: tuple, b: tuple) -> tuple:
        return (bind(logaddexp_p, a[0], b[0]),
                a[1] * logaddexp_weight(a[0], b[0]) + b[1] * logaddexp_weight(b[0], a[0]))
    _, t = pair_scan((x, g), (-np.inf, 0.0), combine, axis, reverse)
    return ans, t


cumlogsumexp_p = Primitive("cumlogsumexp", _accumulate_impl("logaddexp"), _scan_aval)
cumlogsumexp_p.jvp = _cumlogsumexp_jvp
cumlogsumexp_p.batch = batch_moving_axis(cumlogsumexp_p, "axis")


# ------------------------------------------------------------------ reduce_prod
def others_product(x: Any, axis: int) -> Any:
    """``prod_{k != i} x_k`` along ``axis`` for every ``i``: the exclusive products
    from the left times those from the right (no division, exact at zeros).

    >>> import numpy as np
    >>> others_product(np.array([2.0, 0.0, 3.0]), 0).tolist()
    [0.0, 6.0, 0.0]
    """
    left = shift(cumprod(x, axis), axis, 1, 1.0)
    right = shift(cumprod(x, axis, reverse=True), axis, 1, 1.0, reverse=True)
    return left * right


def _prod_partial(g: Any, ans: Any, x: Any, *, axes: tuple) -> Any:
    # the reduced axes moved last and merged into one, of length n
    shape = shape_of(x)
    kept = [i for i in range(len(shape)) if i not in axes]
    flat = tuple(shape[i] for i in kept) + (math.prod(shape[a] for a in axes),)
    xs, gs = (reshape(transpose(v, tuple(kept) + tuple(axes)), flat) for v in (x, g))
    last = len(flat) - 1
    return bind(reduce_sum_p, others_product(xs, last) * gs, axes=(last,))


reduce_prod_p = Primitive(
    "reduce_prod", lambda xp, x, *, axes: xp.prod(x, axis=axes, dtype=x.dtype),
    lambda x, *, axes: _reduced(x, axes))
defjvp(reduce_prod_p, _prod_partial, elementwise=False)
reduce_prod_p.batch = batch_moving_axis(reduce_prod_p, "axes")

__all__ = ["cumsum_p", "cumprod_p", "cummax_p", "cummin_p", "cumlogsumexp_p",
           "reduce_prod_p", "pad_p", "cumsum", "cumprod", "pad", "shift", "others_product",
           "pair_scan"]
