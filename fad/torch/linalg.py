"""``torch.linalg``: PyTorch's linear-algebra functions on ``fad.numpy.linalg``.

Each function is a facade operation (recorded for ``.backward()``, traced inside
``torch.func``) whose derivative is fad's; results that PyTorch returns as named
tuples (``torch.return_types.linalg_qr`` ...) come back as such.

>>> import fad.torch as torch
>>> A = torch.tensor([[4.0, 1.0], [1.0, 3.0]], requires_grad=True)
>>> torch.linalg.det(A)
tensor(11., grad_fn=<LinalgDetBackward0>)
>>> torch.linalg.eigh(A).eigenvalues.shape
torch.Size([2])
"""

from __future__ import annotations

import warnings
from collections import namedtuple
from typing import Any, Callable, Sequence

import numpy as np

from .. import numpy as fnp
from ..numpy.linalg import _hermitian_derivative
from ..scipy.linalg import cho_solve, expm
from ._creation import _place
from ._dtype import type_word
from ._functions.writes import accept_out_in
from ._graph import host
from ._ops import _svd, full_qr, full_svd
from ._recorder import Op, apply
from .tensor import Tensor, wrap

__all__ = ["norm", "vector_norm", "matrix_norm", "inv", "solve", "det", "slogdet", "cholesky",
           "qr", "svd", "svdvals", "eig", "eigvals", "eigh", "eigvalsh", "pinv", "lstsq",
           "matrix_rank", "cross", "vecdot", "multi_dot", "matrix_power", "matrix_exp",
           "solve_triangular", "lu_factor", "lu_solve", "lu", "cholesky_ex", "inv_ex",
           "solve_ex", "cond", "diagonal", "vander", "matmul", "tensorinv", "tensorsolve",
           "householder_product", "LinAlgError"]



class LinAlgError(RuntimeError, fnp.linalg.LinAlgError):
    """``torch.linalg.LinAlgError``: a singular or not positive-definite input (a
    ``RuntimeError`` as in PyTorch, and NumPy's ``LinAlgError``)."""


def _result(name: str, fields: str) -> type:
    """A named tuple printed as PyTorch's ``torch.return_types.<name>``."""
    cls = namedtuple(name, fields)
    cls.__module__ = "torch.return_types"
    return cls


QR = _result("linalg_qr", "Q R")
SVD = _result("linalg_svd", "U S Vh")
SVD_OLD = _result("svd", "U S V")
EIGH = _result("linalg_eigh", "eigenvalues eigenvectors")
EIG = _result("linalg_eig", "eigenvalues eigenvectors")
SLOGDET = _result("linalg_slogdet", "sign logabsdet")
SLOGDET_OLD = _result("slogdet", "sign logabsdet")
QR_OLD = _result("qr", "Q R")
LSTSQ = _result("linalg_lstsq", "solution residuals rank singular_values")

_OPS: dict[str, Op] = {}


def _op(name: str, fun: Callable, grad_fn: str | None, multi: bool = False) -> None:
    _OPS[name] = Op(name, fun, grad_fn or "NotDifferentiable", None, True, multi)


def _float_input(fname: str, *ts: Any) -> None:
    for t in ts:
        if isinstance(t, Tensor) and not (t.is_floating_point() or t.is_complex()):
            raise RuntimeError(f"{fname}: Expected a floating point or complex tensor as "
                               f"input. Got {type_word(t.dtype)}")


_SQUARE = {"inv", "solve", "det", "slogdet", "cholesky", "eigh", "eigvalsh", "eig", "eigvals"}


def _check_square(name: str, a: Any) -> None:
    """PyTorch's messages for an ``A`` that is not a (batch of) square matrices."""
    if not isinstance(a, Tensor):
        return
    if a.dim() < 2:
        raise RuntimeError(f"linalg.{name}: The input tensor A must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"linalg.{name}: A must be batches of square matrices, but they "
                           f"are {a.shape[-2]} by {a.shape[-1]} matrices")


