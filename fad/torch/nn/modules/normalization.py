"""Normalisation layers of ``torch.nn``: ``BatchNorm1d``, ``BatchNorm2d``, ``BatchNorm3d``,
``LayerNorm``, ``GroupNorm``, ``InstanceNorm1d/2d/3d``, ``LocalResponseNorm``,
``RMSNorm``."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..._creation import empty, ones, tensor, zeros
from ..._grad_mode import no_grad
from ...tensor import Tensor
from .. import functional as NF
from .. import init
from .module import Module, Parameter

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm", "GroupNorm", "InstanceNorm1d",
           "InstanceNorm2d", "InstanceNorm3d", "LocalResponseNorm", "RMSNorm", "SyncBatchNorm"]


def _affine_parameters(m: Module, shape: tuple, affine: bool, bias: bool, dtype: Any) -> None:
    """Register ``weight`` (ones) and ``bias`` (zeros) of ``shape``, or ``None``."""
    m.register_parameter("weight", Parameter(init.ones_(empty(*shape, dtype=dtype)))
                         if affine else None)
    m.register_parameter("bias", Parameter(init.zeros_(empty(*shape, dtype=dtype)))
                         if affine and bias else None)


def _reset_affine(m: Module) -> None:
    if m.weight is not None:
        init.ones_(m.weight)
    if m.bias is not None:
        init.zeros_(m.bias)


class _BatchNorm(Module):
    """Batch normalisation over the channels (dim 1), with running statistics kept in
    the buffers ``running_mean``, ``running_var`` and ``num_batches_tracked``."""

    _dims: tuple = ()
    _expected = ""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device: Any = None,
                 dtype: Any = None, *, bias: bool = True):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        _affine_parameters(self, (num_features,), affine, bias, dtype)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, dtype=dtype))
            self.register_buffer("running_var", ones(num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=np.int64))
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        _reset_affine(self)

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in self._dims:
            raise ValueError(f"expected {self._expected} input (got {input.dim()}D input)")

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and \
                self.num_batches_tracked is not None:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:  # a cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked)
        batch_stats = self.training or (self.running_mean is None and self.running_var is None)
        keep = not self.training or self.track_running_stats
        return NF.batch_norm(input, self.running_mean if keep else None,
                             self.running_var if keep else None, self.weight, self.bias,
                             batch_stats, factor, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of ``(N, C)`` or ``(N, C, L)`` input.

    >>> import fad.torch as torch
    >>> bn = torch.nn.BatchNorm1d(2)
    >>> bn(torch.tensor([[1.0, 2.0], [3.0, 6.0]])).shape
    torch.Size([2, 2])
    >>> bn.running_mean
    tensor([0.2000, 0.4000])
    """

    _dims = (2, 3)
    _expected = "2D or 3D"


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of ``(N, C, H, W)`` input.

    >>> import fad.torch as torch
    >>> torch.nn.BatchNorm2d(3)
    BatchNorm2d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

    _dims = (4,)
    _expected = "4D"



class BatchNorm3d(_BatchNorm):
    """Batch normalisation of ``(N, C, D, H, W)`` input.

    >>> import fad.torch as torch
    >>> torch.nn.BatchNorm3d(2)(torch.ones(2, 2, 1, 2, 2)).shape
    torch.Size([2, 2, 1, 2, 2])
    """

    _dims = (5,)
    _expected = "5D"


