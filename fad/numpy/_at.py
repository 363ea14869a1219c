"""Functional indexed updates, JAX's ``x.at[index].set(v)`` and its siblings.

fad's arrays are immutable: ``x.at[index].add(v)`` returns a new array equal to
``x`` after NumPy's ``np.add.at(x, index, v)``, and leaves ``x`` alone. Tracers
have the ``.at`` property; ``fnp.at(x)`` gives the same helper for any array
(NumPy arrays have no ``.at``). Under ``jit`` the update writes into ``x``'s
buffer when nothing reads ``x`` afterwards.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.trace import aval_of, bind, concrete_or_none, shape_of
from ..primitives.indexing import ARRAY, Indexer, _gather_aval, add_at_p, gather
from ..primitives.scatter import host, scatter_max_p, scatter_min_p, scatter_mul_p, scatter_p
from ..primitives.structural import convert_element_type
from . import _creation as K
from . import _math as M
from . import _shape as S
from ._base import asarray
from ._indexing import parse_index

__all__ = ["at"]

_MODES = (None, "promise_in_bounds", "clip", "drop", "fill")


def _axes(items: tuple, ndim: int) -> list:
    """The axis of ``x`` each index item reads (``None`` for ``None`` and ``...``)."""
    consumed = sum(1 for i in items if i is not None and i is not Ellipsis)
    axis, out = 0, []
    for i in items:
        if i is Ellipsis:
            axis += ndim - consumed
        out.append(None if i is None or i is Ellipsis else axis)
        axis += i is not None and i is not Ellipsis
    return out


class _Index:
    """``x[index]`` taken apart: the array (reshaped if a 0-d mask added an axis,
    padded by one slot on the axes an out-of-range index may point past), the
    ``Indexer``, the index arrays, and how to undo the reshaping and padding."""

    def __init__(self, x: Any, index: Any, mode: str | None, fill: Any = 0):
        if mode not in _MODES:
            raise ValueError(f"x.at[...]: mode={mode!r} is not one of "
                             f"{', '.join(repr(m) for m in _MODES)}")
        x = asarray(x)
        self.shape = shape_of(x)
        self.x, items, arrays = parse_index(x, index)
        self.padded: list = []
        self.dropped = False  # an out-of-range integer with mode="drop"/"fill"
        if mode in ("clip", "drop", "fill"):
            items, arrays = self._bound(items, arrays, mode, fill)
        else:
            self._check(items, arrays)
        self.items = items
        self.indexer = Indexer(items)
        self.arrays = arrays

    def _check(self, items: tuple, arrays: tuple) -> None:
        """NumPy's IndexError for a concrete index array out of range."""
        shape, it = shape_of(self.x), iter(arrays)
        for i, axis in zip(items, _axes(items, len(shape))):
            if i is not ARRAY:
                continue
            a = concrete_or_none(next(it))
            if a is None or not np.size(a):
                continue
            a = host(a)
            bad = a[(a < -shape[axis]) | (a >= shape[axis])]
            if bad.size:
                raise IndexError(f"index {bad.flat[0]} is out of bounds for axis {axis} with "
                                 f"size {shape[axis]} (x.at[...] takes mode='clip' or "
                                 f"mode='drop' to clamp or drop such indices)")

    def _bound(self, items: tuple, arrays: tuple, mode: str, fill: Any) -> tuple:
        """Negative indices wrapped, then each index clamped into its axis ("clip")
        or, when out of range, sent to an extra slot past the end ("drop"/"fill")."""
        shape = shape_of(self.x)
        new_items, new_arrays, it = [], [], iter(arrays)
        for i, axis in zip(items, _axes(items, len(shape))):
            n = shape[axis] if axis is not None else 0
            if isinstance(i, int):
                j = i + n if i < 0 else i
                if not 0 <= j < n:
                    if mode != "clip":
                        self.dropped = True
                    j = min(max(j, 0), n - 1)
                new_items.append(j)
                continue
            new_items.append(i)
            if i is ARRAY:
                a = next(it)
                a = M.where(M.less(a, 0), M.add(a, n), a)
                if mode == "clip":
                    a = M.clip(a, 0, max(n - 1, 0))
                else:
                    a = M.where(M.logical_and(M.greater_equal(a, 0), M.less(a, n)), a, n)
                    if axis not in self.padded:
                        self.padded.append(axis)
                new_arrays.append(a)
        for axis in self.padded:
            pad = list(shape_of(self.x))
            pad[axis] = 1
            slot = K.full(tuple(pad), fill, dtype=aval_of(self.x).dtype)
            self.x = S.concatenate([self.x, slot], axis=axis)
        return tuple(new_items), tuple(new_arrays)

    def target_shape(self) -> tuple:
        return _gather_aval(aval_of(self.x), *[aval_of(a) for a in self.arrays],
                            indexer=self.indexer).shape

    def values(self, v: Any) -> Any:
        """``v`` cast to ``x``'s dtype and broadcast to ``x[index]``'s shape."""
        v = convert_element_type(K.beside(v, self.x), aval_of(self.x).dtype)
        return S.broadcast_to(v, self.target_shape())

    def finish(self, out: Any) -> Any:
        """Drop the padding slots and undo the reshaping of a 0-d mask."""
        if self.padded:
            out = gather(out, tuple(slice(0, -1) if a in self.padded else slice(None)
                                    for a in range(len(shape_of(out)))))
        return out if shape_of(out) == self.shape else S.reshape(out, self.shape)


