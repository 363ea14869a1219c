"""The building blocks of optimisers (optax's ``scale_by_*``, clipping, weight
decay), each a ``GradientTransformation`` on pytrees."""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

from .. import numpy as fnp
from ..tree import tree_map
from ._base import (
    EmptyState,
    GradientTransformation,
    ScalarOrSchedule,
    bias_corrected,
    ema,
    global_norm,
    increment,
    stateless,
    zeros_like_tree,
)


def _count() -> Any:
    return fnp.zeros((), fnp.int32)


class ScaleByScheduleState(NamedTuple):
    """The step count of ``scale_by_schedule``."""

    count: Any


class ScaleByAdamState(NamedTuple):
    """Adam's step count and running means of ``g`` and ``g^2``."""

    count: Any
    mu: Any
    nu: Any


class TraceState(NamedTuple):
    """The momentum of ``trace``."""

    trace: Any


class ScaleByRmsState(NamedTuple):
    """RMSprop's running mean of ``g^2``."""

    nu: Any


class ScaleByRStdDevState(NamedTuple):
    """Centred RMSprop's running means of ``g`` and ``g^2``."""

    mu: Any
    nu: Any


class ScaleByRssState(NamedTuple):
    """Adagrad's sum of ``g^2``."""

    sum_of_squares: Any


class ScaleByLionState(NamedTuple):
    """Lion's step count and momentum."""

    count: Any
    mu: Any


def scale(step_size: float) -> GradientTransformation:
    """Updates multiplied by ``step_size``.

    >>> import fad.optim as optim
    >>> float(optim.scale(-2.0).update([1.5], optim.EmptyState())[0][0])
    -3.0
    """
    return stateless(lambda updates, params: tree_map(lambda u: u * step_size, updates))


def scale_by_schedule(step_size_fn: Callable[[Any], Any]) -> GradientTransformation:
    """Updates multiplied by ``step_size_fn(count)``, ``count`` the number of
    updates made before (0 at the first).

    >>> import fad.optim as optim
    >>> opt = optim.scale_by_schedule(lambda n: 1.0 / (n + 1))
    >>> u, s = opt.update([1.0], opt.init([0.0]))
    >>> float(opt.update([1.0], s)[0][0])
    0.5
    """
    def update(updates: Any, state: ScaleByScheduleState, params: Any = None) -> tuple:
        step = step_size_fn(state.count)
        return (tree_map(lambda u: u * fnp.astype(step, fnp.asarray(u).dtype), updates),
                ScaleByScheduleState(increment(state.count)))
    return GradientTransformation(lambda params: ScaleByScheduleState(_count()), update)


def scale_by_learning_rate(learning_rate: ScalarOrSchedule, *, flip_sign: bool = True
                           ) -> GradientTransformation:
    """Updates multiplied by ``-learning_rate`` (``learning_rate`` with
    ``flip_sign=False``), a number or a schedule.

    >>> import fad.optim as optim
    >>> opt = optim.scale_by_learning_rate(0.1)
    >>> float(opt.update([2.0], opt.init([0.0]))[0][0])
    -0.2
    """
    sign = -1 if flip_sign else 1
    if callable(learning_rate):
        return scale_by_schedule(lambda count: sign * learning_rate(count))
    return scale(sign * learning_rate)


def scale_by_adam(b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8,
                  eps_root: float = 0.0) -> GradientTransformation:
    """Adam's rescaling: ``m_hat / (sqrt(v_hat + eps_root) + eps)`` of the
    bias-corrected running means ``m`` of the gradients and ``v`` of their squares.

    >>> import fad.optim as optim
    >>> opt = optim.scale_by_adam()
    >>> round(float(opt.update([2.0], opt.init([0.0]))[0][0]), 6)
    1.0
    """
    def init(params: Any) -> ScaleByAdamState:
        return ScaleByAdamState(_count(), zeros_like_tree(params), zeros_like_tree(params))

    def update(updates: Any, state: ScaleByAdamState, params: Any = None) -> tuple:
        mu = ema(updates, state.mu, b1)
        nu = ema(updates, state.nu, b2, power=2)
        count = increment(state.count)
        mu_hat, nu_hat = bias_corrected(mu, b1, count), bias_corrected(nu, b2, count)
        out = tree_map(lambda m, v: m / (fnp.sqrt(v + eps_root) + eps), mu_hat, nu_hat)
        return out, ScaleByAdamState(count, mu, nu)
    return GradientTransformation(init, update)


