"""Linear-algebra primitives on stacks of matrices (leading axes are batch axes).

Each implementation is the backend's ``xp.linalg`` function; each jvp is the
standard identity, written in fad operations so that it is differentiable again
(higher derivatives), and reverse mode transposes it. Real and complex inputs
share the rules: ``A^H`` (``mH``, the conjugate transpose) is ``A^T`` for a real
``A`` and ``conj``/``re`` are no-ops there, so a real program is unchanged.
Conventions:

* ``cholesky``, ``eigh``: the input is symmetric (Hermitian); a tangent ``dA``
  is used through its Hermitian part ``(dA + dA^H) / 2`` (only such
  perturbations keep the input in the domain), as JAX does. Eigenvalues are
  real (``dw_i = Re(v_i^H dA v_i)``).
* ``eigh``, ``svd`` of complex matrices: each eigen/singular vector is defined
  up to a phase ``e^{i theta}``; the derivatives fix the gauge as JAX does
  (``Im diag(V^H dV) = 0`` for ``eigh``; for ``svd`` ``diag(V^H dV) = 0`` and
  the phase change is put in ``U``). Only gauge-invariant functions (``|v|^2``,
  ``v_i conj(v_j)``, reconstructions) are meaningful.
* ``qr``: ``R`` has a real diagonal (LAPACK's), so ``Im diag(dR) = 0``
  (JAX's correction ``i Im diag(Q^H dA R^-1)`` in the antihermitian part).
* ``slogdet`` of a complex matrix: ``sign`` is ``det / |det|`` (complex, modulus 1)
  and ``logabsdet`` real; with ``t = tr(A^-1 dA)``, ``d logabsdet = Re t`` and
  ``d sign = sign * i Im t`` (0 for real matrices: the sign is locally constant).
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

import functools
from typing import Any

import numpy as np

from ..backends import backend_for
from ..core.errors import ShapeError
from ..core.ir import ShapedArray
from ..core.primitive import Primitive
from ..core.trace import aval_of, bind, shape_of
from .builders import defjvp, to_front, zeros_like
from .complex import conj_p, real_dtype, real_p
from .contractions import _mT, matmul
from .elementwise import eq, select
from .indexing import ARRAY, gather
from .reductions import reduce_sum_p
from .sorting import constant
from .structural import reshape


# ------------------------------------------------------------------ helpers
def mT(x: Any) -> Any:
    """The last two axes swapped."""
    return _mT(x)


def _is_complex(x: Any) -> bool:
    return aval_of(x).dtype.kind == "c"


def conj(x: Any) -> Any:
    """Complex conjugate (``x`` itself when real: no equation)."""
    return bind(conj_p, x) if _is_complex(x) else x


def re(x: Any) -> Any:
    """Real part (``x`` itself when real: no equation)."""
    return bind(real_p, x) if _is_complex(x) else x


def mH(x: Any) -> Any:
    """The conjugate transpose of the last two axes (``mT`` for real ``x``)."""
    return conj(_mT(x))


def sym(g: Any) -> Any:
    """The Hermitian (symmetric) part ``(g + g^H) / 2``."""
    return (g + mH(g)) * 0.5


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


def _la(xp: Any, name: str) -> Any:
    """The namespace's ``linalg.<name>`` (``NotImplementedError`` naming the
    primitive and the backend where there is none)."""
    return getattr(np.linalg, name) if xp is np else \
        backend_for(xp).function(name, f"linalg.{name}")


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
inv_p = _prim("inv", lambda xp, a: _la(xp, "inv")(a), _same_square("inv"))
# d inv(A) = -inv(A) dA inv(A)
defjvp(inv_p, lambda g, ans, a: -matmul(matmul(ans, g), ans), elementwise=False)


def _system_aval(a: ShapedArray, b: ShapedArray, name: str) -> ShapedArray:
    """The result of solving ``a x = b``: ``b``'s; ``a`` square, ``b`` of ``a``'s
    batch, rows and dtype."""
    _square(a, name)
    if b.ndim != a.ndim or b.shape[:-2] != a.shape[:-2] or b.shape[-2] != a.shape[-1]:
        raise ShapeError(f"{name}: shapes {a.shape} and {b.shape} do not match "
                         "(expected (..., n, n) and (..., n, k))")
    if b.dtype != a.dtype:
        raise ShapeError(f"{name} of different dtypes {a.dtype} and {b.dtype}")
    return b


def _solve_aval(a: ShapedArray, b: ShapedArray) -> ShapedArray:
    return _system_aval(a, b, "solve")


def _solve_jvp(primals: list, tangents: list) -> tuple:
    # X = A^-1 B:  dX = A^-1 (dB - dA X). The tangent multiplies by inv(A) rather
    # than solving again: a product is linear in the tangent with A a mere constant,
    # so reverse mode transposes it.
    (a, b), (ga, gb) = primals, tangents
    x = bind(solve_p, a, b)
    rhs = gb if ga is None else -matmul(ga, x) if gb is None else gb - matmul(ga, x)
    return x, matmul(inv(a), rhs)


solve_p = _prim("solve", lambda xp, a, b: _la(xp, "solve")(a, b), _solve_aval)
solve_p.jvp = _solve_jvp


# ------------------------------------------------------------------ cholesky
@functools.lru_cache(maxsize=16)  # (bounded: n x n each)
def _phi_mask(n: int, dtype: Any) -> np.ndarray:
    """Lower triangle with a halved diagonal: Phi(X) = X * mask."""
    return (np.tri(n, k=-1) + 0.5 * np.eye(n)).astype(dtype)


def _cholesky_partial(g: Any, ans: Any, a: Any) -> Any:
    # Murray (2016), "Differentiation of the Cholesky decomposition", eq. (10):
    # dL = L Phi(L^-1 dA L^-H), Phi = lower triangle with the diagonal halved (the
    # diagonal of the Hermitian L^-1 dA L^-H is real, as is dL's)
    L, Linv = ans, inv(ans)
    y = matmul(matmul(Linv, sym(g)), mH(Linv))
    return matmul(L, y * constant(_phi_mask(shape_of(L)[-1], aval_of(L).dtype), L))


cholesky_p = _prim("cholesky", lambda xp, a: _la(xp, "cholesky")(a), _same_square("cholesky"))
defjvp(cholesky_p, _cholesky_partial, elementwise=False)


# ------------------------------------------------------------------ eigh
def _eigh_impl(xp: Any, a: Any) -> list:
    w, v = _la(xp, "eigh")(a)
    return [w, v]


def _eigh_aval(a: ShapedArray) -> list:
    _square(a, "eigh")
    return [ShapedArray(a.shape[:-1], real_dtype(a.dtype)), a]


def _eigh_jvp(primals: list, tangents: list) -> tuple:
    # Magnus (1985): dw_i = Re(v_i^H dA v_i);  dV = V (F o (V^H dA V)),
    # F_ij = 1 / (w_j - w_i) off the diagonal (0 on it, and at repeated values)
    (a,), (g,) = primals, tangents
    w, v = bind(eigh_p, a)
    vh_dA_v = matmul(matmul(mH(v), sym(g)), v)
    F = recip_or_zero(row(w) - col(w))
    return [w, v], [re(diag_part(vh_dA_v)), matmul(v, F * vh_dA_v)]


eigh_p = _prim("eigh", _eigh_impl, _eigh_aval, multiple_results=True)
eigh_p.jvp = _eigh_jvp


# ------------------------------------------------------------------ qr
def _qr_impl(xp: Any, a: Any) -> list:
    q, r = _la(xp, "qr")(a)
    return [q, r]


def _qr_aval(a: ShapedArray) -> list:
    if a.ndim < 2 or a.shape[-2] < a.shape[-1]:
        raise ShapeError(f"qr primitive: expected (..., m, n) with m >= n, got {a.shape}")
    m, n = a.shape[-2:]
    return [a, ShapedArray(a.shape[:-2] + (n, n), a.dtype)]


def _qr_jvp(primals: list, tangents: list) -> tuple:
    # A = QR, m >= n (JAX's qr_jvp_rule): with C = Q^H dA R^-1 and
    # W = tril(C, -1) - tril(C, -1)^H (+ i Im diag(C) for complex A: R's diagonal
    # stays real) antihermitian:  dQ = Q (W - C) + dA R^-1,  dR = (C - W) R
    (a,), (g,) = primals, tangents
    q, r = bind(qr_p, a)
    dx_rinv = matmul(g, inv(r))
    c = matmul(mH(q), dx_rinv)
    low = tril(c, -1)
    w = low - mH(low)
    if _is_complex(c):
        n = shape_of(c)[-1]
        w = w + select(constant(np.eye(n, dtype=bool), c), c - re(c), 0.0)
    return [q, r], [matmul(q, w - c) + dx_rinv, matmul(c - w, r)]


qr_p = _prim("qr", _qr_impl, _qr_aval, multiple_results=True)
qr_p.jvp = _qr_jvp


# ------------------------------------------------------------------ svd
def _svd_impl(xp: Any, a: Any) -> list:
    u, s, vh = _la(xp, "svd")(a, full_matrices=False)
    return [u, s, vh]


def _svd_aval(a: ShapedArray) -> list:
    if a.ndim < 2 or a.dtype.kind not in "fc":
        raise ShapeError(f"svd: expected a floating-point (..., m, n) array, got {a}")
    m, n = a.shape[-2:]
    k = min(m, n)
    lead = a.shape[:-2]
    return [ShapedArray(lead + (m, k), a.dtype), ShapedArray(lead + (k,), real_dtype(a.dtype)),
            ShapedArray(lead + (k, n), a.dtype)]


def _svd_jvp(primals: list, tangents: list) -> tuple:
    # A = U S V^H (reduced); dP = U^H dA V:  ds = Re diag(dP),
    # dU = U (F o (dP S + S dP^H) + i Im diag(dP) S^-1) + (I - U U^H) dA V S^-1,
    # dV = V (F o (S dP + dP^H S)) + (I - V V^H) dA^H U S^-1,
    # F_ij = 1 / (s_j^2 - s_i^2) off the diagonal (Townsend 2016; JAX's svd_jvp_rule;
    # the i Im term, complex only, is the phase gauge: JAX puts it in U too)
    (a,), (g,) = primals, tangents
    u, s, vh = bind(svd_p, a)
    v = mH(vh)
    dP = matmul(matmul(mH(u), g), v)
    sr, sc = row(s), col(s)
    F = recip_or_zero((sr + sc) * (sr - sc))
    dPS = dP * sr
    SdP = sc * dP
    du = matmul(u, F * (dPS + mH(dPS)))
    dv = matmul(v, F * (SdP + mH(SdP)))
    m, n = shape_of(a)[-2:]
    s_inv = recip_or_zero(s)
    d = diag_part(dP)
    if _is_complex(d):
        du = du + u * row((d - re(d)) * s_inv)
    s_inv = row(s_inv)
    if m > n:
        dAV = matmul(g, v)
        du = du + (dAV - matmul(u, matmul(mH(u), dAV))) * s_inv
    if n > m:
        dAhU = matmul(mH(g), u)
        dv = dv + (dAhU - matmul(v, matmul(vh, dAhU))) * s_inv
    return [u, s, vh], [du, re(d), mH(dv)]


svd_p = _prim("svd", _svd_impl, _svd_aval, multiple_results=True)
svd_p.jvp = _svd_jvp


def _svdvals_impl(xp: Any, a: Any) -> Any:
    f = getattr(getattr(xp, "linalg", None), "svdvals", None)
    return f(a) if f is not None else _la(xp, "svd")(a, compute_uv=False)


def _svdvals_partial(g: Any, ans: Any, a: Any) -> Any:
    u, _, vh = bind(svd_p, a)
    # ds_k = Re(u_k^H dA v_k)
    return re(bind(reduce_sum_p, conj(u) * matmul(g, mH(vh)), axes=(len(shape_of(a)) - 2,)))


svdvals_p = _prim("svdvals", _svdvals_impl, lambda a: _svd_aval(a)[1])
defjvp(svdvals_p, _svdvals_partial, elementwise=False)


# ------------------------------------------------------------------ det, slogdet
def _det_aval(a: ShapedArray) -> ShapedArray:
    _square(a, "det")
    return ShapedArray(a.shape[:-2], a.dtype)


def _xp_mH(xp: Any, x: Any) -> Any:
    xt = xp.matrix_transpose(x)
    # (the dtype's name: NumPy / CuPy dtypes and the Array API's dtype objects alike)
    return xp.conj(xt) if np.dtype(str(x.dtype).split(".")[-1]).kind == "c" else xt


def _adjugate_impl(xp: Any, a: Any) -> Any:
    # adj(A) = det(U) det(V^H) V adj(S) U^H for A = U S V^H, adj(S)_ii = prod_{j!=i} s_j:
    # defined for every A, singular ones included
    u, s, vh = _la(xp, "svd")(a)
    n = s.shape[-1]
    one = xp.ones(s.shape[:-1] + (1,), dtype=s.dtype)
    left = xp.cumulative_prod(xp.concat([one, s[..., :n - 1]], axis=-1), axis=-1)
    right = xp.flip(xp.cumulative_prod(xp.flip(xp.concat([s[..., 1:], one], axis=-1),
                                                axis=-1), axis=-1), axis=-1)
    sign = _la(xp, "det")(u) * _la(xp, "det")(vh)
    v = _xp_mH(xp, vh)
    return (sign[..., None, None] * v * (left * right)[..., None, :]) @ _xp_mH(xp, u)


def _adjugate_partial(g: Any, ans: Any, a: Any) -> Any:
    # adj(A) = det(A) A^-1:  d adj = (tr(adj dA) adj - adj dA adj) / det(A)
    # (exact for invertible A; the second derivative of det at a singular A is not)
    t = bind(reduce_sum_p, mT(ans) * g, axes=(len(shape_of(a)) - 2, len(shape_of(a)) - 1))
    d = bind(det_p, a)
    return (col(col(t)) * ans - matmul(matmul(ans, g), ans)) / col(col(d))


adjugate_p = _prim("adjugate", _adjugate_impl, _same_square("adjugate"))
defjvp(adjugate_p, _adjugate_partial, elementwise=False)

det_p = _prim("det", lambda xp, a: _la(xp, "det")(a), _det_aval)
# Jacobi's formula: d det(A) = tr(adj(A) dA)
defjvp(det_p, lambda g, ans, a: bind(reduce_sum_p, mT(bind(adjugate_p, a)) * g, axes=(
    len(shape_of(a)) - 2, len(shape_of(a)) - 1)), elementwise=False)


def _slogdet_impl(xp: Any, a: Any) -> list:
    sign, logabsdet = _la(xp, "slogdet")(a)
    return [sign, logabsdet]


def _slogdet_jvp(primals: list, tangents: list) -> tuple:
    # t = tr(A^-1 dA) = d log det A:  d log|det A| = Re t, d sign = sign * i Im t
    # (a real sign is locally constant)
    (a,), (g,) = primals, tangents
    sign, logabsdet = bind(slogdet_p, a)
    nd = len(shape_of(a))
    t = bind(reduce_sum_p, mT(inv(a)) * g, axes=(nd - 2, nd - 1))
    if _is_complex(t):
        return [sign, logabsdet], [sign * (t - re(t)), re(t)]
    # (the zero tangent of the sign is made from t, not from the constant sign, so
    # that it is a variable of the linear program: linearize_flat turns an output
    # tangent that is not one into a constant)
    return [sign, logabsdet], [zeros_like(t), t]


def _slogdet_aval(a: ShapedArray) -> list:
    sign = _det_aval(a)
    return [sign, ShapedArray(sign.shape, real_dtype(a.dtype))]


slogdet_p = _prim("slogdet", _slogdet_impl, _slogdet_aval, multiple_results=True)
slogdet_p.jvp = _slogdet_jvp


# ------------------------------------------------------------------ triangular solves, lu
def triangle(x: Any, lower: bool, unit_diagonal: bool = False) -> Any:
    """The triangle of the last two axes a triangular solve reads (strict when the
    diagonal is taken as ones), the rest zeros."""
    n = shape_of(x)[-1]
    mask = np.tri(n, n, -1 if unit_diagonal else 0, dtype=bool)
    return select(constant(mask if lower else mask.T, x), x, 0.0)


def _op(x: Any, trans: int) -> Any:
    """``x``, ``x^T`` or ``x^H`` (``trans`` 0, 1, 2), as LAPACK's ``trans``."""
    return x if trans == 0 else mT(x) if trans == 1 else mH(x)


