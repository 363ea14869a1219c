"""``torch.optim``: SGD, Adam, AdamW, RMSprop, Adagrad.

Updates run on the parameters' arrays in place (as PyTorch's, under no_grad):
NumPy buffers shared with ``from_numpy`` see them, and the version counter moves,
so a graph that saved the old values refuses to backward.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

import numpy as np

from ._grad_mode import enable_grad
from .tensor import Tensor, wrap


def _set(p: Tensor, new: Any) -> None:
    v = p._value
    if type(v) is np.ndarray and v.flags.writeable and not p._cow:
        np.copyto(v, new, casting="unsafe")
    else:
        p._write(new)
    p._version += 1


class Optimizer:
    """Base class: ``param_groups``, ``state``, ``zero_grad`` and ``step``."""

    def __init__(self, params: Iterable, defaults: dict):
        self.defaults = defaults
        self.state: dict = {}
        self.param_groups: list[dict] = []
        params = list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(params[0], dict):
            params = [{"params": params}]
        for group in params:
            self.add_param_group(group)

    def add_param_group(self, group: dict) -> None:
        group = dict(group)
        ps = group["params"]
        group["params"] = [ps] if isinstance(ps, Tensor) else list(ps)
        for k, v in self.defaults.items():
            group.setdefault(k, v)
        for p in group["params"]:
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                if p._grad is None:
                    continue
                if set_to_none:
                    p._grad = None
                else:
                    p._grad.detach_()
                    p._grad.zero_()

    def _grads(self) -> Iterable[tuple]:
        for group in self.param_groups:
            for p in group["params"]:
                if p._grad is not None:
                    yield group, p, p._grad._value

    def step(self, closure: Callable | None = None) -> Any:
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        for group, p, g in self._grads():
            if group.get("maximize"):
                g = -g
            _set(p, self._update(group, p, g))
        return loss

    def _update(self, group: dict, p: Tensor, g: Any) -> Any:
        raise NotImplementedError

    def state_dict(self) -> dict:
        """PyTorch's layout: each parameter's state (tensors, copied; a ``step``
        count is a float32 0-d tensor) under the parameter's index, and the
        groups' hyper-parameters."""
        ids = {id(p): i for i, p in enumerate(p for g in self.param_groups for p in g["params"])}
        return {"state": {ids[k]: {n: _state_tensor(x) for n, x in v.items()}
                          for k, v in self._state_by_id().items() if k in ids},
                "param_groups": [{k: v for k, v in g.items() if k != "params"} | {
                    "params": [ids[id(p)] for p in g["params"]]} for g in self.param_groups]}

    def _state_by_id(self) -> dict:
        return {id(p): self.state[p] for p in self.state}

    def load_state_dict(self, state_dict: dict) -> None:
        params = [p for g in self.param_groups for p in g["params"]]
        for g, sg in zip(self.param_groups, state_dict["param_groups"]):
            g.update({k: v for k, v in sg.items() if k != "params"})
        self.state = {params[i]: {n: _state_value(n, x) for n, x in v.items()}
                      for i, v in state_dict["state"].items()}

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, g in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for k in sorted(k for k in g if k != "params"):
                lines.append(f"    {k}: {g[k]}")
        return "\n".join(lines) + "\n)"


def _state_tensor(x: Any) -> Any:
    if isinstance(x, Tensor):
        return wrap(x._value.copy())
    if type(x) in (int, float):
        return wrap(np.asarray(x, np.float32))
    return wrap(x.copy()) if hasattr(x, "shape") else x


def _state_value(name: str, x: Any) -> Any:
    """A state entry as the updates use it: arrays, and ``step`` an int."""
    if not isinstance(x, Tensor):
        return x
    return int(x.item()) if name == "step" else x._value.copy()


class SGD(Optimizer):
    """Stochastic gradient descent with momentum, dampening, Nesterov, weight decay."""

    def __init__(self, params: Iterable, lr: float = 1e-3, momentum: float = 0.0,
                 dampening: float = 0.0, weight_decay: float = 0.0, nesterov: bool = False,
                 *, maximize: bool = False, **_: Any):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov,
                                      maximize=maximize))

    def _update(self, group: dict, p: Tensor, g: Any) -> Any:
        v = p._value
        if group["weight_decay"]:
            g = g + group["weight_decay"] * v
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


