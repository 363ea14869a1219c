"""The loss modules of ``torch.nn`` (``MSELoss``, ``CrossEntropyLoss``...): each
holds its options and calls the ``functional`` form."""

from __future__ import annotations

from typing import Any

from ...tensor import Tensor
from .. import functional as NF
from .module import Module
from .upsampling import PairwiseDistance

__all__ = ["MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss", "BCEWithLogitsLoss",
           "NLLLoss", "CrossEntropyLoss", "KLDivLoss", "CosineEmbeddingLoss",
           "MarginRankingLoss", "HingeEmbeddingLoss", "TripletMarginLoss", "SoftMarginLoss",
           "MultiLabelSoftMarginLoss", "MultiMarginLoss", "PoissonNLLLoss", "GaussianNLLLoss",
           "MultiLabelMarginLoss", "TripletMarginWithDistanceLoss", "CTCLoss"]


class _Loss(Module):
    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
                 **kwargs: Any):
        super().__init__()
        self.reduction = NF._reduction(size_average, reduce, reduction, None)
        for k, v in kwargs.items():
            setattr(self, k, v)

    def extra_repr(self) -> str:
        return ""


class _WeightedLoss(_Loss):
    """A loss holding a ``weight`` tensor (or ``None``) as a buffer, as PyTorch's."""

    def __init__(self, weight: Tensor | None = None, size_average: Any = None,
                 reduce: Any = None, reduction: str = "mean", **kwargs: Any):
        super().__init__(size_average, reduce, reduction, **kwargs)
        self.register_buffer("weight", weight)


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


class BCELoss(_WeightedLoss):
    def __init__(self, weight: Tensor | None = None, size_average: Any = None,
                 reduce: Any = None, reduction: str = "mean"):
        super().__init__(weight, size_average, reduce, reduction)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return NF.binary_cross_entropy(input, target, self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_WeightedLoss):
    def __init__(self, weight: Tensor | None = None, size_average: Any = None,
                 reduce: Any = None, reduction: str = "mean", pos_weight: Tensor | None = None):
        super().__init__(weight, size_average, reduce, reduction)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return NF.binary_cross_entropy_with_logits(input, target, self.weight,
                                                   reduction=self.reduction,
                                                   pos_weight=self.pos_weight)


class NLLLoss(_WeightedLoss):
    def __init__(self, weight: Tensor | None = None, size_average: Any = None,
                 ignore_index: int = -100, reduce: Any = None, reduction: str = "mean"):
        super().__init__(weight, size_average, reduce, reduction, ignore_index=ignore_index)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return NF.nll_loss(input, target, self.weight, ignore_index=self.ignore_index,
                           reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    def __init__(self, weight: Tensor | None = None, size_average: Any = None,
                 ignore_index: int = -100, reduce: Any = None, reduction: str = "mean",
                 label_smoothing: float = 0.0):
        super().__init__(weight, size_average, reduce, reduction, ignore_index=ignore_index,
                         label_smoothing=label_smoothing)

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


class CTCLoss(_Loss):
    """The connectionist temporal classification loss (``functional.ctc_loss``)."""

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False):
        super().__init__(None, None, reduction, blank=blank, zero_infinity=zero_infinity)

    def forward(self, log_probs: Tensor, targets: Tensor, input_lengths: Tensor,
                target_lengths: Tensor) -> Tensor:
        return NF.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                           self.reduction, self.zero_infinity)


class _MarginLoss(_Loss):
    """A loss of two inputs and a +-1 ``target`` with a ``margin``."""

    _fn = staticmethod(NF.margin_ranking_loss)

    def __init__(self, margin: float = 0.0, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction, margin=margin)

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return type(self)._fn(input1, input2, target, self.margin, reduction=self.reduction)


class CosineEmbeddingLoss(_MarginLoss):
    """``1 - cos(x1, x2)`` for pairs labelled 1, ``max(0, cos - margin)`` for -1.

    >>> import fad.torch as torch
    >>> x = torch.tensor([[1.0, 0.0]])
    >>> torch.nn.CosineEmbeddingLoss()(x, x, torch.tensor([1.0]))
    tensor(0.)
    """

    _fn = staticmethod(NF.cosine_embedding_loss)


class MarginRankingLoss(_MarginLoss):
    """``max(0, -target * (x1 - x2) + margin)``.

    >>> import fad.torch as torch
    >>> torch.nn.MarginRankingLoss()(torch.tensor([1.0]), torch.tensor([2.0]),
    ...                              torch.tensor([1.0]))
    tensor(1.)
    """


