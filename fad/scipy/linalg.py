"""``scipy.linalg``'s functions, traced and differentiable (as ``jax.scipy.linalg``),
on stacks of matrices (leading axes are batch axes).

``solve_triangular``, ``lu`` and ``sqrtm`` are primitives (their derivative
rules are in ``fad/primitives/linalg.py``); ``expm`` is Padé 13 with scaling
and squaring written in fad operations (derivatives of every order);
``cholesky cho_factor cho_solve lu_factor lu_solve block_diag`` are
compositions; ``inv det solve eigh svd qr`` are ``fad.numpy.linalg``'s with
SciPy's signatures. The ``overwrite_*`` and ``check_finite`` arguments are
accepted and ignored, as in JAX.

>>> import fad, fad.numpy as fnp, fad.scipy.linalg as fsl
>>> a = fnp.array([[2.0, 0.0], [1.0, 4.0]])
>>> fsl.solve_triangular(a, fnp.array([2.0, 9.0]), lower=True).tolist()
[1.0, 2.0]
>>> round(float(fad.grad(lambda t: fsl.expm(t * fnp.eye(2))[0, 0])(1.0)), 6)  # e^t
2.718282
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import lax
from .. import numpy as fnp
from ..core.trace import bind, concrete_or_none
from ..numpy._base import dtype_of, promote_all
from ..numpy.linalg import _float, _matrix
from ..primitives import linalg as L

__all__ = ["block_diag", "cho_factor", "cho_solve", "cholesky", "det", "eigh", "expm", "inv",
           "lu", "lu_factor", "lu_solve", "qr", "solve", "solve_triangular", "sqrtm", "svd"]

_TRANS = {0: 0, 1: 1, 2: 2, "N": 0, "T": 1, "C": 2}


def _mH(a: Any) -> Any:
    return fnp.conj(fnp.swapaxes(a, -1, -2))


def _rhs(a: Any, b: Any, fn: str) -> tuple:
    """``(a, b as (..., n, k), whether b was a vector)`` with a common dtype and
    batch shape: ``b`` is a vector when it has one axis fewer than ``a``."""
    a = _matrix(a, fn)
    b = _float(b)
    a, b = promote_all(a, b)
    vec = b.ndim == a.ndim - 1 or b.ndim == 1
    if vec:
        b = b[..., None]
    if b.ndim < 2 or b.shape[-2] != a.shape[-1]:
        raise ValueError(f"{fn}: b of shape {b.shape[:-1] if vec else b.shape} does not "
                         f"match a of shape {a.shape} (expected (..., {a.shape[-1]}) or "
                         f"(..., {a.shape[-1]}, k))")
    lead = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return (fnp.broadcast_to(a, lead + a.shape[-2:]),
            fnp.broadcast_to(b, lead + b.shape[-2:]), vec)


def _unvec(x: Any, vec: bool) -> Any:
    return x[..., 0] if vec else x


# ------------------------------------------------------------------ triangular solves
def solve_triangular(a: Any, b: Any, trans: int | str = 0, lower: bool = False,
                     unit_diagonal: bool = False, overwrite_b: bool = False,
                     debug: Any = None, check_finite: bool = True) -> Any:
    """Solve ``op(a) x = b`` for ``a`` triangular (only its ``lower`` or upper
    triangle is read; its diagonal is taken as ones with ``unit_diagonal``);
    ``op`` is ``trans``: 0/'N' (``a``), 1/'T' (``a^T``), 2/'C' (``a^H``). ``b`` is
    ``(..., n)`` or ``(..., n, k)``. Linear in ``b``: reverse mode solves with
    ``op(a)^T`` (no inverse is formed).

    >>> import fad.numpy as fnp, fad.scipy.linalg as fsl
    >>> u = fnp.array([[1.0, 2.0], [0.0, 4.0]])
    >>> fsl.solve_triangular(u, fnp.array([5.0, 8.0])).tolist()
    [1.0, 2.0]
    >>> fsl.solve_triangular(u, fnp.array([1.0, 10.0]), trans="T").tolist()
    [1.0, 2.0]
    """
    if trans not in _TRANS:
        raise ValueError(f"solve_triangular: trans must be 0, 1, 2, 'N', 'T' or 'C', "
                         f"got {trans!r}")
    a, b, vec = _rhs(a, b, "solve_triangular")
    return _unvec(L.solve_triangular(a, b, bool(lower), _TRANS[trans], bool(unit_diagonal)),
                  vec)


# ------------------------------------------------------------------ Cholesky
def cholesky(a: Any, lower: bool = False, overwrite_a: bool = False,
             check_finite: bool = True) -> Any:
    """Cholesky factor of a symmetric (Hermitian) positive-definite matrix: upper
    ``U`` with ``a = U^H U`` by default (SciPy's), lower ``L`` (``a = L L^H``)
    with ``lower=True``.

    >>> import fad.numpy as fnp, fad.scipy.linalg as fsl
    >>> fsl.cholesky(fnp.array([[4.0, 2.0], [2.0, 2.0]])).tolist()
    [[2.0, 1.0], [0.0, 1.0]]
    """
    return fnp.linalg.cholesky(_matrix(a, "cholesky"), upper=not lower)


def cho_factor(a: Any, lower: bool = False, overwrite_a: bool = False,
               check_finite: bool = True) -> tuple:
    """``(c, lower)`` for ``cho_solve``: ``c`` is the Cholesky factor (its other
    triangle is zeros here; SciPy leaves garbage there).

    >>> import fad.numpy as fnp, fad.scipy.linalg as fsl
    >>> c, low = fsl.cho_factor(fnp.array([[4.0, 2.0], [2.0, 2.0]]))
    >>> low
    False
    """
    return cholesky(a, lower=lower), lower


def cho_solve(c_and_lower: tuple, b: Any, overwrite_b: bool = False,
              check_finite: bool = True) -> Any:
    """Solve ``a x = b`` from ``cho_factor(a)``: two triangular solves.

    >>> import fad.numpy as fnp, fad.scipy.linalg as fsl
    >>> f = fsl.cho_factor(fnp.array([[4.0, 2.0], [2.0, 2.0]]))
    >>> fsl.cho_solve(f, fnp.array([6.0, 4.0])).tolist()
    [1.0, 1.0]
    """
    c, lower = c_and_lower
    c, b, vec = _rhs(c, b, "cho_solve")
    lower = bool(lower)
    # a = L L^H = U^H U: first L y = b (U^H y = b), then L^H x = y (U x = y)
    y = L.solve_triangular(c, b, lower, 0 if lower else 2)
    return _unvec(L.solve_triangular(c, y, lower, 2 if lower else 0), vec)


# ------------------------------------------------------------------ LU
def _lu(a: Any) -> tuple:
    return bind(L.lu_p, _matrix(a, "lu"))


def lu(a: Any, permute_l: bool = False, overwrite_a: bool = False,
       check_finite: bool = True) -> tuple:
    """LU decomposition with partial pivoting, ``a = p @ l @ u`` (``l`` unit lower,
    ``u`` upper triangular; ``(p @ l, u)`` with ``permute_l``). Square matrices.
    Differentiable: with ``X = l^-1 p^T da u^-1``, ``dl = l tril(X, -1)`` and
    ``du = triu(X) u`` (``p`` is locally constant).

    >>> import fad.numpy as fnp, fad.scipy.linalg as fsl
    >>> p, l, u = fsl.lu(fnp.array([[1.0, 2.0], [3.0, 4.0]]))
    >>> p.tolist(), l.round(4).tolist(), u.round(4).tolist()
    ([[0.0, 1.0], [1.0, 0.0]], [[1.0, 0.0], [0.3333, 1.0]], [[3.0, 4.0], [0.0, 0.6667]])
    """
    packed, _, perm = _lu(a)
    p = fnp.swapaxes(L.permutation_matrix(perm, packed), -1, -2)
    low = L.triangle(packed, True, True) + fnp.eye(packed.shape[-1], dtype=dtype_of(packed))
    up = L.triangle(packed, False)
    return (p @ low, up) if permute_l else (p, low, up)


def lu_factor(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> tuple:
    """``(lu, piv)``: both LU factors packed in one matrix (``l``'s unit diagonal
    implied) and LAPACK's pivots (row ``i`` was swapped with row ``piv[i]``).

    >>> import fad.numpy as fnp, fad.scipy.linalg as fsl
    >>> lu, piv = fsl.lu_factor(fnp.array([[1.0, 2.0], [3.0, 4.0]]))
    >>> piv.tolist()
    [1, 1]
    """
    packed, piv, _ = _lu(a)
    return packed, piv


def _perm_from_pivots(piv: Any) -> Any:
    """The row order ``perm`` (``a[perm] = l u``) of LAPACK's sequential swaps."""
    n = piv.shape[-1]
    perm = fnp.broadcast_to(fnp.arange(n, dtype=dtype_of(piv)), piv.shape)
    idx = fnp.arange(n, dtype=dtype_of(piv))
    for i in range(n):  # swap perm[i] and perm[piv[i]]
        j = piv[..., i:i + 1]
        pi = perm[..., i:i + 1]
        pj = fnp.take_along_axis(perm, j, axis=-1)
        perm = fnp.where(idx == i, pj, fnp.where(idx == j, pi, perm))
    return perm


def lu_solve(lu_and_piv: tuple, b: Any, trans: int = 0, overwrite_b: bool = False,
             check_finite: bool = True) -> Any:
    """Solve ``op(a) x = b`` from ``lu_factor(a)`` (``trans`` as in
    ``solve_triangular``).

    >>> import fad.numpy as fnp, fad.scipy.linalg as fsl
    >>> f = fsl.lu_factor(fnp.array([[1.0, 2.0], [3.0, 4.0]]))
    >>> fsl.lu_solve(f, fnp.array([5.0, 11.0])).tolist()
    [1.0, 2.0]
    """
    packed, piv = lu_and_piv
    if trans not in _TRANS:
        raise ValueError(f"lu_solve: trans must be 0, 1 or 2, got {trans!r}")
    trans = _TRANS[trans]
    packed, b, vec = _rhs(packed, b, "lu_solve")
    p = L.permutation_matrix(_perm_from_pivots(fnp.asarray(piv)), packed)  # p @ a = l u
    if trans == 0:  # x = u^-1 l^-1 p b
        y = L.solve_triangular(packed, p @ b, True, 0, True)
        x = L.solve_triangular(packed, y, False, 0)
    else:  # a^T = u^T l^T p (p^T = p^-1): x = p^T l^-T u^-T b (conjugated for 'C')
        y = L.solve_triangular(packed, b, False, trans)
        x = fnp.swapaxes(p, -1, -2) @ L.solve_triangular(packed, y, True, trans, True)
    return _unvec(x, vec)


# ------------------------------------------------------------------ matrix functions
# Padé 13 coefficients b_0..b_13 and the norm bound theta_13 below which no
# scaling is needed (Higham 2005, "The scaling and squaring method for the
# matrix exponential revisited", table 2.3)
_PADE13 = (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
           129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
           40840800., 960960., 16380., 182., 1.)
_THETA13 = 5.371920351148152


def _pade13(a: Any) -> Any:
    b = _PADE13
    eye = fnp.eye(a.shape[-1], dtype=dtype_of(a))
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2)
             + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 \
        + b[0] * eye
    return fnp.linalg.solve(v - u, v + u)


