"""Connectionist temporal classification (CTC) loss: the negative log-likelihood
of a label sequence summed over every alignment of it to the input frames.

The sum runs over the "extended" labels ``l'`` (a blank before, between and after
the labels: ``2S + 1`` states) with the forward recursion of Graves et al. (2006),
in log space:

    alpha_0(0) = y_0(blank),  alpha_0(1) = y_0(l_1)
    alpha_t(s) = y_t(l'_s) + logsumexp(alpha_{t-1}(s), alpha_{t-1}(s-1),
                                       alpha_{t-1}(s-2) if l'_s is not blank
                                                        and l'_s != l'_{s-2})
    -log p(l | x) = -logsumexp(alpha_{T-1}(2S), alpha_{T-1}(2S-1))

one ``fad.lax.scan`` step per frame, so that the gradient (the backward
recursion of the same paper) is fad's reverse mode of the scan.
"""

from __future__ import annotations

from typing import Any

from .. import numpy as fnp
from ..lax import scan
from ..transforms.autodiff import stop_gradient

# A finite "log 0": a log-sum-exp of log-zeros stays finite (-1e30 + log 3), so its
# gradient is defined; a log-likelihood below IMPOSSIBLE has no alignment.
_LOG0 = -1e30
IMPOSSIBLE = -1e29


def _lse3(a: Any, b: Any, c: Any) -> Any:
    """``log(exp(a) + exp(b) + exp(c))``, shifted by the (constant) maximum."""
    m = stop_gradient(fnp.maximum(fnp.maximum(a, b), c))
    return m + fnp.log(fnp.exp(a - m) + fnp.exp(b - m) + fnp.exp(c - m))


def _shift(x: Any, k: int) -> Any:
    """``x`` moved ``k`` states right along its last axis, ``_LOG0`` entering."""
    n = x.shape[-1]
    pad = fnp.full(x.shape[:-1] + (min(k, n),), _LOG0, dtype=x.dtype)
    return fnp.concatenate([pad, x[..., :n - k]], axis=-1) if k < n else pad


def ctc_loss(log_probs: Any, targets: Any, input_lengths: Any, target_lengths: Any,
             blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> Any:
    """CTC loss of ``log_probs`` (``(T, N, C)``: per frame, per batch element, the
    log-probabilities of the ``C`` classes, ``blank`` included) for the label
    sequences ``targets`` (``(N, S)``, row ``n`` valid up to ``target_lengths[n]``),
    each input valid up to ``input_lengths[n]`` frames.

    ``reduction``: ``"none"`` (one loss per sequence), ``"sum"``, or ``"mean"`` (each
    loss divided by its target length, then averaged over the batch). A target that
    no alignment reaches (too long for its input) has an infinite loss, or 0 with
    ``zero_infinity``; either way it passes no gradient.

    >>> import fad, fad.nn as nn, fad.numpy as fnp
    >>> lp = fnp.log(fnp.full((2, 1, 2), 0.5))  # 2 frames, classes {blank, a}
    >>> # "a" aligns as (a, a), (blank, a) or (a, blank): p = 3/4
    >>> round(float(nn.ctc_loss(lp, fnp.array([[1]]), fnp.array([2]), fnp.array([1]),
    ...                         reduction="sum")), 6)
    0.287682
    """
    ll = ctc_log_likelihood(log_probs, targets, input_lengths, target_lengths, blank)
    loss = fnp.where(ll < IMPOSSIBLE, 0.0 if zero_infinity else fnp.inf, -ll)
    if reduction == "mean":
        lengths = fnp.maximum(fnp.asarray(target_lengths), 1).astype(loss.dtype)
        return fnp.mean(loss / lengths)
    if reduction == "sum":
        return fnp.sum(loss)
    if reduction == "none":
        return loss
    raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def ctc_log_likelihood(log_probs: Any, targets: Any, input_lengths: Any,
                       target_lengths: Any, blank: int = 0) -> Any:
    """``log p(targets[n] | log_probs[:, n])`` per batch element (see ``ctc_loss`` for
    the arguments); below ``-1e29`` where no alignment exists."""
    log_probs = fnp.asarray(log_probs)
    targets, input_lengths = fnp.asarray(targets), fnp.asarray(input_lengths)
    target_lengths = fnp.asarray(target_lengths)
    frames, batch, _ = log_probs.shape
    n_states = 2 * targets.shape[1] + 1
    # the extended labels: blank, l_1, blank, l_2, ..., blank  (N, 2S + 1)
    blanks = fnp.full((batch, targets.shape[1]), blank, dtype=targets.dtype)
    ext = fnp.concatenate([fnp.stack([blanks, targets], axis=-1).reshape(batch, -1),
                           fnp.full((batch, 1), blank, dtype=targets.dtype)], axis=-1)
    prev2 = fnp.concatenate([fnp.full((batch, min(2, n_states)), blank, dtype=targets.dtype),
                             ext[:, :-2]], axis=-1)
    skips = (ext != blank) & (ext != prev2)  # may come from two states back
    emit = fnp.take_along_axis(log_probs, fnp.broadcast_to(ext[None], (frames, batch, n_states)),
                               axis=2)  # (T, N, 2S + 1): y_t(l'_s)
    alpha0 = fnp.where(fnp.arange(n_states) < 2, emit[0], _LOG0)

    def step(alpha: Any, frame: Any) -> tuple:
        e_t, t = frame
        two_back = fnp.where(skips, _shift(alpha, 2), _LOG0)
        new = _lse3(alpha, _shift(alpha, 1), two_back) + e_t
        return fnp.where((t < input_lengths)[:, None], new, alpha), None

    alpha, _ = scan(step, alpha0, (emit[1:], fnp.arange(1, frames)))
    last = fnp.take_along_axis(alpha, (2 * target_lengths)[:, None], axis=1)[:, 0]
    before = fnp.take_along_axis(alpha, fnp.maximum(2 * target_lengths - 1, 0)[:, None],
                                 axis=1)[:, 0]
    before = fnp.where(target_lengths > 0, before, _LOG0)
    return _lse3(last, before, fnp.full_like(last, _LOG0))
