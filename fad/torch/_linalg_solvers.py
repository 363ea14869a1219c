"""The rest of ``torch.linalg``: triangular and LU solvers, the ``_ex`` forms that
report a failure in ``info``, ``cond``, ``diagonal``, ``vander``, ``matmul``,
``tensorinv`` and ``tensorsolve`` (on ``fad.scipy.linalg`` and ``fad.numpy.linalg``;
imported into ``fad.torch.linalg``)."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from .. import numpy as fnp
from ..scipy import linalg as sla
from . import _functions as F
from ._creation import _place, full_like, ones_like
from ._graph import host
from ._recorder import apply
from .linalg import (
    _OPS,
    LinAlgError,
    _float_input,
    _op,
    _result,
    cholesky,
    inv,
    solve,
)
from .tensor import Tensor, wrap

LU_FACTOR = _result("linalg_lu_factor", "LU pivots")
LU = _result("linalg_lu", "P L U")
CHOLESKY_EX = _result("linalg_cholesky_ex", "L info")
INV_EX = _result("linalg_inv_ex", "inverse info")
SOLVE_EX = _result("linalg_solve_ex", "result info")

_op("solve_triangular", lambda a, b, upper=False, unit=False: sla.solve_triangular(
    a, b, lower=not upper, unit_diagonal=unit), "LinalgSolveTriangularBackward0")
_op("lu_factor", lambda a: list(sla.lu_factor(a)), "LinalgLuFactorExBackward0", True)
_op("lu_solve", lambda lu, b, piv=None, trans=0: sla.lu_solve((lu, piv), b, trans=trans),
    "LinalgLuSolveBackward0")
_op("lu", lambda a: list(sla.lu(a)), "LinalgLuBackward0", True)
_op("cond", lambda a, p=None: fnp.linalg.cond(a, p), "LinalgCondBackward0")
_op("tensorinv", lambda a, ind=2: fnp.linalg.tensorinv(a, ind), "LinalgTensorinvBackward0")
_op("tensorsolve", lambda a, b, dims=None: fnp.linalg.tensorsolve(a, b, dims),
    "LinalgTensorsolveBackward0")


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True,
                     unitriangular: bool = False) -> Tensor:
    """``X`` with ``A X = B`` (``left=False``: ``X A = B``) for a triangular ``A``
    (``unitriangular``: its diagonal taken as ones).

    >>> import fad.torch as torch
    >>> A = torch.tensor([[2.0, 0.0], [1.0, 3.0]])
    >>> torch.linalg.solve_triangular(A, torch.tensor([[1.0], [2.0]]), upper=False)
    tensor([[0.5000],
            [0.5000]])
    """
    _float_input("linalg.solve_triangular", A, B)
    if not left:  # X A = B is A^T X^T = B^T, with the other triangle
        return solve_triangular(A.mT, B.mT, upper=not upper, unitriangular=unitriangular).mT
    batch = tuple(F.broadcast_shapes(tuple(A.shape[:-2]), tuple(B.shape[:-2])))
    A, B = A.expand(*batch, *A.shape[-2:]), B.expand(*batch, *B.shape[-2:])
    return apply(_OPS["solve_triangular"], (A, B), {"upper": bool(upper),
                                                     "unit": bool(unitriangular)})


def lu_factor(A: Tensor, *, pivot: bool = True) -> tuple:
    """``(LU, pivots)``: ``L`` (unit diagonal, below) and ``U`` in one matrix, and
    LAPACK's 1-based row interchanges (int32).

    >>> import fad.torch as torch
    >>> torch.linalg.lu_factor(torch.tensor([[1.0, 2.0], [3.0, 4.0]])).pivots
    tensor([2, 2], dtype=torch.int32)
    """
    if not pivot:
        raise NotImplementedError("linalg.lu_factor: fad.torch pivots (LAPACK's getrf)")
    _float_input("linalg.lu_factor", A)
    lu, piv = apply(_OPS["lu_factor"], (A,))
    return LU_FACTOR(lu, wrap(_place(np.asarray(host(piv._value)) + 1).astype(np.int32)))


def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True,
             adjoint: bool = False) -> Tensor:
    """``X`` with ``A X = B`` (``adjoint``: ``A^H X = B``; ``left=False``: ``X A = B``)
    from ``lu_factor(A)``.

    >>> import fad.torch as torch
    >>> A = torch.tensor([[2.0, 0.0], [1.0, 3.0]])
    >>> torch.linalg.lu_solve(*torch.linalg.lu_factor(A), torch.tensor([[1.0], [2.0]]))
    tensor([[0.5000],
            [0.5000]])
    """
    piv = np.asarray(host(pivots._value)).astype(np.int32) - 1
    if not left:  # X A = B is A^H X^H = B^H
        return lu_solve(LU, pivots, B.mH, adjoint=not adjoint).mH
    return apply(_OPS["lu_solve"], (LU, B), {"piv": piv, "trans": 2 if adjoint else 0})


def lu(A: Tensor, *, pivot: bool = True) -> tuple:
    """``(P, L, U)`` with ``A = P L U``.

    >>> import fad.torch as torch
    >>> torch.linalg.lu(torch.tensor([[2.0, 0.0], [1.0, 3.0]])).U
    tensor([[2., 0.],
            [0., 3.]])
    """
    _float_input("linalg.lu", A)
    p, lower, upper = apply(_OPS["lu"], (A,))
    return LU(p.detach(), lower, upper)


def _info(code: int) -> Tensor:
    return wrap(_place(np.asarray(code, dtype=np.int32)))


def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False) -> tuple:
    """``(L, info)``: ``cholesky`` with ``info`` 0, or (``A`` not positive definite,
    unless ``check_errors``) ``info`` the order of the first leading minor that is
    not, and ``L`` NaN (PyTorch's holds the factor so far).

    >>> import fad.torch as torch
    >>> torch.linalg.cholesky_ex(torch.tensor([[4.0, 2.0], [2.0, 2.0]])).info
    tensor(0, dtype=torch.int32)
    """
    try:
        return CHOLESKY_EX(cholesky(A, upper=upper), _info(0))
    except LinAlgError as e:
        if check_errors:
            raise
        order = re.search(r"order (\d+)", str(e))  # (the failing leading minor, as LAPACK's)
        return CHOLESKY_EX(full_like(A, np.nan), _info(int(order.group(1)) if order else 1))


def inv_ex(A: Tensor, *, check_errors: bool = False) -> tuple:
    """``(inverse, info)``: ``inv`` with ``info`` 0, or (singular, unless
    ``check_errors``) NaN and ``info`` 1.

    >>> import fad.torch as torch
    >>> torch.linalg.inv_ex(torch.tensor([[2.0]])).inverse
    tensor([[0.5000]])
    """
    try:
        return INV_EX(inv(A), _info(0))
    except LinAlgError:
        if check_errors:
            raise
        return INV_EX(full_like(A, np.nan), _info(1))


def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False) -> tuple:
    """``(result, info)``: ``solve`` with ``info`` 0, or (singular, unless
    ``check_errors``) NaN and ``info`` 1.

    >>> import fad.torch as torch
    >>> torch.linalg.solve_ex(torch.tensor([[2.0]]), torch.tensor([4.0])).result
    tensor([2.])
    """
    try:
        return SOLVE_EX(solve(A, B, left=left), _info(0))
    except LinAlgError:
        if check_errors:
            raise
        return SOLVE_EX(full_like(solve(F.eye(A.shape[-1], dtype=A.dtype), B, left=left),
                                    np.nan), _info(1))


def cond(A: Tensor, p: Any = None) -> Tensor:
    """The condition number of ``A`` in the ``p``-norm (2 by default: the ratio of
    the extreme singular values).

    >>> import fad.torch as torch
    >>> torch.linalg.cond(torch.tensor([[2.0, 0.0], [0.0, 0.5]]))
    tensor(4.)
    """
    _float_input("linalg.cond", A)
    return apply(_OPS["cond"], (A,), {"p": p})


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """The diagonals of the matrices in the last two dimensions (a view).

    >>> import fad.torch as torch
    >>> torch.linalg.diagonal(torch.eye(2))
    tensor([1., 1.])
    """
    return F.diagonal(A, offset, dim1, dim2)


def vander(x: Tensor, *, N: int | None = None) -> Tensor:
    """The Vandermonde matrices ``x ** 0, x ** 1, ...`` (``N`` columns, increasing;
    powers by running products, so the gradient at 0 is finite).

    >>> import fad.torch as torch
    >>> torch.linalg.vander(torch.tensor([1.0, 2.0, 3.0]))
    tensor([[1., 1., 1.],
            [1., 2., 4.],
            [1., 3., 9.]])
    """
    n = x.shape[-1] if N is None else int(N)
    if n <= 1:
        return ones_like(x).unsqueeze(-1)[..., :n]
    powers = x.unsqueeze(-1).expand(*x.shape, n - 1).cumprod(-1)
    return F.cat([ones_like(x).unsqueeze(-1), powers], -1)


def matmul(input: Tensor, other: Tensor) -> Tensor:
    """``torch.matmul``.

    >>> import fad.torch as torch
    >>> torch.linalg.matmul(torch.eye(2), torch.ones(2))
    tensor([1., 1.])
    """
    return F.matmul(input, other)


def tensorinv(A: Tensor, ind: int = 2) -> Tensor:
    """The inverse of ``A`` read as a matrix of its first ``ind`` dimensions by the rest.

    >>> import fad.torch as torch
    >>> torch.linalg.tensorinv(torch.eye(4).reshape(4, 2, 2), ind=1).shape
    torch.Size([2, 2, 4])
    """
    return apply(_OPS["tensorinv"], (A,), {"ind": int(ind)})


def tensorsolve(A: Tensor, B: Tensor, dims: Any = None) -> Tensor:
    """``X`` with ``tensordot(A, X, X.ndim) = B``.

    >>> import fad.torch as torch
    >>> torch.linalg.tensorsolve(torch.eye(6).reshape(2, 3, 6), torch.ones(2, 3)).shape
    torch.Size([6])
    """
    return apply(_OPS["tensorsolve"], (A, B), {"dims": None if dims is None else tuple(dims)})
