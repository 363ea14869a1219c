"""QR in LAPACK's compact Householder form: ``torch.geqrf`` (the factorisation:
``R`` on and above the diagonal, the reflectors' vectors below it, their scales
``tau``) and ``torch.linalg.householder_product`` (alias ``torch.orgqr``: the
product of those reflectors, the ``Q`` factor; imported into ``fad.torch.linalg``).

Reflector ``i`` is ``H_i = I - tau_i v_i v_i^H`` with ``v_i`` column ``i`` of the
input below the diagonal, 1 on it and 0 above; the product's first ``n`` columns
are built by applying ``H_k``, then ``H_{k-1}``... to those of the identity, so
that fad differentiates it like any other composition of ``fad.numpy`` calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import numpy as fnp
from ._creation import _place
from ._graph import host
from ._recorder import apply
from .linalg import _OPS, _float_input, _op, _result
from .tensor import Tensor, wrap

GEQRF = _result("geqrf", "a tau")


def _householder_product(a: Any, tau: Any) -> Any:
    m, n = a.shape[-2:]
    v = fnp.tril(a, -1) + fnp.eye(m, n, dtype=a.dtype)
    q = fnp.broadcast_to(fnp.eye(m, n, dtype=a.dtype), a.shape)
    for i in reversed(range(tau.shape[-1])):
        vi = v[..., :, i:i + 1]
        q = q - tau[..., i, None, None] * (vi @ (fnp.conj(fnp.swapaxes(vi, -1, -2)) @ q))
    return q


_op("householder_product", _householder_product, "LinalgHouseholderProductBackward0")


def householder_product(input: Tensor, tau: Tensor) -> Tensor:
    """The first ``n`` columns of ``H_1 ... H_k`` for the reflectors stored in
    ``input`` (``(*, m, n)``, ``m >= n``) and ``tau`` (``(*, k)``, ``k <= n``).

    >>> import fad.torch as torch
    >>> a, tau = torch.geqrf(torch.tensor([[3.0, 1.0], [4.0, 2.0]]))
    >>> torch.linalg.householder_product(a, tau).abs()
    tensor([[0.6000, 0.8000],
            [0.8000, 0.6000]])
    """
    name = "torch.linalg.householder_product"
    if input.dim() < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if tau.dim() < 1:
        raise RuntimeError(f"{name}: tau must have at least 1 dimension.")
    m, n = input.shape[-2:]
    if m < n:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if n < tau.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    if input.dim() - tau.dim() != 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but "
                           f"got tau.ndim equal to {tau.dim()} and input.ndim is equal to "
                           f"{input.dim()}")
    _float_input(name, input)
    return apply(_OPS["householder_product"], (input, tau))


def orgqr(input: Tensor, tau: Tensor) -> Tensor:
    """``torch.orgqr``: ``torch.linalg.householder_product``."""
    return householder_product(input, tau)


def geqrf(input: Tensor, *, out: Any = None) -> tuple:
    """``(a, tau)``: the QR factorisation of ``input`` (``(*, m, n)``) as LAPACK's
    ``geqrf`` leaves it (not differentiable, as in PyTorch).

    >>> import fad.torch as torch
    >>> a, tau = torch.geqrf(torch.tensor([[3.0, 1.0], [4.0, 2.0]]))
    >>> a.triu().abs()
    tensor([[5.0000, 2.2000],
            [0.0000, 0.4000]])
    """
    if input.dim() < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    _float_input("torch.geqrf", input)
    x = host(input.detach()._value)
    batch, (m, n) = x.shape[:-2], x.shape[-2:]
    flat = x.reshape(-1, m, n)
    a = np.empty_like(flat)
    tau = np.empty((flat.shape[0], min(m, n)), dtype=x.dtype)
    for b, mat in enumerate(flat):
        h, t = np.linalg.qr(mat, mode="raw")  # (LAPACK's output, in Fortran order)
        a[b], tau[b] = h.T, t
    device = input.device
    result = GEQRF(wrap(_place(a.reshape(x.shape), device)),
                   wrap(_place(tau.reshape(*batch, min(m, n)), device)))
    if out is not None:
        for o, r in zip(out, result):
            o.resize_(r.shape).copy_(r)
        return GEQRF(*out)
    return result
