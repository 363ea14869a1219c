"""Pooling layers of ``torch.nn``: ``MaxPool1d``, ``MaxPool2d``, ``AvgPool1d``,
``AvgPool2d``, ``AdaptiveAvgPool1d``, ``AdaptiveAvgPool2d``, ``LPPool1d``, ``LPPool2d``,
and ``Unflatten``."""

from __future__ import annotations

from typing import Any

from ... import _functions as F
from ...tensor import Tensor
from .. import _conv_pool as CP
from .. import functional as NF
from .module import Module

__all__ = ["LPPool1d", "LPPool2d", "MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d",
           "AdaptiveAvgPool1d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "Fold", "Unfold",
           "AdaptiveAvgPool2d", "Unflatten", "MaxPool3d", "AvgPool3d", "MaxUnpool1d",
           "MaxUnpool2d", "MaxUnpool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "LPPool3d"]


class _MaxPool(Module):
    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 dilation: Any = 1, return_indices: bool = False, ceil_mode: bool = False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, "
                f"padding={self.padding}, dilation={self.dilation}, "
                f"ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPool):
    """The maximum of each window of ``(N, C, L)`` input.

    >>> import fad.torch as torch
    >>> torch.nn.MaxPool1d(2)
    MaxPool1d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
    """

    def forward(self, input: Tensor) -> Any:
        return NF.max_pool1d(input, self.kernel_size, self.stride, self.padding,
                             self.dilation, self.ceil_mode, self.return_indices)


class MaxPool2d(_MaxPool):
    """The maximum of each window of ``(N, C, H, W)`` input.

    >>> import fad.torch as torch
    >>> torch.nn.MaxPool2d(3, 2, 1, ceil_mode=True)
    MaxPool2d(kernel_size=3, stride=2, padding=1, dilation=1, ceil_mode=True)
    """

    def forward(self, input: Tensor) -> Any:
        return NF.max_pool2d(input, self.kernel_size, self.stride, self.padding,
                             self.dilation, self.ceil_mode, self.return_indices)


class MaxPool3d(_MaxPool):
    """The maximum of each window of ``(N, C, D, H, W)`` input.

    >>> import fad.torch as torch
    >>> torch.nn.MaxPool3d(2)(torch.ones(1, 1, 4, 4, 4)).shape
    torch.Size([1, 1, 2, 2, 2])
    """

    def forward(self, input: Tensor) -> Any:
        return NF.max_pool3d(input, self.kernel_size, self.stride, self.padding,
                             self.dilation, self.ceil_mode, self.return_indices)


class _MaxUnpool(Module):
    _nd = 2

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0):
        super().__init__()
        nd = self._nd
        k = tuple(kernel_size) if isinstance(kernel_size, tuple | list) else (kernel_size,) * nd
        s = k if stride is None else (tuple(stride) if isinstance(stride, tuple | list)
                                      else (stride,) * nd)
        p = tuple(padding) if isinstance(padding, tuple | list) else (padding,) * nd
        self.kernel_size, self.stride, self.padding = k, s, p

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:
        unpool = (NF.max_unpool1d, NF.max_unpool2d, NF.max_unpool3d)[self._nd - 1]
        return unpool(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpool):
    """``F.max_unpool1d`` as a module.

    >>> import fad.torch as torch
    >>> torch.nn.MaxUnpool1d(2)
    MaxUnpool1d(kernel_size=(2,), stride=(2,), padding=(0,))
    """

    _nd = 1


class MaxUnpool2d(_MaxUnpool):
    """``F.max_unpool2d`` as a module.

    >>> import fad.torch as torch
    >>> torch.nn.MaxUnpool2d(2)
    MaxUnpool2d(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0))
    """


class MaxUnpool3d(_MaxUnpool):
    """``F.max_unpool3d`` as a module.

    >>> import fad.torch as torch
    >>> torch.nn.MaxUnpool3d(2)
    MaxUnpool3d(kernel_size=(2, 2, 2), stride=(2, 2, 2), padding=(0, 0, 0))
    """

    _nd = 3


class AvgPool2d(Module):
    """The mean of each window of ``(N, C, H, W)`` input.

    >>> import fad.torch as torch
    >>> torch.nn.AvgPool2d(2)(torch.ones(1, 1, 4, 4)).shape
    torch.Size([1, 1, 2, 2])
    """

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: int | None = None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return NF.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                             self.count_include_pad, self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool3d(AvgPool2d):
    """The mean of each window of ``(N, C, D, H, W)`` input.

    >>> import fad.torch as torch
    >>> torch.nn.AvgPool3d(2)(torch.ones(1, 1, 4, 4, 4)).shape
    torch.Size([1, 1, 2, 2, 2])
    """

    def forward(self, input: Tensor) -> Tensor:
        return NF.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                             self.count_include_pad, self.divisor_override)