def _fill_default(dtype: np.dtype) -> Any:
    """JAX's default for out-of-range reads: NaN, the most negative signed integer,
    the largest unsigned one, True."""
    if dtype.kind in "fc":
        return np.nan
    if dtype.kind == "i":
        return np.iinfo(dtype).min
    if dtype.kind == "u":
        return np.iinfo(dtype).max
    return True


class _IndexUpdateRef:
    """``x.at[index]``: the update methods, each returning a new array."""

    __slots__ = ("array", "index")

    def __init__(self, array: Any, index: Any):
        self.array = array
        self.index = index

    def __repr__(self) -> str:
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(self, *, indices_are_sorted: bool = False, unique_indices: bool = False,
            mode: str | None = None, fill_value: Any = None) -> Any:
        """``x[index]``; ``mode="fill"`` (or ``"drop"``) reads ``fill_value`` out of range.

        >>> import numpy as np, fad.numpy as fnp
        >>> fnp.at(np.arange(3.0))[np.array([0, 5])].get(mode="fill", fill_value=-1).tolist()
        [0.0, -1.0]
        """
        x = asarray(self.array)
        if mode in ("drop", "fill") and fill_value is None:
            fill_value = _fill_default(np.dtype(aval_of(x).dtype))
        ix = _Index(x, self.index, mode, fill_value)
        out = gather(ix.x, ix.items, ix.arrays)
        if ix.dropped:
            out = K.full_like(out, fill_value)
        return out

    def _update(self, prim: Any, values: Any, mode: str | None, **params: Any) -> Any:
        ix = _Index(self.array, self.index, mode)
        if ix.dropped:  # an out-of-range integer index: nothing is written
            return ix.finish(ix.x)
        return ix.finish(bind(prim, ix.x, ix.values(values), *ix.arrays,
                              indexer=ix.indexer, **params))

    def set(self, values: Any, *, indices_are_sorted: bool = False,
            unique_indices: bool = False, mode: str | None = None) -> Any:
        """``x[index] = values`` on a copy. Where an index repeats, the last value
        wins, as NumPy's assignment (JAX leaves the choice unspecified).

        >>> import numpy as np, fad.numpy as fnp
        >>> fnp.at(np.zeros(4))[np.array([1, 3, 1])].set(np.array([5.0, 6.0, 7.0])).tolist()
        [0.0, 7.0, 0.0, 6.0]
        """
        return self._update(scatter_p, values, mode)

    def add(self, values: Any, *, indices_are_sorted: bool = False,
            unique_indices: bool = False, mode: str | None = None) -> Any:
        """``np.add.at`` on a copy: repeated indices accumulate.

        >>> import numpy as np, fad.numpy as fnp
        >>> fnp.at(np.zeros(3))[np.array([0, 0, 2])].add(1.0).tolist()
        [2.0, 0.0, 1.0]
        """
        return self._update(add_at_p, values, mode)

    def multiply(self, values: Any, *, indices_are_sorted: bool = False,
                 unique_indices: bool = False, mode: str | None = None) -> Any:
        """``np.multiply.at`` on a copy. The derivative in ``values`` needs indices
        that do not repeat (concrete ones, or ``unique_indices=True``), as JAX's.

        >>> import numpy as np, fad.numpy as fnp
        >>> fnp.at(np.ones(3))[np.array([1, 1])].multiply(3.0).tolist()
        [1.0, 9.0, 1.0]
        """
        return self._update(scatter_mul_p, values, mode, unique=bool(unique_indices))

    mul = multiply

    def _ones_times(self, values: Any, mode: str | None, unique: bool) -> Any:
        ones = K.ones_like(asarray(self.array))
        return _IndexUpdateRef(ones, self.index).multiply(values, mode=mode,
                                                           unique_indices=unique)

    def divide(self, values: Any, *, indices_are_sorted: bool = False,
               unique_indices: bool = False, mode: str | None = None) -> Any:
        """``x[index] /= values`` on a copy (``x`` divided by ``ones.at[index].multiply(values)``).

        >>> import numpy as np, fad.numpy as fnp
        >>> fnp.at(np.ones(3))[1].divide(4.0).tolist()
        [1.0, 0.25, 1.0]
        """
        return M.divide(self.array, self._ones_times(values, mode, unique_indices))

    def power(self, values: Any, *, indices_are_sorted: bool = False,
              unique_indices: bool = False, mode: str | None = None) -> Any:
        """``x[index] **= values`` on a copy (``x ** ones.at[index].multiply(values)``).

        >>> import numpy as np, fad.numpy as fnp
        >>> fnp.at(np.full(3, 2.0))[2].power(3.0).tolist()
        [2.0, 2.0, 8.0]
        """
        return M.power(self.array, self._ones_times(values, mode, unique_indices))

    def min(self, values: Any, *, indices_are_sorted: bool = False,
            unique_indices: bool = False, mode: str | None = None) -> Any:
        """``np.minimum.at`` on a copy; ties share the derivative equally.

        >>> import numpy as np, fad.numpy as fnp
        >>> fnp.at(np.ones(3))[np.array([0, 0, 2])].min(np.array([0.5, 2.0, 3.0])).tolist()
        [0.5, 1.0, 1.0]
        """
        return self._update(scatter_min_p, values, mode)

    def max(self, values: Any, *, indices_are_sorted: bool = False,
            unique_indices: bool = False, mode: str | None = None) -> Any:
        """``np.maximum.at`` on a copy; ties share the derivative equally.

        >>> import numpy as np, fad.numpy as fnp
        >>> fnp.at(np.ones(3))[np.array([0, 0])].max(np.array([0.5, 2.0])).tolist()
        [2.0, 1.0, 1.0]
        """
        return self._update(scatter_max_p, values, mode)


