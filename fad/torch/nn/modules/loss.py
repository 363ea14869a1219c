"""The loss modules of ``torch.nn`` (``MSELoss``, ``CrossEntropyLoss``...): each
holds its options and calls the ``functional`` form."""

from __future__ import annotations

from typing import Any

from ...tensor import Tensor
from .. import functional as NF
from .module import Module

__all__ = ["MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss", "BCEWithLogitsLoss",
           "NLLLoss", "CrossEntropyLoss", "KLDivLoss"]



class _Loss(Module):
    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
                 **kwargs: Any):
        super().__init__()
        self.reduction = NF._reduction(size_average, reduce, reduction)
        for k, v in kwargs.items():
            setattr(self, k, v)

    def extra_repr(self) -> str:
        return ""


class MSELoss(_Loss):
    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return NF.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return NF.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
                 beta: float = 1.0):
        super().__init__(size_average, reduce, reduction, beta=beta)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return NF.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    def __init__(self, reduction: str = "mean", delta: float = 1.0):
        super().__init__(reduction=reduction, delta=delta)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return NF.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class BCELoss(_Loss):
    def __init__(self, weight: Tensor | None = None, size_average: Any = None,
                 reduce: Any = None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction, weight=weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return NF.binary_cross_entropy(input, target, self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    def __init__(self, weight: Tensor | None = None, size_average: Any = None,
                 reduce: Any = None, reduction: str = "mean", pos_weight: Tensor | None = None):
        super().__init__(size_average, reduce, reduction, weight=weight, pos_weight=pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return NF.binary_cross_entropy_with_logits(input, target, self.weight,
                                                   reduction=self.reduction,
                                                   pos_weight=self.pos_weight)


class NLLLoss(_Loss):
    def __init__(self, weight: Tensor | None = None, size_average: Any = None,
                 ignore_index: int = -100, reduce: Any = None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction, weight=weight,
                         ignore_index=ignore_index)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return NF.nll_loss(input, target, self.weight, ignore_index=self.ignore_index,
                           reduction=self.reduction)


class CrossEntropyLoss(_Loss):
    def __init__(self, weight: Tensor | None = None, size_average: Any = None,
                 ignore_index: int = -100, reduce: Any = None, reduction: str = "mean",
                 label_smoothing: float = 0.0):
        super().__init__(size_average, reduce, reduction, weight=weight,
                         ignore_index=ignore_index, label_smoothing=label_smoothing)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return NF.cross_entropy(input, target, self.weight, ignore_index=self.ignore_index,
                                reduction=self.reduction,
                                label_smoothing=self.label_smoothing)


class KLDivLoss(_Loss):
    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
                 log_target: bool = False):
        super().__init__(size_average, reduce, reduction, log_target=log_target)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return NF.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)
