"""Lazy modules: layers whose input size (``in_features``, ``in_channels``,
``num_features``) is read from their first input, as PyTorch's ``LazyLinear``,
``LazyConv*``, ``LazyConvTranspose*``, ``LazyBatchNorm*`` and ``LazyInstanceNorm*``.

A lazy module is an instance of the layer it becomes (``isinstance(LazyConv2d(8, 3),
Conv2d)``; a lazy norm, of its base class only, as in PyTorch). Until that first
call it has that layer's layout, with
size 0 and ``UninitializedParameter``/``UninitializedBuffer`` placeholders; the
call builds that layer at the inferred size (so the parameters are drawn as a
fresh layer's), fills the placeholders in place with its values (an optimizer
made earlier keeps working on them), keeps the module's hooks, and turns the
module into that class (``cls_to_become``).

>>> import fad.torch as torch
>>> layer = torch.nn.LazyConv2d(8, 3)
>>> layer
LazyConv2d(0, 8, kernel_size=(3, 3), stride=(1, 1))
>>> layer(torch.ones(1, 3, 5, 5)).shape, layer
(torch.Size([1, 8, 3, 3]), Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1)))
"""

from __future__ import annotations

from typing import Any

from ...random import fork_rng
from ...tensor import Tensor
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .layers import Linear
from .module import Module, Parameter
from .normalization import (
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
    InstanceNorm1d,
    InstanceNorm2d,
    InstanceNorm3d,
)
from .wrappers import UninitializedBuffer, UninitializedParameter, is_lazy

__all__ = ["LazyModuleMixin", "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d",
           "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d",
           "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d"]

_HOOK_STORES = ("_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_forward_hooks",
                "_forward_hooks_with_kwargs", "_backward_hooks")


class LazyModuleMixin(Module):
    """A module that becomes ``cls_to_become`` on its first call (see the module's
    docstring). A subclass names the size attribute (``_size``), how to read it off
    the input (``_infer``) and a size its layer accepts for the placeholder layout
    (``_placeholder``)."""

    cls_to_become: type
    _size = "in_features"
    _defaults: dict = {}

    def __init__(self, *args: Any, **kwargs: Any):
        kwargs = {**self._defaults, **kwargs}
        with fork_rng():  # (a layer built for its layout only: its draws are not taken)
            layout = self.cls_to_become(self._placeholder(args), *args, **kwargs)
        self.__dict__.update(layout.__dict__)
        setattr(self, self._size, 0)
        for store, placeholder in (("_parameters", UninitializedParameter),
                                   ("_buffers", UninitializedBuffer)):
            values = self.__dict__[store]
            for name, v in values.items():
                if v is not None and v.is_floating_point():
                    values[name] = placeholder(dtype=v.dtype)
        self.__dict__["_lazy_arguments"] = (args, kwargs)

    def _placeholder(self, args: tuple) -> int:
        return 1

    def _infer(self, input: Tensor) -> int:
        return input.shape[-1]

    def has_uninitialized_params(self) -> bool:
        return any(is_lazy(v) for store in ("_parameters", "_buffers")
                   for v in self.__dict__[store].values())

    def initialize_parameters(self, input: Tensor, *args: Any, **kwargs: Any) -> None:
        """Build the layer at the size ``input`` gives and take over its state."""
        args_, kwargs_ = self.__dict__.pop("_lazy_arguments")
        layer = self.cls_to_become(self._infer(input), *args_, **kwargs_)
        state = layer.__dict__
        for store, cls in (("_parameters", Parameter), ("_buffers", Tensor)):
            for name, v in state[store].items():
                old = self.__dict__[store].get(name)
                if v is not None and is_lazy(old):  # filled in place
                    old._value = v._value
                    old.__class__ = cls
                    state[store][name] = old
        for k in (*_HOOK_STORES, "training"):
            state[k] = self.__dict__[k]
        self.__dict__.clear()
        self.__dict__.update(state)
        self.__class__ = self.cls_to_become

    def forward(self, input: Tensor, *args: Any, **kwargs: Any) -> Any:
        self.initialize_parameters(input)
        return self.forward(input, *args, **kwargs)


class _LazyConv(LazyModuleMixin):
    _size = "in_channels"

    def _placeholder(self, args: tuple) -> int:
        return args[0]  # (out_channels: divisible by groups)

    def _infer(self, input: Tensor) -> int:
        nd = self.cls_to_become._nd + 1
        if input.dim() not in (nd, nd + 1):
            raise RuntimeError(f"Expected {nd}D (unbatched) or {nd + 1}D (batched) input to "
                               f"{type(self).__name__}, but got input of size: {input.shape}")
        channels = input.shape[1] if input.dim() == nd + 1 else input.shape[0]
        groups = self.__dict__["groups"]
        if channels % groups:
            raise ValueError("in_channels must be divisible by groups")
        return channels


class _LazyNorm(LazyModuleMixin):
    _size = "num_features"

    def _infer(self, input: Tensor) -> int:
        return input.shape[1]


def _lazy(name: str, base: type, becomes: type, doc: str, parent: type | None = None,
          **defaults: Any) -> type:
    """A lazy ``becomes``: a subclass of it (or, as PyTorch's lazy norms, of its
    ``parent`` with its class attributes), the mixin first."""
    attrs = {} if parent is None else {k: v for k, v in vars(becomes).items()
                                       if not k.startswith("__")}
    attrs.update({"cls_to_become": becomes, "__doc__": doc, "__module__": __name__,
                  "_defaults": defaults})
    return type(name, (base, parent or becomes), attrs)


LazyLinear = _lazy("LazyLinear", LazyModuleMixin, Linear,
                   "A ``Linear`` whose ``in_features`` is its first input's last dimension.")
LazyConv1d, LazyConv2d, LazyConv3d, LazyConvTranspose1d, LazyConvTranspose2d, \
    LazyConvTranspose3d = (
        _lazy(f"Lazy{c.__name__}", _LazyConv, c,
              f"A ``{c.__name__}`` whose ``in_channels`` is read from its first input.")
        for c in (Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d))
LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d = (
    _lazy(f"Lazy{c.__name__}", _LazyNorm, c,
          f"A ``{c.__name__}`` whose ``num_features`` is read from its first input.",
          c.__mro__[1])
    for c in (BatchNorm1d, BatchNorm2d, BatchNorm3d))
LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d = (
    _lazy(f"Lazy{c.__name__}", _LazyNorm, c,
          f"A ``{c.__name__}`` whose ``num_features`` is read from its first input (affine "
          "and tracking running statistics by default, as PyTorch's).", c.__mro__[1],
          affine=True, track_running_stats=True)
    for c in (InstanceNorm1d, InstanceNorm2d, InstanceNorm3d))
