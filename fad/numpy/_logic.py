"""Logic functions of ``fad.numpy`` built of comparisons: tolerances
(``isclose``, ``allclose``), whole-array equality and membership. The
elementwise comparisons and logical operators themselves are ufuncs, in
``_math.py``; none of these has a derivative."""

from __future__ import annotations

from typing import Any

from ..core.errors import ShapeError
from . import _math as M
from . import _reductions as R
from . import _shape as S
from ._base import asarray, operand, promote


def isclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Any:
    """``|a - b| <= atol + rtol |b|`` elementwise (equal infinities are close).

    >>> import fad.numpy as fnp
    >>> fnp.isclose(fnp.array([1.0, 1.1]), 1.0).tolist()
    [True, False]
    """
    _, (a, b) = promote("add", operand(a), operand(b))
    with_inf = M.equal(a, b)
    close = M.less_equal(M.absolute(M.subtract(a, b)), M.add(atol, M.multiply(rtol,
                                                                              M.absolute(b))))
    out = M.logical_or(with_inf, M.logical_and(close, M.isfinite(b)))
    if equal_nan:
        out = M.logical_or(out, M.logical_and(M.isnan(a), M.isnan(b)))
    return out


def allclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> Any:
    """Whether every element is close (see ``isclose``).

    >>> import fad.numpy as fnp
    >>> bool(fnp.allclose(fnp.ones(3), 1.0 + 1e-9))
    True
    """
    return R.all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1: Any, a2: Any, equal_nan: bool = False) -> Any:
    """Same shape and elements.

    >>> import fad.numpy as fnp
    >>> bool(fnp.array_equal(fnp.ones(2), fnp.ones(2)))
    True
    """
    a1, a2 = asarray(a1), asarray(a2)
    if a1.shape != a2.shape:
        return False
    eq = M.equal(a1, a2)
    if equal_nan:
        eq = M.logical_or(eq, M.logical_and(M.isnan(a1), M.isnan(a2)))
    return R.all(eq)


def array_equiv(a1: Any, a2: Any) -> Any:
    """Equal after broadcasting.

    >>> import fad.numpy as fnp
    >>> bool(fnp.array_equiv(fnp.ones((2, 2)), 1.0))
    True
    """
    try:
        return R.all(M.equal(a1, a2))
    except ShapeError:
        return False


def isin(element: Any, test_elements: Any, assume_unique: bool = False,
         invert: bool = False, *, kind: Any = None) -> Any:
    """Whether each element is in ``test_elements`` (comparisons against all).

    >>> import fad.numpy as fnp
    >>> fnp.isin(fnp.array([1, 2, 3]), [2, 3]).tolist()
    [False, True, True]
    """
    e = asarray(element)
    t = S.ravel(asarray(test_elements))
    hit = R.any(M.equal(S.expand_dims(e, -1), t), axis=-1)
    return M.logical_not(hit) if invert else hit


def in1d(ar1: Any, ar2: Any, assume_unique: bool = False, invert: bool = False, *,
         kind: Any = None) -> Any:
    """Whether each element of the flattened ``ar1`` is in ``ar2``: ``isin`` of
    ``ravel(ar1)`` (NumPy's ``in1d``, removed in NumPy 2.4, kept for ported code).

    >>> import fad.numpy as fnp
    >>> fnp.in1d(fnp.array([[1, 2], [3, 4]]), [2, 3], invert=True).tolist()
    [True, False, False, True]
    """
    return isin(S.ravel(asarray(ar1)), ar2, assume_unique, invert, kind=kind)