class HingeEmbeddingLoss(_MarginLoss):
    """``x`` for targets 1, ``max(0, margin - x)`` for -1.

    >>> import fad.torch as torch
    >>> torch.nn.HingeEmbeddingLoss()(torch.tensor([0.25]), torch.tensor([-1.0]))
    tensor(0.7500)
    """

    def __init__(self, margin: float = 1.0, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean"):
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return NF.hinge_embedding_loss(input, target, self.margin, reduction=self.reduction)


class TripletMarginLoss(_Loss):
    """``max(0, d(a, p) - d(a, n) + margin)``, ``d`` the ``p``-norm distance.

    >>> import fad.torch as torch
    >>> a = torch.zeros(1, 2)
    >>> torch.nn.TripletMarginLoss(eps=0.0)(a, a, a + 1)
    tensor(0.)
    """

    def __init__(self, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6,
                 swap: bool = False, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction, margin=margin, p=p, eps=eps,
                         swap=swap)
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got "
                             f"{margin} instead")

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return NF.triplet_margin_loss(anchor, positive, negative, self.margin, self.p,
                                      self.eps, self.swap, reduction=self.reduction)


class SoftMarginLoss(_Loss):
    """``log(1 + exp(-target * x))``.

    >>> import fad.torch as torch
    >>> torch.nn.SoftMarginLoss()(torch.tensor([0.0]), torch.tensor([-1.0]))
    tensor(0.6931)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return NF.soft_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """The binary cross entropy of ``sigmoid(x)`` per label, averaged over classes.

    >>> import fad.torch as torch
    >>> torch.nn.MultiLabelSoftMarginLoss()(torch.zeros(1, 2), torch.ones(1, 2))
    tensor(0.6931)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return NF.multilabel_soft_margin_loss(input, target, self.weight,
                                              reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    """The multi-class hinge loss of class indices.

    >>> import fad.torch as torch
    >>> torch.nn.MultiMarginLoss()(torch.tensor([[0.0, 3.0]]), torch.tensor([1]))
    tensor(0.)
    """

    def __init__(self, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                 size_average: Any = None, reduce: Any = None, reduction: str = "mean"):
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(f"MultiMarginLoss: expected weight to be None or 1D tensor, got "
                             f"{weight.dim()}D instead")
        super().__init__(weight, size_average, reduce, reduction, p=p, margin=margin)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return NF.multi_margin_loss(input, target, self.p, self.margin, self.weight,
                                    reduction=self.reduction)


class PoissonNLLLoss(_Loss):
    """The negative log-likelihood of a Poisson ``target``.

    >>> import fad.torch as torch
    >>> torch.nn.PoissonNLLLoss()(torch.tensor([0.0]), torch.tensor([0.0]))
    tensor(1.)
    """

    def __init__(self, log_input: bool = True, full: bool = False, size_average: Any = None,
                 eps: float = 1e-8, reduce: Any = None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction, log_input=log_input, full=full,
                         eps=eps)

    def forward(self, log_input: Tensor, target: Tensor) -> Tensor:
        return NF.poisson_nll_loss(log_input, target, self.log_input, self.full,
                                   eps=self.eps, reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """The negative log-likelihood of ``target`` under a normal distribution.

    >>> import fad.torch as torch
    >>> torch.nn.GaussianNLLLoss()(torch.zeros(1), torch.zeros(1), torch.ones(1))
    tensor(0.)
    """

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean"):
        super().__init__(reduction=reduction, full=full, eps=eps)

    def forward(self, input: Tensor, target: Tensor, var: Tensor | float) -> Tensor:
        return NF.gaussian_nll_loss(input, target, var, self.full, self.eps, self.reduction)


class MultiLabelMarginLoss(_Loss):
    """The multi-label hinge loss of class lists ended by -1.

    >>> import fad.torch as torch
    >>> torch.nn.MultiLabelMarginLoss()(torch.tensor([[0.0, 5.0]]), torch.tensor([[1, -1]]))
    tensor(0.)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return NF.multilabel_margin_loss(input, target, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """``TripletMarginLoss`` with any ``distance_function`` (a ``PairwiseDistance``
    submodule by default).

    >>> import fad.torch as torch
    >>> a = torch.zeros(1, 2)
    >>> torch.nn.TripletMarginWithDistanceLoss()(a, a, a + 2)
    tensor(0.)
    """

    def __init__(self, *, distance_function: Any = None, margin: float = 1.0,
                 swap: bool = False, reduction: str = "mean"):
        super().__init__(reduction=reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater "
                             f"than 0, got {margin} instead")
        self.distance_function = distance_function if distance_function is not None \
            else PairwiseDistance()
        self.margin, self.swap = margin, swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return NF.triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction)