class SyncBatchNorm(_BatchNorm):
    """Batch normalisation synchronised across processes; in one process (fad.torch
    has no distributed training) it is ``BatchNorm`` of any input of two dimensions
    or more, as PyTorch's outside a process group.

    >>> import fad.torch as torch
    >>> net = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.BatchNorm1d(3))
    >>> torch.nn.SyncBatchNorm.convert_sync_batchnorm(net)[1]
    SyncBatchNorm(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True,
                 process_group: Any = None, device: Any = None, dtype: Any = None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype)
        self.process_group = process_group

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group: Any = None) -> Module:
        """``module`` with every batch norm in it (itself included) replaced by a
        ``SyncBatchNorm`` holding the same parameters, buffers and mode."""
        out = module
        if isinstance(module, _BatchNorm) and not isinstance(module, _InstanceNorm):
            out = cls(module.num_features, module.eps, module.momentum, module.affine,
                      module.track_running_stats, process_group)
            for store in ("_parameters", "_buffers"):
                out.__dict__[store].update(module.__dict__[store])
            out.training = module.training
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out

class LayerNorm(Module):
    """Normalisation over the trailing ``normalized_shape`` dimensions, with an
    elementwise ``weight`` (ones) and ``bias`` (zeros).

    >>> import fad.torch as torch
    >>> torch.nn.LayerNorm(4)
    LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)
    """

    def __init__(self, normalized_shape: Any, eps: float = 1e-5,
                 elementwise_affine: bool = True, bias: bool = True, device: Any = None,
                 dtype: Any = None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        _affine_parameters(self, self.normalized_shape, elementwise_affine, bias, dtype)

    def reset_parameters(self) -> None:
        _reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        return NF.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class GroupNorm(Module):
    """Normalisation of each sample over ``num_groups`` groups of channels, with a
    per-channel ``weight`` (ones) and ``bias`` (zeros).

    >>> import fad.torch as torch
    >>> torch.nn.GroupNorm(2, 4)
    GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)
    """

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5,
                 affine: bool = True, device: Any = None, dtype: Any = None, *,
                 bias: bool = True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups, self.num_channels = num_groups, num_channels
        self.eps, self.affine = eps, affine
        _affine_parameters(self, (num_channels,), affine, bias, dtype)

    def reset_parameters(self) -> None:
        _reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        return NF.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
                f"affine={self.affine}, bias={self.bias is not None}")


class _InstanceNorm(_BatchNorm):
    """Instance normalisation: each channel of each sample over its spatial
    dimensions; running statistics (``track_running_stats``) averaged over samples."""

    _no_batch = 2

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = False, track_running_stats: bool = False, device: Any = None,
                 dtype: Any = None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype)

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        dim = input.dim() - self._no_batch
        if input.shape[dim] != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={dim} to match num_features "
                                 f"({self.num_features}), but got: {input.shape[dim]}.")
            warnings.warn(f"input's size at dim={dim} does not match num_features. You can "
                          "silence this warning by not passing in num_features, which is not "
                          "used because affine=False", stacklevel=2)
        x = input.unsqueeze(0) if dim == 0 else input
        out = NF.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                               self.training or not self.track_running_stats,
                               0.0 if self.momentum is None else self.momentum, self.eps)
        return out.squeeze(0) if dim == 0 else out


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of ``(N, C, L)`` or ``(C, L)`` input.

    >>> import fad.torch as torch
    >>> torch.nn.InstanceNorm1d(3)
    InstanceNorm1d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, track_running_stats=False)
    """

    _dims = (2, 3)
    _expected = "2D or 3D"


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of ``(N, C, H, W)`` or ``(C, H, W)`` input.

    >>> import fad.torch as torch
    >>> torch.nn.InstanceNorm2d(2)(torch.tensor([[[[1.0, 3.0]], [[0.0, 2.0]]]]))
    tensor([[[[-1.0000,  1.0000]],
    <BLANKLINE>
             [[-1.0000,  1.0000]]]])
    """

    _no_batch = 3
    _dims = (3, 4)
    _expected = "3D or 4D"


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input.

    >>> import fad.torch as torch
    >>> torch.nn.InstanceNorm3d(2, affine=True).weight.shape
    torch.Size([2])
    """

    _no_batch = 4
    _dims = (4, 5)
    _expected = "4D or 5D"


class RMSNorm(Module):
    """Root-mean-square normalisation over the trailing ``normalized_shape``
    dimensions, with an elementwise ``weight`` (ones).

    >>> import fad.torch as torch
    >>> torch.nn.RMSNorm(4)
    RMSNorm((4,), eps=None, elementwise_affine=True)
    """

    def __init__(self, normalized_shape: Any, eps: float | None = None,
                 elementwise_affine: bool = True, device: Any = None, dtype: Any = None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        self.register_parameter("weight", Parameter(init.ones_(empty(
            *self.normalized_shape, dtype=dtype))) if elementwise_affine else None)

    def reset_parameters(self) -> None:
        if self.weight is not None:
            init.ones_(self.weight)

    def forward(self, input: Tensor) -> Tensor:
        return NF.rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


class LocalResponseNorm(Module):
    """Each element divided by ``(k + alpha * mean of x^2 over size channels)^beta``.

    >>> import fad.torch as torch
    >>> torch.nn.LocalResponseNorm(2)
    LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        return NF.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
