"""NumPy's legacy polynomial functions (coefficients highest power first), and
``unwrap``. All are written in fad operations, so they are differentiable where
the maths is: ``polyval`` in the coefficients and in ``x``, ``polyfit``
through a least-squares solve, ``roots`` through the eigenvalues of the
companion matrix (complex results, as JAX's ``roots``)."""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

from ..core.trace import concrete_or_none
from . import _contractions as C
from . import _math as M
from . import _reductions as R
from . import _shape as S
from . import linalg
from ._base import asarray, cast, dtype_of
from ._complex import conj, imag, real
from ._creation import arange, eye, ones, vander, zeros, zeros_like


def _coefficients(p: Any, name: str) -> Any:
    p = asarray(p)
    if p.ndim != 1:
        raise ValueError(f"fad.numpy.{name}: the coefficients must be a 1-d array, got "
                         f"shape {p.shape}")
    if dtype_of(p).kind not in "fc":
        p = cast(p, np.dtype(np.float64))
    return p


def _real_dtype(p: Any) -> np.dtype:
    """The real dtype of the coefficients' (float32 stays float32, as JAX)."""
    return np.finfo(dtype_of(p)).dtype


def polyval(p: Any, x: Any) -> Any:
    """The polynomial with coefficients ``p`` (highest power first) at ``x``
    (Horner's scheme).

    >>> import fad, fad.numpy as fnp
    >>> fnp.polyval(fnp.array([3.0, 0.0, 1.0]), 2.0).tolist()
    13.0
    >>> fad.grad(fnp.polyval, argnums=1)(fnp.array([3.0, 0.0, 1.0]), 2.0).tolist()
    12.0
    """
    p, x = asarray(p), asarray(x)
    if p.ndim != 1:
        raise ValueError(f"fad.numpy.polyval: p must be a 1-d array, got shape {p.shape}")
    # (NumPy's zeros_like(x) start: integer coefficients at integer x stay integers)
    y = M.add(zeros(x.shape, dtype_of(x)), p[0] if p.shape[0] else 0)
    for k in range(1, p.shape[0]):
        y = M.add(M.multiply(y, x), p[k])
    return y


def _align(a1: Any, a2: Any) -> tuple[Any, Any]:
    """Both coefficient arrays zero-padded at the front to the same length."""
    n = builtins.max(a1.shape[0], a2.shape[0])
    pad = lambda a: S.pad(a, (n - a.shape[0], 0)) if a.shape[0] < n else a
    return pad(a1), pad(a2)


def polyadd(a1: Any, a2: Any) -> Any:
    """The sum of two polynomials.

    >>> import fad.numpy as fnp
    >>> fnp.polyadd(fnp.array([1.0, 2.0]), fnp.array([1.0, 0.0, 3.0])).tolist()
    [1.0, 1.0, 5.0]
    """
    return M.add(*_align(asarray(a1), asarray(a2)))


def polysub(a1: Any, a2: Any) -> Any:
    """The difference of two polynomials.

    >>> import fad.numpy as fnp
    >>> fnp.polysub(fnp.array([1.0, 2.0]), fnp.array([1.0, 0.0, 3.0])).tolist()
    [-1.0, 1.0, -1.0]
    """
    return M.subtract(*_align(asarray(a1), asarray(a2)))


def polymul(a1: Any, a2: Any) -> Any:
    """The product of two polynomials (a convolution of the coefficients).

    >>> import fad.numpy as fnp
    >>> fnp.polymul(fnp.array([1.0, 1.0]), fnp.array([1.0, -1.0])).tolist()
    [1.0, 0.0, -1.0]
    """
    return C.convolve(asarray(a1), asarray(a2))


def polyder(p: Any, m: int = 1) -> Any:
    """The ``m``-th derivative of a polynomial, in the coefficients' dtype (as JAX).

    >>> import fad.numpy as fnp
    >>> fnp.polyder(fnp.array([1.0, 1.0, 1.0, 1.0])).tolist()
    [3.0, 2.0, 1.0]
    """
    if m < 0:
        raise ValueError("fad.numpy.polyder: the order of derivative must be positive")
    p = _coefficients(p, "polyder")
    for _ in range(m):
        n = p.shape[0] - 1
        if n < 0:
            return p
        p = M.multiply(p[:-1], arange(n, 0, -1, dtype=_real_dtype(p)))
    return p