def _singular_message(name: str, a: Tensor) -> str | None:
    """PyTorch's (LAPACK's) account of why ``inv``/``solve``/``cholesky`` of ``a``
    failed: the first batch element at fault and its zero pivot or leading minor."""
    mats = host(a.detach()._value)
    mats = mats.reshape((-1,) + mats.shape[-2:])
    for b, m in enumerate(mats):
        if name == "cholesky":
            order = next((k for k in range(1, len(m) + 1)
                          if not _positive_definite(m[:k, :k])), None)
            what = (None if order is None else "The factorization could not be completed "
                    "because the input is not positive-definite (the leading minor of order "
                    f"{order} is not positive-definite).")
        else:
            pivot = _zero_pivot(m)
            what = None if pivot is None else (
                "The solver failed because the input matrix is singular." if name == "solve"
                else f"The diagonal element {pivot} is zero, the inversion could not be "
                "completed because the input matrix is singular.")
        if what is not None:
            where = f"(Batch element {b}): " if a.dim() > 2 else ""
            return f"{'torch.' if name == 'solve' else ''}linalg.{name}: {where}{what}"
    return None


def _positive_definite(m: Any) -> bool:
    try:
        np.linalg.cholesky(m)
    except np.linalg.LinAlgError:
        return False
    return True


def _zero_pivot(m: Any) -> int | None:
    """The 1-based index of the first exactly zero pivot of ``m``'s LU factorisation
    with partial pivoting (LAPACK's ``getrf``), or ``None``."""
    u = np.array(m, dtype=np.result_type(m, np.float64))
    n = len(u)
    for k in range(n):
        p = k + int(np.argmax(np.abs(u[k:, k])))
        if u[p, k] == 0:
            return k + 1
        u[[k, p]] = u[[p, k]]
        u[k + 1:, k:] -= np.outer(u[k + 1:, k] / u[k, k], u[k, k:])
    return None


def _call(name: str, *args: Any, **params: Any) -> Any:
    _float_input(f"linalg.{name}", *args)
    if name in _SQUARE:
        _check_square(name, args[0])
    try:
        return apply(_OPS[name], args, params)
    except RuntimeError as e:
        _, sep, detail = str(e).rpartition("LinAlgError: ")
        if sep:
            message = _singular_message(name, args[0]) if name in (
                "inv", "solve", "cholesky") else None
            raise LinAlgError(message or f"linalg.{name}: {detail}") from None
        raise


def _last2(a: Any, dim: tuple) -> Any:
    """``a`` with the axes ``dim`` moved last (a matrix norm's two axes)."""
    d = tuple(x % a.ndim for x in dim)
    return a if d == (a.ndim - 2, a.ndim - 1) else fnp.moveaxis(a, d, (-2, -1))


def _matrix_norm(a: Any, ord: Any = "fro", dim: tuple = (-2, -1), keepdim: bool = False
                 ) -> Any:
    out = fnp.linalg.matrix_norm(_last2(a, dim), ord=ord, keepdims=keepdim)
    if keepdim:
        out = fnp.moveaxis(out, (-2, -1), tuple(x % a.ndim for x in dim))
    return out


def _is_vector_rhs(a: Any, b: Any) -> bool:
    """PyTorch's rule: ``B`` is a (batch of) vector(s) when it is 1-D or has one
    dimension fewer than ``A`` with matching batch shape."""
    return b.ndim == 1 or (b.ndim == a.ndim - 1 and tuple(b.shape) == tuple(a.shape[:-1]))


def _solve(a: Any, b: Any, left: bool = True) -> Any:
    if not left:  # X A = B  <=>  A^T X^T = B^T
        return fnp.linalg.matrix_transpose(
            _solve(fnp.linalg.matrix_transpose(a), fnp.linalg.matrix_transpose(b)))
    if _is_vector_rhs(a, b):
        return fnp.linalg.solve(a, b[..., None])[..., 0]
    return fnp.linalg.solve(a, b)


def _lstsq(a: Any, b: Any, rcond: Any = None) -> list:
    """``[X, residuals]``: the least-squares solution and, per column of ``B``, the
    sum of the squared residuals."""
    vec = b.ndim == a.ndim - 1
    b = b[..., None] if vec else b
    x = fnp.linalg.pinv(a, rtol=rcond) @ b
    r = a @ x - b
    resid = fnp.sum(fnp.real(r * fnp.conj(r)), axis=-2)
    return [x[..., 0] if vec else x, resid]