def _solve_triangular_impl(xp: Any, a: Any, b: Any, *, lower: bool, trans: int,
                           unit_diagonal: bool) -> Any:
    n = a.shape[-1]
    mask = np.tri(n, n, -1 if unit_diagonal else 0, dtype=bool)
    t = xp.where(xp.asarray(mask if lower else mask.T), a, xp.zeros_like(a))
    if unit_diagonal:
        t = t + xp.asarray(np.eye(n), dtype=a.dtype)
    if trans:
        t = _xp_mH(xp, t) if trans == 2 else xp.matrix_transpose(t)
    return _la(xp, "solve")(t, b)


def _solve_triangular_aval(a: ShapedArray, b: ShapedArray, *, lower: bool, trans: int,
                           unit_diagonal: bool) -> ShapedArray:
    return _system_aval(a, b, "solve_triangular")


def solve_triangular(a: Any, b: Any, lower: bool, trans: int = 0,
                     unit_diagonal: bool = False) -> Any:
    """Bind ``solve_triangular``: ``op(T)^-1 b`` for ``T`` the triangle of ``a``."""
    return bind(solve_triangular_p, a, b, lower=lower, trans=trans,
                unit_diagonal=unit_diagonal)


def _solve_triangular_jvp(primals: list, tangents: list, **params: Any) -> tuple:
    # X = op(T)^-1 B:  dX = op(T)^-1 (dB - op(dT) X), dT the same triangle of dA
    # (the diagonal of a unit triangle is constant). Linear in the right-hand side,
    # a constant T: reverse mode transposes it (no inverse formed).
    (a, b), (ga, gb) = primals, tangents
    x = bind(solve_triangular_p, a, b, **params)
    rhs = gb
    if ga is not None:
        t = matmul(_op(triangle(ga, params["lower"], params["unit_diagonal"]),
                       params["trans"]), x)
        rhs = -t if rhs is None else rhs - t
    return x, bind(solve_triangular_p, a, rhs, **params)


