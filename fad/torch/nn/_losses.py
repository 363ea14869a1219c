"""More of ``torch.nn.functional``'s losses. Those PyTorch composes of other
operations are composed of the facade's (so their ``grad_fn`` is PyTorch's:
``MeanBackward0``, ``ClampMinBackward0``...); ``soft_margin_loss`` and
``multi_margin_loss`` are one ``fad.nn``/``fad.numpy`` program each, recorded
under PyTorch's node name."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import nn as _nn
from ... import numpy as _fnp
from ...nn._ctc import IMPOSSIBLE, ctc_log_likelihood
from ...transforms.autodiff import stop_gradient
from .. import _functions as F
from .._creation import full_like, tensor, zeros_like
from .._grad_mode import is_grad_enabled, no_grad
from .._recorder import Op, apply
from ..tensor import Tensor
from ._common import _reduction, _v

__all__ = ["cosine_embedding_loss", "margin_ranking_loss", "hinge_embedding_loss",
           "triplet_margin_loss", "soft_margin_loss", "multilabel_soft_margin_loss",
           "multi_margin_loss", "poisson_nll_loss", "gaussian_nll_loss", "cosine_similarity",
           "pairwise_distance", "multilabel_margin_loss", "triplet_margin_with_distance_loss",
           "ctc_loss"]


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """The cosine of the angle between ``x1`` and ``x2`` along ``dim``: each divided by
    its norm (at least ``eps``; the clamp is not differentiated), then summed products.

    >>> import fad.torch as torch
    >>> torch.nn.functional.cosine_similarity(torch.tensor([[1.0, 0.0]]),
    ...                                       torch.tensor([[1.0, 1.0]]))
    tensor([0.7071])
    """
    return (_unit(x1, dim, eps) * _unit(x2, dim, eps)).sum(dim)


def _unit(x: Tensor, dim: int, eps: float) -> Tensor:
    n = F.norm(x, 2, dim, keepdim=True).clone()
    with no_grad():
        n.clamp_(min=eps)
    return x / n


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Tensor:
    """The ``p``-norm of ``x1 - x2 + eps`` over the last dimension.

    >>> import fad.torch as torch
    >>> torch.nn.functional.pairwise_distance(torch.tensor([[3.0, 0.0]]),
    ...                                       torch.tensor([[0.0, 4.0]]), eps=0.0)
    tensor([5.])
    """
    return apply(_PAIRWISE, (x1 - x2 + eps,), {"p": float(p), "keepdim": keepdim})


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _check(reduction: str) -> str:
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _multi_margin(x: Any, target: Any = None, p: int = 1, margin: float = 1.0,
                  weight: Any = None, reduction: str = "mean") -> Any:
    """``sum_{j != y} max(0, margin - x[y] + x[j])^p (weight[y]) / C`` per sample."""
    rows = _fnp.reshape(x, (-1, x.shape[-1]) if x.ndim else (1, 1))
    t = np.reshape(target, (-1,))
    picked = _fnp.take_along_axis(rows, t[:, None], axis=1)
    z = _nn.relu(margin - picked + rows)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * _fnp.reshape(weight[t], (-1, 1))
    others = np.arange(rows.shape[1])[None, :] != t[:, None]
    loss = _fnp.sum(_fnp.where(others, z, 0.0), axis=1) / rows.shape[1]
    return _nn.reduce_loss(_fnp.reshape(loss, np.shape(target)), reduction)


def _multilabel_margin(x: Any, target: Any = None, reduction: str = "mean") -> Any:
    """``sum_{j in targets} sum_{k not in targets} max(0, 1 - x[j] + x[k]) / C`` per
    sample, the targets of a row listed before its first -1."""
    rows = _fnp.reshape(x, (-1, x.shape[-1]))
    t = np.reshape(target, (-1, x.shape[-1]))
    listed = np.cumprod(t >= 0, axis=1).astype(bool)
    counts = np.zeros(t.shape, x.dtype)
    for i, j in zip(*np.nonzero(listed)):
        counts[i, t[i, j]] += 1
    pairs = counts[:, :, None] * (counts == 0)[:, None, :]  # (sample, j, k)
    hinge = _nn.relu(1.0 - rows[:, :, None] + rows[:, None, :])
    loss = _fnp.sum(hinge * pairs, axis=(1, 2)) / rows.shape[1]
    return _nn.reduce_loss(_fnp.reshape(loss, np.shape(target)[:-1]), reduction)


_MULTILABEL_MARGIN = Op("multilabel_margin_loss", _multilabel_margin,
                        "MultilabelMarginLossBackward0")
_SOFT_MARGIN = Op("soft_margin_loss", lambda x, y, reduction="mean": _nn.reduce_loss(
    _nn.softplus(-(y * x)), reduction), "SoftMarginLossBackward0")
_PAIRWISE = Op("pairwise_distance", lambda d, p=2.0, keepdim=False: _fnp.linalg.vector_norm(
    d, ord=p, axis=-1, keepdims=keepdim), "NormBackward1")
_MULTI_MARGIN = Op("multi_margin_loss", _multi_margin, "MultiMarginLossBackward0")


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                          size_average: Any = None, reduce: Any = None,
                          reduction: str = "mean") -> Tensor:
    """``1 - cos(x1, x2)`` where ``target`` is 1, ``max(0, cos(x1, x2) - margin)``
    where it is -1 (cosines over the last dimension).

    >>> import fad.torch as torch
    >>> x = torch.tensor([[1.0, 0.0], [1.0, 1.0]])
    >>> torch.nn.functional.cosine_embedding_loss(x, x, torch.tensor([1.0, -1.0]))
    tensor(0.5000)
    """
    reduction = _reduction(size_average, reduce, reduction)
    d = target.dim()
    if d > 1 or input1.dim() != d + 1 or input2.dim() != d + 1:
        raise RuntimeError(
            f"{d}D target tensor expects {d + 1}D input tensors, but found inputs with sizes "
            f"{list(input1.shape)} and {list(input2.shape)}." if d <= 1 else
            f"{d}D target tensor expected, multi-target not supported")
    if d and (target.shape[0] != input1.shape[0] or input1.shape[0] != input2.shape[0]):
        n1, n2 = input1.shape[0], input2.shape[0]
        a, b = (n1, n2) if n1 != n2 else (target.shape[0], n1)
        raise RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b "
                           f"({b}) at non-singleton dimension 0")
    eps = 1e-12
    dot = (input1 * input2).sum(d)
    norms = (((input1 * input1).sum(d) + eps) * ((input2 * input2).sum(d) + eps)).sqrt()
    cos = dot / norms
    zeros = zeros_like(cos)
    out = F.where(target == 1, 1 - cos, zeros) + \
        F.where(target == -1, (cos - margin).clamp_min(0), zeros)
    return _reduce(out, reduction)


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                        size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Tensor:
    """``max(0, -target * (x1 - x2) + margin)``.

    >>> import fad.torch as torch
    >>> F = torch.nn.functional
    >>> F.margin_ranking_loss(torch.tensor([1.0, 2.0]), torch.tensor([2.0, 0.0]),
    ...                       torch.tensor([1.0, 1.0]), reduction="none")
    tensor([1., 0.])
    """
    reduction = _reduction(size_average, reduce, reduction)
    if not input1.dim() == input2.dim() == target.dim():
        raise RuntimeError(
            f"margin_ranking_loss : All input tensors should have same dimension but got "
            f"sizes: input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} ")
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0), reduction)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,
                         size_average: Any = None, reduce: Any = None,
                         reduction: str = "mean") -> Tensor:
    """``x`` where ``target`` is 1, ``max(0, margin - x)`` where it is -1.

    >>> import fad.torch as torch
    >>> F = torch.nn.functional
    >>> F.hinge_embedding_loss(torch.tensor([0.3, 0.3]), torch.tensor([1.0, -1.0]),
    ...                        reduction="none")
    tensor([0.3000, 0.7000])
    """
    reduction = _reduction(size_average, reduce, reduction)
    zeros = zeros_like(input)
    out = F.where(target != 1, (margin - input).clamp_min(0), zeros) + \
        F.where(target != -1, input, zeros)
    return _reduce(out, reduction)


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor,
                        margin: float = 1.0, p: float = 2, eps: float = 1e-6,
                        swap: bool = False, size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Tensor:
    """``max(0, d(a, p) - d(a, n) + margin)`` with the ``p``-norm distance ``d``
    (``swap``: ``d(a, n)`` replaced by ``d(p, n)`` where smaller).

    >>> import fad.torch as torch
    >>> a = torch.tensor([[0.0, 0.0]])
    >>> torch.nn.functional.triplet_margin_loss(a, a + 1, a + 3, eps=0.0)
    tensor(0.)
    """
    reduction = _reduction(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _same_dims(anchor, positive, negative)
    return _triplet(anchor, positive, negative,
                    lambda a, b: pairwise_distance(a, b, p, eps), margin, swap, reduction)


def _triplet(anchor: Tensor, positive: Tensor, negative: Tensor, dist: Any, margin: float,
             swap: bool, reduction: str) -> Tensor:
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = F.minimum(d_neg, dist(positive, negative))
    return _reduce((margin + d_pos - d_neg).clamp_min(0), reduction)


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function: Any = None, margin: float = 1.0,
                                      swap: bool = False, reduction: str = "mean") -> Tensor:
    """``triplet_margin_loss`` with any ``distance_function`` (``pairwise_distance`` by
    default).

    >>> import fad.torch as torch
    >>> a = torch.tensor([[0.0, 0.0]])
    >>> torch.nn.functional.triplet_margin_with_distance_loss(
    ...     a, a + 1, a + 3, distance_function=lambda x, y: (x - y).abs().sum(-1))
    tensor(0.)
    """
    _check(reduction)
    if margin <= 0:
        raise ValueError(f"triplet_margin_with_distance_loss: expected margin to be greater "
                         f"than 0, got {margin} instead")
    _same_dims(anchor, positive, negative)
    return _triplet(anchor, positive, negative, distance_function or pairwise_distance,
                    margin, swap, reduction)


def _same_dims(anchor: Tensor, positive: Tensor, negative: Tensor) -> None:
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if len(set(dims)) > 1:
        raise RuntimeError(
            f"The anchor, positive, and negative tensors are expected to have the same number "
            f"of dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and negative "
            f"{dims[2]}D inputs")


def soft_margin_loss(input: Tensor, target: Tensor, size_average: Any = None,
                     reduce: Any = None, reduction: str = "mean") -> Tensor:
    """``log(1 + exp(-target * x))`` (a two-class logistic loss, ``target`` +-1).

    >>> import fad.torch as torch
    >>> torch.nn.functional.soft_margin_loss(torch.tensor([0.0]), torch.tensor([1.0]))
    tensor(0.6931)
    """
    reduction = _check(_reduction(size_average, reduce, reduction))
    if isinstance(target, Tensor) and target.requires_grad and is_grad_enabled():
        raise RuntimeError("The function 'soft_margin_loss' is not differentiable with "
                           "respect to argument 'target'. This input cannot have "
                           "requires_grad True.")
    return apply(_SOFT_MARGIN, (input, target), {"reduction": reduction})


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                size_average: Any = None, reduce: Any = None,
                                reduction: str = "mean") -> Tensor:
    """The binary cross entropy of ``sigmoid(x)`` against each label of ``target``,
    averaged over the classes (the last dimension), optionally ``weight``-ed.

    >>> import fad.torch as torch
    >>> F = torch.nn.functional
    >>> F.multilabel_soft_margin_loss(torch.zeros(1, 2), torch.tensor([[1.0, 0.0]]))
    tensor(0.6931)
    """
    reduction = _check(_reduction(size_average, reduce, reduction))
    loss = -(target * F.call("logsigmoid", input) + (1 - target) *
             F.call("logsigmoid", -input))
    if weight is not None:
        loss = loss * weight
    c = input.dim() - 1
    return _reduce(loss.sum(c) / input.shape[c], reduction)


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0,
                      weight: Tensor | None = None, size_average: Any = None,
                      reduce: Any = None, reduction: str = "mean") -> Tensor:
    """The multi-class hinge loss ``sum_{j != y} max(0, margin - x[y] + x[j])^p / C``
    (``weight[y]``-ed) for class indices ``target``.

    >>> import fad.torch as torch
    >>> F = torch.nn.functional
    >>> F.multi_margin_loss(torch.tensor([[0.1, 0.2, 0.4, 0.8]]), torch.tensor([3]))
    tensor(0.3250)
    """
    reduction = _check(_reduction(size_average, reduce, reduction))
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    n = input.shape[0] if input.dim() == 2 else 1
    if input.dim() > 2 or target.dim() > 1 or target.numel() != n:
        raise RuntimeError(f"inconsistent target size, expected {n} but got "
                           f"{list(target.shape)}")
    t = np.asarray(target.numpy())
    c = input.shape[-1] if input.dim() else 1
    if t.size and (t.min() < 0 or t.max() >= c):
        raise RuntimeError("target out of range")
    return apply(_MULTI_MARGIN, (input,), {"target": t, "p": p, "margin": float(margin),
                                           "weight": _v(weight), "reduction": reduction})


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average: Any = None,
                           reduce: Any = None, reduction: str = "mean") -> Tensor:
    """The multi-label hinge loss: each row of ``target`` lists the sample's classes
    (int64, ended by -1); every (class, non-class) pair adds
    ``max(0, 1 - x[class] + x[non-class]) / C``.

    >>> import fad.torch as torch
    >>> F = torch.nn.functional
    >>> F.multilabel_margin_loss(torch.tensor([[0.1, 0.2, 0.4, 0.8]]),
    ...                          torch.tensor([[3, 0, -1, 1]]))
    tensor(0.8500)
    """
    reduction = _check(_reduction(size_average, reduce, reduction))
    if input.dim() > 2 or tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    t = np.asarray(target.numpy()).astype(np.int64)
    c = input.shape[-1] if input.dim() else 1
    if t.size and (t.min() < -1 or t.max() >= c):
        raise RuntimeError("target out of range")
    x = input.reshape(1, -1) if input.dim() == 0 else input
    out = apply(_MULTILABEL_MARGIN, (x,), {"target": t.reshape(x.shape), "reduction":
                                          reduction})
    return out.reshape(()) if input.dim() == 0 and reduction == "none" else out


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True,
                     full: bool = False, size_average: Any = None, eps: float = 1e-8,
                     reduce: Any = None, reduction: str = "mean") -> Tensor:
    """The negative log-likelihood of ``target`` under a Poisson distribution of rate
    ``exp(x)`` (``log_input``) or ``x``; ``full`` adds Stirling's term.

    >>> import fad.torch as torch
    >>> torch.nn.functional.poisson_nll_loss(torch.tensor([0.0]), torch.tensor([1.0]))
    tensor(1.)
    """
    reduction = _check(_reduction(size_average, reduce, reduction))
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        t = target.clamp_min(1)  # (the term is dropped where target <= 1)
        stirling = t * t.log() - t + 0.5 * (2 * math.pi * t).log()
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Tensor | float, full: bool = False,
                      eps: float = 1e-6, reduction: str = "mean") -> Tensor:
    """The negative log-likelihood of ``target`` under a normal distribution of mean
    ``input`` and variance ``var`` (clamped at ``eps``; one per element, or shared along
    one dimension); ``full`` adds ``log(2 pi) / 2``.

    >>> import fad.torch as torch
    >>> F = torch.nn.functional
    >>> F.gaussian_nll_loss(torch.tensor([0.0]), torch.tensor([1.0]), torch.tensor([1.0]))
    tensor(0.5000)
    """
    if not isinstance(var, Tensor):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = full_like(input, var)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if var.shape != input.shape:
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (input.dim() == var.dim() and sum(
                v for i, v in zip(input.shape, var.shape) if i != v) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def _ctc(log_probs: Any, targets: Any = None, input_lengths: Any = None,
         target_lengths: Any = None, blank: int = 0) -> Any:
    """The CTC loss per sequence (``fad.nn.ctc_loss``) with PyTorch's gradient:
    PyTorch's derivative in ``log_probs`` adds ``exp(log_probs)`` on every frame
    within an input's length (its formula is written for the logits under
    ``log_softmax``, whose backward removes a term summing to 1 over the classes,
    so the logits' gradient is the same either way). ``e - stop_gradient(e)`` is
    exactly 0 and has derivative ``e``."""
    ll = ctc_log_likelihood(log_probs, targets, input_lengths, target_lengths, blank)
    e = _fnp.exp(log_probs)
    within = (_fnp.arange(log_probs.shape[0])[:, None] < input_lengths)[:, :, None]
    extra = _fnp.sum(_fnp.where(within, e - stop_gradient(e), 0.0), axis=(0, 2))
    return _fnp.where(ll < IMPOSSIBLE, _fnp.inf, extra - ll)


_CTC = Op("ctc_loss", _ctc, "CtcLossBackward0")


def ctc_loss(log_probs: Tensor, targets: Any, input_lengths: Any, target_lengths: Any,
             blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """The connectionist temporal classification loss (``fad.nn.ctc_loss``) of
    ``log_probs`` (``(T, N, C)`` or ``(T, C)``) for ``targets`` padded (``(N, S)``) or
    concatenated (``sum(target_lengths)``), as PyTorch's: ``"mean"`` divides each loss
    by its target length, then averages; ``zero_infinity`` zeroes the losses of
    targets no alignment reaches.

    >>> import fad.torch as torch
    >>> lp = torch.full((2, 1, 2), 0.5).log()  # 2 frames, classes {blank, a}
    >>> torch.nn.functional.ctc_loss(lp, torch.tensor([[1]]), [2], [1])  # -log(3/4)
    tensor(0.2877)
    """
    reduction = _check(reduction)
    unbatched = log_probs.dim() == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
    if log_probs.dim() != 3:
        raise RuntimeError(f"ctc_loss: expected log_probs of 2 or 3 dimensions, got "
                           f"{log_probs.dim()}")
    frames, batch = log_probs.shape[0], log_probs.shape[1]
    il = np.atleast_1d(np.asarray(_v(input_lengths), dtype=np.int64))
    tl = np.atleast_1d(np.asarray(_v(target_lengths), dtype=np.int64))
    t = np.asarray(_v(targets))
    if t.dtype.kind not in "iu":
        raise RuntimeError("ctc_loss: targets must hold integer class indices, got "
                           f"{t.dtype}")
    if il.shape != (batch,) or tl.shape != (batch,):
        raise RuntimeError(f"input_lengths and target_lengths must have one entry per batch "
                           f"element ({batch})")
    if il.size and il.max() > frames:
        raise RuntimeError(f"Expected input_lengths to have value at most {frames}, but got "
                           f"value {il.max()} (while checking arguments for "
                           "ctc_loss_allocate_outputs)")
    if unbatched or t.ndim == 1:  # concatenated targets: padded rows
        starts = np.concatenate([[0], np.cumsum(tl)[:-1]]).astype(np.int64)
        padded = np.full((batch, max(int(tl.max(initial=0)), 1)), blank, np.int64)
        for n, (a, k) in enumerate(zip(starts, tl)):
            padded[n, :k] = t.reshape(-1)[a:a + k]
        t = padded
    loss = apply(_CTC, (log_probs,), {"targets": t.astype(np.int64), "input_lengths": il,
                                      "target_lengths": tl, "blank": int(blank)})
    if zero_infinity:
        loss = F.where(F.isinf(loss), zeros_like(loss), loss)
    if reduction == "mean":
        return (loss / tensor(np.maximum(tl, 1), dtype=loss.dtype)).mean()
    if reduction == "sum":
        return loss.sum()
    return loss.squeeze(0) if unbatched else loss