class AvgPool1d(Module):
    """The mean of each window of ``(N, C, L)`` input.

    >>> import fad.torch as torch
    >>> torch.nn.AvgPool1d(2)
    AvgPool1d(kernel_size=(2,), stride=(2,), padding=(0,))
    """

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True):
        super().__init__()
        self.kernel_size = CP._ntuple(kernel_size, 1)
        self.stride = CP._ntuple(stride if stride is not None else kernel_size, 1)
        self.padding, self.ceil_mode = CP._ntuple(padding, 1), ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return NF.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                             self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool1d(Module):
    """Mean pooling of ``(N, C, L)`` input to a fixed ``output_size``.

    >>> import fad.torch as torch
    >>> torch.nn.AdaptiveAvgPool1d(2)(torch.ones(1, 3, 7)).shape
    torch.Size([1, 3, 2])
    """

    def __init__(self, output_size: Any):
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return NF.adaptive_avg_pool1d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool2d(Module):
    """Mean pooling of ``(N, C, H, W)`` input to a fixed ``output_size``.

    >>> import fad.torch as torch
    >>> torch.nn.AdaptiveAvgPool2d((5, 7))
    AdaptiveAvgPool2d(output_size=(5, 7))
    """

    def __init__(self, output_size: Any):
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return NF.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool3d(AdaptiveAvgPool2d):
    """Mean pooling of ``(N, C, D, H, W)`` input to a fixed ``output_size``.

    >>> import fad.torch as torch
    >>> torch.nn.AdaptiveAvgPool3d((1, None, 2))(torch.ones(1, 2, 3, 4, 5)).shape
    torch.Size([1, 2, 1, 4, 2])
    """

    def forward(self, input: Tensor) -> Tensor:
        return NF.adaptive_avg_pool3d(input, self.output_size)


class Unflatten(Module):
    """Axis ``dim`` reshaped to ``unflattened_size``.

    >>> import fad.torch as torch
    >>> torch.nn.Unflatten(1, (2, 5))(torch.zeros(3, 10)).shape
    torch.Size([3, 2, 5])
    """

    def __init__(self, dim: int | str, unflattened_size: Any):
        super().__init__()
        self.dim, self.unflattened_size = dim, unflattened_size

    def forward(self, input: Tensor) -> Tensor:
        return F.unflatten(input, self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class AdaptiveMaxPool2d(Module):
    """Max pooling of ``(N, C, H, W)`` input to a fixed ``output_size``.

    >>> import fad.torch as torch
    >>> torch.nn.AdaptiveMaxPool2d((2, None))
    AdaptiveMaxPool2d(output_size=(2, None))
    """

    def __init__(self, output_size: Any, return_indices: bool = False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input: Tensor) -> Any:
        return NF.adaptive_max_pool2d(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(AdaptiveMaxPool2d):
    """Max pooling of ``(N, C, L)`` input to a fixed ``output_size``.

    >>> import fad.torch as torch
    >>> torch.nn.AdaptiveMaxPool1d(3)(torch.arange(6.0).reshape(1, 6)).tolist()
    [[1.0, 3.0, 5.0]]
    """

    def forward(self, input: Tensor) -> Any:
        return NF.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool3d(AdaptiveMaxPool2d):
    """Max pooling of ``(N, C, D, H, W)`` input to a fixed ``output_size``.

    >>> import fad.torch as torch
    >>> torch.nn.AdaptiveMaxPool3d(1)(torch.arange(8.0).reshape(1, 2, 2, 2)).tolist()
    [[[[7.0]]]]
    """

    def forward(self, input: Tensor) -> Any:
        return NF.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class Fold(Module):
    """``F.fold`` with fixed sizes: blocks ``(N, C * kh * kw, L)`` summed into an image.

    >>> import fad.torch as torch
    >>> torch.nn.Fold((4, 5), 2)
    Fold(output_size=(4, 5), kernel_size=2, dilation=1, padding=0, stride=1)
    """

    def __init__(self, output_size: Any, kernel_size: Any, dilation: Any = 1,
                 padding: Any = 0, stride: Any = 1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input: Tensor) -> Tensor:
        return NF.fold(input, self.output_size, self.kernel_size, self.dilation,
                       self.padding, self.stride)

    def extra_repr(self) -> str:
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
                f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}")


class Unfold(Module):
    """``F.unfold`` with fixed sizes: every block of an image as a column.

    >>> import fad.torch as torch
    >>> torch.nn.Unfold(2, stride=2)(torch.zeros(1, 3, 4, 4)).shape
    torch.Size([1, 12, 4])
    """

    def __init__(self, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
                 stride: Any = 1):
        super().__init__()
        self.kernel_size, self.dilation = kernel_size, dilation
        self.padding, self.stride = padding, stride

    def forward(self, input: Tensor) -> Tensor:
        return NF.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class _LPPoolNd(Module):
    _fn = ""

    def __init__(self, norm_type: float, kernel_size: Any, stride: Any = None,
                 ceil_mode: bool = False):
        super().__init__()
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode

    def forward(self, input: Tensor) -> Tensor:
        return getattr(NF, self._fn)(input, float(self.norm_type), self.kernel_size,
                                     self.stride, self.ceil_mode)

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    """Power-average pooling of ``(N, C, L)`` input: the ``norm_type``-norm of each window.

    >>> import fad.torch as torch
    >>> torch.nn.LPPool1d(2, 3, stride=2)
    LPPool1d(norm_type=2, kernel_size=3, stride=2, ceil_mode=False)
    """

    _fn = "lp_pool1d"


class LPPool2d(_LPPoolNd):
    """Power-average pooling of ``(N, C, H, W)`` input.

    >>> import fad.torch as torch
    >>> torch.nn.LPPool2d(1.5, (2, 3))(torch.ones(1, 1, 4, 6)).shape
    torch.Size([1, 1, 2, 2])
    """

    _fn = "lp_pool2d"


class LPPool3d(_LPPoolNd):
    """Power-average pooling of ``(N, C, D, H, W)`` input.

    >>> import fad.torch as torch
    >>> torch.nn.LPPool3d(2, 2)(torch.ones(1, 1, 2, 4, 4)).shape
    torch.Size([1, 1, 1, 2, 2])
    """

    _fn = "lp_pool3d"