def _solve_triangular_transpose(ct: Any, a: Any, b: Any, *, lower: bool, trans: int,
                                unit_diagonal: bool) -> list:
    # (op(T)^-1)^T = op'(T)^-1 with op' = T^T for op = T and T for op = T^T;
    # (T^-H)^T = conj(T)^-1
    if trans == 2:
        return [None, solve_triangular(conj(a), ct, lower, 0, unit_diagonal)]
    return [None, solve_triangular(a, ct, lower, 1 - trans, unit_diagonal)]


solve_triangular_p = _prim("solve_triangular", _solve_triangular_impl,
                           _solve_triangular_aval)
solve_triangular_p.jvp = _solve_triangular_jvp
solve_triangular_p.transpose = _solve_triangular_transpose
solve_triangular_p.linear_in = (1,)


def _lu_impl(xp: Any, a: Any) -> list:
    if xp is not np:
        raise backend_for(xp).unsupported("lu", "LU needs scipy.linalg (NumPy arrays)")
    from scipy.linalg import lu_factor
    n = a.shape[-1]
    lu = np.empty_like(a)
    piv = np.empty(a.shape[:-1], np.int32)
    perm = np.empty(a.shape[:-1], np.int32)
    for idx in np.ndindex(*a.shape[:-2]):
        lu[idx], p = lu_factor(a[idx], check_finite=False)
        order = np.arange(n)
        for i, j in enumerate(p):  # row i was swapped with row j: a[order] = L U
            order[i], order[j] = order[j], order[i]
        piv[idx], perm[idx] = p, order
    return [lu, piv, perm]


