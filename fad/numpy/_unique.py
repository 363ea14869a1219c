"""``unique`` with all of NumPy's and JAX's options: ``return_index``,
``return_inverse``, ``return_counts``, ``axis=`` (unique slices along an axis)
and ``equal_nan``, eagerly (NumPy's results) or with a static ``size=`` (JAX's
form, which ``jit`` needs).

One algorithm serves both: the slices along ``axis`` (the elements, for
``axis=None``) are sorted lexicographically (a stable sort), the first of each
run of equal ones is marked, and the marked positions, gathered in order, give
the values, their first indices in the input and their counts; each slice's
run number is its inverse index. Eagerly the number of runs is read from the
concrete marks; with ``size=`` the results are cut to ``size`` or padded: the
values with ``fill_value`` (by default the smallest value), the indices with
the first index, the counts with 0 (as JAX). The values are gathered from the
input, so they carry its derivative.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _indexing as I
from . import _math as M
from . import _reductions as R
from . import _shape as S
from . import _sorting as So
from ._base import asarray, concrete_array, dtype_of, index_result
from ._creation import arange, full


def _as_rows(ar: Any, axis: int | None) -> tuple[Any, tuple]:
    """The slices to compare as the rows of a 2-d array, and the slices' shape."""
    a = asarray(ar)
    if axis is None:
        return S.reshape(a, (-1, 1)), ()
    if not -a.ndim <= axis < a.ndim:
        raise ValueError(f"fad.numpy.unique: axis {axis} is out of bounds for an array of "
                         f"dimension {a.ndim}")
    a = S.moveaxis(a, axis, 0)
    return S.reshape(a, (a.shape[0], -1)), tuple(a.shape[1:])


def _row_order(rows: Any) -> Any:
    """The stable lexicographic order of the rows (the first column primary)."""
    m, k = rows.shape
    if k == 0:
        return index_result(arange(m))
    return So.lexsort([rows[:, j] for j in reversed(range(k))])


def _differs(a: Any, b: Any, equal_nan: bool) -> Any:
    """Where row ``a`` differs from row ``b`` (NaN equal to NaN with ``equal_nan``)."""
    ne = M.not_equal(a, b)
    if equal_nan and dtype_of(a).kind in "fc":
        ne = M.logical_and(ne, M.logical_not(M.logical_and(M.isnan(a), M.isnan(b))))
    return R.any(ne, axis=1)


def _run_count(first: Any) -> int:
    mask = concrete_array(first, "unique (or pass size=, a static length, under fad.jit)")
    return int(np.count_nonzero(mask))


def unique(ar: Any, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: int | None = None, *, equal_nan: bool = True,
           size: int | None = None, fill_value: Any = None) -> Any:
    """``fad.numpy.unique`` (see the module's docstring).

    >>> import fad, fad.numpy as fnp
    >>> x = fnp.array([3.0, 1.0, 3.0])
    >>> [v.tolist() for v in fad.jit(lambda x: fnp.unique(
    ...     x, True, True, True, size=3, fill_value=0.0))(x)]
    [[1.0, 3.0, 0.0], [1, 0, 1], [1, 0, 1], [1, 2, 0]]
    """
    rows, inner = _as_rows(ar, axis)
    m = rows.shape[0]
    order = _row_order(rows)
    srt = I.take(rows, order, axis=0)
    if m:
        first = S.concatenate([asarray(np.ones(1, bool)),
                               _differs(srt[1:], srt[:-1], equal_nan)])
    else:
        first = asarray(np.zeros(0, bool))
    if size is None:
        size = _run_count(first)
    elif m == 0 and size and fill_value is None:
        raise ValueError("fad.numpy.unique: an empty input with size > 0 needs a fill_value")
    # the runs' first positions, in order, then m (no run): cut or padded to size
    starts = So.sort(M.where(first, arange(m), m)) if m else index_result(arange(0))
    starts = S.concatenate([starts, full((max(size - m, 0) + 1,), m, dtype_of(starts))])
    here, after = starts[:size], starts[1:size + 1]
    valid = M.less(here, m)
    at = M.where(valid, here, 0)
    if m:
        values = I.take(srt, at, axis=0)
        fill = values[:1] if fill_value is None else fill_value
        values = M.where(valid[:, None], values, fill)
        index = M.where(valid, I.take(order, at), order[0])
    else:
        values = full((size, rows.shape[1]), fill_value if size else 0, dtype_of(rows))
        index = full((size,), 0, dtype_of(order))
    values = S.reshape(values, (size,) + inner)
    out = [values if axis is None else S.moveaxis(values, 0, axis)]
    if return_index:
        out.append(index_result(index))
    if return_inverse:
        runs = M.subtract(R.cumsum(first), 1) if m else index_result(arange(0))
        inverse = I.take(runs, So.argsort(order)) if m else runs
        out.append(index_result(S.reshape(inverse, asarray(ar).shape) if axis is None
                                else inverse))
    if return_counts:
        out.append(index_result(M.where(valid, M.subtract(after, here), 0)))
    return out[0] if len(out) == 1 else tuple(out)


__all__: list[str] = []
