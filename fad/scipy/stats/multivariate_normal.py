"""The multivariate normal distribution (``scipy.stats.multivariate_normal``):
mean ``mean`` (a vector, a number, or ``None`` for zeros) and covariance ``cov``
(a positive-definite matrix, a vector of variances, or a number times the
identity). ``x`` holds points on its last axis; as in SciPy, a 1-d ``x`` is
one point (or, in one dimension, several) and the result is squeezed.
Differentiable in ``x``, ``mean`` and ``cov`` (through a Cholesky factor);
``allow_singular=True`` is not supported.

>>> import fad, fad.numpy as fnp, fad.scipy.stats as fst
>>> round(float(fst.multivariate_normal.logpdf(fnp.zeros(2), cov=fnp.eye(2))), 12)  # -log 2 pi
-1.837877066409
"""

from __future__ import annotations

import math
from typing import Any

from ... import numpy as fnp
from ...numpy.linalg import _hermitian_derivative
from ._common import arguments
from ._family import exponential_of


def _parameters(x: Any, mean: Any, cov: Any) -> tuple:
    """``x`` as ``(n, d)`` points, the batch shape, ``mean`` as ``(d,)``, ``cov``
    as ``(d, d)`` (SciPy's rules)."""
    if mean is None:
        x, cov = arguments("multivariate_normal.logpdf", x, cov)
        dim = cov.shape[0] if cov.ndim else (x.shape[-1] if x.ndim > 1 else 1)
        mean = fnp.zeros(dim, x.dtype)
    else:
        x, mean, cov = arguments("multivariate_normal.logpdf", x, mean, cov)
        mean = fnp.ravel(mean)
        dim = mean.shape[0]
    if cov.ndim == 0:
        cov = cov * fnp.eye(dim, dtype=cov.dtype)
    elif cov.ndim == 1:
        cov = fnp.diag(cov)
    if cov.shape != (dim, dim):
        raise ValueError(f"fad.scipy.stats.multivariate_normal: cov must be ({dim}, {dim}) "
                         f"for a mean of {dim} components (got shape {cov.shape})")
    if x.ndim == 0:
        x = fnp.reshape(x, (1,))
    if x.ndim == 1:
        x = x[:, None] if dim == 1 else x[None, :]
    if x.shape[-1] != dim:
        raise ValueError(f"fad.scipy.stats.multivariate_normal: x must hold points of {dim} "
                         f"components on its last axis (got shape {x.shape})")
    batch = x.shape[:-1]
    return fnp.reshape(x, (-1, dim)), batch, mean, cov


def logpdf(x: Any, mean: Any = None, cov: Any = 1, allow_singular: bool = False) -> Any:
    """``-(d log(2 pi) + log det(cov) + (x - mean)^T cov^-1 (x - mean)) / 2``.

    >>> import fad, fad.numpy as fnp, fad.scipy.stats as fst
    >>> cov = fnp.array([[2.0, 0.5], [0.5, 1.0]])
    >>> round(float(fst.multivariate_normal.logpdf(fnp.array([1.0, -1.0]), fnp.zeros(2), cov)), 9)
    -3.260542103
    """
    if allow_singular:
        raise NotImplementedError("fad.scipy.stats.multivariate_normal: allow_singular=True "
                                  "is not supported (cov must be positive definite)")
    x, batch, mean, cov = _parameters(x, mean, cov)
    chol = fnp.linalg.cholesky(_hermitian_derivative(cov))  # (a symmetric gradient, as JAX's)
    z = fnp.linalg.solve(chol, (x - mean).T)  # L z = x - mean: |z|^2 is the quadratic form
    log_det = 2 * fnp.sum(fnp.log(fnp.diagonal(chol)))
    dim = mean.shape[0]
    out = -0.5 * (dim * math.log(2 * math.pi) + log_det + fnp.sum(z * z, axis=0))
    return fnp.squeeze(fnp.reshape(out, batch))


pdf = exponential_of(logpdf, "pdf", "The density ``exp(logpdf)``.",
                     "fst.multivariate_normal.pdf(fnp.zeros((3, 1)), 0.0, 1.0).shape", "(3,)")


__all__ = ["logpdf", "pdf"]


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
