"""``torch.nn.utils.parametrizations``: ``weight_norm`` (the weight as
``g * v / ||v||``, ``g`` and ``v`` its originals ``original0`` and ``original1``) and
``spectral_norm`` (the weight divided by its largest singular value) as
parametrizations, on ``parametrize``."""

from __future__ import annotations

from ... import _functions as F
from ..._grad_mode import no_grad
from ...tensor import Tensor
from ..functional import normalize
from ..modules.module import Module
from .parametrize import register_parametrization
from .spectral_norm import as_matrix, check_iterations, default_dim

__all__ = ["weight_norm", "spectral_norm"]


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


class _SpectralNorm(Module):
    """The weight divided by its spectral norm, estimated by power iteration with the
    buffers ``_u`` and ``_v`` (15 steps at creation, ``n_power_iterations`` per
    training call, each ``u = W v / |W v|``, ``v = W^T u / |W^T u|``); a vector is
    just normalised."""

    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12):
        super().__init__()
        ndim = weight.dim()
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        check_iterations(n_power_iterations)
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            mat = as_matrix(weight, self.dim)
            h, w = mat.shape
            self.register_buffer("_u", normalize(mat.new_empty(h).normal_(0, 1), dim=0,
                                                 eps=eps))
            self.register_buffer("_v", normalize(mat.new_empty(w).normal_(0, 1), dim=0,
                                                 eps=eps))
            self._power_method(mat, 15)

    def _power_method(self, mat: Tensor, n_power_iterations: int) -> None:
        with no_grad():
            for _ in range(n_power_iterations):
                self._u = normalize(F.mv(mat, self._v), dim=0, eps=self.eps, out=self._u)
                self._v = normalize(F.mv(mat.H, self._u), dim=0, eps=self.eps, out=self._v)

    def forward(self, weight: Tensor) -> Tensor:
        if weight.dim() == 1:
            return normalize(weight, dim=0, eps=self.eps)
        mat = as_matrix(weight, self.dim)
        if self.training:
            self._power_method(mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        return weight / F.vdot(u, F.mv(mat, v))

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> Module:
    """Reparametrize ``module.<name>`` as itself divided by its spectral norm:
    ``parametrizations.<name>.original`` is the weight, the singular-vector estimates
    are buffers ``_u`` and ``_v`` of ``parametrizations.<name>[0]``; ``dim`` (the
    output channels by default) is the matrix's rows.

    >>> import fad.torch as torch
    >>> _ = torch.manual_seed(0)
    >>> m = torch.nn.utils.parametrizations.spectral_norm(torch.nn.Linear(20, 40))
    >>> [name for name, _ in m.named_buffers()]
    ['parametrizations.weight.0._u', 'parametrizations.weight.0._v']
    >>> for _ in range(20):  # (each training call refines the estimates)
    ...     _ = m(torch.zeros(1, 20))
    >>> round(torch.linalg.matrix_norm(m.weight, ord=2).item(), 3)
    1.0
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    return register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, default_dim(module, dim), eps))
