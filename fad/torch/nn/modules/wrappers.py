"""Modules that wrap or defer another: ``DataParallel`` (one process: the module
itself, under ``module``) and ``LazyLinear`` (a ``Linear`` whose input size is read
from its first input)."""

from __future__ import annotations

from typing import Any

from ..._creation import empty
from ...tensor import Tensor
from .layers import Linear
from .module import Module, Parameter

__all__ = ["DataParallel", "LazyLinear", "UninitializedParameter", "UninitializedBuffer"]


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


class UninitializedParameter(Parameter):
    """A parameter whose shape a lazy module learns from its first input."""

    def __new__(cls, requires_grad: bool = True, device: Any = None,
                dtype: Any = None) -> "UninitializedParameter":
        return super().__new__(cls, empty(0, dtype=dtype), requires_grad)

    def __repr__(self) -> str:
        return "<UninitializedParameter>"


class UninitializedBuffer(Tensor):
    """A buffer whose shape a lazy module learns from its first input."""

    def __new__(cls, requires_grad: bool = False, device: Any = None,
                dtype: Any = None) -> "UninitializedBuffer":
        t = empty(0, dtype=dtype)
        t.__class__ = cls
        return t.requires_grad_(requires_grad)

    def __repr__(self) -> str:
        return "<UninitializedBuffer>"


def is_lazy(param: Any) -> bool:
    """Whether ``param`` is a parameter or buffer that a lazy module has yet to shape."""
    return isinstance(param, UninitializedParameter | UninitializedBuffer)


class LazyLinear(Module):
    """A ``Linear`` of ``out_features`` whose ``in_features`` is the last dimension
    of its first input; it then becomes a ``Linear`` (initialised as one), as
    PyTorch's.

    >>> import fad.torch as torch
    >>> layer = torch.nn.LazyLinear(3)
    >>> _ = layer(torch.ones(2, 5))
    >>> layer
    Linear(in_features=5, out_features=3, bias=True)
    """

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device: Any = None,
                 dtype: Any = None):
        super().__init__()
        self.in_features, self.out_features, self._dtype = 0, out_features, dtype
        self.weight = UninitializedParameter(dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)
        else:
            self.register_parameter("bias", None)

    def forward(self, input: Tensor) -> Tensor:
        self.in_features = input.shape[-1]
        self.weight = Parameter(empty(self.out_features, self.in_features, dtype=self._dtype))
        if self.bias is not None:
            self.bias = Parameter(empty(self.out_features, dtype=self._dtype))
        object.__setattr__(self, "__class__", self.cls_to_become)
        self.__dict__.pop("_dtype", None)
        self.reset_parameters()
        return self(input)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")
