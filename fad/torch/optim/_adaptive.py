"""``NAdam``, ``RAdam``, ``Adamax``, ``Adadelta``, ``Rprop`` and ``ASGD``.

Each update follows PyTorch's formulas step by step (its scalar state, such as
NAdam's ``mu_product`` or ASGD's ``eta`` and ``mu``, kept in float32 as PyTorch
keeps it), so trajectories agree with PyTorch's to rounding.
"""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from ._base import Optimizer, _check, _counted, _coupled_decay, _started

__all__ = ["NAdam", "RAdam", "Adamax", "Adadelta", "Rprop", "ASGD"]

def _check_adam(lr: float, eps: float, betas: tuple, **named: float) -> None:
    """PyTorch's checks, in its order: ``lr``, ``eps``, ``betas``, then ``named``."""
    _check(lr, eps)
    for i, b in enumerate(betas):
        if not 0.0 <= b < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {b}")
    _check(lr, **named)


def _ns(v: Any) -> Any:
    """The array namespace of ``v`` (NumPy's for NumPy arrays)."""
    return v.__array_namespace__() if hasattr(v, "__array_namespace__") else np


def _moments(st: dict, g: Any, b1: float, b2: float) -> tuple:
    """Adam's first and second moments, advanced by ``g`` (PyTorch's lerp)."""
    m = st.get("exp_avg", 0.0)
    m = st["exp_avg"] = m + (1 - b1) * (g - m)
    s = st["exp_avg_sq"] = b2 * st.get("exp_avg_sq", 0.0) + (1 - b2) * g * g
    return m, s


def _decayed(group: dict, v: Any, g: Any) -> tuple:
    """``(value, gradient)`` after weight decay: decoupled (the value shrinks by
    ``1 - lr * weight_decay``) or L2 (added to the gradient)."""
    if group["weight_decay"] and group["decoupled_weight_decay"]:
        return v * (1 - group["lr"] * group["weight_decay"]), g
    return v, _coupled_decay(group, v, g)


class NAdam(Optimizer):
    """Adam with Nesterov momentum (Dozat), its momentum warmed up by
    ``momentum_decay``; decoupled weight decay with ``decoupled_weight_decay=True``.

    >>> import fad.torch as torch
    >>> torch.optim.NAdam([torch.zeros(1, requires_grad=True)]).defaults["momentum_decay"]
    0.004
    """

    def __init__(self, params: Iterable, lr: float = 2e-3, betas: tuple = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: Any = None,
                 maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False):
        _check_adam(lr, eps, betas, weight_decay=weight_decay, momentum_decay=momentum_decay)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay, momentum_decay=momentum_decay,
                                      decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize, foreach=None, capturable=False,
                                      differentiable=False))

    def _update(self, group: dict, p: Any, g: Any) -> Any:
        lr, (b1, b2), psi = group["lr"], group["betas"], group["momentum_decay"]
        st = self.state.setdefault(p, {})
        st.setdefault("step", 0)
        st.setdefault("mu_product", 1.0)
        st, t = _counted(self.state, p)
        v, g = _decayed(group, p._value, g)
        mu = b1 * (1.0 - 0.5 * 0.96 ** (t * psi))
        mu_next = b1 * (1.0 - 0.5 * 0.96 ** ((t + 1) * psi))
        st["mu_product"] = np.float32(st["mu_product"]) * np.float32(mu)
        prod = float(st["mu_product"])
        m, s = _moments(st, g, b1, b2)
        denom = (s / (1 - b2 ** t)) ** 0.5 + group["eps"]
        v = v + (-lr * (1.0 - mu) / (1.0 - prod)) * (g / denom)
        return v + (-lr * mu_next / (1.0 - prod * mu_next)) * (m / denom)


class RAdam(Optimizer):
    """Rectified Adam: plain momentum while the second moment's variance is
    intractable (the first steps), Adam with a rectified step afterwards.

    >>> import fad.torch as torch
    >>> torch.optim.RAdam([torch.zeros(1, requires_grad=True)]).defaults["lr"]
    0.001
    """

    def __init__(self, params: Iterable, lr: float = 1e-3, betas: tuple = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0,
                 decoupled_weight_decay: bool = False, *, foreach: Any = None,
                 maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False):
        _check_adam(lr, eps, betas, weight_decay=weight_decay)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay, maximize=maximize,
                                      foreach=None, capturable=False,
                                      decoupled_weight_decay=decoupled_weight_decay,
                                      differentiable=False))

    def _update(self, group: dict, p: Any, g: Any) -> Any:
        lr, (b1, b2), eps = group["lr"], group["betas"], group["eps"]
        st, t = _counted(self.state, p)
        v, g = _decayed(group, p._value, g)
        m, s = _moments(st, g, b1, b2)
        bc2 = 1 - b2 ** t
        m_hat = m / (1 - b1 ** t)
        rho_inf = 2 / (1 - b2) - 1
        rho = rho_inf - 2 * t * (b2 ** t) / bc2
        if rho <= 5.0:
            return v - m_hat * lr
        rect = ((rho - 4) * (rho - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho)) ** 0.5
        return v - m_hat * lr * (bc2 ** 0.5 / (s ** 0.5 + eps)) * rect