def polyint(p: Any, m: int = 1, k: Any = None) -> Any:
    """The ``m``-th antiderivative of a polynomial, with integration constants
    ``k`` (a scalar, or ``m`` values: the lowest-order one first, as NumPy), in
    the coefficients' dtype (as JAX).

    >>> import fad.numpy as fnp
    >>> fnp.polyint(fnp.array([3.0, 2.0, 1.0])).tolist()
    [1.0, 1.0, 1.0, 0.0]
    """
    if m < 0:
        raise ValueError("fad.numpy.polyint: the order of integral must be positive")
    p = _coefficients(p, "polyint")
    if k is None or isinstance(k, int | float | complex):
        ks: Any = [0.0 if k is None else k] * m  # (Python numbers join p's backend)
    else:
        ks = asarray(k)
        ks = S.broadcast_to(ks, (m,)) if ks.ndim == 0 else ks
        if ks.shape != (m,):
            raise ValueError("fad.numpy.polyint: k must be a scalar or a sequence of m values")
    zero = zeros_like(p[:1])  # (on p's backend)
    for i in range(m):
        n = p.shape[0]
        const = ks[i] if isinstance(ks, list) else cast(ks[i], dtype_of(p))
        p = S.concatenate([M.divide(p, arange(n, 0, -1, dtype=_real_dtype(p))),
                           M.add(zero, const)])
    return p


def polyfit(x: Any, y: Any, deg: int, rcond: Any = None, full: bool = False, w: Any = None,
            cov: Any = False) -> Any:
    """Least-squares polynomial fit of degree ``deg`` (columns scaled to unit
    norm as NumPy does); ``y`` may hold several data sets as columns.
    Differentiable in ``x``, ``y`` and ``w``; float32 data give float32
    coefficients (NumPy computes in float64). ``full=True`` also returns NumPy's
    ``residuals, rank, singular_values, rcond`` (of the scaled system; the
    residuals empty unless there are more points than coefficients and, for
    concrete data, the rank is full); ``cov=True`` (or ``"unscaled"``) returns
    ``(coefficients, covariance)`` as NumPy.

    >>> import fad.numpy as fnp
    >>> fnp.polyfit(fnp.array([0.0, 1.0, 2.0]), fnp.array([1.0, 3.0, 5.0]), 1).round(12).tolist()
    [2.0, 1.0]
    >>> _, residuals, rank, _, _ = fnp.polyfit(fnp.array([0.0, 1.0, 2.0]),
    ...                                       fnp.array([1.0, 3.0, 5.5]), 1, full=True)
    >>> int(rank), residuals.round(6).tolist()
    (2, [0.041667])
    """
    if deg < 0:
        raise ValueError("fad.numpy.polyfit: expected deg >= 0")
    x, y = _coefficients(x, "polyfit"), asarray(y)
    if y.ndim not in (1, 2) or y.shape[0] != x.shape[0]:
        raise TypeError("fad.numpy.polyfit: expected y of shape (len(x),) or (len(x), k)")
    order = deg + 1
    lhs, rhs = vander(x, order), y
    if w is not None:
        w = asarray(w)
        lhs = M.multiply(lhs, S.reshape(w, (-1, 1)))
        rhs = M.multiply(rhs, w if y.ndim == 1 else S.reshape(w, (-1, 1)))
    scale = M.sqrt(R.sum(real(M.multiply(lhs, conj(lhs))), axis=0))  # |column|
    lhs = M.divide(lhs, scale)
    # the least-squares solution, pinv(A) b (NumPy's lstsq; cutoff len(x) * eps)
    cutoff = x.shape[0] * float(np.finfo(dtype_of(x)).eps) if rcond is None else rcond
    solution = C.matmul(linalg.pinv(lhs, cutoff), rhs)
    coef = M.divide(solution, scale if y.ndim == 1 else S.reshape(scale, (-1, 1)))
    if not (full or cov):
        return coef
    sv = linalg.svd(lhs, compute_uv=False)
    rank = R.sum(M.greater(sv, M.multiply(cutoff, R.max(sv))))
    known = concrete_or_none(rank)
    if x.shape[0] > order and (known is None or int(known) == order):
        residuals = R.sum(linalg._abs2(M.subtract(C.matmul(lhs, solution), rhs)), axis=0)
        residuals = S.reshape(residuals, (1,)) if y.ndim == 1 else residuals
    else:
        residuals = zeros((0,), dtype_of(real(lhs)))
    if full:
        return coef, residuals, rank, sv, cutoff
    base = M.divide(linalg.inv(C.matmul(S.transpose(lhs), lhs)), C.outer(scale, scale))
    if cov == "unscaled":
        factor = 1.0
    elif x.shape[0] <= order:
        raise ValueError("fad.numpy.polyfit: the number of data points must exceed order "
                         "to scale the covariance matrix")
    else:
        factor = M.divide(residuals, x.shape[0] - order)
    return coef, (M.multiply(base, factor) if y.ndim == 1 else
                  M.multiply(S.expand_dims(base, -1), factor))


