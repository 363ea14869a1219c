"""``fad.numpy.linalg``: NumPy's ``numpy.linalg``, differentiable, on stacks of
matrices (leading axes are batch axes, as in NumPy), real or complex.

The decompositions are primitives (``fad/primitives/linalg.py``, where the
derivative identities and their conventions are written down); everything
else here is a composite of them. Inputs of integer dtype are computed in
float64, as NumPy does.

``norm`` at 0 has a zero subgradient (never NaN): the norms that are not
differentiable at 0 guard their input there (the "double where").

>>> import fad, fad.numpy as fnp
>>> A = fnp.array([[2.0, 1.0], [1.0, 3.0]])
>>> round(float(fnp.linalg.det(A)), 6)
5.0
>>> fad.grad(fnp.linalg.det)(A).round(6).tolist()  # adj(A)^T
[[3.0, -1.0], [-1.0, 2.0]]
"""

from __future__ import annotations

import builtins
from collections import namedtuple
from typing import Any, Sequence

import numpy as np

from ..core.errors import ShapeError
from ..core.trace import bind, concrete_or_none
from ..primitives import eig as E
from ..primitives import linalg as L
from ..primitives.shapes import normalize_axes
from ..primitives.sorting import constant
from ..primitives.structural import eye_like, stop_gradient_p
from . import _contractions as C
from . import _indexing as I
from . import _math as M
from . import _reductions as R
from . import _shape as S
from ._base import asarray, cast, dtype_of, no_out, promote_all
from ._complex import conj, imag, real

LinAlgError = np.linalg.LinAlgError
EighResult = namedtuple("EighResult", "eigenvalues eigenvectors")
QRResult = namedtuple("QRResult", "Q R")
SVDResult = namedtuple("SVDResult", "U S Vh")
SlogdetResult = namedtuple("SlogdetResult", "sign logabsdet")
LstsqResult = namedtuple("LstsqResult", "x residuals rank s")


def _float(a: Any) -> Any:
    a = asarray(a)
    dt = dtype_of(a)
    if dt.kind not in "fc":
        return cast(a, np.dtype(np.float64))
    if dt.itemsize < 4:
        return cast(a, np.dtype(np.float32))
    return a


def _matrix(a: Any, name: str, square: bool = True) -> Any:
    a = _float(a)
    if a.ndim < 2:
        raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be at least "
                          "two-dimensional")
    if square and a.shape[-1] != a.shape[-2]:
        raise LinAlgError("Last 2 dimensions of the array must be square")
    return a


def _mH(a: Any) -> Any:
    """Conjugate transpose of the last two axes (the transpose of a real ``a``)."""
    return conj(S.swapaxes(a, -1, -2))


def _from_lower(a: Any) -> Any:
    """The symmetric (Hermitian) matrix of ``a``'s lower triangle and the real part
    of its diagonal: what LAPACK reads (so values *and* derivatives match NumPy's
    for any input)."""
    low = I.tril(a, -1)
    return M.add(M.add(low, _mH(low)), _diag_matrix(real(a)))


def _diag_matrix(a: Any) -> Any:
    n = a.shape[-1]
    return M.where(constant(np.eye(n, dtype=bool), a), a, 0.0)


def _hermitian_derivative(a: Any) -> Any:
    """``a`` with its value unchanged and its derivative taken through its
    Hermitian part ``(a + a^H) / 2``: the convention of JAX's covariance
    arguments and of PyTorch's ``cholesky``/``eigh``, whose gradients with respect
    to a symmetric matrix are symmetric (``cholesky`` and ``eigh`` themselves, as
    NumPy's, differentiate the triangle they read)."""
    herm = M.multiply(M.add(a, _mH(a)), 0.5)
    return M.add(herm, bind(stop_gradient_p, M.subtract(a, herm)))


def _sym_input(a: Any, UPLO: str) -> Any:
    if UPLO not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    return _from_lower(a if UPLO == "L" else _mH(a))


