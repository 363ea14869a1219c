"""Channel-wise and alpha dropout layers of ``torch.nn``: ``Dropout1d/2d/3d``,
``AlphaDropout``, ``FeatureAlphaDropout`` (identity in ``eval()`` mode)."""

from __future__ import annotations

from ...tensor import Tensor
from .. import functional as NF
from .layers import Dropout

__all__ = ["Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]


class Dropout1d(Dropout):
    """Zero whole channels of ``(N, C, L)`` or ``(C, L)`` input in training.

    >>> import fad.torch as torch
    >>> torch.nn.Dropout1d(0.2)
    Dropout1d(p=0.2, inplace=False)
    """

    def forward(self, input: Tensor) -> Tensor:
        return NF.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(Dropout):
    """Zero whole channels of ``(N, C, H, W)`` input in training.

    >>> import fad.torch as torch
    >>> torch.nn.Dropout2d().eval()(torch.ones(1, 1, 1, 1))
    tensor([[[[1.]]]])
    """

    def forward(self, input: Tensor) -> Tensor:
        return NF.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(Dropout):
    """Zero whole channels of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input in training.

    >>> import fad.torch as torch
    >>> torch.nn.Dropout3d()
    Dropout3d(p=0.5, inplace=False)
    """

    def forward(self, input: Tensor) -> Tensor:
        return NF.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(Dropout):
    """Dropout that keeps the mean and variance of SELU activations.

    >>> import fad.torch as torch
    >>> torch.nn.AlphaDropout(0.2)
    AlphaDropout(p=0.2, inplace=False)
    """

    def forward(self, input: Tensor) -> Tensor:
        return NF.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(Dropout):
    """``AlphaDropout`` of whole channels.

    >>> import fad.torch as torch
    >>> torch.nn.FeatureAlphaDropout().eval()(torch.ones(1, 2)).tolist()
    [[1.0, 1.0]]
    """

    def forward(self, input: Tensor) -> Tensor:
        return NF.feature_alpha_dropout(input, self.p, self.training)
