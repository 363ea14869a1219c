"""``torch.nn.utils.spectral_norm``: a weight divided by its largest singular value
``sigma``, estimated by power iteration (the older, hook-based form; the
parametrization is ``parametrizations.spectral_norm``).

The weight is seen as a matrix (``dim`` first, the other dimensions flattened);
with ``u`` and ``v`` unit estimates of its leading left and right singular
vectors, ``sigma = u . (W v)``. Each forward call in training mode refines them
by ``n_power_iterations`` steps ``v = W^T u / |W^T u|``, ``u = W v / |W v|``
(without gradient), then uses copies: the gradient flows through ``W`` only, as in
PyTorch.

>>> import fad.torch as torch
>>> m = torch.nn.utils.spectral_norm(torch.nn.Linear(4, 3))
>>> [n for n, _ in m.named_parameters()], [n for n, _ in m.named_buffers()]
(['bias', 'weight_orig'], ['weight_u', 'weight_v'])
"""

from __future__ import annotations

from typing import Any

from ... import _functions as F
from ..._grad_mode import no_grad
from ...tensor import Tensor
from ..functional import normalize
from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ..modules.module import Module, Parameter
from . import remove_hook

__all__ = ["SpectralNorm", "spectral_norm", "remove_spectral_norm"]


def as_matrix(weight: Tensor, dim: int) -> Tensor:
    """``weight`` with dimension ``dim`` first and the others flattened."""
    if dim != 0:
        weight = weight.permute(dim, *(d for d in range(weight.dim()) if d != dim))
    return weight.reshape(weight.shape[0], -1)


def check_iterations(n_power_iterations: int) -> None:
    if n_power_iterations <= 0:
        raise ValueError("Expected n_power_iterations to be positive, but got "
                         f"n_power_iterations={n_power_iterations}")


def default_dim(module: Module, dim: int | None) -> int:
    """The dimension of the output channels: 1 for a transposed convolution."""
    if dim is not None:
        return dim
    return 1 if isinstance(module, ConvTranspose1d | ConvTranspose2d | ConvTranspose3d) else 0


class SpectralNorm:
    """The forward pre-hook that sets ``module.<name>`` to ``<name>_orig / sigma``."""

    _version = 1

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12):
        check_iterations(n_power_iterations)
        self.name, self.dim, self.eps = name, dim, eps
        self.n_power_iterations = n_power_iterations

    def reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        return as_matrix(weight, self.dim)

    def compute_weight(self, module: Module, do_power_iteration: bool) -> Tensor:
        weight = getattr(module, self.name + "_orig")
        u, v = getattr(module, self.name + "_u"), getattr(module, self.name + "_v")
        mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():  # (the buffers are refined in place)
                for _ in range(self.n_power_iterations):
                    v = normalize(F.mv(mat.t(), u), dim=0, eps=self.eps, out=v)
                    u = normalize(F.mv(mat, v), dim=0, eps=self.eps, out=u)
                u, v = u.clone(), v.clone()
        return weight / F.dot(u, F.mv(mat, v))

    def remove(self, module: Module) -> None:
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module, module.training))

    @staticmethod
    def apply(module: Module, name: str, n_power_iterations: int, dim: int,
              eps: float) -> "SpectralNorm":
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError("Cannot register two spectral_norm hooks on the same "
                                   f"parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        with no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).shape
            u = normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, name)
        module.register_parameter(name + "_orig", weight)
        setattr(module, name, weight.data)
        module.register_buffer(name + "_u", u)
        module.register_buffer(name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> Module:
    """Divide ``module.<name>`` by its spectral norm before every call: the parameter
    becomes ``<name>_orig``, the singular-vector estimates buffers ``<name>_u`` and
    ``<name>_v``; ``dim`` (the output channels by default) is the matrix's rows."""
    SpectralNorm.apply(module, name, n_power_iterations, default_dim(module, dim), eps)
    return module


def remove_spectral_norm(module: Module, name: str = "weight") -> Module:
    """Undo ``spectral_norm``: ``module.<name>`` is a parameter again, holding the
    normalised weight."""
    return remove_hook(module, lambda h: isinstance(h, SpectralNorm) and h.name == name,
                       f"spectral_norm of '{name}' not found in {module}")