_op("vector_norm", lambda a, ord=2, dim=None, keepdim=False: fnp.linalg.vector_norm(
    a, axis=dim, keepdims=keepdim, ord=ord), "LinalgVectorNormBackward0")
_op("matrix_norm", _matrix_norm, "LinalgMatrixNormBackward0")
_op("inv", fnp.linalg.inv, "LinalgInvExBackward0")
_op("solve", _solve, "LinalgSolveExBackward0")
_op("det", fnp.linalg.det, "LinalgDetBackward0")
_op("slogdet", lambda a: list(fnp.linalg.slogdet(a)), "LinalgSlogdetBackward0", True)
_op("cholesky", lambda a, upper=False: fnp.linalg.cholesky(_hermitian_derivative(a), upper=upper),
    "LinalgCholeskyExBackward0")
_op("qr", full_qr, "LinalgQrBackward0", True)
_op("svd", full_svd, "LinalgSvdBackward0", True)
_op("svdvals", fnp.linalg.svdvals, "LinalgSvdBackward0")
_op("eigh", lambda a, UPLO="L": list(fnp.linalg.eigh(_hermitian_derivative(a), UPLO)),
    "LinalgEighBackward0", True)
_op("eigvalsh", lambda a, UPLO="L": fnp.linalg.eigvalsh(_hermitian_derivative(a), UPLO),
    "LinalgEighBackward0")
_op("eig", lambda a: list(fnp.linalg.eig(a)), "LinalgEigBackward0", True)
_op("eigvals", fnp.linalg.eigvals, "LinalgEigBackward0")
_op("pinv", lambda a, rtol=None, atol=None, hermitian=False: fnp.linalg.pinv(
    a, hermitian=hermitian, rtol=rtol, atol=atol), "PinvBackward0")
_op("lstsq", _lstsq, "LinalgLstsqBackward0", True)
_op("matrix_rank", lambda a, rtol=None, hermitian=False: fnp.linalg.matrix_rank(
    a, hermitian=hermitian, rtol=rtol), None)
_op("cross", lambda a, b, dim=-1: fnp.linalg.cross(a, b, axis=dim), "LinalgCrossBackward0")
_op("vecdot", lambda a, b, dim=-1: fnp.linalg.vecdot(a, b, axis=dim), "LinalgVecdotBackward0")
_op("multi_dot", lambda *xs: fnp.linalg.multi_dot(xs), "MmBackward0")


_op("svd_old", _svd, "LinalgSvdBackward0", True)
_op("matrix_power", lambda a, n=1: fnp.linalg.matrix_power(a, n), "MmBackward0")
_op("matrix_exp", expm, "LinalgMatrixExpBackward0")
# X = A^-1 B for A = L L^H (or U^H U): the factor's two triangular solves
_op("cholesky_solve", lambda b, f, upper=False: cho_solve((f, not upper), b),
    "CholeskySolveBackward0")
# log det A: NaN for a negative determinant, as log of it
_op("logdet", lambda a: _logdet(*fnp.linalg.slogdet(a)), "LogdetBackward0")


def _logdet(sign: Any, logabsdet: Any) -> Any:
    if np.dtype(sign.dtype).kind == "c":  # log det = log|det| + log(sign), sign = e^(i angle)
        return logabsdet + fnp.log(sign)
    return fnp.where(sign < 0, fnp.nan, logabsdet)


def _dims(dim: Any) -> Any:
    return tuple(dim) if isinstance(dim, (list, tuple)) else dim


def vector_norm(x: Tensor, ord: float = 2, dim: Any = None, keepdim: bool = False, *,
                dtype: Any = None) -> Tensor:
    """The ``ord``-norm of ``x`` over ``dim`` (all elements when ``None``).

    >>> import fad.torch as torch
    >>> torch.linalg.vector_norm(torch.tensor([3.0, -4.0]), ord=1)
    tensor(7.)
    """
    if dtype is not None:
        x = x.to(dtype)
    return _call("vector_norm", x, ord=ord, dim=_dims(dim), keepdim=keepdim)


