"""Scans and products along axes: ``cumsum``, ``cumprod``, ``reduce_prod``; and
``pad`` (constant padding), which the scans use to shift arrays.

``cumsum`` is linear: its transpose is the cumulative sum in the other
direction. ``cumprod`` and ``reduce_prod`` have tangents written with scans of
products only (never a division), so they are exact where some ``x`` is zero.
"""

from __future__ import annotations

import math
from typing import Any

from ..backends import backend_for
from ..core.errors import ShapeError
from ..core.ir import ShapedArray
from ..core.linear import is_undefined
from ..core.primitive import Primitive
from ..core.trace import bind, shape_of
from .builders import batch_moving_axis, defjvp, deflinear, loop_batch_rule, to_front, zeros_like
from .indexing import gather, slice_axis
from .reductions import _reduced, reduce_sum_p
from .structural import reshape, transpose


def _flip(xp: Any, x: Any, axis: int, on: bool) -> Any:
    return xp.flip(x, axis=axis) if on else x


def _scan_impl(primitive: str, name: str, fallback: str):
    """The standard's ``name`` (``cumulative_sum``), else the namespace's older
    ``fallback`` (``cumsum``), else NotImplementedError naming the primitive."""
    def impl(xp: Any, x: Any, *, axis: int, reverse: bool) -> Any:
        f = getattr(xp, name, None) or backend_for(xp).function(primitive, fallback)
        return _flip(xp, f(_flip(xp, x, axis, reverse), axis=axis), axis, reverse)
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
def _cumprod_jvp(primals: list, tangents: list, *, axis: int, reverse: bool) -> tuple:
    """Tangent by a Hillis-Steele scan over (value, tangent) pairs:
    (y, t) * (y', t') = (y y', t y' + y t'). Only products: exact at zeros."""
    (x,), (g,) = primals, tangents
    ans = bind(cumprod_p, x, axis=axis, reverse=reverse)
    y, t = x, g
    n, k = shape_of(x)[axis], 1
    while k < n:
        ys, ts = shift(y, axis, k, 1.0, reverse), shift(t, axis, k, 0.0, reverse)
        y, t = y * ys, t * ys + y * ts
        k *= 2
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


reduce_prod_p = Primitive("reduce_prod", lambda xp, x, *, axes: xp.prod(x, axis=axes),
                          lambda x, *, axes: _reduced(x, axes))
defjvp(reduce_prod_p, _prod_partial, elementwise=False)
reduce_prod_p.batch = batch_moving_axis(reduce_prod_p, "axes")

__all__ = ["cumsum_p", "cumprod_p", "reduce_prod_p", "pad_p", "cumsum", "cumprod", "pad",
           "shift", "others_product"]