def scale_by_belief(b1: float = 0.9, b2: float = 0.999, eps: float = 1e-16,
                    eps_root: float = 1e-16) -> GradientTransformation:
    """AdaBelief's rescaling: as Adam's, with ``v`` the running mean of
    ``(g - m)^2`` (plus ``eps_root``) instead of ``g^2``.

    >>> import fad.optim as optim
    >>> opt = optim.scale_by_belief()
    >>> u, s = opt.update([2.0], opt.init([0.0]))
    >>> round(float(u[0]), 6)
    1.111111
    """
    def init(params: Any) -> ScaleByAdamState:
        return ScaleByAdamState(_count(), zeros_like_tree(params), zeros_like_tree(params))

    def update(updates: Any, state: ScaleByAdamState, params: Any = None) -> tuple:
        mu = ema(updates, state.mu, b1)
        surprise = tree_map(lambda g, m: g - m, updates, mu)
        nu = tree_map(lambda v: v + eps_root, ema(surprise, state.nu, b2, power=2))
        count = increment(state.count)
        mu_hat, nu_hat = bias_corrected(mu, b1, count), bias_corrected(nu, b2, count)
        out = tree_map(lambda m, v: m / (fnp.sqrt(v) + eps), mu_hat, nu_hat)
        return out, ScaleByAdamState(count, mu, nu)
    return GradientTransformation(init, update)


def trace(decay: float, nesterov: bool = False) -> GradientTransformation:
    """Momentum: ``t <- g + decay t``; the update is ``t`` (``g + decay t`` with
    ``nesterov``).

    >>> import fad.optim as optim
    >>> opt = optim.trace(0.5)
    >>> u, s = opt.update([1.0], opt.init([0.0]))
    >>> float(opt.update([1.0], s)[0][0])
    1.5
    """
    def update(updates: Any, state: TraceState, params: Any = None) -> tuple:
        new = tree_map(lambda g, t: g + decay * t, updates, state.trace)
        out = tree_map(lambda g, t: g + decay * t, updates, new) if nesterov else new
        return out, TraceState(new)
    return GradientTransformation(lambda params: TraceState(zeros_like_tree(params)), update)


def _rms_denominator(v: Any, eps: float, eps_in_sqrt: bool) -> Any:
    return fnp.sqrt(v + eps) if eps_in_sqrt else fnp.sqrt(v) + eps


def scale_by_rms(decay: float = 0.9, eps: float = 1e-8, initial_scale: float = 0.0,
                 eps_in_sqrt: bool = True) -> GradientTransformation:
    """RMSprop's rescaling ``g / sqrt(v + eps)`` (``g / (sqrt(v) + eps)`` with
    ``eps_in_sqrt=False``, PyTorch's placement), ``v`` the running mean of ``g^2``.

    >>> import fad.optim as optim
    >>> opt = optim.scale_by_rms(decay=0.75, eps=0.0)
    >>> float(opt.update([3.0], opt.init([0.0]))[0][0])
    2.0
    """
    def update(updates: Any, state: ScaleByRmsState, params: Any = None) -> tuple:
        nu = ema(updates, state.nu, decay, power=2)
        out = tree_map(lambda g, v: g / _rms_denominator(v, eps, eps_in_sqrt), updates, nu)
        return out, ScaleByRmsState(nu)
    return GradientTransformation(
        lambda params: ScaleByRmsState(tree_map(lambda p: fnp.full_like(p, initial_scale),
                                                params)), update)


def scale_by_stddev(decay: float = 0.9, eps: float = 1e-8, initial_scale: float = 0.0,
                    eps_in_sqrt: bool = True) -> GradientTransformation:
    """Centred RMSprop's rescaling: ``g / sqrt(v - m^2 + eps)``, ``m`` and ``v`` the
    running means of ``g`` and ``g^2``.

    >>> import fad.optim as optim
    >>> opt = optim.scale_by_stddev(decay=0.75, eps=0.0)
    >>> round(float(opt.update([3.0], opt.init([0.0]))[0][0]), 6)
    2.309401
    """
    def init(params: Any) -> ScaleByRStdDevState:
        return ScaleByRStdDevState(zeros_like_tree(params),
                                   tree_map(lambda p: fnp.full_like(p, initial_scale), params))

    def update(updates: Any, state: ScaleByRStdDevState, params: Any = None) -> tuple:
        mu = ema(updates, state.mu, decay)
        nu = ema(updates, state.nu, decay, power=2)
        out = tree_map(lambda g, m, v: g / _rms_denominator(v - m * m, eps, eps_in_sqrt),
                       updates, mu, nu)
        return out, ScaleByRStdDevState(mu, nu)
    return GradientTransformation(init, update)


def scale_by_rss(initial_accumulator_value: float = 0.1, eps: float = 1e-7
                 ) -> GradientTransformation:
    """Adagrad's rescaling: ``g / sqrt(s + eps)``, ``s`` the running sum of ``g^2``
    (0 where ``s`` is 0).

    >>> import fad.optim as optim
    >>> opt = optim.scale_by_rss(0.0, 0.0)
    >>> float(opt.update([4.0], opt.init([0.0]))[0][0])
    1.0
    """
    def update(updates: Any, state: ScaleByRssState, params: Any = None) -> tuple:
        total = tree_map(lambda g, s: s + g * g, updates, state.sum_of_squares)
        out = tree_map(lambda g, s: fnp.where(s > 0, g / fnp.sqrt(fnp.where(
            s > 0, s, 1.0) + eps), 0.0), updates, total)
        return out, ScaleByRssState(total)
    return GradientTransformation(
        lambda params: ScaleByRssState(tree_map(
            lambda p: fnp.full_like(p, initial_accumulator_value), params)), update)


