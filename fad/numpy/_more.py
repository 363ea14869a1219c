"""Statistics, interpolation and small helpers of NumPy, as composites of
``fad.numpy`` functions (so they are differentiable wherever their pieces are),
and the functions ``fad.numpy`` deliberately does not provide.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from ..core.trace import Tracer
from . import _creation as K
from . import _math as M
from . import _reductions as R
from . import _shape as S
from ._base import asarray, dtype_of, numpy_constant


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

