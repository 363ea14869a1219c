"""The ``Backend`` object: an Array API namespace plus the few extras it lacks."""

from __future__ import annotations

from typing import Any

import numpy as np


class Backend:
    """An array namespace ``xp`` and the operations the Array API standard lacks.

    The generic fallbacks route through NumPy (``np.asarray`` / ``xp.asarray``),
    which is correct for any conforming namespace on the host; backends with a
    native version (NumPy, CuPy) override them.
    """

    def __init__(self, name: str, xp: Any):
        self.name = name
        self.xp = xp

    def index_add(self, shape: tuple, dtype: Any, index: tuple, values: Any) -> Any:
        """``out = zeros(shape); out[index] += values`` with repeated indices summed."""
        out = np.zeros(shape, dtype=np.dtype(str(dtype).split(".")[-1]))
        np.add.at(out, tuple(_host(i) for i in index), _host(values))
        return self.xp.asarray(out)

    def add_at(self, x: Any, index: tuple, values: Any, out: Any = None,
               sign: int = 1) -> Any:
        """``x ± index_add(x.shape, x.dtype, index, values)`` (the sign of ``sign``);
        NumPy adds in place into ``out`` (which may be ``x`` itself) instead."""
        scattered = self.index_add(x.shape, x.dtype, index, values)
        return x + scattered if sign > 0 else x - scattered

    def getitem(self, x: Any, index: tuple) -> Any:
        if not any(i is Ellipsis for i in index):
            index = index + (Ellipsis,)  # the standard wants every axis indexed
        try:
            return x[index]
        except (IndexError, TypeError):  # advanced indexing beyond the standard
            return self.xp.asarray(_host(x)[tuple(_host(i) for i in index)])

    def einsum(self, spec: str, *operands: Any) -> Any:
        return self.xp.asarray(np.einsum(spec, *[_host(o) for o in operands]))

    def __repr__(self) -> str:
        return f"Backend({self.name})"


def _host(x: Any) -> Any:
    if isinstance(x, slice | type(None) | type(Ellipsis) | int):
        return x
    return np.asarray(x)


_BASIC_ITEMS = (slice, int, type(None), type(Ellipsis))


def _basic(index: tuple) -> bool:
    """Whether ``index`` is basic indexing (no arrays), which never repeats an element."""
    for i in index:
        if not isinstance(i, _BASIC_ITEMS):
            return False
    return True


class NumpyBackend(Backend):
    def index_add(self, shape, dtype, index, values):
        out = np.zeros(shape, dtype=dtype)
        if _basic(index):
            out[index] = values  # basic indexing never repeats an element
        else:
            np.add.at(out, index, values)
        return out

    def add_at(self, x, index, values, out=None, sign=1):
        if out is None or out is values:  # (values would be overwritten first)
            out = x.copy()
        elif out is not x:
            out[...] = x
        if not _basic(index):
            (np.add if sign > 0 else np.subtract).at(out, index, values)
        elif sign > 0:  # basic indexing never repeats an element
            out[index] += values
        else:
            out[index] -= values
        return out

    def getitem(self, x, index):
        return x[index]

    def einsum(self, spec, *operands):
        return np.einsum(spec, *operands, optimize=len(operands) > 2)


NUMPY = NumpyBackend("numpy", np)
