"""Reductions over ``axes`` (a sorted tuple of positive ints; no keepdims: fad.numpy
reshapes the result when ``keepdims=True``)."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ..core.ir import ShapedArray
from ..core.primitive import Primitive
from ..core.trace import aval_of, bind
from .builders import batch_moving_axis, defjvp, deflinear, defnondiff
from .structural import broadcast_to, convert_element_type, reshape


def _reduced(x: ShapedArray, axes: tuple, dtype: Any = None) -> ShapedArray:
    for a in axes:
        if not 0 <= a < x.ndim:
            raise np.exceptions.AxisError(a, x.ndim)
    return ShapedArray(tuple(n for i, n in enumerate(x.shape) if i not in axes),
                       x.dtype if dtype is None else dtype)


def keepdims_shape(shape: tuple, axes: tuple) -> tuple:
    return tuple(1 if i in axes else n for i, n in enumerate(shape))


def expand_reduced(y: Any, shape: tuple, axes: tuple) -> Any:
    """Broadcast a reduced array back to ``shape`` (the transpose of a sum)."""
    if axes != tuple(range(len(axes))):  # leading axes broadcast without a reshape
        y = reshape(y, keepdims_shape(shape, axes))
    return broadcast_to(y, shape)


# (the sum keeps x's dtype, as its abstract value says: fad.numpy.sum widens small
# integers itself, as NumPy's sum does, before it binds this)
reduce_sum_p = Primitive("reduce_sum", lambda xp, x, *, axes: xp.sum(x, axis=axes,
                                                                     dtype=x.dtype),
                         lambda x, *, axes: _reduced(x, axes))
deflinear(reduce_sum_p, lambda ct, x, *, axes: [expand_reduced(ct, x.aval.shape, axes)])
reduce_sum_p.batch = batch_moving_axis(reduce_sum_p, "axes")


def _max_partial(g: Any, ans: Any, x: Any, *, axes: tuple) -> Any:
    # the tangent flows to the maximal entries, shared equally among ties
    shape = aval_of(x).shape
    at_max = convert_element_type(x == expand_reduced(ans, shape, axes), aval_of(x).dtype)
    share = at_max / expand_reduced(bind(reduce_sum_p, at_max, axes=axes), shape, axes)
    return bind(reduce_sum_p, g * share, axes=axes)


reduce_max_p = Primitive("reduce_max", lambda xp, x, *, axes: xp.max(x, axis=axes),
                         lambda x, *, axes: _reduced(x, axes))
defjvp(reduce_max_p, _max_partial, elementwise=False)
reduce_max_p.batch = batch_moving_axis(reduce_max_p, "axes")
reduce_min_p = Primitive("reduce_min", lambda xp, x, *, axes: xp.min(x, axis=axes),
                         lambda x, *, axes: _reduced(x, axes))
defjvp(reduce_min_p, _max_partial, elementwise=False)
reduce_min_p.batch = batch_moving_axis(reduce_min_p, "axes")


def _ufunc_reduce_kernel(prim: Primitive, ufunc: np.ufunc) -> None:
    """For jit on NumPy: ``ufunc.reduce`` itself, which ``np.sum`` / ``np.max``
    call after their argument handling (same errors), in ``x``'s dtype as the
    abstract value says (see reduce_sum_p)."""
    prim.kernel = lambda xp, *, axes: (lambda x: ufunc.reduce(x, axes, x.dtype)) \
        if xp is np else functools.partial(prim._impl, xp, axes=axes)


for _prim, _ufunc in ((reduce_sum_p, np.add), (reduce_max_p, np.maximum),
                      (reduce_min_p, np.minimum)):
    _ufunc_reduce_kernel(_prim, _ufunc)


def _arg_aval(x: ShapedArray, *, axis: int) -> ShapedArray:
    return _reduced(x, (axis,), np.dtype(np.int64))


argmax_p = Primitive("argmax", lambda xp, x, *, axis: xp.argmax(x, axis=axis), _arg_aval)
argmin_p = Primitive("argmin", lambda xp, x, *, axis: xp.argmin(x, axis=axis), _arg_aval)
for _prim in (argmax_p, argmin_p):
    defnondiff(_prim)
    _prim.batch = batch_moving_axis(_prim, "axis")

_BOOL = np.dtype(bool)
reduce_or_p = Primitive("reduce_or", lambda xp, x, *, axes: xp.any(x, axis=axes),
                        lambda x, *, axes: _reduced(x, axes, _BOOL))
reduce_and_p = Primitive("reduce_and", lambda xp, x, *, axes: xp.all(x, axis=axes),
                         lambda x, *, axes: _reduced(x, axes, _BOOL))
for _prim in (reduce_or_p, reduce_and_p):
    defnondiff(_prim)
    _prim.batch = batch_moving_axis(_prim, "axes")