class Adam(Optimizer):
    """Adam (and AMSGrad), with L2 weight decay."""

    _decoupled = False

    def __init__(self, params: Iterable, lr: float = 1e-3, betas: tuple = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0.0, amsgrad: bool = False, *,
                 maximize: bool = False, **_: Any):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, maximize=maximize))

    def _update(self, group: dict, p: Tensor, g: Any) -> Any:
        v = p._value
        lr, (b1, b2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        if wd:
            if self._decoupled:
                v = v * (1 - lr * wd)
            else:
                g = g + wd * v
        st = self.state.setdefault(p, {})
        t = st["step"] = st.get("step", 0) + 1
        m = st["exp_avg"] = b1 * st.get("exp_avg", 0.0) + (1 - b1) * g
        s = st["exp_avg_sq"] = b2 * st.get("exp_avg_sq", 0.0) + (1 - b2) * g * g
        if group["amsgrad"]:
            prev = st.get("max_exp_avg_sq")
            s = st["max_exp_avg_sq"] = s if prev is None else _maximum(prev, s)
        bc1 = 1 - b1 ** t
        bc2 = 1 - b2 ** t
        return v - (lr / bc1) * m / ((s / bc2) ** 0.5 + eps)


def _maximum(a: Any, b: Any) -> Any:
    return np.maximum(a, b) if type(a) is np.ndarray else (a + b + abs(a - b)) / 2


class AdamW(Adam):
    """Adam with decoupled weight decay (default 0.01)."""

    _decoupled = True

    def __init__(self, params: Iterable, lr: float = 1e-3, betas: tuple = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False,
                 **kwargs: Any):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, **kwargs)


class RMSprop(Optimizer):
    def __init__(self, params: Iterable, lr: float = 1e-2, alpha: float = 0.99,
                 eps: float = 1e-8, weight_decay: float = 0.0, momentum: float = 0.0,
                 centered: bool = False, **_: Any):
        super().__init__(params, dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay,
                                      momentum=momentum, centered=centered))

    def _update(self, group: dict, p: Tensor, g: Any) -> Any:
        v = p._value
        if group["weight_decay"]:
            g = g + group["weight_decay"] * v
        st = self.state.setdefault(p, {})
        a = group["alpha"]
        sq = st["square_avg"] = a * st.get("square_avg", 0.0) + (1 - a) * g * g
        if group["centered"]:
            ga = st["grad_avg"] = a * st.get("grad_avg", 0.0) + (1 - a) * g
            avg = (sq - ga * ga) ** 0.5 + group["eps"]
        else:
            avg = sq ** 0.5 + group["eps"]
        if group["momentum"]:
            buf = st["momentum_buffer"] = group["momentum"] * st.get("momentum_buffer", 0.0) \
                + g / avg
            return v - group["lr"] * buf
        return v - group["lr"] * g / avg


class Adagrad(Optimizer):
    def __init__(self, params: Iterable, lr: float = 1e-2, lr_decay: float = 0.0,
                 weight_decay: float = 0.0, initial_accumulator_value: float = 0.0,
                 eps: float = 1e-10, **_: Any):
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value,
                                      eps=eps))

    def _update(self, group: dict, p: Tensor, g: Any) -> Any:
        v = p._value
        if group["weight_decay"]:
            g = g + group["weight_decay"] * v
        st = self.state.setdefault(p, {})
        t = st["step"] = st.get("step", 0) + 1
        s = st["sum"] = st.get("sum", group["initial_accumulator_value"]) + g * g
        clr = group["lr"] / (1 + (t - 1) * group["lr_decay"])
        return v - clr * g / (s ** 0.5 + group["eps"])


class lr_scheduler:
    """A few schedulers: ``StepLR``, ``ExponentialLR``, ``LambdaLR``."""

    class _Base:
        def __init__(self, optimizer: Optimizer, last_epoch: int = -1):
            self.optimizer = optimizer
            self.base_lrs = [g["lr"] for g in optimizer.param_groups]
            self.last_epoch = last_epoch + 1

        def step(self) -> None:
            self.last_epoch += 1
            for g, lr in zip(self.optimizer.param_groups, self.get_lr()):
                g["lr"] = lr

        def get_last_lr(self) -> list:
            return [g["lr"] for g in self.optimizer.param_groups]

    class StepLR(_Base):
        def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1,
                     last_epoch: int = -1):
            self.step_size, self.gamma = step_size, gamma
            super().__init__(optimizer, last_epoch)

        def get_lr(self) -> list:
            k = self.last_epoch // self.step_size
            return [b * self.gamma ** k for b in self.base_lrs]

    class ExponentialLR(_Base):
        def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1):
            self.gamma = gamma
            super().__init__(optimizer, last_epoch)

        def get_lr(self) -> list:
            return [b * self.gamma ** self.last_epoch for b in self.base_lrs]

    class LambdaLR(_Base):
        def __init__(self, optimizer: Optimizer, lr_lambda: Callable, last_epoch: int = -1):
            self.lr_lambda = lr_lambda
            super().__init__(optimizer, last_epoch)

        def get_lr(self) -> list:
            return [b * self.lr_lambda(self.last_epoch) for b in self.base_lrs]