def matrix_norm(A: Tensor, ord: Any = "fro", dim: tuple = (-2, -1), keepdim: bool = False, *,
                dtype: Any = None) -> Tensor:
    """A matrix norm (``'fro'``, ``'nuc'``, ``1``, ``-1``, ``2``, ``-2``, ``inf``,
    ``-inf``) of the matrices in the axes ``dim``.

    >>> import fad.torch as torch
    >>> torch.linalg.matrix_norm(torch.eye(2))
    tensor(1.4142)
    """
    if dtype is not None:
        A = A.to(dtype)
    return _call("matrix_norm", A, ord=ord, dim=tuple(dim), keepdim=keepdim)


def norm(A: Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False, *,
         dtype: Any = None) -> Tensor:
    """A vector norm (``dim`` an int, or ``A`` 1-D) or a matrix norm (``dim`` a pair,
    or ``A`` 2-D with ``ord`` given); the 2-norm of all elements by default.

    >>> import fad.torch as torch
    >>> torch.linalg.norm(torch.tensor([[1.0, 2.0], [2.0, 4.0]]))
    tensor(5.)
    """
    if isinstance(dim, int):
        dim = (dim,)
    if (dim is not None and len(dim) == 2) or (dim is None and ord is not None and A.dim() == 2):
        return matrix_norm(A, "fro" if ord is None else ord, dim or (-2, -1), keepdim,
                           dtype=dtype)
    if ord is not None and dim is None and A.dim() != 1:
        raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input must "
                           f"be 1D or 2D. Got {A.dim()}D.")
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


def inv(A: Tensor) -> Tensor:
    """The inverse of the square matrix ``A`` (a batch of them).

    >>> import fad.torch as torch
    >>> torch.linalg.inv(torch.tensor([[2.0, 0.0], [0.0, 4.0]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.2500]])
    """
    return _call("inv", A)


def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    """``X`` with ``A X = B`` (``X A = B`` when ``left=False``); ``B`` a (batch of)
    vector(s) or matrices.

    >>> import fad.torch as torch
    >>> torch.linalg.solve(torch.tensor([[2.0, 0.0], [0.0, 4.0]]), torch.tensor([1.0, 1.0]))
    tensor([0.5000, 0.2500])
    """
    return _call("solve", A, B, left=left)


def _inverse(input: Tensor) -> Tensor:
    """``torch.inverse``: ``torch.linalg.inv``.

    >>> import fad.torch as torch
    >>> torch.inverse(torch.tensor([[2.0]]))
    tensor([[0.5000]])
    """
    return inv(input)


def det(A: Tensor) -> Tensor:
    """The determinant of ``A``.

    >>> import fad.torch as torch
    >>> torch.linalg.det(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor(-2.)
    """
    return _call("det", A)


def slogdet(A: Tensor) -> tuple:
    """``(sign, logabsdet)`` of the determinant of ``A``.

    >>> import fad.torch as torch
    >>> torch.linalg.slogdet(torch.tensor([[1.0, 2.0], [3.0, 4.0]])).sign
    tensor(-1.)
    """
    return SLOGDET(*_call("slogdet", A))


def _torch_slogdet(input: Tensor) -> tuple:
    """``torch.slogdet``: ``torch.linalg.slogdet``'s fields, under its older name.

    >>> import fad.torch as torch
    >>> torch.slogdet(torch.tensor([[2.0, 0.0], [0.0, -3.0]])).sign
    tensor(-1.)
    """
    return SLOGDET_OLD(*slogdet(input))


def logdet(input: Tensor) -> Tensor:
    """``log(det(input))``: NaN for a negative determinant, ``-inf`` for 0.

    >>> import fad.torch as torch
    >>> torch.logdet(torch.tensor([[2.0, 0.0], [0.0, 3.0]]))
    tensor(1.7918)
    """
    _check_square("det", input)
    return _call("logdet", input)


_DEPRECATED_CHOLESKY = (
    "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a "
    "future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = "
    "torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\nshould be replaced "
    "with\nU = torch.linalg.cholesky(A).mH\nThis transform will produce equivalent results "
    "for all valid (symmetric positive definite) inputs.")
_DEPRECATED_QR = (
    "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future "
    "PyTorch release.\nThe boolean parameter 'some' has been replaced with a string parameter "
    "'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced with\nQ, R = torch.linalg.qr(A, "
    "'reduced' if some else 'complete')")