def expm(A: Any, *, upper_triangular: bool = False, max_squarings: int = 16) -> Any:
    """The matrix exponential ``e^A``: Padé 13 of ``A / 2^s`` squared ``s``
    times, ``s = ceil(log2(|A|_1 / theta_13))`` (at most ``max_squarings``),
    written in fad operations, so derivatives of every order follow (and it works
    under ``jit``: there the squarings are a ``fori_loop`` of ``cond``).

    >>> import fad.numpy as fnp, fad.scipy.linalg as fsl
    >>> fsl.expm(fnp.array([[0.0, 1.0], [0.0, 0.0]])).round(12).tolist()
    [[1.0, 1.0], [0.0, 1.0]]
    """
    a = _matrix(A, "expm")
    if a.shape[-1] == 0:
        return a
    norm = fnp.max(fnp.sum(fnp.abs(a), axis=-2), axis=-1)  # the 1-norm
    s = fnp.ceil(fnp.log2(fnp.maximum(norm, _THETA13) / _THETA13))
    s = fnp.asarray(fnp.minimum(s, max_squarings), np.int32)
    scale = fnp.asarray(fnp.ldexp(fnp.ones((), dtype_of(fnp.real(a))), -s), dtype_of(a))
    r = _pade13(a * scale[..., None, None])
    steps = concrete_or_none(fnp.max(s))
    if steps is not None:  # known number of squarings (eager, grad)
        for i in range(int(steps)):
            r = fnp.where((i < s)[..., None, None], r @ r, r)
        return r
    if s.ndim == 0:
        return lax.fori_loop(0, max_squarings,
                             lambda i, r: lax.cond(i < s, lambda r: r @ r, lambda r: r, r), r)
    return lax.fori_loop(0, max_squarings,
                         lambda i, r: fnp.where((i < s)[..., None, None], r @ r, r), r)


