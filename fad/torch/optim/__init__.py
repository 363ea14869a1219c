"""``torch.optim``: SGD, Adam, AdamW, RMSprop, Adagrad, NAdam, RAdam, Adamax,
Adadelta, Rprop, ASGD, LBFGS, and ``lr_scheduler``.

Updates run on the parameters' arrays in place (as PyTorch's, under no_grad):
NumPy buffers shared with ``from_numpy`` see them, and the version counter moves,
so a graph that saved the old values refuses to backward. Each update follows
PyTorch's formulas step by step, so trajectories agree with PyTorch's to rounding.

>>> import fad.torch as torch
>>> w = torch.tensor([1.0, -2.0], requires_grad=True)
>>> opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
>>> (w * w).sum().backward()
>>> opt.step()
>>> w
tensor([ 0.8000, -1.6000], requires_grad=True)
"""

from __future__ import annotations

from typing import Any, Iterable

from ._adafactor import Adafactor
from ._adaptive import ASGD, Adadelta, Adamax, NAdam, RAdam, Rprop
from ._base import _TAIL, Optimizer, _check, _counted, _coupled_decay, _started
from .lbfgs import LBFGS

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "NAdam", "RAdam", "Adamax",
           "Adadelta", "Rprop", "ASGD", "LBFGS", "Adafactor", "lr_scheduler", "swa_utils"]


class SGD(Optimizer):
    """Stochastic gradient descent with momentum, dampening, Nesterov, weight decay.

    >>> import fad.torch as torch
    >>> torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1).defaults["lr"]
    0.1
    """

    def __init__(self, params: Iterable, lr: float = 1e-3, momentum: float = 0.0,
                 dampening: float = 0.0, weight_decay: float = 0.0, nesterov: bool = False,
                 *, maximize: bool = False, foreach: Any = None, differentiable: bool = False,
                 fused: Any = None):
        _check(lr, momentum=momentum, weight_decay=weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov,
                                      maximize=maximize, **_TAIL, fused=None))

    def _update(self, group: dict, p: Any, g: Any) -> Any:
        v = p._value
        g = _coupled_decay(group, v, g)
        mom = group["momentum"]
        if mom:
            st = self.state.setdefault(p, {})
            buf = st.get("momentum_buffer")
            if buf is None:
                buf = g.copy() if hasattr(g, "copy") else g
            else:
                buf = mom * buf + (1 - group["dampening"]) * g
            st["momentum_buffer"] = buf
            g = g + mom * buf if group["nesterov"] else buf
        return v - group["lr"] * g


def _maximum(a: Any, b: Any) -> Any:
    return (a + b + abs(a - b)) / 2 if not hasattr(a, "__array_namespace__") \
        else a.__array_namespace__().maximum(a, b)


class Adam(Optimizer):
    """Adam (and AMSGrad), with L2 weight decay (decoupled, as AdamW, with
    ``decoupled_weight_decay=True``).

    >>> import fad.torch as torch
    >>> torch.optim.Adam([torch.zeros(1, requires_grad=True)]).defaults["betas"]
    (0.9, 0.999)
    """

    def __init__(self, params: Iterable, lr: float = 1e-3, betas: tuple = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0.0, amsgrad: bool = False, *,
                 foreach: Any = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False, fused: Any = None,
                 decoupled_weight_decay: bool = False):
        _check(lr, eps, weight_decay=weight_decay)
        for i, b in enumerate(betas):
            if not 0.0 <= b < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {b}")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize, foreach=None, capturable=False,
                                      differentiable=False, fused=None,
                                      decoupled_weight_decay=decoupled_weight_decay))

    def _update(self, group: dict, p: Any, g: Any) -> Any:
        v = p._value
        lr, (b1, b2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        if wd:
            if group["decoupled_weight_decay"]:
                v = v * (1 - lr * wd)
            else:
                g = g + wd * v
        st, t = _counted(self.state, p)
        m = st.get("exp_avg", 0.0)
        m = st["exp_avg"] = m + (1 - b1) * (g - m)  # PyTorch's lerp
        s = st["exp_avg_sq"] = b2 * st.get("exp_avg_sq", 0.0) + (1 - b2) * g * g
        if group["amsgrad"]:
            prev = st.get("max_exp_avg_sq")
            s = st["max_exp_avg_sq"] = s if prev is None else _maximum(prev, s)
        bc2_sqrt = (1 - b2 ** t) ** 0.5
        return v - (lr / (1 - b1 ** t)) * m / (s ** 0.5 / bc2_sqrt + eps)


class AdamW(Adam):
    """Adam with decoupled weight decay (default 0.01).

    >>> import fad.torch as torch
    >>> torch.optim.AdamW([torch.zeros(1, requires_grad=True)]).defaults["weight_decay"]
    0.01
    """

    def __init__(self, params: Iterable, lr: float = 1e-3, betas: tuple = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False,
                 **kwargs: Any):
        kwargs.pop("decoupled_weight_decay", None)
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad,
                         decoupled_weight_decay=True, **kwargs)


