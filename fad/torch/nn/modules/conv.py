"""Convolution layers of ``torch.nn``: ``Conv1d``, ``Conv2d``, ``Conv3d``,
``ConvTranspose1d``, ``ConvTranspose2d``."""

from __future__ import annotations

import math
from typing import Any

from ...tensor import Tensor
from .. import _conv_pool as CP
from .layers import reset_kaiming, weight_and_bias
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
           "ConvTranspose3d"]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


class _ConvNd(Module):
    """The parameters, initialisation and ``repr`` shared by the convolutions:
    ``weight`` is ``(out, in / groups, *kernel)`` (transposed: ``(in, out / groups,
    *kernel)``), both drawn as PyTorch's ``reset_parameters``."""

    _nd = 2

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any,
                 padding: Any, dilation: Any, transposed: bool, output_padding: Any,
                 groups: int, bias: bool, padding_mode: str, device: Any = None,
                 dtype: Any = None):
        super().__init__()
        nd = self._nd
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 "{'valid', 'same'}")
            if padding == "same" and any(s != 1 for s in CP._ntuple(stride, nd)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {set(_PADDING_MODES)}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = CP._ntuple(kernel_size, nd)
        self.stride = CP._ntuple(stride, nd)
        self.padding = padding if isinstance(padding, str) else CP._ntuple(padding, nd)
        self.dilation = CP._ntuple(dilation, nd)
        self.transposed = transposed
        self.output_padding = CP._ntuple(output_padding, nd)
        self.groups = groups
        self.padding_mode = padding_mode
        shape = ((in_channels, out_channels // groups) if transposed else
                 (out_channels, in_channels // groups)) + self.kernel_size
        weight_and_bias(self, shape, out_channels, bias, dtype)

    def reset_parameters(self) -> None:
        reset_kaiming(self.weight, self.bias, self.weight.shape[1] * math.prod(self.kernel_size))

    def extra_repr(self) -> str:
        nd = self._nd
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * nd:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * nd:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * nd:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class _Conv(_ConvNd):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         False, 0, groups, bias, padding_mode, device, dtype)

    def forward(self, input: Tensor) -> Tensor:
        return CP._convnd(input, self.weight, self.bias, self.stride, self.padding,
                          self.dilation, self.groups, self._nd, self.padding_mode)


class Conv1d(_Conv):
    """1-d convolution over ``(N, C, L)`` input.

    >>> import fad.torch as torch
    >>> torch.nn.Conv1d(2, 4, 3, padding="same")
    Conv1d(2, 4, kernel_size=(3,), stride=(1,), padding=same)
    """

    _nd = 1


class Conv2d(_Conv):
    """2-d convolution over ``(N, C, H, W)`` input.

    >>> import fad.torch as torch
    >>> conv = torch.nn.Conv2d(1, 6, 5)
    >>> conv, conv(torch.zeros(2, 1, 32, 32)).shape
    (Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1)), torch.Size([2, 6, 28, 28]))
    """

    _nd = 2


class Conv3d(_Conv):
    """3-d convolution over ``(N, C, D, H, W)`` input.

    >>> import fad.torch as torch
    >>> torch.nn.Conv3d(2, 3, 2)
    Conv3d(2, 3, kernel_size=(2, 2, 2), stride=(1, 1, 1))
    """

    _nd = 3


class _ConvTranspose(_ConvNd):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                 bias: bool = True, dilation: Any = 1, padding_mode: str = "zeros",
                 device: Any = None, dtype: Any = None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         True, output_padding, groups, bias, padding_mode, device, dtype)

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:
        nd = self._nd
        output_padding = self.output_padding
        if output_size is not None:
            want = list(output_size)[-nd:]
            output_padding = tuple(
                o - ((n - 1) * s - 2 * p + d * (k - 1) + 1)
                for o, n, s, p, d, k in zip(want, input.shape[-nd:], self.stride,
                                            self.padding, self.dilation, self.kernel_size))
        return CP._conv_transposend(input, self.weight, self.bias, self.stride, self.padding,
                                    output_padding, self.groups, self.dilation, nd)


class ConvTranspose1d(_ConvTranspose):
    """Transposed 1-d convolution.

    >>> import fad.torch as torch
    >>> torch.nn.ConvTranspose1d(2, 3, 2, stride=2)(torch.zeros(1, 2, 5)).shape
    torch.Size([1, 3, 10])
    """

    _nd = 1


class ConvTranspose2d(_ConvTranspose):
    """Transposed 2-d convolution (``output_size`` in ``forward`` picks the
    ``output_padding`` that reaches it).

    >>> import fad.torch as torch
    >>> up = torch.nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1)
    >>> up(torch.zeros(1, 4, 5, 5)).shape
    torch.Size([1, 2, 10, 10])
    """

    _nd = 2


class ConvTranspose3d(_ConvTranspose):
    """Transposed 3-d convolution.

    >>> import fad.torch as torch
    >>> torch.nn.ConvTranspose3d(2, 3, 2, stride=2)(torch.zeros(1, 2, 2, 3, 4)).shape
    torch.Size([1, 3, 4, 6, 8])
    """

    _nd = 3