# ------------------------------------------------------------------ inverses and solves
def inv(a: Any) -> Any:
    """Matrix inverse; ``d inv(A) = -inv(A) dA inv(A)``.

    >>> import fad.numpy as fnp
    >>> fnp.linalg.inv(fnp.array([[2.0, 0.0], [0.0, 4.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    return bind(L.inv_p, _matrix(a, "inv"))


def solve(a: Any, b: Any) -> Any:
    """Solve ``a x = b`` (``b`` a vector when it is 1-d, else a stack of matrices;
    batch axes broadcast).

    >>> import fad.numpy as fnp
    >>> fnp.linalg.solve(fnp.array([[2.0, 0.0], [0.0, 4.0]]), fnp.array([1.0, 1.0])).tolist()
    [0.5, 0.25]
    """
    a = _matrix(a, "solve")
    b = _float(b)
    a, b = promote_all(a, b)
    vec = b.ndim == 1
    if vec:
        b = S.reshape(b, (b.shape[0], 1))
    if b.ndim < 2:
        raise ShapeError(f"solve: b of shape {b.shape} is not a vector or a matrix")
    lead = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = S.broadcast_to(a, lead + a.shape[-2:])
    b = S.broadcast_to(b, lead + b.shape[-2:])
    x = bind(L.solve_p, a, b)
    return S.reshape(x, x.shape[:-1]) if vec else x


def tensorinv(a: Any, ind: int = 2) -> Any:
    """Inverse of a tensor seen as a matrix (first ``ind`` axes vs the rest).

    >>> import fad.numpy as fnp
    >>> fnp.linalg.tensorinv(fnp.eye(4).reshape(4, 2, 2), ind=1).shape
    (2, 2, 4)
    """
    a = _float(a)
    out_shape = a.shape[ind:] + a.shape[:ind]
    n = int(np.prod(a.shape[:ind]))
    return S.reshape(inv(S.reshape(a, (n, -1))), out_shape)


def tensorsolve(a: Any, b: Any, axes: Any = None) -> Any:
    """Solve the tensor equation ``tensordot(a, x, x.ndim) = b``.

    >>> import fad.numpy as fnp
    >>> fnp.linalg.tensorsolve(fnp.eye(4).reshape(2, 2, 4), fnp.ones((2, 2))).shape
    (4,)
    """
    a = _float(a)
    b = asarray(b)
    if axes is not None:
        axes = [int(i) % a.ndim for i in axes]
        a = S.transpose(a, tuple(i for i in range(a.ndim) if i not in axes) + tuple(axes))
    x_shape = a.shape[b.ndim:]
    n = int(np.prod(x_shape))
    return S.reshape(solve(S.reshape(a, (-1, n)), S.ravel(b)), x_shape)


def pinv(a: Any, rcond: Any = None, hermitian: bool = False, *, rtol: Any = None,
         atol: Any = None) -> Any:
    """Moore-Penrose pseudo-inverse from the SVD, singular values below
    ``rcond * max(s)`` treated as 0 (default ``max(m, n) * eps``), or below
    ``atol`` when that is larger.

    >>> import fad.numpy as fnp
    >>> fnp.linalg.pinv(fnp.array([[1.0, 0.0], [0.0, 0.0]])).tolist()
    [[1.0, 0.0], [0.0, 0.0]]
    """
    a = _matrix(a, "pinv", square=False)
    m, n = a.shape[-2:]
    if rcond is None:
        rcond = rtol if rtol is not None else builtins.max(m, n) * float(np.finfo(dtype_of(a)).eps)
    u, s, vh = svd(a, full_matrices=False)
    cutoff = M.multiply(rcond, R.max(s, axis=-1, keepdims=True))
    if atol is not None:
        cutoff = M.maximum(cutoff, atol)
    keep = M.greater(s, cutoff)
    s_inv = M.where(keep, M.divide(1.0, M.where(keep, s, 1.0)), 0.0)
    return C.matmul(M.multiply(_mH(vh), S.expand_dims(s_inv, -2)), _mH(u))


def lstsq(a: Any, b: Any, rcond: Any = None) -> LstsqResult:
    """Least-squares solution via the pseudo-inverse: ``(x, residuals, rank, s)``
    as NumPy (``residuals`` empty unless ``a`` is tall and of full rank).

    >>> import fad.numpy as fnp
    >>> A = fnp.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    >>> fnp.linalg.lstsq(A, fnp.array([1.0, 2.0, 3.0]))[0].tolist()
    [1.0, 2.0]
    """
    a = _matrix(a, "lstsq", square=False)
    b = _float(b)
    m, n = a.shape
    x = C.matmul(pinv(a, rcond), b)
    s = svdvals(a)
    rank = matrix_rank(a, tol=rcond if rcond is None else None)
    r = concrete_or_none(rank)
    full = int(r) == n if r is not None else True
    if m > n and full:
        res = M.subtract(C.matmul(a, x), b)
        residuals = R.sum(_abs2(res), axis=0)
        if b.ndim == 1:
            residuals = S.reshape(residuals, (1,))
    else:
        residuals = asarray(np.zeros((0,), dtype_of(real(a))))
    return LstsqResult(x, residuals, rank, s)


def matrix_power(a: Any, n: int) -> Any:
    """``a`` to the integer power ``n`` by repeated squaring (``n < 0`` inverts).

    >>> import fad.numpy as fnp
    >>> fnp.linalg.matrix_power(fnp.array([[1.0, 1.0], [0.0, 1.0]]), 3).tolist()
    [[1.0, 3.0], [0.0, 1.0]]
    """
    a = asarray(a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise LinAlgError("Last 2 dimensions of the array must be square")
    if n == 0:
        return S.broadcast_to(eye_like(a, a.shape[-1]), a.shape)  # on a's backend
    if n < 0:
        a, n = inv(a), -n
    result, base = None, a
    while n:
        if n & 1:
            result = base if result is None else C.matmul(result, base)
        n >>= 1
        if n:
            base = C.matmul(base, base)
    return result


def multi_dot(arrays: Sequence, *, out: Any = None) -> Any:
    """Product of a chain of matrices (first and last may be vectors).

    >>> import fad.numpy as fnp
    >>> fnp.linalg.multi_dot([fnp.ones(2), fnp.eye(2), fnp.ones(2)]).tolist()
    2.0
    """
    no_out(out)
    arrays = [asarray(x) for x in arrays]
    if len(arrays) < 2:
        raise ValueError("Expecting at least two arrays.")
    res = arrays[0]
    for x in arrays[1:]:
        res = C.dot(res, x)
    return res


# ------------------------------------------------------------------ determinants
def det(a: Any) -> Any:
    """Determinant; its derivative is the adjugate (``d det = tr(adj(A) dA)``),
    exact at singular matrices too.

    >>> import fad, fad.numpy as fnp
    >>> fad.grad(fnp.linalg.det)(fnp.array([[1.0, 2.0], [2.0, 4.0]])).round(6).tolist()
    [[4.0, -2.0], [-2.0, 1.0]]
    """
    return bind(L.det_p, _matrix(a, "det"))


def slogdet(a: Any) -> SlogdetResult:
    """``(sign, log|det|)``; ``d log|det A| = Re tr(A^-1 dA)``. A real sign has no
    derivative; for complex ``A`` the sign is ``det / |det|`` (modulus 1, as
    NumPy), ``d sign = sign * i Im tr(A^-1 dA)``, and ``log|det|`` is real.

    >>> import fad.numpy as fnp
    >>> sign, logdet = fnp.linalg.slogdet(fnp.array([[-2.0, 0.0], [0.0, 1.0]]))
    >>> float(sign), round(float(logdet), 6)
    (-1.0, 0.693147)
    """
    sign, logabsdet = bind(L.slogdet_p, _matrix(a, "slogdet"))
    return SlogdetResult(sign, logabsdet)


# ------------------------------------------------------------------ decompositions
def cholesky(a: Any, /, *, upper: bool = False) -> Any:
    """Cholesky factor ``L`` (``A = L L^H``; or ``U = L^H`` with ``upper=True``) of
    a symmetric (Hermitian) positive-definite matrix; like NumPy it reads the
    lower triangle only (the upper one with ``upper=True``) and the real part of
    the diagonal, so the derivative with respect to the rest is 0.

    >>> import fad.numpy as fnp
    >>> fnp.linalg.cholesky(fnp.array([[4.0, 2.0], [2.0, 2.0]])).tolist()
    [[2.0, 0.0], [1.0, 1.0]]
    """
    low = bind(L.cholesky_p, _sym_input(_matrix(a, "cholesky"), "U" if upper else "L"))
    return _mH(low) if upper else low


def eigh(a: Any, UPLO: str = "L") -> EighResult:
    """Eigenvalues (ascending, real) and eigenvectors of a symmetric (Hermitian)
    matrix (from the triangle ``UPLO``). Derivatives: Magnus's formulas; at
    repeated eigenvalues the undefined eigenvector terms are taken as 0. Complex
    eigenvectors are defined up to a phase: differentiate gauge-invariant
    functions of them (``|v|^2``, ``v_i conj(v_j)``, ``V diag(w) V^H``).

    >>> import fad.numpy as fnp
    >>> w, v = fnp.linalg.eigh(fnp.array([[2.0, 0.0], [0.0, 1.0]]))
    >>> w.tolist()
    [1.0, 2.0]
    """
    w, v = bind(L.eigh_p, _sym_input(_matrix(a, "eigh"), UPLO))
    return EighResult(w, v)


def eigvalsh(a: Any, UPLO: str = "L") -> Any:
    """Eigenvalues of a symmetric matrix, ascending (``d w_i = v_i^T dA v_i``).

    >>> import fad.numpy as fnp
    >>> fnp.linalg.eigvalsh(fnp.eye(2)).tolist()
    [1.0, 1.0]
    """
    return eigh(a, UPLO)[0]


def qr(a: Any, mode: str = "reduced") -> Any:
    """QR decomposition (``reduced``, ``r``, or ``complete`` for square and wide
    matrices). A wide ``a = [X | Y]`` is ``Q [R_X | Q^H Y]`` with ``X = Q R_X``.
    ``R``'s diagonal is real (LAPACK's convention, complex input too).

    >>> import fad.numpy as fnp
    >>> q, r = fnp.linalg.qr(fnp.array([[3.0, 0.0], [4.0, 1.0]]))
    >>> abs(r).round(6).tolist()
    [[5.0, 0.8], [0.0, 0.6]]
    """
    a = _matrix(a, "qr", square=False)
    m, n = a.shape[-2:]
    if mode not in ("reduced", "complete", "r"):
        raise NotImplementedError(f"qr: mode {mode!r} is not supported "
                                  "('reduced', 'complete', 'r' are)")
    if mode == "complete" and m > n:
        raise NotImplementedError("qr(mode='complete') of a tall matrix: the extra "
                                  "columns of Q are not unique (not differentiable); "
                                  "use mode='reduced'")
    if m >= n:
        q, r = bind(L.qr_p, a)
    else:
        q, rx = bind(L.qr_p, S._slice(a, a.ndim - 1, 0, m))
        ry = C.matmul(_mH(q), S._slice(a, a.ndim - 1, m, n))
        r = S.concatenate([rx, ry], axis=-1)
    return r if mode == "r" else QRResult(q, r)


def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True,
        hermitian: bool = False) -> Any:
    """Singular value decomposition ``a = U diag(S) Vh`` (singular values
    descending, real). ``full_matrices=True`` is supported for square matrices
    only (the extra columns are not unique otherwise). At repeated singular
    values the undefined singular-vector terms are taken as 0; complex singular
    vectors are defined up to a phase (differentiate gauge-invariant functions).

    >>> import fad.numpy as fnp
    >>> fnp.linalg.svd(fnp.array([[3.0, 0.0], [0.0, -4.0]]), compute_uv=False).tolist()
    [4.0, 3.0]
    """
    a = _matrix(a, "svd", square=False)
    if not compute_uv:
        return bind(L.svdvals_p, a)
    m, n = a.shape[-2:]
    if full_matrices and m != n:
        raise NotImplementedError(
            "svd(full_matrices=True) of a non-square matrix: the extra singular vectors "
            "are not unique (not differentiable); use full_matrices=False")
    u, s, vh = bind(L.svd_p, a)
    return SVDResult(u, s, vh)


def svdvals(x: Any, /) -> Any:
    """Singular values, descending (``d s_k = u_k^T dA v_k``).

    >>> import fad.numpy as fnp
    >>> fnp.linalg.svdvals(fnp.eye(2) * 2).tolist()
    [2.0, 2.0]
    """
    return bind(L.svdvals_p, _matrix(x, "svdvals", square=False))


def matrix_rank(A: Any, tol: Any = None, hermitian: bool = False, *, rtol: Any = None
                ) -> Any:
    """Number of singular values above the tolerance (an integer; no derivative).

    >>> import fad.numpy as fnp
    >>> int(fnp.linalg.matrix_rank(fnp.array([[1.0, 2.0], [2.0, 4.0]])))
    1
    """
    A = _float(A)
    if A.ndim < 2:
        return cast(R.any(M.not_equal(A, 0)), np.dtype(np.int64))
    s = svdvals(A)
    if tol is None:
        r = rtol if rtol is not None else builtins.max(A.shape[-2:]) * \
            float(np.finfo(dtype_of(s)).eps)
        tol = M.multiply(R.max(s, axis=-1, keepdims=True), r)
    else:
        tol = S.expand_dims(asarray(tol), -1) if np.ndim(tol) else tol
    return R.sum(M.greater(s, tol), axis=-1)


def cond(x: Any, p: Any = None) -> Any:
    """Condition number in the norm ``p`` (2 by default: ``s_max / s_min``).

    >>> import fad.numpy as fnp
    >>> float(fnp.linalg.cond(fnp.array([[2.0, 0.0], [0.0, 1.0]])))
    2.0
    """
    x = _matrix(x, "cond", square=p not in (None, 2, -2))
    if p in (None, 2, -2):
        s = svdvals(x)
        hi, lo = S._slice(s, s.ndim - 1, 0, 1), S._slice(s, s.ndim - 1, s.shape[-1] - 1,
                                                         s.shape[-1])
        r = M.divide(hi, lo) if p != -2 else M.divide(lo, hi)
        return S.squeeze(r, -1)
    return M.multiply(norm(x, p, axis=(-2, -1)), norm(inv(x), p, axis=(-2, -1)))


# ------------------------------------------------------------------ norms
def _nonzero_safe(fn: Any, x: Any, axes: tuple, keepdims: bool, which: Any = R.all) -> Any:
    """``fn(x)`` where ``x`` (over ``axes``) is not all (``which=any``: not any) zero,
    else 0 with a zero derivative: the input is replaced by ones there (double where)."""
    zero = which(M.equal(x, 0), axis=axes, keepdims=True)
    out = fn(M.where(zero, 1.0, x))
    return M.where(zero if keepdims else S.squeeze(zero, axes), 0.0, out)


def _abs2(x: Any) -> Any:
    """``|x|^2`` (a real array)."""
    re, im = real(x), imag(x)
    return M.add(M.multiply(re, re), M.multiply(im, im)) if dtype_of(x).kind == "c" else \
        M.multiply(x, x)


def _vector_norm(x: Any, ord: Any, axes: tuple, keepdims: bool) -> Any:
    if ord is None or ord == 2:
        ss = R.sum(_abs2(x), axis=axes, keepdims=keepdims)
        zero = M.equal(ss, 0)
        return M.where(zero, 0.0, M.sqrt(M.where(zero, 1.0, ss)))
    ax = M.absolute(x)
    if ord == np.inf:
        return R.max(ax, axis=axes, keepdims=keepdims)
    if ord == -np.inf:
        return R.min(ax, axis=axes, keepdims=keepdims)
    if ord == 0:
        return cast(R.sum(M.not_equal(x, 0), axis=axes, keepdims=keepdims),
                    dtype_of(real(x)))
    if ord == 1:
        return R.sum(ax, axis=axes, keepdims=keepdims)
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")
    p = float(ord)
    if p < 0:  # any zero entry makes the value 0: zero subgradient there
        return _nonzero_safe(lambda y: _p_norm(y, p, axes, keepdims), ax, axes, keepdims,
                             R.any)
    return _p_norm(ax, p, axes, keepdims)


def _p_norm(ax: Any, p: float, axes: tuple, keepdims: bool) -> Any:
    s = R.sum(M.power(ax, p), axis=axes, keepdims=keepdims)
    zero = M.equal(s, 0)
    return M.where(zero, 0.0, M.power(M.where(zero, 1.0, s), 1.0 / p))


def _matrix_norm(x: Any, ord: Any, axes: tuple, keepdims: bool) -> Any:
    r, c = axes
    if ord in (None, "fro", "f"):
        return _vector_norm(x, 2, axes, keepdims)
    if ord in (2, -2, "nuc"):
        # singular values of the (r, c) planes: move them last
        xm = S.moveaxis(x, (r, c), (-2, -1))

        def sv(y: Any) -> Any:
            s = svdvals(y)
            return R.sum(s, -1) if ord == "nuc" else (R.max(s, -1) if ord == 2 else
                                                      R.min(s, -1))
        out = _nonzero_safe(sv, xm, (-2, -1), keepdims=False)
        return _keepdims(out, x.ndim, axes) if keepdims else out
    ax = M.absolute(x)
    if ord in (1, -1):
        col = R.sum(ax, axis=r, keepdims=True)
        red = R.max if ord == 1 else R.min
        return red(col, axis=axes, keepdims=keepdims)
    if ord in (np.inf, -np.inf):
        row = R.sum(ax, axis=c, keepdims=True)
        red = R.max if ord == np.inf else R.min
        return red(row, axis=axes, keepdims=keepdims)
    raise ValueError(f"Invalid norm order {ord!r} for matrices")


def _keepdims(out: Any, ndim: int, axes: tuple) -> Any:
    shape = list(out.shape)
    for a in sorted(axes):
        shape.insert(a, 1)
    return S.reshape(out, tuple(shape))


def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:
    """Vector and matrix norms as ``numpy.linalg.norm``: vectors ``ord`` in
    ``None, 2, inf, -inf, 0, 1, -1, p``; matrices ``None, 'fro', 'nuc', 2, -2,
    1, -1, inf, -inf``. At 0 every norm has a zero subgradient.

    >>> import fad, fad.numpy as fnp
    >>> float(fnp.linalg.norm(fnp.array([3.0, 4.0])))
    5.0
    >>> fad.grad(fnp.linalg.norm)(fnp.zeros(2)).tolist()
    [0.0, 0.0]
    >>> float(fnp.linalg.norm(fnp.array([[1.0, 2.0], [3.0, 4.0]]), 1))
    6.0
    """
    x = _float(x)
    nd = x.ndim
    if axis is None:
        if ord is None or ord in ("fro", "f") and nd == 2:
            out = _vector_norm(S.ravel(x), 2, (0,), False)
            return S.reshape(out, (1,) * nd) if keepdims else out
        if nd == 1:
            axes = (0,)
        elif nd == 2:
            axes = (0, 1)
        else:
            raise ValueError("Improper number of dimensions to norm.")
    else:
        axes = (axis,) if isinstance(axis, int | np.integer) else tuple(axis)
        axes = tuple(int(a) % builtins.max(nd, 1) for a in axes)
        if len(set(axes)) != len(axes):
            raise ValueError("Duplicate axes given.")
        normalize_axes(axes, nd)
    if len(axes) == 1:
        return _vector_norm(x, ord, axes, keepdims)
    if len(axes) == 2:
        return _matrix_norm(x, ord, axes, keepdims)
    raise ValueError("Improper number of dimensions to norm.")


def vector_norm(x: Any, /, *, axis: Any = None, keepdims: bool = False, ord: Any = 2) -> Any:
    """The Array API's vector norm (``axis=None``: of the flattened array).

    >>> import fad.numpy as fnp
    >>> float(fnp.linalg.vector_norm(fnp.ones((2, 2))))
    2.0
    """
    x = _float(x)
    if axis is None:
        out = _vector_norm(S.ravel(x), ord, (0,), False)
        return S.reshape(out, (1,) * x.ndim) if keepdims else out
    axes = normalize_axes(axis, x.ndim)
    return _vector_norm(x, ord, axes, keepdims)


def matrix_norm(x: Any, /, *, keepdims: bool = False, ord: Any = "fro") -> Any:
    """The Array API's matrix norm over the last two axes.

    >>> import fad.numpy as fnp
    >>> float(fnp.linalg.matrix_norm(fnp.eye(2), ord="nuc"))
    2.0
    """
    x = _float(x)
    return _matrix_norm(x, ord, (x.ndim - 2, x.ndim - 1), keepdims)


# ------------------------------------------------------------------ products
def matmul(x1: Any, x2: Any, /) -> Any:
    """``x1 @ x2``.

    >>> import fad.numpy as fnp
    >>> fnp.linalg.matmul(fnp.eye(2), fnp.ones(2)).tolist()
    [1.0, 1.0]
    """
    return C.matmul(x1, x2)


def outer(x1: Any, x2: Any, /) -> Any:
    """Outer product of two vectors.

    >>> import fad.numpy as fnp
    >>> fnp.linalg.outer(fnp.ones(2), fnp.ones(3)).shape
    (2, 3)
    """
    return C.outer(x1, x2)


def tensordot(x1: Any, x2: Any, /, *, axes: Any = 2) -> Any:
    """``numpy.tensordot``.

    >>> import fad.numpy as fnp
    >>> float(fnp.linalg.tensordot(fnp.ones((2, 2)), fnp.ones((2, 2))))
    4.0
    """
    return C.tensordot(x1, x2, axes)


def vecdot(x1: Any, x2: Any, /, *, axis: int = -1) -> Any:
    """Dot products along ``axis``.

    >>> import fad.numpy as fnp
    >>> float(fnp.linalg.vecdot(fnp.ones(3), fnp.ones(3)))
    3.0
    """
    return C.vecdot(x1, x2, axis=axis)


def cross(x1: Any, x2: Any, /, *, axis: int = -1) -> Any:
    """Cross product of 3-vectors along ``axis``.

    >>> import fad.numpy as fnp
    >>> fnp.linalg.cross(fnp.array([0.0, 1.0, 0.0]), fnp.array([0.0, 0.0, 1.0])).tolist()
    [1.0, 0.0, 0.0]
    """
    if asarray(x1).shape[axis] != 3 or asarray(x2).shape[axis] != 3:
        raise ValueError("linalg.cross: both inputs must be 3-vectors along axis")
    return C.cross(x1, x2, axis=axis)


def trace(x: Any, /, *, offset: int = 0, dtype: Any = None) -> Any:
    """Trace of the last two axes.

    >>> import fad.numpy as fnp
    >>> fnp.linalg.trace(fnp.ones((3, 2, 2))).tolist()
    [2.0, 2.0, 2.0]
    """
    return C.trace(x, offset, -2, -1, dtype)


def diagonal(x: Any, /, *, offset: int = 0) -> Any:
    """Diagonals of the last two axes.

    >>> import fad.numpy as fnp
    >>> fnp.linalg.diagonal(fnp.eye(2)).tolist()
    [1.0, 1.0]
    """
    return I.diagonal(x, offset, -2, -1)


def matrix_transpose(x: Any, /) -> Any:
    """Swap the last two axes.

    >>> import fad.numpy as fnp
    >>> fnp.linalg.matrix_transpose(fnp.ones((2, 3))).shape
    (3, 2)
    """
    return S.swapaxes(x, -1, -2)


EigResult = namedtuple("EigResult", "eigenvalues eigenvectors")


def eig(a: Any) -> EigResult:
    """Eigenvalues and right eigenvectors (unit-norm columns) of a general square
    matrix. Both are always complex (JAX's convention; NumPy returns real arrays
    when every eigenvalue happens to be real). Derivatives exist at simple
    eigenvalues (JAX's rule: ``dw = diag(V^-1 dA V)``); an eigenvector is defined
    up to a phase, so differentiate phase-free functions of it
    (``V diag(f(w)) V^-1``, ``|v_ij|``).

    >>> import fad.numpy as fnp
    >>> w, v = fnp.linalg.eig(fnp.array([[2.0, 1.0], [0.0, 3.0]]))
    >>> w.tolist()
    [(2+0j), (3+0j)]
    """
    w, v = bind(E.eig_p, _matrix(a, "eig"))
    return EigResult(w, v)


def eigvals(a: Any) -> Any:
    """The (complex) eigenvalues of a general square matrix, as ``eig``'s.

    >>> import fad, fad.numpy as fnp
    >>> fnp.linalg.eigvals(fnp.array([[0.0, -1.0], [1.0, 0.0]])).tolist()
    [1j, -1j]
    >>> a = fnp.array([[1.0, 2.0], [3.0, 4.0]])
    >>> fad.grad(lambda a: fnp.real(fnp.sum(fnp.linalg.eigvals(a) ** 2)))(a).round(12).tolist()
    [[2.0, 6.0], [4.0, 8.0]]
    """
    return eig(a)[0]

__all__ = ["LinAlgError", "EigResult", "cholesky", "cond", "cross", "det", "diagonal", "eig",
           "eigh", "eigvals", "eigvalsh", "inv", "lstsq", "matmul", "matrix_norm", "matrix_power",
           "matrix_rank", "matrix_transpose", "multi_dot", "norm", "outer", "pinv", "qr",
           "slogdet", "solve", "svd", "svdvals", "tensordot", "tensorinv", "tensorsolve",
           "trace", "vecdot", "vector_norm"]


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
