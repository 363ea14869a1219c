"""Functional programming of ``fad.numpy``: ``apply_along_axis``,
``apply_over_axes`` and ``piecewise``, as loops and selections over the caller's
functions (differentiable wherever those are)."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from ..core.trace import Tracer
from . import _creation as K
from . import _math as M
from . import _reductions as R
from . import _shape as S
from ._base import asarray, dtype_of


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