class _IndexUpdateHelper:
    """``x.at``: indexing it (``x.at[index]``) gives the update methods."""

    __slots__ = ("array",)

    def __init__(self, array: Any):
        self.array = array

    def __getitem__(self, index: Any) -> _IndexUpdateRef:
        return _IndexUpdateRef(self.array, index)

    def __repr__(self) -> str:
        return f"_IndexUpdateHelper({self.array!r})"


def at(x: Any) -> _IndexUpdateHelper:
    """JAX's ``x.at`` for any array: ``fnp.at(x)[index].set(v)`` returns a copy of
    ``x`` with ``x[index] = v``; also ``.add .multiply (.mul) .divide .power .min
    .max .get``. ``v`` is cast to ``x``'s dtype and broadcast to ``x[index]``'s
    shape; ``mode=`` takes JAX's ``"promise_in_bounds"`` (the default: NumPy's
    indexing), ``"clip"`` and ``"drop"``/``"fill"``.

    >>> import numpy as np, fad.numpy as fnp
    >>> x = np.arange(4.0)
    >>> fnp.at(x)[1:3].set(0.0).tolist(), x.tolist()
    ([0.0, 0.0, 0.0, 3.0], [0.0, 1.0, 2.0, 3.0])
    """
    return _IndexUpdateHelper(x)
