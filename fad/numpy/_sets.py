"""Set routines on 1-d (flattened) arrays: ``intersect1d``, ``union1d``,
``setdiff1d``, ``setxor1d`` (``unique`` is in ``_unique``).

Each sorts the candidates, marks the ones kept (first of a run of equal values,
and the set condition, written with ``isin``), and returns the kept values.
How many are kept depends on the data: eagerly (concrete values) the result has
exactly that length; under ``jit`` the length must be given as ``size=`` (JAX's
convention), the result then padded with ``fill_value`` (default: the smallest
kept value) or cut. The values are gathered from the inputs, so they carry
their derivatives; which ones are kept has none.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.errors import ConcretizationError
from ..core.trace import concrete_or_none
from . import _indexing as I
from . import _logic as L
from . import _math as M
from . import _reductions as R
from . import _shape as S
from . import _sorting as So
from ._base import asarray
from ._creation import arange


def _sorted_runs(values: Any, equal_nan: bool = False) -> tuple[Any, Any]:
    """The sorted values and the mask of the first of each run of equal ones
    (``equal_nan``: the NaNs, sorted last, are one run, as in NumPy's set routines)."""
    srt = So.sort(S.ravel(asarray(values)))
    if srt.shape[0] == 0:
        return srt, M.equal(srt, srt)
    rest = M.not_equal(srt[1:], srt[:-1])
    if equal_nan:
        rest = M.logical_and(rest, M.logical_not(M.isnan(srt[:-1])))
    return srt, S.concatenate([M.logical_or(M.equal(srt[:1], srt[:1]), M.isnan(srt[:1])), rest])


def select_kept(values: Any, keep: Any, size: int | None, fill_value: Any, name: str) -> Any:
    """``values[keep]``: eagerly (``size=None``, ``keep`` concrete), or with the
    static length ``size`` (the kept values first, in order, then ``fill_value``)."""
    if size is None:
        mask = concrete_or_none(keep)
        if mask is None:
            raise ConcretizationError(
                f"fad.numpy.{name}: the result's length depends on the data, which are "
                f"traced abstractly here (under fad.jit / make_jaxpr); pass size= (a static "
                f"length: the result is padded with fill_value or cut), as in "
                f"fnp.{name}(..., size=8)")
        return I.take(values, asarray(np.flatnonzero(np.asarray(mask))))
    n = values.shape[0]
    # the kept positions first (a stable sort of the keys), the others after them
    keys = M.where(keep, arange(n), n)
    order = So.argsort(keys)
    if size > n:
        order = S.concatenate([order, asarray(np.zeros(size - n, np.int64))])
        keys = S.concatenate([keys, asarray(np.full(size - n, n))])
    order = order[:size]
    valid = M.less(I.take(So.sort(keys), arange(size)), n) if n else \
        asarray(np.zeros(size, bool))
    picked = I.take(values, order) if n else asarray(np.zeros(size, values.dtype))
    if fill_value is None:
        fill_value = M.where(valid[:1], picked[:1], 0) if size else 0
    return M.where(valid, picked, fill_value)


def union1d(ar1: Any, ar2: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    """The sorted unique values in either array.

    >>> import fad.numpy as fnp
    >>> fnp.union1d(fnp.array([3.0, 1.0]), fnp.array([1.0, 2.0])).tolist()
    [1.0, 2.0, 3.0]
    """
    srt, first = _sorted_runs(S.concatenate([S.ravel(asarray(ar1)), S.ravel(asarray(ar2))]),
                              equal_nan=True)
    return select_kept(srt, first, size, fill_value, "union1d")


def intersect1d(ar1: Any, ar2: Any, assume_unique: bool = False,
                return_indices: bool = False, *, size: int | None = None,
                fill_value: Any = None) -> Any:
    """The sorted unique values in both arrays (``return_indices``: also their
    first positions in each, concrete values only).

    >>> import fad.numpy as fnp
    >>> fnp.intersect1d(fnp.array([3.0, 1.0, 2.0]), fnp.array([2.0, 3.0, 5.0])).tolist()
    [2.0, 3.0]
    """
    a, b = S.ravel(asarray(ar1)), S.ravel(asarray(ar2))
    if return_indices:
        if size is not None:
            raise NotImplementedError("fad.numpy.intersect1d: return_indices=True with size= "
                                      "is not supported; call it on concrete values")
        _, i, j = np.intersect1d(_concrete(a, "intersect1d"), _concrete(b, "intersect1d"),
                                 assume_unique, return_indices=True)
        return I.take(a, asarray(i)), asarray(i), asarray(j)
    srt, first = _sorted_runs(a)
    keep = M.logical_and(first, L.isin(srt, b))
    return select_kept(srt, keep, size, fill_value, "intersect1d")


def setdiff1d(ar1: Any, ar2: Any, assume_unique: bool = False, *, size: int | None = None,
              fill_value: Any = None) -> Any:
    """The sorted unique values of ``ar1`` not in ``ar2`` (``assume_unique``: the
    values of ``ar1`` not in ``ar2`` in their order, as NumPy's).

    >>> import fad.numpy as fnp
    >>> fnp.setdiff1d(fnp.array([3.0, 1.0, 2.0, 1.0]), fnp.array([2.0])).tolist()
    [1.0, 3.0]
    """
    if assume_unique:
        a = S.ravel(asarray(ar1))
        return select_kept(a, L.isin(a, ar2, invert=True), size, fill_value, "setdiff1d")
    srt, first = _sorted_runs(ar1, equal_nan=True)
    keep = M.logical_and(first, L.isin(srt, ar2, invert=True))
    return select_kept(srt, keep, size, fill_value, "setdiff1d")


def setxor1d(ar1: Any, ar2: Any, assume_unique: bool = False, *, size: int | None = None,
             fill_value: Any = None) -> Any:
    """The sorted unique values in exactly one of the arrays.

    >>> import fad.numpy as fnp
    >>> fnp.setxor1d(fnp.array([1.0, 2.0, 3.0]), fnp.array([2.0, 4.0])).tolist()
    [1.0, 3.0, 4.0]
    """
    a, b = S.ravel(asarray(ar1)), S.ravel(asarray(ar2))
    srt, first = _sorted_runs(S.concatenate([a, b]), equal_nan=True)
    keep = M.logical_and(first, M.logical_xor(_isin_nan(srt, a), _isin_nan(srt, b)))
    return select_kept(srt, keep, size, fill_value, "setxor1d")


def _isin_nan(values: Any, test: Any) -> Any:
    """``isin`` in which a NaN is in any array holding a NaN."""
    nan = M.logical_and(M.isnan(values), R.any(M.isnan(test)))
    return M.logical_or(L.isin(values, test), nan)


def _concrete(x: Any, name: str) -> np.ndarray:
    c = concrete_or_none(x)
    if c is None:
        raise ConcretizationError(f"fad.numpy.{name}: return_indices=True needs concrete "
                                  "values (it is traced abstractly here)")
    return np.asarray(c)


__all__ = ["intersect1d", "setdiff1d", "setxor1d", "union1d"]
