"""Argument conventions the ``torch.*`` functions share: PyTorch's ``dim`` and
``*sizes`` forms, Python values as tensors, and the names each module exports."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .._creation import tensor
from ..tensor import Tensor, _wrap_dim

# names a module defines that the ``torch`` namespace does not export
_INTERNAL = {"inplace", "inplace_view", "into", "accepts_out", "accept_out_in", "zeros_like_int",
             "getitem", "setitem", "to", "rpow", "rsub"}


def exported(namespace: dict) -> list[str]:
    """The public ``torch.*`` functions a module of this package defines (its
    ``__all__``), given its ``globals()``."""
    module = namespace["__name__"]
    return [n for n, v in list(namespace.items())
            if not n.startswith("_") and n not in _INTERNAL and callable(v)
            and getattr(v, "__module__", None) == module]


def _t(x: Any) -> Tensor:
    if isinstance(x, Tensor):
        return x
    return tensor(x)


def _dims(dim: Any, ndim: int) -> tuple:
    if isinstance(dim, int | np.integer):
        return (_wrap_dim(int(dim), ndim),)
    return tuple(_wrap_dim(int(d), ndim) for d in dim)


def _dim_param(dim: Any, ndim: int) -> Any:
    """A normalised ``dim`` for reductions: ``None``, an int or a tuple."""
    if dim is None:
        return None
    if isinstance(dim, int | np.integer):
        return _wrap_dim(int(dim), ndim)
    d = _dims(dim, ndim)
    return d if d else None


def _shape(args: tuple) -> tuple:
    if len(args) == 1 and isinstance(args[0], Sequence | np.ndarray | Tensor):
        args = tuple(args[0])
    return tuple(int(a) for a in args)


def _idx(i: Any) -> Any:
    if isinstance(i, Tensor):
        return i._value
    return i


def is_complex_operand(x: Any) -> bool:
    """A complex Tensor or Python number."""
    return isinstance(x, Tensor) and x.dtype.np.kind == "c" or isinstance(x, complex)


def refuse_complex(name: str, *args: Any) -> None:
    """PyTorch's error for an operation that orders values, given a complex one."""
    if any(is_complex_operand(a) for a in args):
        raise RuntimeError(f"{name} not implemented for complex tensors.")