def sqrtm(A: Any, blocksize: int = 1) -> Any:
    """The principal square root ``X`` of ``A`` (``X @ X = A``), computed by
    ``scipy.linalg.sqrtm`` (Schur method); the derivative solves the Sylvester
    equation ``X dX + dX X = dA`` (an ``n^2 x n^2`` linear system). A real ``A``
    gives a real ``X``: NaN where ``A`` has a negative real eigenvalue (no real
    square root; pass a complex ``A`` there). NumPy arrays only.

    >>> import fad.numpy as fnp, fad.scipy.linalg as fsl
    >>> fsl.sqrtm(fnp.array([[4.0, 0.0], [0.0, 9.0]])).tolist()
    [[2.0, 0.0], [0.0, 3.0]]
    """
    return bind(L.sqrtm_p, _matrix(A, "sqrtm"))


def block_diag(*arrs: Any) -> Any:
    """The block-diagonal matrix of the arrays (0-d and 1-d ones are ``(1, n)``).

    >>> import fad.numpy as fnp, fad.scipy.linalg as fsl
    >>> fsl.block_diag(fnp.ones((1, 2)), 3.0).tolist()
    [[1.0, 1.0, 0.0], [0.0, 0.0, 3.0]]
    """
    if not arrs:
        return fnp.zeros((1, 0))
    arrs = [fnp.atleast_2d(fnp.asarray(x)) for x in arrs]
    if any(x.ndim != 2 for x in arrs):
        raise ValueError("block_diag: arguments must have 2 or fewer dimensions, got shapes "
                         f"{[x.shape for x in arrs]}")
    arrs = promote_all(*arrs)
    cols = sum(x.shape[1] for x in arrs)
    rows, at = [], 0
    for x in arrs:
        k = x.shape[1]
        rows.append(fnp.pad(x, ((0, 0), (at, cols - at - k))))
        at += k
    return fnp.concatenate(rows, axis=0)