def _lu_aval(a: ShapedArray) -> list:
    _square(a, "lu")
    ints = ShapedArray(a.shape[:-1], np.dtype(np.int32))
    return [a, ints, ints]


def permutation_matrix(perm: Any, like: Any) -> Any:
    """The matrices ``P`` with ``P[..., i, j] = (perm[..., i] == j)`` in ``like``'s
    dtype: ``P @ a`` is ``a[perm]`` (rows reordered)."""
    n = shape_of(perm)[-1]
    hot = eq(col(perm), constant(np.arange(n, dtype=np.int32), perm))
    return select(hot, constant(np.ones((), aval_of(like).dtype), like), 0.0)


def _lu_jvp(primals: list, tangents: list) -> tuple:
    # a[perm] = L U (L unit lower, U upper):  P dA = dL U + L dU, so with
    # X = L^-1 P dA U^-1 (L^-1 dL strictly lower, dU U^-1 upper):
    # dL = L tril(X, -1), dU = triu(X) U; the factors are packed in one matrix
    (a,), (g,) = primals, tangents
    lu, piv, perm = bind(lu_p, a)
    pg = matmul(permutation_matrix(perm, a), g)
    y = solve_triangular(lu, pg, True, 0, True)                 # L^-1 P dA
    x = mT(solve_triangular(lu, mT(y), False, 1, False))        # (L^-1 P dA) U^-1
    low = triangle(x, True, True)
    dl = matmul(triangle(lu, True, True), low) + low            # L = tril(lu, -1) + I
    du = matmul(triangle(x, False), triangle(lu, False))
    return [lu, piv, perm], [dl + du, None, None]


