"""Neural-network functions, numerically stable at extreme inputs.

Every function here gives finite values *and* finite gradients at logits of
±1000: maxima are subtracted (under ``stop_gradient``, which is exact because
these functions are shift-invariant) and ``softplus``/``sigmoid`` are primitives
whose implementations never exponentiate a positive number.

>>> import fad, fad.nn as nn, fad.numpy as fnp
>>> float(nn.logsumexp(fnp.array([1000.0, 1000.0])))
1000.6931471805599
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import numpy as fnp
from ..core.trace import bind
from ..numpy._base import promote
from ..primitives import elementwise as E
from ..primitives.special_functions import erf_p
from ..transforms.autodiff import stop_gradient
from . import initializers
from ._activations import (
    celu,
    glu,
    hard_shrink,
    hard_sigmoid,
    hard_silu,
    hard_swish,
    hard_tanh,
    mish,
    one_hot,
    relu6,
    selu,
    soft_shrink,
    soft_sign,
    squareplus,
    standardize,
    threshold,
)
from ._ctc import ctc_loss


def _float(x: Any) -> Any:
    x = fnp.asarray(x)
    return promote("exp", x)[1][0]


# ------------------------------------------------------------------ activations
def relu(x: Any) -> Any:
    """``max(x, 0)`` with derivative 0 at 0 (as JAX and PyTorch).

    >>> import fad, fad.nn as nn
    >>> float(fad.grad(nn.relu)(0.0))
    0.0
    """
    x = fnp.asarray(x)
    if x.dtype.kind not in "fiu":  # (bool, complex: as NumPy's comparison and where)
        return fnp.where(fnp.less_equal(x, 0), 0, x)
    return bind(E.relu_p, x)  # (one primitive: NaN stays NaN)


def leaky_relu(x: Any, negative_slope: float = 0.01) -> Any:
    """``x`` where non-negative, ``negative_slope * x`` elsewhere (derivative 1 at 0,
    as JAX's).

    >>> import fad.nn as nn, fad.numpy as fnp
    >>> nn.leaky_relu(fnp.array([-2.0, 3.0]), 0.5).tolist()
    [-1.0, 3.0]
    """
    x = fnp.asarray(x)
    return fnp.where(fnp.greater_equal(x, 0), x, fnp.multiply(x, negative_slope))


def elu(x: Any, alpha: float = 1.0) -> Any:
    """``x`` where positive, ``alpha * (e^x - 1)`` elsewhere (``e^x`` is only taken
    of the non-positive entries).

    >>> import fad.nn as nn, fad.numpy as fnp
    >>> [round(v, 4) for v in nn.elu(fnp.array([-1.0, 2.0])).tolist()]
    [-0.6321, 2.0]
    """
    x = fnp.asarray(x)
    pos = fnp.greater(x, 0)
    return fnp.where(pos, x, fnp.multiply(alpha, fnp.expm1(fnp.where(pos, 0.0, x))))


def gelu(x: Any, approximate: bool = True) -> Any:
    """The Gaussian error linear unit ``x * Phi(x)``; ``approximate``: its ``tanh``
    form (as JAX's default).

    >>> import fad.nn as nn, fad.numpy as fnp
    >>> [round(v, 4) for v in nn.gelu(fnp.array([-1.0, 1.0]), approximate=False).tolist()]
    [-0.1587, 0.8413]
    """
    x = _float(x)
    if approximate:
        return 0.5 * x * (1.0 + fnp.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))
    return 0.5 * x * (1.0 + bind(erf_p, x * 0.7071067811865476))


def sigmoid(x: Any) -> Any:
    """The logistic function ``1 / (1 + e^-x)``.

    >>> import fad.nn as nn
    >>> float(nn.sigmoid(0.0))
    0.5
    """
    return bind(E.logistic_p, _float(x))


def silu(x: Any) -> Any:
    """``x * sigmoid(x)``.

    >>> import fad.nn as nn
    >>> float(nn.silu(0.0))
    0.0
    """
    x = _float(x)
    return fnp.multiply(x, sigmoid(x))


def tanh(x: Any) -> Any:
    """Hyperbolic tangent (``fad.numpy.tanh``).

    >>> import fad, fad.nn as nn
    >>> float(nn.tanh(0.0)), float(fad.grad(nn.tanh)(0.0))
    (0.0, 1.0)
    """
    return fnp.tanh(x)


def softplus(x: Any, beta: float = 1.0, threshold: float | None = None) -> Any:
    """``log(1 + e^(beta x)) / beta``, computed without overflow; derivative
    ``sigmoid(beta x)``. With ``threshold``, ``x`` itself where ``beta x`` exceeds it
    (as PyTorch's).

    >>> import fad.nn as nn
    >>> float(nn.softplus(1000.0))
    1000.0
    >>> float(nn.softplus(30.0, threshold=20.0))
    30.0
    """
    x = _float(x)
    z = x if beta == 1 else fnp.multiply(x, beta)
    if threshold is None:
        out = bind(E.softplus_p, z)
        return out if beta == 1 else fnp.divide(out, beta)
    big = fnp.greater(z, threshold)
    out = bind(E.softplus_p, fnp.where(big, 0.0, z))
    return fnp.where(big, x, out if beta == 1 else fnp.divide(out, beta))


def log_sigmoid(x: Any) -> Any:
    """``log(sigmoid(x)) = -softplus(-x)``, finite at large negative ``x``.

    >>> import fad.nn as nn
    >>> float(nn.log_sigmoid(-1000.0))
    -1000.0
    """
    return fnp.negative(softplus(fnp.negative(_float(x))))


def _finite_max(x: Any, axis: Any) -> Any:
    """The maximum along ``axis`` (kept), by which a shift-invariant function shifts
    ``x``; 0 for a row whose maximum is infinite (all ``-inf``, or an ``inf``)."""
    m = stop_gradient(fnp.max(x, axis=axis, keepdims=True))
    return fnp.where(fnp.isfinite(m), m, 0.0)


def logsumexp(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """``log(sum(exp(x)))`` over ``axis``, stable for large and ``-inf`` entries
    (``-inf`` for an empty sum).

    >>> import fad.nn as nn, fad.numpy as fnp
    >>> float(nn.logsumexp(fnp.array([0.0, 0.0])))
    0.6931471805599453
    """
    x = _float(x)
    if x.size == 0:  # an empty sum: log 0
        return fnp.subtract(fnp.sum(x, axis=axis, keepdims=keepdims), fnp.inf)
    m_raw = stop_gradient(fnp.max(x, axis=axis, keepdims=True))
    finite = fnp.isfinite(m_raw)
    m = fnp.where(finite, m_raw, 0.0)  # all -inf (or inf) rows: no shift
    s = fnp.sum(fnp.exp(fnp.subtract(x, m)), axis=axis, keepdims=True)
    # rows whose max is infinite: the value is that max, the gradient 0 (not 0 * inf)
    out = fnp.add(fnp.log(fnp.where(finite, s, 1.0)), m_raw)
    if not keepdims:
        out = fnp.squeeze(out, axis=axis) if axis is not None else fnp.sum(out)
    return out


def log_softmax(x: Any, axis: int = -1) -> Any:
    """``x - logsumexp(x)`` along ``axis``.

    >>> import fad.nn as nn, fad.numpy as fnp
    >>> [round(float(v), 4) for v in nn.log_softmax(fnp.array([1000.0, 0.0]))]
    [0.0, -1000.0]
    """
    x = _float(x)
    shifted = fnp.subtract(x, _finite_max(x, axis))
    return fnp.subtract(shifted, fnp.log(fnp.sum(fnp.exp(shifted), axis=axis, keepdims=True)))


def softmax(x: Any, axis: int = -1) -> Any:
    """``exp(x) / sum(exp(x))`` along ``axis``, shifted by the maximum.

    >>> import fad.nn as nn, fad.numpy as fnp
    >>> nn.softmax(fnp.array([0.0, 0.0])).tolist()
    [0.5, 0.5]
    """
    x = _float(x)
    e = fnp.exp(fnp.subtract(x, stop_gradient(fnp.max(x, axis=axis, keepdims=True))))
    return fnp.divide(e, fnp.sum(e, axis=axis, keepdims=True))


# ------------------------------------------------------------------ losses
def reduce_loss(loss: Any, reduction: str, weights: Any = None) -> Any:
    """``loss`` reduced as a loss function's ``reduction`` says: ``"mean"`` (with
    ``weights``, the weighted mean ``sum(loss) / sum(weights)``, ``loss`` already
    holding the weights), ``"sum"`` or ``"none"``.

    >>> import fad.nn as nn, fad.numpy as fnp
    >>> float(nn.reduce_loss(fnp.array([1.0, 3.0]), "mean"))
    2.0
    """
    if reduction == "mean":
        if weights is None:
            return fnp.mean(loss)
        # a zero total weight (every label ignored): NaN, but zero gradients
        total = fnp.sum(weights)
        empty = fnp.equal(total, 0)
        return fnp.add(fnp.divide(fnp.sum(loss), fnp.where(empty, fnp.ones_like(total), total)),
                       fnp.where(empty, fnp.full_like(total, fnp.nan), fnp.zeros_like(total)))
    if reduction == "sum":
        return fnp.sum(loss)
    if reduction == "none":
        return loss
    raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def binary_cross_entropy_with_logits(logits: Any, targets: Any, reduction: str = "mean",
                                     weight: Any = None, pos_weight: Any = None) -> Any:
    """``-t log sigmoid(x) - (1 - t) log(1 - sigmoid(x)) = softplus(x) - t x``;
    ``weight`` scales each element's loss, ``pos_weight`` the positive term.

    >>> import fad.nn as nn, fad.numpy as fnp
    >>> round(float(nn.binary_cross_entropy_with_logits(fnp.array([0.0]), fnp.array([1.0]))), 4)
    0.6931
    >>> float(nn.binary_cross_entropy_with_logits(fnp.array([0.0]), fnp.array([1.0]),
    ...       pos_weight=fnp.array([2.0]))) == 2 * 0.6931471805599453
    True
    """
    x = _float(logits)
    if pos_weight is None:
        loss = fnp.subtract(softplus(x), fnp.multiply(targets, x))
    else:  # (1 - t) x + (1 + (p - 1) t) softplus(-x)
        log_weight = 1.0 + (pos_weight - 1.0) * targets
        loss = (1.0 - targets) * x + log_weight * softplus(fnp.negative(x))
    if weight is not None:
        loss = fnp.multiply(loss, weight)
    return reduce_loss(loss, reduction)


def binary_cross_entropy(probs: Any, targets: Any, reduction: str = "mean",
                         weight: Any = None) -> Any:
    """``-t log p - (1 - t) log(1 - p)``, each logarithm clamped at -100 (as
    PyTorch's), so that ``p`` of exactly 0 or 1 gives a finite loss; and, as
    PyTorch's, a finite gradient there too: ``(p - t) / max(p (1 - p), 1e-12)``
    (a sigmoid's output rounds to exactly 1 in float32 from 17 on).

    >>> import fad, fad.nn as nn, fad.numpy as fnp
    >>> round(float(nn.binary_cross_entropy(fnp.array([0.5]), fnp.array([1.0]))), 4)
    0.6931
    >>> fad.grad(lambda p: nn.binary_cross_entropy(p, fnp.array([0.0])))(fnp.array([1.0]))
    array([1.e+12])
    """
    p = _float(probs)
    t = targets
    # the value, from p's value: its derivative in t is the clamped logarithms' difference
    pv = stop_gradient(p)
    loss = _bce_value(pv, t) + (_bce_surrogate(p, t) - _bce_surrogate(pv, t))  # (exactly 0)
    if weight is not None:
        loss = fnp.multiply(loss, weight)
    return reduce_loss(loss, reduction)


_BCE_EPS = float(np.float32(1e-12))  # PyTorch's bound on p (1 - p), a C float, 1e-12 rounded


def _bce_value(p: Any, t: Any) -> Any:
    """``-t log p - (1 - t) log(1 - p)``, each logarithm clamped at -100 (no
    logarithm of 0 is taken)."""
    def clamped_log(x: Any) -> Any:
        pos = fnp.greater(x, 0)
        return fnp.where(pos, fnp.maximum(fnp.log(fnp.where(pos, x, 1.0)), -100.0), -100.0)
    return -(t * clamped_log(p) + (1.0 - t) * clamped_log(1.0 - p))


def _bce_surrogate(p: Any, t: Any) -> Any:
    """A function of ``p`` whose derivative is ``(p - t) / max(p (1 - p), eps)``: the
    cross entropy itself where ``p (1 - p) >= eps`` (evaluated at 1/2 elsewhere, so
    that the branch not taken has a finite derivative to discard), and the parabola
    ``(p - t)^2 / (2 eps)`` elsewhere. ``loss = V(p*, t) + (S(p, t) - S(p*, t))``
    with ``p*`` the value of ``p`` (no derivative) has ``V``'s value (the
    difference is exactly 0), ``V``'s derivative in ``t`` (the two ``S`` terms'
    cancel) and ``S``'s in ``p``."""
    inside = fnp.greater_equal(p * (1.0 - p), _BCE_EPS)
    ps = fnp.where(inside, p, 0.5)
    ce = -(t * fnp.log(ps) + (1.0 - t) * fnp.log1p(-ps))
    return fnp.where(inside, ce, fnp.square(p - t) * (0.5 / _BCE_EPS))


def _along(v: Any, axis: int, ndim: int) -> Any:
    """Vector ``v`` shaped to broadcast along ``axis`` of an ``ndim``-d array."""
    shape = [1] * ndim
    shape[axis] = -1
    return fnp.reshape(v, tuple(shape))


def nll_loss(log_probs: Any, labels: Any, reduction: str = "mean", axis: int = -1,
             weight: Any = None, ignore_index: int | None = None,
             label_smoothing: float = 0.0) -> Any:
    """Negative log-likelihood of integer class ``labels`` under ``log_probs``, whose
    classes lie along ``axis``. ``weight``: one per class, the mean is then the
    weighted mean; ``ignore_index``: a label that contributes nothing (nor to the
    mean's count); ``label_smoothing`` ``e``: ``(1 - e) nll + e * (mean over classes
    of -log_probs)``.

    >>> import fad.nn as nn, fad.numpy as fnp
    >>> logp = fnp.log(fnp.array([[0.5, 0.5], [0.25, 0.75]]))
    >>> round(float(nn.nll_loss(logp, fnp.array([0, 1]))), 4)
    0.4904
    >>> round(float(nn.nll_loss(logp, fnp.array([0, -100]), ignore_index=-100)), 4)
    0.6931
    """
    logp = fnp.asarray(log_probs)
    labels = fnp.asarray(labels)
    ax = axis % logp.ndim
    valid = None if ignore_index is None else fnp.not_equal(labels, ignore_index)
    safe = labels if valid is None else fnp.where(valid, labels, 0)
    picked = fnp.squeeze(fnp.take_along_axis(logp, fnp.expand_dims(safe, ax), axis=ax), ax)
    w = None if valid is None else fnp.asarray(valid, logp.dtype)
    if weight is not None:
        w_cls = fnp.take(weight, safe)
        w = w_cls if w is None else fnp.multiply(w, w_cls)
    loss = fnp.negative(picked) if w is None else fnp.multiply(fnp.negative(picked), w)
    loss = reduce_loss(loss, reduction, w)
    if not label_smoothing:
        return loss
    lp = logp if weight is None else fnp.multiply(logp, _along(weight, ax, logp.ndim))
    smooth = fnp.negative(fnp.mean(lp, axis=ax))
    if valid is not None:
        smooth = fnp.multiply(smooth, fnp.asarray(valid, logp.dtype))
    smooth = reduce_loss(smooth, reduction, w)
    return (1.0 - label_smoothing) * loss + label_smoothing * smooth


def cross_entropy(logits: Any, labels: Any, reduction: str = "mean", axis: int = -1,
                  weight: Any = None, label_smoothing: float = 0.0) -> Any:
    """Softmax cross-entropy. ``labels`` are class indices (integers: see
    ``nll_loss``) or probabilities with the logits' shape; ``weight``: one per
    class; ``label_smoothing`` ``e`` mixes the labels with the uniform distribution.

    >>> import fad.nn as nn, fad.numpy as fnp
    >>> round(float(nn.cross_entropy(fnp.array([[0.0, 0.0]]), fnp.array([1]))), 4)
    0.6931
    >>> round(float(nn.cross_entropy(fnp.array([[0.0, 0.0]]), fnp.array([[0.0, 1.0]]))), 4)
    0.6931
    """
    logp = log_softmax(logits, axis=axis)
    labels = fnp.asarray(labels)
    if labels.dtype.kind in "iu":
        return nll_loss(logp, labels, reduction, axis, weight, None, label_smoothing)
    ax = axis % logp.ndim
    if label_smoothing:
        labels = labels * (1.0 - label_smoothing) + label_smoothing / logp.shape[ax]
    if weight is not None:
        logp = fnp.multiply(logp, _along(weight, ax, logp.ndim))
    return reduce_loss(fnp.negative(fnp.sum(fnp.multiply(labels, logp), axis=ax)), reduction)


def kl_div(log_preds: Any, targets: Any, reduction: str = "mean", log_target: bool = False
           ) -> Any:
    """Kullback-Leibler divergence ``t (log t - x)`` of predictions given as
    log-probabilities ``x`` from ``targets`` (probabilities, or log-probabilities with
    ``log_target``); ``0 log 0 = 0``.

    >>> import fad.nn as nn, fad.numpy as fnp
    >>> float(nn.kl_div(fnp.log(fnp.array([0.5, 0.5])), fnp.array([0.5, 0.5]), "sum"))
    0.0
    """
    x, t = log_preds, targets
    if log_target:
        loss = fnp.exp(t) * (t - x)
    else:
        zero = fnp.equal(t, 0)  # (a negative target gives NaN, as PyTorch's)
        loss = fnp.where(zero, 0.0, t * (fnp.log(fnp.where(zero, 1.0, t)) - x))
    return reduce_loss(loss, reduction)


def mse_loss(pred: Any, target: Any, reduction: str = "mean") -> Any:
    """Mean squared error.

    >>> import fad.nn as nn, fad.numpy as fnp
    >>> float(nn.mse_loss(fnp.array([1.0, 3.0]), fnp.array([0.0, 0.0])))
    5.0
    """
    d = fnp.subtract(pred, target)
    return reduce_loss(fnp.multiply(d, d), reduction)


def l1_loss(pred: Any, target: Any, reduction: str = "mean") -> Any:
    """Mean absolute error.

    >>> import fad.nn as nn, fad.numpy as fnp
    >>> float(nn.l1_loss(fnp.array([1.0, -3.0]), fnp.array([0.0, 0.0])))
    2.0
    """
    return reduce_loss(fnp.abs(fnp.subtract(pred, target)), reduction)


def huber_loss(pred: Any, target: Any, reduction: str = "mean", delta: float = 1.0) -> Any:
    """``d^2 / 2`` where ``|d| <= delta``, ``delta (|d| - delta / 2)`` beyond, of
    ``d = pred - target``.

    >>> import fad.nn as nn, fad.numpy as fnp
    >>> nn.huber_loss(fnp.array([0.5, 3.0]), fnp.array([0.0, 0.0]), "none").tolist()
    [0.125, 2.5]
    """
    d = fnp.subtract(pred, target)
    a = fnp.abs(d)
    return reduce_loss(fnp.where(a <= delta, 0.5 * d * d, delta * (a - 0.5 * delta)),
                       reduction)


def smooth_l1_loss(pred: Any, target: Any, reduction: str = "mean", beta: float = 1.0
                   ) -> Any:
    """``d^2 / (2 beta)`` where ``|d| < beta``, ``|d| - beta / 2`` beyond, of
    ``d = pred - target``: ``huber_loss`` divided by ``beta``.

    >>> import fad.nn as nn, fad.numpy as fnp
    >>> nn.smooth_l1_loss(fnp.array([0.5, 3.0]), fnp.array([0.0, 0.0]), "none").tolist()
    [0.125, 2.5]
    """
    if beta == 0:  # (the quadratic piece is empty)
        return l1_loss(pred, target, reduction)
    d = fnp.subtract(pred, target)
    a = fnp.abs(d)
    return reduce_loss(fnp.where(a < beta, 0.5 * d * d / beta, a - 0.5 * beta), reduction)


__all__ = ["relu", "leaky_relu", "elu", "gelu", "sigmoid", "silu", "tanh", "softplus",
           "log_sigmoid", "softmax", "log_softmax", "logsumexp", "reduce_loss",
           "binary_cross_entropy_with_logits", "binary_cross_entropy", "nll_loss",
           "cross_entropy", "kl_div", "mse_loss", "l1_loss", "huber_loss", "smooth_l1_loss",
           "ctc_loss", "initializers",
           # (fad.nn._activations)
           "celu", "selu", "glu", "hard_tanh", "relu6", "hard_sigmoid", "hard_silu",
           "hard_swish", "soft_sign", "squareplus", "mish", "standardize", "one_hot",
           "soft_shrink", "hard_shrink", "threshold"]


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
