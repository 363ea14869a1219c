"""Sorting, searching and counting of ``fad.numpy``, and ``unique``: ``sort``
passes the tangent through the (stable) sorting permutation; the indices
(``argsort``, ``searchsorted``...) have no derivative."""

from __future__ import annotations

from collections import namedtuple
from typing import Any, Sequence

import numpy as np

from ..core.trace import bind
from ..primitives import sorting as So
from . import _indexing as I
from . import _math as M
from . import _reductions as R
from ._base import asarray, index_result, operand, promote
from ._shape import _axis_arg


def count_nonzero(a: Any, axis: Any = None, *, keepdims: bool = False) -> Any:
    """Number of non-zero elements.

    >>> import fad.numpy as fnp
    >>> int(fnp.count_nonzero(fnp.array([0.0, 1.0, 2.0])))
    2
    """
    return R.sum(M.not_equal(asarray(a), 0), axis, keepdims=keepdims)


def sort(a: Any, axis: int | None = -1, kind: Any = None, order: Any = None, *,
         stable: Any = None) -> Any:
    """Sorted copy (``axis=None`` flattens). Differentiable: the tangent is
    gathered at the (stable) sorting permutation.

    >>> import fad, fad.numpy as fnp
    >>> fnp.sort(fnp.array([3.0, 1.0, 2.0])).tolist()
    [1.0, 2.0, 3.0]
    >>> fad.grad(lambda x: fnp.sort(x)[0])(fnp.array([3.0, 1.0, 2.0])).tolist()
    [0.0, 1.0, 0.0]
    """
    if order is not None:
        raise NotImplementedError("sort: order= (structured arrays) is not supported")
    a, ax = _axis_arg(a, axis)
    if a.ndim == 0:
        return a
    return bind(So.sort_p, a, axis=ax)


def argsort(a: Any, axis: int | None = -1, kind: Any = None, order: Any = None, *,
            stable: Any = None) -> Any:
    """Indices that sort ``a`` (always stable).

    >>> import fad.numpy as fnp
    >>> fnp.argsort(fnp.array([3.0, 1.0, 2.0])).tolist()
    [1, 2, 0]
    """
    if order is not None:
        raise NotImplementedError("argsort: order= (structured arrays) is not supported")
    a, ax = _axis_arg(a, axis)
    if a.ndim == 0:
        return index_result(asarray(np.zeros((), np.int64)))
    return index_result(bind(So.argsort_p, a, axis=ax))


def partition(a: Any, kth: Any, axis: int | None = -1, kind: str = "introselect",
              order: Any = None) -> Any:
    """A valid partition: the fully sorted array.

    >>> import fad.numpy as fnp
    >>> fnp.partition(fnp.array([3.0, 1.0, 2.0]), 1).tolist()
    [1.0, 2.0, 3.0]
    """
    return sort(a, axis)


def argpartition(a: Any, kth: Any, axis: int | None = -1, kind: str = "introselect",
                 order: Any = None) -> Any:
    """A valid partitioning permutation: ``argsort``.

    >>> import fad.numpy as fnp
    >>> fnp.argpartition(fnp.array([3.0, 1.0, 2.0]), 1).tolist()
    [1, 2, 0]
    """
    return argsort(a, axis)


def lexsort(keys: Sequence, axis: int = -1) -> Any:
    """Indirect stable sort on several keys, the last one primary.

    >>> import fad.numpy as fnp
    >>> fnp.lexsort([fnp.array([1, 0, 1]), fnp.array([0, 0, 1])]).tolist()
    [1, 0, 2]
    """
    keys = [asarray(k) for k in keys]
    idx = argsort(keys[0], axis=axis)
    for k in keys[1:]:
        perm = argsort(I.take_along_axis(k, idx, axis=axis), axis=axis)
        idx = I.take_along_axis(idx, perm, axis=axis)
    return idx


def searchsorted(a: Any, v: Any, side: str = "left", sorter: Any = None) -> Any:
    """Insertion indices of ``v`` into the sorted 1-d ``a`` (no derivative).

    >>> import fad.numpy as fnp
    >>> fnp.searchsorted(fnp.array([1.0, 2.0, 3.0]), fnp.array([2.5, 0.0])).tolist()
    [2, 0]
    """
    a = asarray(a)
    if sorter is not None:
        a = I.take(a, sorter)
    _, (a, v) = promote("add", a, operand(v))
    v = asarray(v)
    return index_result(bind(So.searchsorted_p, a, v, side=side))


UniqueAll = namedtuple("UniqueAll", "values indices inverse_indices counts")


def unique(ar: Any, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: int | None = None, *,
           equal_nan: bool = True, size: int | None = None, fill_value: Any = None) -> Any:
    """Sorted unique elements (along ``axis``: unique slices), NumPy's results
    eagerly; under ``jit`` pass a static ``size=`` (JAX's form): the results are
    cut or padded (values with ``fill_value``, by default the smallest value;
    indices with the first one; counts with 0). ``return_index``,
    ``return_inverse``, ``return_counts`` and ``equal_nan`` as NumPy's. The
    values are gathered from ``ar``, so they carry its derivative.

    >>> import fad.numpy as fnp
    >>> fnp.unique(fnp.array([2.0, 1.0, 2.0])).tolist()
    [1.0, 2.0]
    >>> fnp.unique(fnp.array([2.0, 1.0, 2.0]), size=3, fill_value=0.0).tolist()
    [1.0, 2.0, 0.0]
    >>> fnp.unique(fnp.array([[1, 2], [0, 5], [1, 2]]), axis=0).tolist()
    [[0, 5], [1, 2]]
    """
    from ._unique import unique as unique_
    return unique_(ar, return_index, return_inverse, return_counts, axis,
                   equal_nan=equal_nan, size=size, fill_value=fill_value)


def unique_values(x: Any) -> Any:
    """Unique values (Array API name).

    >>> import fad.numpy as fnp
    >>> fnp.unique_values(fnp.array([1.0, 1.0])).tolist()
    [1.0]
    """
    return unique(x)


def unique_counts(x: Any) -> tuple:
    """``(values, counts)`` of the unique elements.

    >>> import fad.numpy as fnp
    >>> fnp.unique_counts(fnp.array([1.0, 1.0]))[1].tolist()
    [2]
    """
    return unique(x, return_counts=True)


def unique_inverse(x: Any) -> tuple:
    """``(values, inverse_indices)``.

    >>> import fad.numpy as fnp
    >>> fnp.unique_inverse(fnp.array([2.0, 1.0]))[1].tolist()
    [1, 0]
    """
    return unique(x, return_inverse=True)


def unique_all(x: Any) -> tuple:
    """``(values, indices, inverse_indices, counts)``.

    >>> import fad.numpy as fnp
    >>> fnp.unique_all(fnp.array([2.0, 1.0])).counts.tolist()
    [1, 1]
    """
    return UniqueAll(*unique(x, True, True, True))