lu_p = _prim("lu", _lu_impl, _lu_aval, multiple_results=True)
lu_p.jvp = _lu_jvp


# ------------------------------------------------------------------ sqrtm
def _sqrtm_impl(xp: Any, a: Any) -> Any:
    if xp is not np:
        raise backend_for(xp).unsupported("sqrtm", "sqrtm needs scipy.linalg (NumPy arrays)")
    from scipy.linalg import sqrtm
    out = np.empty_like(a)
    for idx in np.ndindex(*a.shape[:-2]):
        r = sqrtm(a[idx])
        # a real matrix with a negative real eigenvalue has no real square root
        out[idx] = r if np.iscomplexobj(out) or not np.iscomplexobj(r) else np.nan
    return out


def _sqrtm_partial(g: Any, ans: Any, a: Any) -> Any:
    # X = sqrt(A): X dX + dX X = dA, a Sylvester equation; row-major vec turns it
    # into (X kron I + I kron X^T) vec(dX) = vec(dA)
    s = shape_of(a)
    n = s[-1]
    eye = constant(np.eye(n, dtype=aval_of(a).dtype), a)
    k = (reshape(ans, s[:-2] + (n, 1, n, 1)) * reshape(eye, (1, n, 1, n))
         + reshape(eye, (n, 1, n, 1)) * reshape(mT(ans), s[:-2] + (1, n, 1, n)))
    k = reshape(k, s[:-2] + (n * n, n * n))
    vec = reshape(g, s[:-2] + (n * n, 1))
    # (a product with inv(K), linear in the tangent: reverse mode transposes it)
    return reshape(matmul(inv(k), vec), s)


sqrtm_p = _prim("sqrtm", _sqrtm_impl, _same_square("sqrtm"))
defjvp(sqrtm_p, _sqrtm_partial, elementwise=False)

__all__ = ["inv_p", "solve_p", "cholesky_p", "eigh_p", "qr_p", "svd_p", "svdvals_p",
           "det_p", "slogdet_p", "adjugate_p", "diag_part", "tril", "sym", "mT", "mH", "conj",
           "re", "inv", "recip_or_zero", "solve_triangular_p", "solve_triangular", "lu_p",
           "triangle", "permutation_matrix", "sqrtm_p"]