def scale_by_lion(b1: float = 0.9, b2: float = 0.99) -> GradientTransformation:
    """Lion's update ``sign((1 - b1) g + b1 m)``, then ``m <- (1 - b2) g + b2 m``.

    >>> import fad.optim as optim
    >>> opt = optim.scale_by_lion()
    >>> float(opt.update([-0.3], opt.init([0.0]))[0][0])
    -1.0
    """
    def update(updates: Any, state: ScaleByLionState, params: Any = None) -> tuple:
        out = tree_map(lambda g, m: fnp.sign((1 - b1) * g + b1 * m), updates, state.mu)
        return out, ScaleByLionState(increment(state.count), ema(updates, state.mu, b2))
    return GradientTransformation(
        lambda params: ScaleByLionState(_count(), zeros_like_tree(params)), update)


def scale_by_trust_ratio(min_norm: float = 0.0, trust_coefficient: float = 1.0,
                         eps: float = 0.0) -> GradientTransformation:
    """LAMB's layer-wise rescaling: each leaf's update times
    ``trust_coefficient * |p| / (|u| + eps)`` (1 where either norm is 0).

    >>> import fad.optim as optim
    >>> opt = optim.scale_by_trust_ratio()
    >>> float(opt.update([2.0], opt.init([3.0]), [3.0])[0][0])
    3.0
    """
    def leaf(u: Any, p: Any) -> Any:
        p_norm = fnp.maximum(fnp.sqrt(fnp.sum(p * p)), min_norm)
        u_norm = fnp.sqrt(fnp.sum(u * u))
        zero = fnp.logical_or(p_norm == 0, u_norm == 0)
        ratio = trust_coefficient * p_norm / fnp.where(zero, 1.0, u_norm + eps)
        return u * fnp.astype(fnp.where(zero, 1.0, ratio), fnp.asarray(u).dtype)

    def update(updates: Any, state: EmptyState, params: Any = None) -> tuple:
        _need_params("scale_by_trust_ratio", params)
        return tree_map(leaf, updates, params), state
    return GradientTransformation(lambda params: EmptyState(), update)


def _need_params(name: str, params: Any) -> None:
    if params is None:
        raise ValueError(f"{name}: update needs the parameters: call "
                         "opt.update(grads, state, params)")


def _masked(mask: Any, params: Any, updates: Any, f: Callable) -> Any:
    """``f(u, p)`` at the leaves ``mask`` selects (``mask``: a pytree of bools
    matching ``params``, or a function of ``params`` giving one); ``u`` elsewhere."""
    if mask is None:
        return tree_map(f, updates, params)
    keep = mask(params) if callable(mask) else mask
    return tree_map(lambda u, p, m: f(u, p) if m else u, updates, params, keep)


def add_decayed_weights(weight_decay: float = 0.0, mask: Any = None
                        ) -> GradientTransformation:
    """Updates plus ``weight_decay * params`` (decoupled weight decay), at the
    leaves ``mask`` selects (all by default).

    >>> import fad.optim as optim
    >>> opt = optim.add_decayed_weights(0.5)
    >>> float(opt.update([1.0], opt.init([4.0]), [4.0])[0][0])
    3.0
    """
    def update(updates: Any, state: EmptyState, params: Any = None) -> tuple:
        _need_params("add_decayed_weights", params)
        return _masked(mask, params, updates, lambda u, p: u + weight_decay * p), state
    return GradientTransformation(lambda params: EmptyState(), update)


def clip(max_delta: float) -> GradientTransformation:
    """Each update element clipped to ``[-max_delta, max_delta]``.

    >>> import fad.optim as optim
    >>> [float(u) for u in optim.clip(1.0).update([3.0, -0.5], optim.EmptyState())[0]]
    [1.0, -0.5]
    """
    return stateless(lambda updates, params: tree_map(
        lambda u: fnp.clip(u, -max_delta, max_delta), updates))


def clip_by_global_norm(max_norm: float) -> GradientTransformation:
    """All updates scaled by ``max_norm / global_norm`` when their global norm
    exceeds ``max_norm``.

    >>> import fad.optim as optim
    >>> u, _ = optim.clip_by_global_norm(1.0).update([3.0, 4.0], optim.EmptyState())
    >>> [round(float(v), 6) for v in u]
    [0.6, 0.8]
    """
    def f(updates: Any, params: Any) -> Any:
        norm = global_norm(updates)
        small = norm < max_norm
        factor = fnp.where(small, 1.0, max_norm / fnp.where(small, 1.0, norm))
        return tree_map(lambda u: u * fnp.astype(factor, fnp.asarray(u).dtype), updates)
    return stateless(f)