# ------------------------------------------------------------------ SciPy's signatures
def inv(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> Any:
    """The matrix inverse (``fad.numpy.linalg.inv``).

    >>> import fad.numpy as fnp, fad.scipy.linalg as fsl
    >>> fsl.inv(fnp.array([[2.0, 0.0], [0.0, 4.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    return fnp.linalg.inv(a)


def det(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> Any:
    """The determinant (``fad.numpy.linalg.det``).

    >>> import fad.numpy as fnp, fad.scipy.linalg as fsl
    >>> round(float(fsl.det(fnp.array([[2.0, 1.0], [1.0, 3.0]]))), 12)
    5.0
    """
    return fnp.linalg.det(a)


def solve(a: Any, b: Any, lower: bool = False, overwrite_a: bool = False,
          overwrite_b: bool = False, debug: Any = None, check_finite: bool = True,
          assume_a: str = "gen") -> Any:
    """Solve ``a x = b`` (``b`` is ``(..., n)`` or ``(..., n, k)``). ``assume_a``:
    'gen' (LU), 'sym' / 'her' (the ``lower`` or upper triangle is read, as SciPy
    does), 'pos' (Cholesky of that triangle).

    >>> import fad.numpy as fnp, fad.scipy.linalg as fsl
    >>> fsl.solve(fnp.array([[4.0, 2.0], [2.0, 2.0]]), fnp.array([6.0, 4.0]),
    ...           assume_a="pos").tolist()
    [1.0, 1.0]
    """
    if assume_a not in ("gen", "general", "sym", "symmetric", "her", "hermitian", "pos",
                        "positive definite"):
        raise ValueError(f"solve: assume_a must be 'gen', 'sym', 'her' or 'pos', got "
                         f"{assume_a!r}")
    a, b, vec = _rhs(a, b, "solve")
    if assume_a[:3] == "pos":
        return _unvec(cho_solve(cho_factor(a, lower=lower), b), vec)
    if assume_a[:3] in ("sym", "her"):
        strict = L.triangle(a, bool(lower), True)
        diag = L.triangle(a, bool(lower)) - strict
        if assume_a[:3] == "her":  # (a Hermitian matrix has a real diagonal)
            a = strict + _mH(strict) + fnp.real(diag)
        else:
            a = strict + fnp.swapaxes(strict, -1, -2) + diag
    return _unvec(fnp.linalg.solve(a, b), vec)


def eigh(a: Any, b: Any = None, lower: bool = True, eigvals_only: bool = False,
         overwrite_a: bool = False, overwrite_b: bool = False, turbo: bool = True,
         eigvals: Any = None, type: int = 1, check_finite: bool = True) -> Any:
    """Eigenvalues (ascending) and eigenvectors of a symmetric (Hermitian) matrix,
    read from its ``lower`` (or upper) triangle (``fad.numpy.linalg.eigh``). The
    generalized problem (``b``) and ``eigvals`` are not supported.

    >>> import fad.numpy as fnp, fad.scipy.linalg as fsl
    >>> fsl.eigh(fnp.array([[2.0, 0.0], [0.0, 1.0]]), eigvals_only=True).tolist()
    [1.0, 2.0]
    """
    if b is not None or eigvals is not None:
        raise NotImplementedError("eigh: the generalized problem (b) and eigvals= are not "
                                  "supported; pass a alone (solve b first: eigh of "
                                  "L^-1 a L^-H with L = cholesky(b, lower=True))")
    w, v = fnp.linalg.eigh(a, UPLO="L" if lower else "U")
    return w if eigvals_only else (w, v)


def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True,
        overwrite_a: bool = False, check_finite: bool = True,
        lapack_driver: str = "gesdd") -> Any:
    """Singular value decomposition ``a = u diag(s) vh`` (``fad.numpy.linalg.svd``).

    >>> import fad.numpy as fnp, fad.scipy.linalg as fsl
    >>> fsl.svd(fnp.array([[3.0, 0.0], [0.0, -4.0]]), compute_uv=False).tolist()
    [4.0, 3.0]
    """
    out = fnp.linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)
    return out if not compute_uv else tuple(out)


def qr(a: Any, overwrite_a: bool = False, lwork: Any = None, mode: str = "full",
       pivoting: bool = False, check_finite: bool = True) -> Any:
    """QR decomposition (``fad.numpy.linalg.qr``); ``mode``: 'full' (``q`` square),
    'economic' (reduced), 'r' (the tuple ``(r,)``, as SciPy). Pivoting is not
    supported.

    >>> import fad.numpy as fnp, fad.scipy.linalg as fsl
    >>> q, r = fsl.qr(fnp.array([[3.0, 0.0], [4.0, 1.0]]))
    >>> abs(r).round(6).tolist()
    [[5.0, 0.8], [0.0, 0.6]]
    """
    if pivoting:
        raise NotImplementedError("qr(pivoting=True) is not supported (the pivots are not "
                                  "differentiable); use pivoting=False")
    modes = {"full": "complete", "economic": "reduced", "r": "r"}
    if mode not in modes:
        raise ValueError(f"qr: mode must be 'full', 'economic' or 'r', got {mode!r}")
    a = _matrix(a, "qr", square=False)
    if mode == "r":
        m, n = a.shape[-2:]
        return (fnp.linalg.qr(a, mode="r"),) if m <= n else \
            (fnp.pad(fnp.linalg.qr(a, mode="r"), [(0, 0)] * (a.ndim - 2) + [(0, m - n), (0, 0)]),)
    return tuple(fnp.linalg.qr(a, mode=modes[mode]))



def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
