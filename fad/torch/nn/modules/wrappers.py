"""Modules that wrap another, ``DataParallel`` (one process: the module itself,
under ``module``), and the placeholders of lazy modules' parameters and buffers."""

from __future__ import annotations

from typing import Any

from ..._creation import empty
from ...tensor import Tensor
from .module import Module, Parameter

__all__ = ["DataParallel", "UninitializedParameter", "UninitializedBuffer"]


class DataParallel(Module):
    """``module`` run as it is (there is one device): PyTorch's wrapper, whose
    ``state_dict`` keys start with ``module.``.

    >>> import fad.torch as torch
    >>> list(torch.nn.DataParallel(torch.nn.Linear(2, 1)).state_dict())
    ['module.weight', 'module.bias']
    """

    def __init__(self, module: Module, device_ids: Any = None, output_device: Any = None,
                 dim: int = 0):
        super().__init__()
        self.module, self.dim = module, dim
        self.device_ids, self.output_device = [] if device_ids is None else device_ids, \
            output_device

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        return self.module(*inputs, **kwargs)


_UNINITIALIZED = ("Can't access the shape of an uninitialized parameter or buffer. This error "
                  "usually happens in `load_state_dict` when trying to load an uninitialized "
                  "parameter into an initialized one. Call `forward` to initialize the "
                  "parameters before accessing their attributes.")


def _no_shape(self: Tensor, *args: Any) -> Any:
    raise RuntimeError(_UNINITIALIZED)


class UninitializedParameter(Parameter):
    """A parameter whose shape a lazy module learns from its first input."""

    def __new__(cls, requires_grad: bool = True, device: Any = None,
                dtype: Any = None) -> "UninitializedParameter":
        return super().__new__(cls, empty(0, dtype=dtype), requires_grad)

    shape = property(_no_shape)  # (as PyTorch's: a lazy module has yet to shape it)
    size = _no_shape

    def __repr__(self) -> str:
        return "<UninitializedParameter>"


class UninitializedBuffer(Tensor):
    """A buffer whose shape a lazy module learns from its first input."""

    def __new__(cls, requires_grad: bool = False, device: Any = None,
                dtype: Any = None) -> "UninitializedBuffer":
        t = empty(0, dtype=dtype)
        t.__class__ = cls
        return t.requires_grad_(requires_grad)

    shape = property(_no_shape)
    size = _no_shape

    def __repr__(self) -> str:
        return "<UninitializedBuffer>"


def is_lazy(param: Any) -> bool:
    """Whether ``param`` is a parameter or buffer that a lazy module has yet to shape."""
    return isinstance(param, UninitializedParameter | UninitializedBuffer)