class Adamax(Optimizer):
    """Adam with the infinity norm in place of the second moment.

    >>> import fad.torch as torch
    >>> torch.optim.Adamax([torch.zeros(1, requires_grad=True)]).defaults["lr"]
    0.002
    """

    def __init__(self, params: Iterable, lr: float = 2e-3, betas: tuple = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, foreach: Any = None, *,
                 maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False):
        _check_adam(lr, eps, betas, weight_decay=weight_decay)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay, foreach=None,
                                      maximize=maximize, differentiable=False,
                                      capturable=False))

    def _update(self, group: dict, p: Any, g: Any) -> Any:
        (b1, b2), eps = group["betas"], group["eps"]
        v, g, st, t = _started(self.state, group, p, g)
        m = st.get("exp_avg", 0.0)
        m = st["exp_avg"] = m + (1 - b1) * (g - m)
        u = st["exp_inf"] = _ns(v).maximum(b2 * st.get("exp_inf", 0.0), abs(g) + eps)
        return v + (-group["lr"] / (1 - b1 ** t)) * (m / u)


class Adadelta(Optimizer):
    """Adadelta: steps scaled by the ratio of running RMS of updates and gradients.

    >>> import fad.torch as torch
    >>> torch.optim.Adadelta([torch.zeros(1, requires_grad=True)]).defaults["rho"]
    0.9
    """

    def __init__(self, params: Iterable, lr: float = 1.0, rho: float = 0.9,
                 eps: float = 1e-6, weight_decay: float = 0, foreach: Any = None, *,
                 capturable: bool = False, maximize: bool = False,
                 differentiable: bool = False):
        _check(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _check(lr, eps, weight_decay=weight_decay)
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay,
                                      maximize=maximize, capturable=False, foreach=None,
                                      differentiable=False))

    def _update(self, group: dict, p: Any, g: Any) -> Any:
        rho, eps = group["rho"], group["eps"]
        v, g, st, _ = _started(self.state, group, p, g)
        sq = st["square_avg"] = rho * st.get("square_avg", 0.0) + (1 - rho) * g * g
        acc = st.get("acc_delta", 0.0 * v)
        delta = (acc + eps) ** 0.5 / (sq + eps) ** 0.5 * g
        st["acc_delta"] = rho * acc + (1 - rho) * delta * delta
        return v - group["lr"] * delta


class Rprop(Optimizer):
    """Resilient backpropagation: per-entry step sizes grown by ``etas[1]`` while
    the gradient keeps its sign, shrunk by ``etas[0]`` (and the step skipped)
    when it flips, clamped to ``step_sizes``.

    >>> import fad.torch as torch
    >>> torch.optim.Rprop([torch.zeros(1, requires_grad=True)]).defaults["etas"]
    (0.5, 1.2)
    """

    def __init__(self, params: Iterable, lr: float = 1e-2, etas: tuple = (0.5, 1.2),
                 step_sizes: tuple = (1e-6, 50), *, capturable: bool = False,
                 foreach: Any = None, maximize: bool = False, differentiable: bool = False):
        _check(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, dict(lr=lr, etas=tuple(etas), step_sizes=tuple(step_sizes),
                                      foreach=None, maximize=maximize, differentiable=False,
                                      capturable=False))

    def _update(self, group: dict, p: Any, g: Any) -> Any:
        (minus, plus), (lo, hi) = group["etas"], group["step_sizes"]
        v = p._value
        xp = _ns(v)
        st, _ = _counted(self.state, p)
        if "prev" not in st:
            st["prev"] = xp.zeros_like(v)
            st["step_size"] = xp.full_like(v, group["lr"])
        sign = xp.sign(g * st["prev"])
        one = xp.ones_like(v)
        factor = xp.where(sign > 0, plus * one, xp.where(sign < 0, minus * one, one))
        size = st["step_size"] = xp.clip(st["step_size"] * factor, lo, hi)
        g = st["prev"] = xp.where(sign < 0, 0 * one, g)
        return v - xp.sign(g) * size


class ASGD(Optimizer):
    """Averaged stochastic gradient descent: SGD with a decaying rate, and the
    running average of the iterates in the state's ``ax``.

    >>> import fad.torch as torch
    >>> torch.optim.ASGD([torch.zeros(1, requires_grad=True)]).defaults["t0"]
    1000000.0
    """

    def __init__(self, params: Iterable, lr: float = 1e-2, lambd: float = 1e-4,
                 alpha: float = 0.75, t0: float = 1e6, weight_decay: float = 0,
                 foreach: Any = None, maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False):
        _check(lr, weight_decay=weight_decay)
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0,
                                      weight_decay=weight_decay, foreach=None,
                                      maximize=maximize, differentiable=False,
                                      capturable=False))

    def _update(self, group: dict, p: Any, g: Any) -> Any:
        lr, lambd = group["lr"], group["lambd"]
        st = self.state.setdefault(p, {})
        if "eta" not in st:
            st.update(step=0, eta=np.float32(lr), mu=np.float32(1.0),
                      ax=_ns(p._value).zeros_like(p._value))
        v, g, st, t = _started(self.state, group, p, g)
        eta, mu = float(st["eta"]), float(st["mu"])
        v = v * (1 - lambd * eta)
        v = v - eta * g
        st["ax"] = st["ax"] + (v - st["ax"]) * mu if mu != 1 else v.copy()
        st["eta"] = np.float32(lr / ((1 + lambd * lr * t) ** group["alpha"]))
        st["mu"] = np.float32(1 / max(1, t - group["t0"]))
        return v
