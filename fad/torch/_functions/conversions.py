"""Conversions (``to``, ``type_as``, ``clone``) and questions about dtypes
(``result_type``, ``can_cast``...), with the casting rule of in-place and ``out=``
results."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _dtype
from .._creation import to_device
from .._dtype import array_np_dtype, type_word
from .._ops import call
from ..tensor import Tensor
from ..tensor import device as _device
from ._common import exported


def _float_if_int(x: Tensor, scalar: Any) -> Tensor:
    if isinstance(scalar, float) and x.dtype.np.kind not in "fc":
        return to(x, _dtype.get_default_dtype())
    if isinstance(scalar, complex) and x.dtype.np.kind != "c":
        return to(x, _dtype.get_default_dtype().to_complex() if x.dtype.np.kind != "f"
                  else x.dtype.to_complex())
    return x


def clone(input: Tensor, *, memory_format: Any = None) -> Tensor:
    return call("clone", input)


def detach(input: Tensor) -> Tensor:
    return input.detach()


def to(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """``t.to(dtype)``, ``t.to(device)``, ``t.to(other)``; returns ``t`` itself when
    nothing changes (as PyTorch)."""
    dtype = kwargs.pop("dtype", None)
    dev = kwargs.pop("device", None)
    copy = kwargs.pop("copy", False)
    for a in args:
        if isinstance(a, _dtype.dtype) or (isinstance(a, type) and a in (float, int, bool)):
            dtype = a
        elif isinstance(a, Tensor):
            dtype, dev = a.dtype, a.device
        elif isinstance(a, str | _device) or type(a) is int:  # (an int: a CUDA index)
            dev = a
        elif isinstance(a, np.dtype):
            dtype = a
    out = input
    if dev is not None and _device(dev).type != input.device.type:
        out = to_device(input, dev)
    if dtype is not None:
        dt = _dtype.np_dtype(dtype)
        if dt != array_np_dtype(out._value):
            out = call("to", out, dtype=dt)
    if copy and out is input:
        out = clone(input)
    return out


def type_as(input: Tensor, other: Tensor) -> Tensor:
    return to(input, other.dtype)


_CAST_OK = {"b": "b", "u": "bui", "i": "bui", "f": "buif", "c": "buifc"}


def _check_cast(result: Tensor, dest: Tensor) -> None:
    if result.dtype.np.kind not in _CAST_OK[dest.dtype.np.kind]:
        raise RuntimeError(f"result type {type_word(result.dtype)} can't be cast to the "
                           f"desired output type {type_word(dest.dtype)}")


def numel(input: Tensor) -> int:
    return input.numel()


def is_tensor(obj: Any) -> bool:
    return isinstance(obj, Tensor)


def is_floating_point(input: Tensor) -> bool:
    return input.is_floating_point()


def is_complex(input: Tensor) -> bool:
    return input.is_complex()


def result_type(tensor1: Any, tensor2: Any) -> _dtype.dtype:
    vals = [x._value if isinstance(x, Tensor) else x for x in (tensor1, tensor2)]
    return _dtype.of_np(_dtype.result_type(vals))


def promote_types(type1: Any, type2: Any) -> _dtype.dtype:
    return _dtype.of_np(_dtype.promote_types(_dtype.np_dtype(type1), _dtype.np_dtype(type2)))


def can_cast(from_: Any, to: Any) -> bool:
    return _dtype.np_dtype(from_).kind in _CAST_OK[_dtype.np_dtype(to).kind]


def is_nonzero(input: Tensor) -> bool:
    """Whether a one-element tensor is not zero (PyTorch's errors otherwise).

    >>> import fad.torch as torch
    >>> torch.is_nonzero(torch.tensor([1.5]))
    True
    """
    n = input.numel()
    if n != 1:
        raise RuntimeError(f"Boolean value of Tensor with "
                           f"{'no values' if n == 0 else 'more than one value'} is ambiguous")
    return bool(input.item() != 0)


__all__ = exported(globals())
