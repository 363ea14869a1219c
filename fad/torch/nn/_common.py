"""Argument helpers shared by ``torch.nn.functional``'s modules: the legacy
``size_average``/``reduce`` flags, tensor values, ``inplace=True``."""

from __future__ import annotations

from typing import Any

from .. import _functions as F
from ..tensor import Tensor


def _reduction(size_average: Any, reduce: Any, reduction: str,
               allowed: tuple | None = ("mean", "sum", "none")) -> str:
    """``reduction``, or what the legacy flags ``size_average``/``reduce`` ask for
    (PyTorch's ``ValueError`` for an unknown word)."""
    if size_average is None and reduce is None:
        if allowed is not None and reduction not in allowed:
            raise ValueError(f"{reduction} is not a valid value for reduction")
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return "none" if not reduce else "mean" if size_average else "sum"


def _v(x: Any) -> Any:
    return x._value if isinstance(x, Tensor) else x


def _inplace(fn: Any, input: Tensor, inplace: bool) -> Tensor:
    return F.inplace(input, fn) if inplace else fn(input)
