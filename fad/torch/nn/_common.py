"""Argument helpers shared by ``torch.nn.functional``'s modules: the legacy
``size_average``/``reduce`` flags, tensor values, ``inplace=True``."""

from __future__ import annotations

from typing import Any

from .. import _functions as F
from ..tensor import Tensor


def _reduction(size_average: Any, reduce: Any, reduction: str) -> str:
    """``reduction``, or what the legacy flags ``size_average``/``reduce`` ask for."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return "none" if not reduce else "mean" if size_average else "sum"


def _v(x: Any) -> Any:
    return x._value if isinstance(x, Tensor) else x


def _inplace(fn: Any, input: Tensor, inplace: bool) -> Tensor:
    return F.inplace(input, fn) if inplace else fn(input)
