"""The optimiser base class: parameter groups, state, ``zero_grad``, ``step`` and
PyTorch's ``state_dict`` layout."""

from __future__ import annotations

from typing import Any, Callable, Iterable

import numpy as np

from .._grad_mode import enable_grad
from ..tensor import Tensor, wrap


def set_value(p: Tensor, new: Any) -> None:
    """Write ``new`` into parameter ``p`` in place (its version moves)."""
    v = p._value
    if type(v) is np.ndarray and v.flags.writeable and not p._cow:
        np.copyto(v, new, casting="unsafe")
    else:
        p._write(new)
    p._version += 1


def _check(lr: float, eps: float = 0.0, **named: float) -> None:
    if lr < 0.0:
        raise ValueError(f"Invalid learning rate: {lr}")
    if eps < 0.0:
        raise ValueError(f"Invalid epsilon value: {eps}")
    for name, v in named.items():
        if v < 0.0:
            raise ValueError(f"Invalid {name} value: {v}")


_TAIL = dict(foreach=None, differentiable=False)


def _coupled_decay(group: dict, v: Any, g: Any) -> Any:
    """The gradient with L2 weight decay added: ``g + weight_decay * v``."""
    return g + group["weight_decay"] * v if group["weight_decay"] else g


def _counted(state: dict, p: Any) -> tuple[dict, int]:
    """``p``'s state, its step count advanced by one, and that count."""
    st = state.setdefault(p, {})
    t = st["step"] = st.get("step", 0) + 1
    return st, t


def _started(state: dict, group: dict, p: Any, g: Any) -> tuple:
    """``(value, gradient with L2 weight decay, state, step count)`` of ``p``."""
    v = p._value
    return (v, _coupled_decay(group, v, g), *_counted(state, p))


class Optimizer:
    """Base class: ``param_groups``, ``state``, ``zero_grad``, ``step``,
    ``add_param_group`` and ``state_dict``/``load_state_dict``.

    >>> import fad.torch as torch
    >>> w = torch.zeros(2, requires_grad=True)
    >>> opt = torch.optim.SGD([w], lr=0.1)
    >>> opt.add_param_group({"params": [torch.ones(1, requires_grad=True)], "lr": 0.5})
    >>> [g["lr"] for g in opt.param_groups]
    [0.1, 0.5]
    """

    def __init__(self, params: Iterable, defaults: dict):
        self.defaults = defaults
        self.state: dict = {}
        self.param_groups: list[dict] = []
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable "
                            f"of Tensors or dicts, but got {params.type()}")
        params = list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(params[0], dict):
            params = [{"params": params}]
        for group in params:
            self.add_param_group(group)

    def add_param_group(self, param_group: dict) -> None:
        """Add a group of parameters, with its own hyper-parameters (the defaults
        fill the rest)."""
        group = dict(param_group)
        ps = group["params"]
        group["params"] = [ps] if isinstance(ps, Tensor) else list(ps)
        for k, v in self.defaults.items():
            group.setdefault(k, v)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        for p in group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params "
                                f"is {type(p).__name__}")
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
            if id(p) in seen:
                raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients: to ``None`` (default) or to zeros."""
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
        """One update of every parameter that has a gradient; ``closure`` (which
        recomputes the loss) is called first when given, and its loss returned."""
        self._opt_called = True  # (a scheduler stepped before warns)
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        for group, p, g in self._grads():
            if group.get("maximize"):
                g = -g
            set_value(p, self._update(group, p, g))
        return loss

    def _update(self, group: dict, p: Tensor, g: Any) -> Any:
        raise NotImplementedError

    def state_dict(self) -> dict:
        """PyTorch's layout: each parameter's state (tensors, copied; a ``step``
        count is a float32 0-d tensor) under the parameter's index, and the
        groups' hyper-parameters with ``params`` the indices."""
        order = [p for g in self.param_groups for p in g["params"]]
        ids = {id(p): i for i, p in enumerate(order)}
        return {"state": {ids[id(p)]: {n: _state_tensor(n, x) for n, x in self.state[p].items()}
                          for p in order if p in self.state},
                "param_groups": [{k: v for k, v in g.items() if k != "params"} | {
                    "params": [ids[id(p)] for p in g["params"]]} for g in self.param_groups]}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore the state and hyper-parameters saved by ``state_dict``."""
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups) or any(
                len(g["params"]) != len(s["params"]) for g, s in zip(self.param_groups, groups)):
            raise ValueError("loaded state dict has a different number of parameter groups "
                             "or parameters than the optimizer")
        index = {i: p for g, s in zip(self.param_groups, groups)
                 for i, p in zip(s["params"], g["params"])}
        for g, sg in zip(self.param_groups, groups):
            g.update({k: v for k, v in sg.items() if k != "params"})
        self.state = {index[i]: {n: _state_value(n, x) for n, x in v.items()}
                      for i, v in state_dict["state"].items()}

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, g in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for k in sorted(k for k in g if k != "params"):
                lines.append(f"    {k}: {g[k]}")
        return "\n".join(lines) + "\n)"


def _state_tensor(name: str, x: Any) -> Any:
    """A state entry as PyTorch saves it: tensors (copied), ``step`` a float32 0-d
    tensor, lists entry by entry, other Python values as they are."""
    if isinstance(x, Tensor):
        return wrap(x._value.copy())
    if name == "step":
        return wrap(np.asarray(x, np.float32))
    if isinstance(x, list):
        return [_state_tensor("", e) for e in x]
    return wrap(x.copy()) if hasattr(x, "shape") else x


def _state_value(name: str, x: Any) -> Any:
    """A state entry as the updates use it: arrays, and ``step`` an int."""
    if isinstance(x, list):
        return [_state_value("", e) for e in x]
    if not isinstance(x, Tensor):
        return x
    return int(x.item()) if name == "step" else x._value.copy()