def _torch_cholesky(input: Tensor, upper: bool = False) -> Tensor:
    """``torch.cholesky`` (deprecated, with PyTorch's warning): ``linalg.cholesky``.

    >>> import fad.torch as torch, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     torch.cholesky(torch.tensor([[4.0, 2.0], [2.0, 2.0]]))
    tensor([[2., 0.],
            [1., 1.]])
    """
    warnings.warn(_DEPRECATED_CHOLESKY, UserWarning, stacklevel=2)
    return cholesky(input, upper=upper)


def _torch_qr(input: Tensor, some: bool = True) -> tuple:
    """``torch.qr`` (deprecated, with PyTorch's warning): ``linalg.qr``, reduced or
    (``some=False``) complete.

    >>> import fad.torch as torch, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     torch.qr(torch.ones(3, 2), some=False).Q.shape
    torch.Size([3, 3])
    """
    warnings.warn(_DEPRECATED_QR, UserWarning, stacklevel=2)
    return QR_OLD(*qr(input, "reduced" if some else "complete"))


def cholesky_solve(B: Tensor, L: Tensor, upper: bool = False) -> Tensor:
    """``A^-1 B`` for ``A = L L^H`` given its Cholesky factor ``L`` (``upper``: ``U``
    with ``A = U^H U``).

    >>> import fad.torch as torch
    >>> L = torch.tensor([[2.0, 0.0], [1.0, 1.0]])
    >>> torch.cholesky_solve(torch.tensor([[6.0], [4.0]]), L)
    tensor([[1.],
            [1.]])
    """
    _float_input("cholesky_solve", B, L)
    return apply(_OPS["cholesky_solve"], (B, L), {"upper": bool(upper)})


def cholesky_inverse(L: Tensor, upper: bool = False) -> Tensor:
    """``A^-1`` for ``A = L L^H`` given its Cholesky factor (``upper``: ``U``).

    >>> import fad.torch as torch
    >>> torch.cholesky_inverse(torch.tensor([[2.0, 0.0], [0.0, 1.0]]))
    tensor([[0.2500, 0.0000],
            [0.0000, 1.0000]])
    """
    eye = wrap(_place(np.eye(L.shape[-1], dtype=L.dtype.np)))
    return cholesky_solve(eye.expand(L.shape), L, upper)


def matrix_power(A: Tensor, n: int) -> Tensor:
    """``A`` times itself ``n`` times (the identity for 0; the inverse's powers for
    ``n < 0``).

    >>> import fad.torch as torch
    >>> torch.linalg.matrix_power(torch.tensor([[1.0, 1.0], [0.0, 1.0]]), 3)
    tensor([[1., 3.],
            [0., 1.]])
    """
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError("linalg.matrix_power: A must be batches of square matrices, but they "
                           f"are {A.shape[-2] if A.dim() > 1 else 1} by {A.shape[-1]} matrices")
    if n < 0:
        A, n = inv(A), -n
    return apply(_OPS["matrix_power"], (A,), {"n": int(n)})  # (integers too)


def matrix_exp(A: Tensor) -> Tensor:
    """The matrix exponential ``sum_k A^k / k!`` of (a batch of) square matrices.

    >>> import fad.torch as torch
    >>> torch.linalg.matrix_exp(torch.tensor([[0.0, 1.0], [0.0, 0.0]]))
    tensor([[1., 1.],
            [0., 1.]])
    """
    _check_square("matrix_exp", A)
    return _call("matrix_exp", A)


def _pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """``torch.pinverse``: ``torch.linalg.pinv`` with ``rcond``.

    >>> import fad.torch as torch
    >>> torch.pinverse(torch.tensor([[2.0, 0.0], [0.0, 0.0]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.0000]])
    """
    return pinv(input, rcond=rcond)


def cholesky(A: Tensor, *, upper: bool = False) -> Tensor:
    """The Cholesky factor ``L`` (``A = L L^H``) of a positive-definite ``A``
    (``U = L^H`` when ``upper=True``).

    >>> import fad.torch as torch
    >>> torch.linalg.cholesky(torch.tensor([[4.0, 2.0], [2.0, 2.0]]))
    tensor([[2., 0.],
            [1., 1.]])
    """
    return _call("cholesky", A, upper=upper)


