"""Process-wide settings the facade accepts (float32 matrix-product precision,
inter-op threads) and small utilities: ``typename`` and the deprecated ``range``."""

from __future__ import annotations

import math
import warnings
from typing import Any

from . import _dtype
from ._creation import arange
from .tensor import Tensor

_MATMUL_PRECISION = ["highest"]


def set_float32_matmul_precision(precision: str) -> None:
    """Accepted and remembered: NumPy's float32 products are always computed at
    float32 precision ("highest")."""
    if precision not in ("highest", "high", "medium"):
        raise RuntimeError(f"Invalid precision {precision!r}; expected one of 'highest', "
                           "'high' or 'medium'")
    _MATMUL_PRECISION[0] = precision


def get_float32_matmul_precision() -> str:
    return _MATMUL_PRECISION[0]


def set_num_interop_threads(n: int) -> None:
    """Accepted and ignored (threads are the backend's business)."""


def get_num_interop_threads() -> int:
    return 1


def typename(obj: Any) -> str:
    """PyTorch's name of a tensor's type (``torch.FloatTensor``), else the type's.

    >>> import fad.torch as torch
    >>> torch.typename(torch.ones(1)), torch.typename(3)
    ('torch.FloatTensor', 'int')
    """
    if isinstance(obj, Tensor):
        return obj.type()
    module = type(obj).__module__
    name = type(obj).__qualname__
    return name if module in ("builtins", "__builtin__", None) else f"{module}.{name}"


def range(start: Any = 0, end: Any = None, step: Any = 1, *, dtype: Any = None,
          **kwargs: Any) -> Tensor:
    """``start, start + step, ...`` up to ``end`` included (deprecated for ``arange``,
    with PyTorch's warning); float32 by default.

    >>> import fad.torch as torch, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     torch.range(1, 3)
    tensor([1., 2., 3.])
    """
    warnings.warn("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=2)
    if end is None:
        start, end = 0, start
    count = int(math.floor((end - start) / step)) + 1
    return arange(count, dtype=dtype or _dtype.get_default_dtype(), **kwargs) * step + start


__all__ = ["set_float32_matmul_precision", "get_float32_matmul_precision",
           "set_num_interop_threads", "get_num_interop_threads", "typename", "range"]