class RMSprop(Optimizer):
    """RMSprop, optionally centered and with momentum.

    >>> import fad.torch as torch
    >>> torch.optim.RMSprop([torch.zeros(1, requires_grad=True)]).defaults["alpha"]
    0.99
    """

    def __init__(self, params: Iterable, lr: float = 1e-2, alpha: float = 0.99,
                 eps: float = 1e-8, weight_decay: float = 0.0, momentum: float = 0.0,
                 centered: bool = False, capturable: bool = False, foreach: Any = None,
                 maximize: bool = False, differentiable: bool = False):
        _check(lr, eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha)
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps,
                                      centered=centered, weight_decay=weight_decay,
                                      capturable=False, foreach=None, maximize=maximize,
                                      differentiable=False))

    def _update(self, group: dict, p: Any, g: Any) -> Any:
        v, g, st, _ = _started(self.state, group, p, g)
        a = group["alpha"]
        if "square_avg" not in st:  # (PyTorch's order of the state entries)
            st["square_avg"] = 0.0
            if group["momentum"] > 0:
                st["momentum_buffer"] = 0.0
            if group["centered"]:
                st["grad_avg"] = 0.0
        sq = st["square_avg"] = a * st.get("square_avg", 0.0) + (1 - a) * g * g
        if group["centered"]:
            ga = st.get("grad_avg", 0.0)
            ga = st["grad_avg"] = ga + (1 - a) * (g - ga)
            avg = (sq - ga * ga) ** 0.5 + group["eps"]
        else:
            avg = sq ** 0.5 + group["eps"]
        if group["momentum"] > 0:
            buf = st["momentum_buffer"] = group["momentum"] * st.get("momentum_buffer", 0.0) \
                + g / avg
            return v - group["lr"] * buf
        return v - group["lr"] * (g / avg)


class Adagrad(Optimizer):
    """Adagrad with learning-rate decay.

    >>> import fad.torch as torch
    >>> torch.optim.Adagrad([torch.zeros(1, requires_grad=True)]).defaults["eps"]
    1e-10
    """

    def __init__(self, params: Iterable, lr: float = 1e-2, lr_decay: float = 0.0,
                 weight_decay: float = 0.0, initial_accumulator_value: float = 0.0,
                 eps: float = 1e-10, foreach: Any = None, *, maximize: bool = False,
                 differentiable: bool = False, fused: Any = None):
        _check(lr, eps, lr_decay=lr_decay, weight_decay=weight_decay,
               initial_accumulator_value=initial_accumulator_value)
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps,
                                      weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value,
                                      foreach=None, maximize=maximize, differentiable=False,
                                      fused=None))

    def _update(self, group: dict, p: Any, g: Any) -> Any:
        v, g, st, t = _started(self.state, group, p, g)
        s = st["sum"] = st.get("sum", group["initial_accumulator_value"]) + g * g
        clr = group["lr"] / (1 + (t - 1) * group["lr_decay"])
        return v - clr * (g / (s ** 0.5 + group["eps"]))


from . import lr_scheduler, swa_utils  # noqa: E402