def qr(A: Tensor, mode: str = "reduced") -> tuple:
    """``(Q, R)`` with ``A = Q R`` (``mode``: ``'reduced'``, ``'complete'``, or ``'r'``
    for an empty ``Q``). The extra columns of a tall matrix's complete ``Q`` are
    one orthonormal completion among many.

    >>> import fad.torch as torch
    >>> Q, R = torch.linalg.qr(torch.eye(2))
    >>> Q.shape, R.shape
    (torch.Size([2, 2]), torch.Size([2, 2]))
    """
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    q, r = _call("qr", A, mode=mode)
    return QR(q.new_empty(0) if mode == "r" else q, r)


def svd(A: Tensor, full_matrices: bool = True, *, driver: Any = None) -> tuple:
    """``(U, S, Vh)`` with ``A = U diag(S) Vh``.

    >>> import fad.torch as torch
    >>> torch.linalg.svd(torch.tensor([[3.0, 0.0], [0.0, 2.0]])).S
    tensor([3., 2.])
    """
    return SVD(*_call("svd", A, full_matrices=full_matrices))


def svdvals(A: Tensor, *, driver: Any = None) -> Tensor:
    """The singular values of ``A``, in descending order.

    >>> import fad.torch as torch
    >>> torch.linalg.svdvals(torch.tensor([[0.0, 2.0], [3.0, 0.0]]))
    tensor([3., 2.])
    """
    return _call("svdvals", A)


def eigh(A: Tensor, UPLO: str = "L") -> tuple:
    """``(eigenvalues, eigenvectors)`` of the symmetric (Hermitian) ``A``, eigenvalues
    ascending.

    >>> import fad.torch as torch
    >>> torch.linalg.eigh(torch.tensor([[2.0, 0.0], [0.0, 1.0]])).eigenvalues
    tensor([1., 2.])
    """
    return EIGH(*_call("eigh", A, UPLO=UPLO))


def eig(A: Tensor) -> tuple:
    """``(eigenvalues, eigenvectors)`` of a square ``A``, always complex (unit-norm
    eigenvectors, LAPACK's order); differentiable, through fad's rule.

    >>> import fad.torch as torch
    >>> torch.linalg.eig(torch.tensor([[2.0, 0.0], [0.0, 1.0]])).eigenvalues
    tensor([2.+0.j, 1.+0.j])
    """
    return EIG(*_call("eig", A))


def eigvals(A: Tensor) -> Tensor:
    """The eigenvalues of a square ``A``, always complex.

    >>> import fad.torch as torch
    >>> torch.linalg.eigvals(torch.tensor([[0.0, -1.0], [1.0, 0.0]]))
    tensor([0.+1.j, 0.-1.j])
    """
    return _call("eigvals", A)


def eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:
    """The eigenvalues of the symmetric (Hermitian) ``A``, ascending.

    >>> import fad.torch as torch
    >>> torch.linalg.eigvalsh(torch.tensor([[2.0, 0.0], [0.0, 1.0]]))
    tensor([1., 2.])
    """
    return _call("eigvalsh", A, UPLO=UPLO)


def _rtol(fname: str, atol: Any, rtol: Any) -> Any:
    if atol is not None and atol != 0:
        raise NotImplementedError(f"torch.linalg.{fname}: atol is not supported; give rtol "
                                  "(relative to the largest singular value)")
    return rtol


def pinv(A: Tensor, rcond: Any = None, hermitian: bool = False, *, atol: Any = None,
         rtol: Any = None) -> Tensor:
    """The Moore-Penrose pseudo-inverse of ``A``: singular values below
    ``max(atol, rtol * largest)`` are dropped (``rcond``: ``rtol``'s older name;
    ``rtol`` is 0 when only ``atol > 0`` is given, else ``max(m, n) * eps``).

    >>> import fad.torch as torch
    >>> torch.linalg.pinv(torch.tensor([[2.0, 0.0], [0.0, 0.0]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.0000]])
    """
    if rcond is not None:
        rtol = rcond
    if isinstance(atol, Tensor) or isinstance(rtol, Tensor):
        atol, rtol = (t.item() if isinstance(t, Tensor) else t for t in (atol, rtol))
    if rtol is None and atol is not None and atol > 0:
        rtol = 0.0
    return _call("pinv", A, rtol=rtol, atol=atol, hermitian=hermitian)


