"""``torch.nn.utils.parametrizations``: ``weight_norm`` (the weight as
``g * v / ||v||``, ``g`` and ``v`` its originals ``original0`` and ``original1``),
``spectral_norm`` (the weight divided by its largest singular value) and
``orthogonal`` (an orthogonal or unitary weight) as parametrizations, on
``parametrize``."""

from __future__ import annotations

import numpy as np

from ... import _functions as F
from ... import linalg
from ..._creation import eye, randn, zeros_like
from ..._grad_mode import no_grad
from ..._householder import geqrf, householder_product
from ...tensor import Tensor
from ..functional import normalize
from ..modules.module import Module
from .parametrize import register_parametrization
from .spectral_norm import as_matrix, check_iterations, default_dim

__all__ = ["weight_norm", "spectral_norm", "orthogonal"]


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


_MAPS = ("matrix_exp", "cayley", "householder")


def _is_orthogonal(q: Tensor) -> bool:
    """Whether the columns of ``q`` are orthonormal, to ``10 n`` ulps."""
    n, k = q.shape[-2:]
    eps = 10.0 * n * float(np.finfo(q.dtype.np).eps)
    return bool(F.allclose(q.mH @ q, eye(k, dtype=q.dtype), atol=eps))


def _make_orthogonal(a: Tensor) -> Tensor:
    """The ``Q`` of ``A = QR`` (``A`` tall) with ``R``'s diagonal made non-negative."""
    x, tau = geqrf(a)
    q = householder_product(x, tau)
    return q * x.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


class _Orthogonal(Module):
    """An orthogonal (unitary) matrix from an unconstrained one ``X``: the matrix
    exponential or the Cayley map ``(I + A/2)(I - A/2)^-1`` of the skew-symmetric
    ``A = L - L^H`` (``L``: ``X``'s lower triangle, completed to a square matrix for a
    tall ``X``, the first columns kept), or the product of the Householder reflectors
    stored below ``X``'s diagonal (signed by that diagonal). With the trivialization
    (``base``), the result multiplies a fixed orthogonal ``base`` set on assignment,
    so that assigning ``Q`` gives ``X = -I`` and the map's output ``base = Q``."""

    def __init__(self, weight: Tensor, orthogonal_map: str, *, use_trivialization: bool = True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == "householder":
            raise ValueError("The householder parametrization does not support complex "
                             "tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:
        n, k = X.shape[-2:]
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            X = X.tril()
            if n != k:  # (embedded in a square matrix)
                X = F.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH
            if self.orthogonal_map == "matrix_exp":
                Q = linalg.matrix_exp(A)
            else:
                Id = eye(n, dtype=A.dtype)
                Q = linalg.solve(F.add(Id, A, alpha=-0.5), F.add(Id, A, alpha=0.5))
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = householder_product(A, tau)
            # (the diagonal's signs, read as integers: no gradient flows through them)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if "base" in self._buffers:
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def right_inverse(self, Q: Tensor) -> Tensor:
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        with no_grad():
            Q_init = Q
            n, k = Q.shape[-2:]
            transposed = n < k
            if transposed:
                Q = Q.mT
                n, k = k, n
            if "base" not in self._buffers:
                if self.orthogonal_map in ("matrix_exp", "cayley"):
                    raise NotImplementedError(
                        "It is not possible to assign to the matrix exponential or the Cayley "
                        "parametrizations when use_trivialization=False.")
                A, tau = geqrf(Q)  # (a QR with R's diagonal positive: signs kept there)
                d = A.diagonal(dim1=-2, dim2=-1)
                d.sign_()
                d[tau == 0.0] *= -1
                return A.mT if transposed else A
            if n == k:
                Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
            else:  # completed into a square orthogonal matrix by random columns
                N = randn(*(tuple(Q.shape[:-2]) + (n, n - k)), dtype=Q.dtype)
                Q = _make_orthogonal(F.cat([Q, N], dim=-1))
            self.base = Q
            neg_id = zeros_like(Q_init)  # (householder(zeros) is the identity's columns)
            neg_id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_id


def orthogonal(module: Module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Module:
    """Reparametrize the matrix (or batch of matrices) ``module.<name>`` to stay
    orthogonal (unitary if complex): ``orthogonal_map`` is ``"matrix_exp"`` (the
    default for a square or complex matrix), ``"cayley"`` or ``"householder"`` (the
    default otherwise); see ``_Orthogonal``.

    >>> import fad.torch as torch
    >>> m = torch.nn.utils.parametrizations.orthogonal(torch.nn.Linear(4, 3))
    >>> w = m.weight
    >>> torch.allclose(w @ w.T, torch.eye(3), atol=1e-6)
    True
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.dim() < 2:
        raise ValueError("Expected a matrix or batch of matrices. Got a tensor of "
                         f"{weight.dim()} dimensions.")
    if orthogonal_map is None:
        square = weight.shape[-2] == weight.shape[-1]
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    if orthogonal_map not in _MAPS:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", '
                         f'"householder". Got: {orthogonal_map}')
    orth = _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization)
    return register_parametrization(module, name, orth, unsafe=True)
