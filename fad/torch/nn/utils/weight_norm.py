"""``torch.nn.utils.weight_norm``: the older, hook-based weight normalisation
(deprecated by PyTorch for ``parametrizations.weight_norm``, and warning so).

The parameter ``<name>`` becomes ``<name>_g`` (its norm over every dimension but
``dim``; over all of it for ``dim=None``) and ``<name>_v`` (its direction), and a
forward pre-hook recomputes ``<name> = g * v / ||v||`` before every call.

>>> import warnings
>>> import fad.torch as torch
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     m = torch.nn.utils.weight_norm(torch.nn.Linear(3, 2))
>>> [n for n, _ in m.named_parameters()]
['bias', 'weight_g', 'weight_v']
"""

from __future__ import annotations

import warnings
from typing import Any

from ...tensor import Tensor
from ..modules.module import Module, Parameter
from . import remove_hook
from .parametrizations import _WeightNorm

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


class WeightNorm:
    """The forward pre-hook that sets ``module.<name>`` from ``<name>_g`` and
    ``<name>_v``."""

    def __init__(self, name: str, dim: int | None):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module: Module) -> Tensor:
        g, v = getattr(module, self.name + "_g"), getattr(module, self.name + "_v")
        return _WeightNorm(self.dim)(g, v)

    @staticmethod
    def apply(module: Module, name: str, dim: int | None) -> "WeightNorm":
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning,
                      stacklevel=3)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError("Cannot register two weight_norm hooks on the same "
                                   f"parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        g, _ = _WeightNorm(fn.dim).right_inverse(weight)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(g.data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Split ``module.<name>`` into a magnitude ``<name>_g`` and a direction
    ``<name>_v``, recombined before every call (see the module's docstring)."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: Module, name: str = "weight") -> Module:
    """Undo ``weight_norm``: ``module.<name>`` is one parameter again."""
    return remove_hook(module, lambda h: isinstance(h, WeightNorm) and h.name == name,
                       f"weight_norm of '{name}' not found in {module}")