def lstsq(A: Tensor, B: Tensor, rcond: Any = None, *, driver: Any = None) -> tuple:
    """``(solution, residuals, rank, singular_values)`` of the least-squares problem
    ``min ||A X - B||``, the fields filled as PyTorch's CPU ``driver`` fills them:
    ``'gelsy'`` (default) the rank, ``'gels'`` the residuals, ``'gelsd'`` and
    ``'gelss'`` all (residuals when ``A`` is tall and of full rank, else empty).

    >>> import fad.torch as torch
    >>> A = torch.tensor([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    >>> torch.linalg.lstsq(A, torch.tensor([[1.0], [2.0], [3.0]])).solution
    tensor([[1.],
            [2.]])
    """
    if driver not in (None, "gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of "
                           "(gels, gelsy, gelsd, gelss)")
    driver = driver or "gelsy"
    x, resid = _call("lstsq", A, B, rcond=rcond)
    empty = x.new_zeros((0,)).detach()
    m, n = A.shape[-2:]
    rank = empty.long()
    if driver != "gels":
        tol = rcond if rcond is not None and rcond > 0 else None
        rank = _call("matrix_rank", A.detach(), rtol=tol)
    full = m > n and (driver == "gels" or bool((rank == n).all()))
    sv = svdvals(A.detach()) if driver in ("gelsd", "gelss") else empty
    return LSTSQ(x, resid if driver != "gelsy" and full else empty, rank, sv)


def matrix_rank(A: Tensor, *, atol: Any = None, rtol: Any = None,
                hermitian: bool = False) -> Tensor:
    """The numerical rank of ``A``.

    >>> import fad.torch as torch
    >>> torch.linalg.matrix_rank(torch.tensor([[1.0, 2.0], [2.0, 4.0]]))
    tensor(1)
    """
    return _call("matrix_rank", A, rtol=_rtol("matrix_rank", atol, rtol), hermitian=hermitian)


def cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    """The cross product of 3-vectors along ``dim``.

    >>> import fad.torch as torch
    >>> torch.linalg.cross(torch.tensor([1.0, 0.0, 0.0]), torch.tensor([0.0, 1.0, 0.0]))
    tensor([0., 0., 1.])
    """
    return _call("cross", input, other, dim=dim)


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
    """The dot product of vectors along ``dim`` (``x`` conjugated).

    >>> import fad.torch as torch
    >>> torch.linalg.vecdot(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))
    tensor(11.)
    """
    return _call("vecdot", x, y, dim=dim)


def multi_dot(tensors: Sequence[Tensor]) -> Tensor:
    """The product of a chain of matrices, in the cheapest order.

    >>> import fad.torch as torch
    >>> torch.linalg.multi_dot([torch.eye(2), torch.ones(2, 3), torch.ones(3)])
    tensor([3., 3.])
    """
    if not tensors:
        raise RuntimeError("multi_dot(): expected at least 2 tensors but got 0")
    return _call("multi_dot", *tensors)


def _torch_svd(input: Tensor, some: bool = True, compute_uv: bool = True) -> tuple:
    """``torch.svd``: ``(U, S, V)`` (``V``, not ``Vh``), reduced when ``some``.

    >>> import fad.torch as torch
    >>> torch.svd(torch.tensor([[3.0, 0.0], [0.0, 2.0]])).V
    tensor([[1., 0.],
            [0., 1.]])
    """
    U, S, V = _call("svd_old", input, some=some)
    if not compute_uv:
        U, V = U.detach().zero_(), V.detach().zero_()
    return SVD_OLD(U, S, V)


# the triangular and LU solvers, the ``_ex`` forms and the small helpers
from ._householder import householder_product  # noqa: E402,F401
from ._linalg_solvers import (  # noqa: E402,F401
    cholesky_ex,
    cond,
    diagonal,
    inv_ex,
    lu,
    lu_factor,
    lu_solve,
    matmul,
    solve_ex,
    solve_triangular,
    tensorinv,
    tensorsolve,
    vander,
)

accept_out_in(globals())  # (PyTorch's out= on every function)