def roots(p: Any, *, strip_zeros: bool = True) -> Any:
    """The roots of a polynomial: the eigenvalues of its companion matrix (real
    when they all are, for concrete coefficients, as NumPy's; complex under
    ``jit``). Leading zeros are dropped and trailing zeros give zero
    roots, which needs concrete coefficients; under ``jit`` pass
    ``strip_zeros=False`` (the leading coefficient must then be nonzero).

    >>> import fad.numpy as fnp
    >>> sorted(fnp.roots(fnp.array([1.0, -3.0, 2.0])).real.round(12).tolist())
    [1.0, 2.0]
    """
    p = _coefficients(p, "roots")
    trailing = 0
    if strip_zeros:
        c = concrete_or_none(p)
        if c is None:
            raise ValueError("fad.numpy.roots: stripping zero coefficients needs concrete "
                             "values; under fad.jit pass strip_zeros=False")
        nz = np.flatnonzero(np.asarray(c))
        if nz.size == 0:
            return zeros((0,), np.complex128)
        trailing = p.shape[0] - 1 - nz[-1]
        p = p[nz[0]:nz[-1] + 1]
    n = p.shape[0] - 1
    if n < 1:
        found = zeros((0,), np.complex128)
    else:
        first = S.reshape(M.negative(M.divide(p[1:], p[0])), (1, n))
        companion = S.concatenate([first, eye(n - 1, n, dtype=dtype_of(p))]) if n > 1 \
            else first
        found = linalg.eigvals(companion)
    out = S.concatenate([found, zeros((trailing,), dtype_of(found))]) if trailing else found
    c = concrete_or_none(out)
    return real(out) if c is not None and not bool(R.any(M.not_equal(imag(c), 0))) else out


def poly(seq_of_zeros: Any) -> Any:
    """The coefficients of the monic polynomial with the given roots (or, for
    a square matrix, its characteristic polynomial). Real roots (and a real
    matrix) give real coefficients.

    >>> import fad.numpy as fnp
    >>> fnp.poly(fnp.array([1.0, 2.0])).tolist()
    [1.0, -3.0, 2.0]
    """
    z = asarray(seq_of_zeros)
    real_matrix = False
    if z.ndim == 2 and z.shape[0] == z.shape[1] and z.shape[0] > 0:
        real_matrix = dtype_of(z).kind != "c"
        z = linalg.eigvals(z)
    elif z.ndim != 1:
        raise ValueError("fad.numpy.poly: input must be 1d or a non-empty square 2d array")
    if dtype_of(z).kind not in "fc":
        z = cast(z, np.dtype(np.float64))
    a = ones((1,), dtype_of(z))
    for k in range(z.shape[0]):
        a = C.convolve(a, S.concatenate([ones((1,), dtype_of(z)),
                                         M.negative(S.reshape(z[k], (1,)))]))
    return real(a) if real_matrix else a


def unwrap(p: Any, discont: Any = None, axis: int = -1, *, period: float = 2 * math.pi) -> Any:
    """Unwrap a phase: jumps along ``axis`` larger than ``max(discont,
    period / 2)`` are replaced by their remainder modulo ``period``. The
    corrections are piecewise constant, so the derivative is the identity.

    >>> import fad.numpy as fnp
    >>> fnp.unwrap(fnp.array([0.0, 5.0, 10.0]), period=6.0).tolist()
    [0.0, -1.0, -2.0]
    """
    p = asarray(p)
    if dtype_of(p).kind not in "fc":
        p = cast(p, np.dtype(np.float64))
    half = period / 2
    discont = half if discont is None else discont
    dd = R.diff(p, axis=axis)
    dd_mod = M.subtract(M.mod(M.add(dd, half), period), half)
    # NumPy maps the boundary -period/2 to +period/2 when the jump is positive
    dd_mod = M.where(M.logical_and(M.equal(dd_mod, -half), M.greater(dd, 0)), half, dd_mod)
    correct = M.where(M.less(M.absolute(dd), builtins.max(discont, half)), 0,
                      M.subtract(dd_mod, dd))
    widths = [(0, 0)] * p.ndim
    widths[axis % p.ndim] = (1, 0)  # the first sample is kept: no correction before it
    rest = S.pad(R.cumsum(correct, axis=axis), widths)
    return M.add(p, rest)


__all__ = ["poly", "polyadd", "polyder", "polyfit", "polyint", "polymul", "polysub",
           "polyval", "roots", "unwrap"]
