"""``torch.nn.utils.parametrizations``: ``weight_norm`` as a parametrization (the
weight as ``g * v / ||v||``, ``g`` and ``v`` its originals ``original0`` and
``original1``), on ``parametrize``."""

from __future__ import annotations

from ...tensor import Tensor
from ..modules.module import Module
from .parametrize import register_parametrization

__all__ = ["weight_norm"]


def _norm_except_dim(v: Tensor, dim: int | None) -> Tensor:
    """The 2-norm of ``v`` over every dimension but ``dim`` (kept, as length-1 others),
    or over all of it when ``dim`` is ``None``."""
    if dim is None:
        return v.norm()
    d = dim % v.dim()
    others = tuple(k for k in range(v.dim()) if k != d)
    return v.norm(dim=others, keepdim=True) if others else v.abs()


class _WeightNorm(Module):
    def __init__(self, dim: int | None = 0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return weight_v * (weight_g / _norm_except_dim(weight_v, self._dim(weight_v)))

    def right_inverse(self, weight: Tensor) -> tuple:
        return _norm_except_dim(weight, self._dim(weight)), weight

    def _dim(self, v: Tensor) -> int | None:
        return None if self.dim == -1 else self.dim


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Reparametrize ``module.<name>`` as ``g * v / ||v||`` (the norm over every
    dimension but ``dim``): ``parametrizations.<name>.original0`` is ``g``,
    ``original1`` is ``v``.

    >>> import fad.torch as torch
    >>> m = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(3, 2))
    >>> tuple(m.parametrizations.weight.original0.shape), tuple(m.weight.shape)
    ((2, 1), (2, 3))
    """
    return register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
