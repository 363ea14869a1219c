"""Resampling layers of ``torch.nn``: ``Upsample`` (and ``UpsamplingNearest2d``,
``UpsamplingBilinear2d``) on ``functional.interpolate``, ``PixelShuffle`` and
``PixelUnshuffle``, ``ChannelShuffle``; distances: ``CosineSimilarity``, ``PairwiseDistance``."""

from __future__ import annotations

from typing import Any

from ...tensor import Tensor
from .. import functional as NF
from .module import Module

__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d", "PixelShuffle",
           "PixelUnshuffle", "ChannelShuffle", "CosineSimilarity", "PairwiseDistance"]


class Upsample(Module):
    """Resample the spatial dimensions to ``size`` or by ``scale_factor`` with
    ``functional.interpolate``.

    >>> import fad.torch as torch
    >>> up = torch.nn.Upsample(scale_factor=2)
    >>> up, up(torch.tensor([[[1.0, 2.0]]])).tolist()
    (Upsample(scale_factor=2.0, mode='nearest'), [[[1.0, 1.0, 2.0, 2.0]]])
    """

    def __init__(self, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                 align_corners: bool | None = None,
                 recompute_scale_factor: bool | None = None):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor: Any = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode, self.align_corners = mode, align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:
        return NF.interpolate(input, self.size, self.scale_factor, self.mode,
                              self.align_corners,
                              recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self) -> str:
        info = f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None \
            else f"size={self.size!r}"
        return f"{info}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """``Upsample`` of ``(N, C, H, W)`` input, nearest neighbour.

    >>> import fad.torch as torch
    >>> torch.nn.UpsamplingNearest2d(scale_factor=2)(torch.ones(1, 1, 1, 1)).shape
    torch.Size([1, 1, 2, 2])
    """

    def __init__(self, size: Any = None, scale_factor: Any = None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """``Upsample`` of ``(N, C, H, W)`` input, bilinear with ``align_corners=True``.

    >>> import fad.torch as torch
    >>> torch.nn.UpsamplingBilinear2d(size=3)(torch.tensor([[[[0.0, 2.0]]]])).tolist()
    [[[[0.0, 1.0, 2.0], [0.0, 1.0, 2.0], [0.0, 1.0, 2.0]]]]
    """

    def __init__(self, size: Any = None, scale_factor: Any = None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class PixelShuffle(Module):
    """``(*, C r^2, H, W) -> (*, C, H r, W r)``.

    >>> import fad.torch as torch
    >>> torch.nn.PixelShuffle(3)(torch.ones(1, 9, 2, 2)).shape
    torch.Size([1, 1, 6, 6])
    """

    def __init__(self, upscale_factor: int):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return NF.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """``(*, C, H r, W r) -> (*, C r^2, H, W)``.

    >>> import fad.torch as torch
    >>> torch.nn.PixelUnshuffle(2)(torch.ones(1, 1, 4, 4)).shape
    torch.Size([1, 4, 2, 2])
    """

    def __init__(self, downscale_factor: int):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return NF.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"


class ChannelShuffle(Module):
    """Interleave ``groups`` groups of channels.

    >>> import fad.torch as torch
    >>> torch.nn.ChannelShuffle(2)
    ChannelShuffle(groups=2)
    """

    def __init__(self, groups: int):
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return NF.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"


class CosineSimilarity(Module):
    """The cosine of the angle between ``x1`` and ``x2`` along ``dim``.

    >>> import fad.torch as torch
    >>> torch.nn.CosineSimilarity()(torch.tensor([[1.0, 0.0]]), torch.tensor([[2.0, 0.0]]))
    tensor([1.])
    """

    def __init__(self, dim: int = 1, eps: float = 1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return NF.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """The ``p``-norm distance between the rows of ``x1`` and ``x2``.

    >>> import fad.torch as torch
    >>> torch.nn.PairwiseDistance(eps=0.0)(torch.tensor([[3.0, 4.0]]), torch.zeros(1, 2))
    tensor([5.])
    """

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return NF.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)
