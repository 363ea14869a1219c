"""``r_`` and ``c_``: NumPy's index-expression shorthands for building arrays
by concatenation (``fnp.r_[x, 0.0, 1:4]``), traced and differentiable in the
arrays they join."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _shape as S
from ._base import asarray
from ._creation import arange, linspace


class AxisConcatenator:
    """``obj[items]`` joins ``items`` along an axis: arrays, scalars, and slices
    ``start:stop:step`` (``arange``; a complex step ``nj`` means ``linspace``
    with ``n`` points). A first item that is a string of up to three integers
    ``"axis,ndmin,trans1d"`` sets the axis, the minimum number of dimensions
    of each piece, and where a piece's own axes go when it is promoted
    (NumPy's meaning). The matrix directives ``"r"``/``"c"`` are not supported.

    >>> import fad.numpy as fnp
    >>> fnp.r_[fnp.array([1.0, 2.0]), 0.0, 3:5].tolist()
    [1.0, 2.0, 0.0, 3.0, 4.0]
    >>> fnp.c_[fnp.array([1.0, 2.0]), fnp.array([3.0, 4.0])].tolist()
    [[1.0, 3.0], [2.0, 4.0]]
    """

    def __init__(self, axis: int = 0, ndmin: int = 1, trans1d: int = -1, name: str = "r_"):
        self.axis, self.ndmin, self.trans1d, self.name = axis, ndmin, trans1d, name

    def __getitem__(self, key: Any) -> Any:
        items = key if isinstance(key, tuple) else (key,)
        axis, ndmin, trans1d = self.axis, self.ndmin, self.trans1d
        pieces = []
        for k, item in enumerate(items):
            if isinstance(item, str):
                if k != 0:
                    raise ValueError(f"fad.numpy.{self.name}: special directives must be "
                                     "the first entry")
                axis, ndmin, trans1d = self._directive(item, ndmin, trans1d)
                continue
            if isinstance(item, slice):
                piece = self._range(item)
            else:
                piece = asarray(item)
            pieces.append(self._promote(piece, ndmin, trans1d))
        if not pieces:
            return asarray(np.zeros(0))
        return S.concatenate(pieces, axis=axis)

    def _directive(self, item: str, ndmin: int, trans1d: int) -> tuple[int, int, int]:
        if item in ("r", "c"):
            raise NotImplementedError(f"fad.numpy.{self.name}: the matrix directives "
                                      "'r' and 'c' are not supported (fad has no matrix class)")
        try:
            values = [int(v) for v in item.split(",")]
        except ValueError:
            raise ValueError(f"fad.numpy.{self.name}: unknown special directive {item!r}") \
                from None
        if not 1 <= len(values) <= 3:
            raise ValueError(f"fad.numpy.{self.name}: unknown special directive {item!r}")
        values += [ndmin, trans1d][len(values) - 1:]
        return values[0], values[1], values[2]

    def _range(self, item: slice) -> Any:
        start = 0 if item.start is None else item.start
        step = 1 if item.step is None else item.step
        if isinstance(step, complex):
            return linspace(start, item.stop, int(abs(step)))
        return arange(start, item.stop, step)

    @staticmethod
    def _promote(piece: Any, ndmin: int, trans1d: int) -> Any:
        """NumPy's ``array(piece, ndmin=ndmin)``, then, for a piece of fewer than
        ``ndmin`` axes, its own axes moved to start at ``trans1d``."""
        have = piece.ndim
        if have >= ndmin:
            return piece
        piece = S.reshape(piece, (1,) * (ndmin - have) + tuple(piece.shape))
        if trans1d == -1 or have == 0:
            return piece
        k2 = ndmin - have
        k1 = trans1d + k2 + 1 if trans1d < 0 else trans1d
        order = list(range(ndmin))
        return S.transpose(piece, order[:k1] + order[k2:] + order[k1:k2])


r_ = AxisConcatenator(0, 1, -1, "r_")
c_ = AxisConcatenator(-1, 2, 0, "c_")

__all__ = ["AxisConcatenator", "c_", "r_"]
