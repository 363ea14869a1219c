"""Linear-algebra primitives on stacks of matrices (leading axes are batch axes).

Each implementation is the backend's ``xp.linalg`` function; each jvp is the
standard identity, written in fad operations so that it is differentiable again
(higher derivatives), and reverse mode transposes it. Conventions:

* ``cholesky``, ``eigh``: the input is symmetric; a tangent ``dA`` is used
  through its symmetric part ``(dA + dA^T) / 2`` (only symmetric perturbations
  keep the input in the domain), as JAX does.
* ``eigh``, ``svd``: at a repeated eigen/singular value the eigenvector
  derivative is not defined; the terms ``1 / (w_j - w_i)`` with ``w_i == w_j``
  are taken as 0, so that functions of the values only (``eigvalsh``,
  ``norm(ord=2)``, ``svdvals``) still get exact, finite derivatives there.
* ``det``: the derivative is the adjugate, ``d det = tr(adj(A) dA)``, which is
  exact for singular matrices too (``adj`` is computed from an SVD).
* ``qr``: reduced mode, ``m >= n`` and full rank (``fad.numpy.linalg.qr`` handles
  wide matrices by splitting them).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.errors import ShapeError
from ..core.ir import ShapedArray
from ..core.primitive import Primitive
from ..core.trace import aval_of, bind, shape_of
from .batching import to_front
from .contractions import _mT, matmul
from .elementwise import eq, select
from .indexing import ARRAY, gather
from .reductions import reduce_sum_p
from .rules import defjvp
from .sorting import constant
from .structural import reshape, zeros_like_p


# ------------------------------------------------------------------ helpers
def mT(x: Any) -> Any:
    """The last two axes swapped."""
    return _mT(x)


def sym(g: Any) -> Any:
    """The symmetric part ``(g + g^T) / 2``."""
    return (g + mT(g)) * 0.5


def diag_part(x: Any) -> Any:
    """The diagonals of a stack of square matrices, ``(..., n, n) -> (..., n)``.

    >>> import numpy as np
    >>> diag_part(np.arange(4.0).reshape(2, 2)).tolist()
    [0.0, 3.0]
    """
    idx = constant(np.arange(shape_of(x)[-1]), x)
    return gather(x, (Ellipsis, ARRAY, ARRAY), (idx, idx))


def tril(x: Any, k: int = 0) -> Any:
    """The lower triangle (diagonal ``k`` and below) of the last two axes."""
    m, n = shape_of(x)[-2:]
    return select(constant(np.tri(m, n, k, dtype=bool), x), x, 0.0)


def recip_or_zero(d: Any) -> Any:
    """``1 / d``, and 0 where ``d == 0`` (double where: no inf in any derivative)."""
    zero = eq(d, 0)
    return select(zero, 0.0, 1.0 / select(zero, 1.0, d))


def row(v: Any) -> Any:
    """``(..., k) -> (..., 1, k)``."""
    s = shape_of(v)
    return reshape(v, s[:-1] + (1, s[-1]))


def col(v: Any) -> Any:
    s = shape_of(v)
    return reshape(v, s + (1,))


def inv(a: Any) -> Any:
    """Bind ``inv``."""
    return bind(inv_p, a)


def _square(a: ShapedArray, name: str) -> None:
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ShapeError(f"{name}: expected a (stack of) square matrices, got shape {a.shape}")
    if a.dtype.kind not in "fc":
        raise ShapeError(f"{name}: expected a floating-point matrix, got {a.dtype}")


def _batch(prim: Primitive):
    """Every operand's batch axis to the front (unbatched ones broadcast): the
    implementations already treat leading axes as a batch."""
    def rule(size: int, vals: list, dims: list, **params: Any) -> tuple:
        out = bind(prim, *[to_front(v, d, size) for v, d in zip(vals, dims)], **params)
        return (out, [0] * len(out)) if prim.multiple_results else (out, 0)
    return rule


def _prim(name: str, impl: Any, aval: Any, multiple_results: bool = False) -> Primitive:
    p = Primitive(name, impl, aval, multiple_results)
    p.batch = _batch(p)
    return p


def _same_square(name: str):
    def aval(a: ShapedArray) -> ShapedArray:
        _square(a, name)
        return a
    return aval


# ------------------------------------------------------------------ inv, solve
inv_p = _prim("inv", lambda xp, a: xp.linalg.inv(a), _same_square("inv"))
# d inv(A) = -inv(A) dA inv(A)
defjvp(inv_p, lambda g, ans, a: -matmul(matmul(ans, g), ans), elementwise=False)


def _solve_aval(a: ShapedArray, b: ShapedArray) -> ShapedArray:
    _square(a, "solve")
    if b.ndim != a.ndim or b.shape[:-2] != a.shape[:-2] or b.shape[-2] != a.shape[-1]:
        raise ShapeError(f"solve: shapes {a.shape} and {b.shape} do not match "
                         "(expected (..., n, n) and (..., n, k))")
    if b.dtype != a.dtype:
        raise ShapeError(f"solve of different dtypes {a.dtype} and {b.dtype}")
    return b


def _solve_jvp(primals: list, tangents: list) -> tuple:
    # X = A^-1 B:  dX = A^-1 (dB - dA X). The tangent multiplies by inv(A) rather
    # than solving again: a product is linear in the tangent with A a mere constant,
    # so reverse mode transposes it (see the module notes in the report).
    (a, b), (ga, gb) = primals, tangents
    x = bind(solve_p, a, b)
    rhs = gb if ga is None else -matmul(ga, x) if gb is None else gb - matmul(ga, x)
    return x, matmul(inv(a), rhs)


solve_p = _prim("solve", lambda xp, a, b: xp.linalg.solve(a, b), _solve_aval)
solve_p.jvp = _solve_jvp


# ------------------------------------------------------------------ cholesky
_PHI = {}


def _phi_mask(n: int, dtype: Any) -> np.ndarray:
    """Lower triangle with a halved diagonal: Phi(X) = X * mask."""
    key = (n, np.dtype(dtype))
    if key not in _PHI:
        _PHI[key] = (np.tri(n, k=-1) + 0.5 * np.eye(n)).astype(dtype)
    return _PHI[key]


def _cholesky_partial(g: Any, ans: Any, a: Any) -> Any:
    # Murray (2016), "Differentiation of the Cholesky decomposition", eq. (10):
    # dL = L Phi(L^-1 dA L^-T), Phi = lower triangle with the diagonal halved
    L, Linv = ans, inv(ans)
    y = matmul(matmul(Linv, sym(g)), mT(Linv))
    return matmul(L, y * constant(_phi_mask(shape_of(L)[-1], aval_of(L).dtype), L))


cholesky_p = _prim("cholesky", lambda xp, a: xp.linalg.cholesky(a), _same_square("cholesky"))
defjvp(cholesky_p, _cholesky_partial, elementwise=False)


# ------------------------------------------------------------------ eigh
def _eigh_impl(xp: Any, a: Any) -> list:
    w, v = xp.linalg.eigh(a)
    return [w, v]


def _eigh_aval(a: ShapedArray) -> list:
    _square(a, "eigh")
    return [ShapedArray(a.shape[:-1], a.dtype), a]


def _eigh_jvp(primals: list, tangents: list) -> tuple:
    # Magnus (1985): dw_i = v_i^T dA v_i;  dV = V (F o (V^T dA V)),
    # F_ij = 1 / (w_j - w_i) off the diagonal (0 on it, and at repeated values)
    (a,), (g,) = primals, tangents
    w, v = bind(eigh_p, a)
    vt_dA_v = matmul(matmul(mT(v), sym(g)), v)
    F = recip_or_zero(row(w) - col(w))
    return [w, v], [diag_part(vt_dA_v), matmul(v, F * vt_dA_v)]


eigh_p = _prim("eigh", _eigh_impl, _eigh_aval, multiple_results=True)
eigh_p.jvp = _eigh_jvp


# ------------------------------------------------------------------ qr
def _qr_impl(xp: Any, a: Any) -> list:
    q, r = xp.linalg.qr(a)
    return [q, r]


def _qr_aval(a: ShapedArray) -> list:
    if a.ndim < 2 or a.shape[-2] < a.shape[-1]:
        raise ShapeError(f"qr primitive: expected (..., m, n) with m >= n, got {a.shape}")
    m, n = a.shape[-2:]
    return [a, ShapedArray(a.shape[:-2] + (n, n), a.dtype)]


def _qr_jvp(primals: list, tangents: list) -> tuple:
    # A = QR, m >= n (JAX's qr_jvp_rule): with C = Q^T dA R^-1 and
    # W = tril(C, -1) - tril(C, -1)^T (antisymmetric):
    # dQ = Q (W - C) + dA R^-1,  dR = (C - W) R
    (a,), (g,) = primals, tangents
    q, r = bind(qr_p, a)
    dx_rinv = matmul(g, inv(r))
    c = matmul(mT(q), dx_rinv)
    low = tril(c, -1)
    w = low - mT(low)
    return [q, r], [matmul(q, w - c) + dx_rinv, matmul(c - w, r)]


qr_p = _prim("qr", _qr_impl, _qr_aval, multiple_results=True)
qr_p.jvp = _qr_jvp


# ------------------------------------------------------------------ svd
def _svd_impl(xp: Any, a: Any) -> list:
    u, s, vh = xp.linalg.svd(a, full_matrices=False)
    return [u, s, vh]


def _svd_aval(a: ShapedArray) -> list:
    if a.ndim < 2 or a.dtype.kind not in "fc":
        raise ShapeError(f"svd: expected a floating-point (..., m, n) array, got {a}")
    m, n = a.shape[-2:]
    k = min(m, n)
    lead = a.shape[:-2]
    return [ShapedArray(lead + (m, k), a.dtype), ShapedArray(lead + (k,), a.dtype),
            ShapedArray(lead + (k, n), a.dtype)]


def _svd_jvp(primals: list, tangents: list) -> tuple:
    # A = U S V^T (reduced); dP = U^T dA V:  ds = diag(dP),
    # dU = U (F o (dP S + S dP^T)) + (I - U U^T) dA V S^-1,
    # dV = V (F o (S dP + dP^T S)) + (I - V V^T) dA^T U S^-1,
    # F_ij = 1 / (s_j^2 - s_i^2) off the diagonal (Townsend 2016; JAX's svd_jvp_rule)
    (a,), (g,) = primals, tangents
    u, s, vh = bind(svd_p, a)
    v = mT(vh)
    dP = matmul(matmul(mT(u), g), v)
    sr, sc = row(s), col(s)
    F = recip_or_zero((sr + sc) * (sr - sc))
    dPS = dP * sr
    SdP = sc * dP
    du = matmul(u, F * (dPS + mT(dPS)))
    dv = matmul(v, F * (SdP + mT(SdP)))
    m, n = shape_of(a)[-2:]
    s_inv = row(recip_or_zero(s))
    if m > n:
        dAV = matmul(g, v)
        du = du + (dAV - matmul(u, matmul(mT(u), dAV))) * s_inv
    if n > m:
        dAtU = matmul(mT(g), u)
        dv = dv + (dAtU - matmul(v, matmul(vh, dAtU))) * s_inv
    return [u, s, vh], [du, diag_part(dP), mT(dv)]


svd_p = _prim("svd", _svd_impl, _svd_aval, multiple_results=True)
svd_p.jvp = _svd_jvp


def _svdvals_impl(xp: Any, a: Any) -> Any:
    f = getattr(xp.linalg, "svdvals", None)
    return f(a) if f is not None else xp.linalg.svd(a, compute_uv=False)


def _svdvals_partial(g: Any, ans: Any, a: Any) -> Any:
    u, _, vh = bind(svd_p, a)
    # ds_k = u_k^T dA v_k
    return bind(reduce_sum_p, u * matmul(g, mT(vh)), axes=(len(shape_of(a)) - 2,))


svdvals_p = _prim("svdvals", _svdvals_impl, lambda a: _svd_aval(a)[1])
defjvp(svdvals_p, _svdvals_partial, elementwise=False)


# ------------------------------------------------------------------ det, slogdet
def _det_aval(a: ShapedArray) -> ShapedArray:
    _square(a, "det")
    return ShapedArray(a.shape[:-2], a.dtype)


def _adjugate_impl(xp: Any, a: Any) -> Any:
    # adj(A) = det(U) det(V^T) V adj(S) U^T for A = U S V^T, adj(S)_ii = prod_{j!=i} s_j:
    # defined for every A, singular ones included
    u, s, vh = xp.linalg.svd(a)
    n = s.shape[-1]
    one = xp.ones(s.shape[:-1] + (1,), dtype=s.dtype)
    left = xp.cumulative_prod(xp.concat([one, s[..., :n - 1]], axis=-1), axis=-1)
    right = xp.flip(xp.cumulative_prod(xp.flip(xp.concat([s[..., 1:], one], axis=-1),
                                                axis=-1), axis=-1), axis=-1)
    sign = xp.linalg.det(u) * xp.linalg.det(vh)
    vt = xp.matrix_transpose(vh)
    return (sign[..., None, None] * vt * (left * right)[..., None, :]) @ \
        xp.matrix_transpose(u)


def _adjugate_partial(g: Any, ans: Any, a: Any) -> Any:
    # adj(A) = det(A) A^-1:  d adj = (tr(adj dA) adj - adj dA adj) / det(A)
    # (exact for invertible A; the second derivative of det at a singular A is not)
    t = bind(reduce_sum_p, mT(ans) * g, axes=(len(shape_of(a)) - 2, len(shape_of(a)) - 1))
    d = bind(det_p, a)
    return (col(col(t)) * ans - matmul(matmul(ans, g), ans)) / col(col(d))


adjugate_p = _prim("adjugate", _adjugate_impl, _same_square("adjugate"))
defjvp(adjugate_p, _adjugate_partial, elementwise=False)

det_p = _prim("det", lambda xp, a: xp.linalg.det(a), _det_aval)
# Jacobi's formula: d det(A) = tr(adj(A) dA)
defjvp(det_p, lambda g, ans, a: bind(reduce_sum_p, mT(bind(adjugate_p, a)) * g, axes=(
    len(shape_of(a)) - 2, len(shape_of(a)) - 1)), elementwise=False)


def _slogdet_impl(xp: Any, a: Any) -> list:
    sign, logabsdet = xp.linalg.slogdet(a)
    return [sign, logabsdet]


def _slogdet_jvp(primals: list, tangents: list) -> tuple:
    # d log|det A| = tr(A^-1 dA); the sign is locally constant
    (a,), (g,) = primals, tangents
    sign, logabsdet = bind(slogdet_p, a)
    nd = len(shape_of(a))
    dlog = bind(reduce_sum_p, mT(inv(a)) * g, axes=(nd - 2, nd - 1))
    # (the zero tangent of the sign is made from dlog, not from the constant sign:
    # see the report's note on linearize_flat and constant output tangents)
    return [sign, logabsdet], [bind(zeros_like_p, dlog), dlog]


slogdet_p = _prim("slogdet", _slogdet_impl, lambda a: [_det_aval(a)] * 2,
                  multiple_results=True)
slogdet_p.jvp = _slogdet_jvp

__all__ = ["inv_p", "solve_p", "cholesky_p", "eigh_p", "qr_p", "svd_p", "svdvals_p",
           "det_p", "slogdet_p", "adjugate_p", "diag_part", "tril", "sym", "mT", "inv",
           "recip_or_zero"]
