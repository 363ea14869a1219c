"""Continuous samplers made from uniform numbers by a closed-form transformation
(inverse CDFs), so that each one is differentiable in its location and scale
parameters, and ``uniform``/``truncated_normal`` in their bounds, as JAX's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import numpy as fnp
from ..backends import x64
from ..core.trace import bind
from ..numpy._base import dtype_of
from ..numpy.linalg import _hermitian_derivative
from ..primitives.special_functions import erf_p, erfinv_p
from ..transforms.autodiff import stop_gradient
from ._keys import check_key, random_words, raw_bits, shape_tuple, unflat

_SQRT2 = float(np.sqrt(2.0))


def float_dtype(dtype: Any, fname: str) -> np.dtype:
    """``dtype`` (default ``float64``, ``float32`` in float32 mode), checked to be a
    real floating type."""
    dt = np.dtype(x64.narrow_dtype(np.float64) if dtype is None else dtype)
    if dt.kind != "f":
        raise ValueError(f"fad.random.{fname}: dtype must be a floating type, got {dt}")
    return dt


def unit_uniform(key: Any, shape: tuple[int, ...], dt: np.dtype, scale: int = 1) -> Any:
    """Uniform numbers in ``[0, 1)`` of ``shape`` (times ``scale``, a power of 2:
    exactly): the top mantissa-many random bits scaled by ``2**-nmant``, the same
    numbers as JAX's ``uniform`` (which bit-casts ``1.m`` and subtracts 1: exactly
    ``m * 2**-nmant``)."""
    nmant = np.finfo(dt).nmant
    if dt.itemsize == 8:  # the 64 bits are (hi << 32) | lo: m = hi * 2**20 + lo >> 12
        hi, lo = random_words(key, shape)
        u = fnp.add(fnp.multiply(fnp.astype(hi, dt), scale * 2.0 ** -32),
                    fnp.multiply(fnp.astype(fnp.right_shift(lo, 64 - nmant), dt),
                                 scale * 2.0 ** -nmant))
    else:
        nbits = dt.itemsize * 8
        m = fnp.right_shift(raw_bits(key, nbits, shape), nbits - nmant)
        u = fnp.multiply(fnp.astype(m, dt), np.asarray(scale * 2.0 ** -nmant, dt))
    return unflat(u, shape)


def _bound(x: Any, dt: np.dtype) -> Any:
    x = fnp.asarray(x)
    return x if x.dtype == dt else fnp.astype(x, dt)


def uniform(key: Any, shape: Any = (), dtype: Any = None, minval: Any = 0.0,
            maxval: Any = 1.0) -> Any:
    """Uniform numbers in ``[minval, maxval)``; differentiable in ``minval`` and
    ``maxval``; bit for bit ``jax.random.uniform``'s.

    >>> import fad.random as fr
    >>> fr.uniform(fr.key(42), (3,), "float32").tolist()
    [0.48870956897735596, 0.6797971725463867, 0.6162714958190918]
    """
    key = check_key(key, "uniform")
    dt = float_dtype(dtype, "uniform")
    shape = shape_tuple(shape, "uniform")
    lo, hi = _bound(minval, dt), _bound(maxval, dt)
    u = unit_uniform(key, shape, dt)
    out = fnp.maximum(lo, fnp.add(fnp.multiply(u, fnp.subtract(hi, lo)), lo))
    return out if out.shape == shape else fnp.broadcast_to(out, shape)


def _open_uniform(key: Any, shape: tuple[int, ...], dt: np.dtype, lo: float) -> Any:
    """Uniform in ``[lo, 1)`` (``lo > 0`` keeps logarithms finite)."""
    u = unit_uniform(key, shape, dt)
    return fnp.maximum(np.asarray(lo, dt), fnp.add(fnp.multiply(u, 1.0 - lo), lo))


def _sampler_args(key: Any, shape: Any, dtype: Any, fname: str) -> tuple:
    return check_key(key, fname), shape_tuple(shape, fname), float_dtype(dtype, fname)


def normal(key: Any, shape: Any = (), dtype: Any = None) -> Any:
    """Standard normal numbers: ``sqrt(2) erfinv(u)`` of ``u`` uniform in
    ``(-1, 1)`` (JAX's method: its streams up to ``erfinv``'s last bits).

    >>> import fad.random as fr
    >>> fr.normal(fr.key(0), (2, 3)).shape
    (2, 3)
    """
    key, shape, dt = _sampler_args(key, shape, dtype, "normal")
    return _normal(key, shape, dt)


def _normal(key: Any, shape: tuple[int, ...], dt: np.dtype) -> Any:
    # JAX's uniform(lo, 1) with lo = nextafter(-1, 0): u (1 - lo) + lo, where
    # 1 - lo rounds to 2 in every float type (so the scaling is exact and the
    # sum is at least lo: JAX's clamp at lo changes nothing)
    lo = np.nextafter(np.asarray(-1.0, dt), np.asarray(0.0, dt))
    u = fnp.add(unit_uniform(key, shape, dt, scale=2), lo)
    return fnp.multiply(bind(erfinv_p, u), np.asarray(_SQRT2, dt))


def truncated_normal(key: Any, lower: Any, upper: Any, shape: Any = None,
                     dtype: Any = None) -> Any:
    """Standard normal numbers conditioned on ``lower < x < upper``, by the
    inverse CDF; differentiable in ``lower`` and ``upper``.

    >>> import fad.random as fr
    >>> x = fr.truncated_normal(fr.key(0), -1.0, 2.0, (1000,))
    >>> bool((x > -1).all() and (x < 2).all())
    True
    """
    key = check_key(key, "truncated_normal")
    dt = float_dtype(dtype, "truncated_normal")
    lower, upper = _bound(lower, dt), _bound(upper, dt)
    shape = (fnp.broadcast_shapes(lower.shape, upper.shape) if shape is None
             else shape_tuple(shape, "truncated_normal"))
    a = bind(erf_p, fnp.divide(lower, _SQRT2))
    b = bind(erf_p, fnp.divide(upper, _SQRT2))
    u = uniform(key, shape, dt, a, b)
    out = fnp.multiply(bind(erfinv_p, u), np.asarray(_SQRT2, dt))
    return fnp.clip(out, _step_inside(lower, 1.0), _step_inside(upper, -1.0))


def _step_inside(x: Any, direction: float) -> Any:
    """``x`` moved by one or two units in the last place towards ``direction``
    (infinities stay): a bound just inside the open interval."""
    x = stop_gradient(x)
    info = np.finfo(x.dtype)
    step = fnp.clip(fnp.multiply(fnp.abs(x), float(info.eps)), float(info.smallest_normal),
                    float(info.max))
    return fnp.add(x, fnp.multiply(step, direction))


def exponential(key: Any, shape: Any = (), dtype: Any = None) -> Any:
    """Exponential numbers of rate 1: ``-log(1 - u)``.

    >>> import fad.random as fr
    >>> bool((fr.exponential(fr.key(0), (100,)) >= 0).all())
    True
    """
    key, shape, dt = _sampler_args(key, shape, dtype, "exponential")
    return fnp.negative(fnp.log1p(fnp.negative(unit_uniform(key, shape, dt))))


def laplace(key: Any, shape: Any = (), dtype: Any = None) -> Any:
    """Laplace numbers (density ``exp(-|x|) / 2``): ``-sign(u) log(1 - |u|)`` of
    ``u`` uniform in ``(-1, 1)``.

    >>> import fad.random as fr
    >>> fr.laplace(fr.key(0), (4,)).shape
    (4,)
    """
    key, shape, dt = _sampler_args(key, shape, dtype, "laplace")
    eps = float(np.finfo(dt).epsneg)
    u = fnp.maximum(np.asarray(eps - 1.0, dt),
                    fnp.subtract(fnp.multiply(unit_uniform(key, shape, dt), 2.0), 1.0))
    return fnp.negative(fnp.multiply(fnp.sign(u), fnp.log1p(fnp.negative(fnp.abs(u)))))


def logistic(key: Any, shape: Any = (), dtype: Any = None) -> Any:
    """Logistic numbers: ``log(u / (1 - u))``.

    >>> import fad.random as fr
    >>> fr.logistic(fr.key(0), (4,)).dtype
    dtype('float64')
    """
    key, shape, dt = _sampler_args(key, shape, dtype, "logistic")
    u = _open_uniform(key, shape, dt, float(np.finfo(dt).tiny))
    return fnp.log(fnp.divide(u, fnp.subtract(1.0, u)))


def cauchy(key: Any, shape: Any = (), dtype: Any = None) -> Any:
    """Standard Cauchy numbers: ``tan(pi (u - 1/2))``.

    >>> import fad.random as fr
    >>> fr.cauchy(fr.key(0), (4,), "float32").dtype
    dtype('float32')
    """
    key, shape, dt = _sampler_args(key, shape, dtype, "cauchy")
    u = _open_uniform(key, shape, dt, float(np.finfo(dt).eps))
    return fnp.tan(fnp.multiply(fnp.subtract(u, 0.5), np.pi))


def gumbel(key: Any, shape: Any = (), dtype: Any = None, mode: str = "low") -> Any:
    """Standard Gumbel (maximum) numbers: ``-log(-log(u))``; ``mode="high"``
    draws ``1 - u`` instead, more precise for large values.

    >>> import fad.random as fr
    >>> fr.gumbel(fr.key(0), (2,)).shape
    (2,)
    """
    if mode not in ("low", "high"):
        raise ValueError(f"fad.random.gumbel: mode must be 'low' or 'high', got {mode!r}")
    key, shape, dt = _sampler_args(key, shape, dtype, "gumbel")
    if mode == "low":
        return gumbel_noise(key, shape, dt)
    # 'high': -log(-log(1 - v)) with log1p, precise where u = 1 - v is near 1
    v = _open_uniform(key, shape, dt, float(np.finfo(dt).tiny))
    return fnp.negative(fnp.log(fnp.negative(fnp.log1p(fnp.negative(v)))))


def gumbel_noise(key: Any, shape: tuple[int, ...], dt: np.dtype) -> Any:
    """Gumbel numbers from a checked key (``categorical``, ``choice``)."""
    u = _open_uniform(key, shape, dt, float(np.finfo(dt).tiny))
    return fnp.negative(fnp.log(fnp.negative(fnp.log(u))))


def multivariate_normal(key: Any, mean: Any, cov: Any, shape: Any = None,
                        dtype: Any = None, method: str = "cholesky") -> Any:
    """Normal vectors of ``mean`` (``(..., n)``) and covariance ``cov``
    (``(..., n, n)``): ``mean + F z`` with ``F F^T = cov`` (``method``:
    ``"cholesky"``, ``"eigh"`` or ``"svd"``); differentiable in both.

    >>> import fad.random as fr, numpy as np
    >>> fr.multivariate_normal(fr.key(0), np.zeros(2), np.eye(2), (5,)).shape
    (5, 2)
    """
    key = check_key(key, "multivariate_normal")
    if method not in ("cholesky", "eigh", "svd"):
        raise ValueError("fad.random.multivariate_normal: method must be 'cholesky', "
                         f"'eigh' or 'svd', got {method!r}")
    mean, cov = fnp.asarray(mean), fnp.asarray(cov)
    if mean.ndim < 1 or cov.ndim < 2 or cov.shape[-2:] != mean.shape[-1:] * 2:
        raise ValueError("fad.random.multivariate_normal: mean must be (..., n) and cov "
                         f"(..., n, n), got {tuple(mean.shape)} and {tuple(cov.shape)}")
    dt = float_dtype(dtype if dtype is not None else
                     np.result_type(dtype_of(mean), dtype_of(cov), np.float16),
                     "multivariate_normal")
    mean, cov = _bound(mean, dt), _bound(cov, dt)
    cov = _hermitian_derivative(cov)  # (a symmetric gradient, as JAX's)
    batch = fnp.broadcast_shapes(mean.shape[:-1], cov.shape[:-2])
    shape = batch if shape is None else shape_tuple(shape, "multivariate_normal")
    if method == "cholesky":
        factor = fnp.linalg.cholesky(cov)
    elif method == "eigh":
        w, v = fnp.linalg.eigh(cov)
        factor = fnp.multiply(v, fnp.expand_dims(fnp.sqrt(fnp.maximum(w, 0.0)), -2))
    else:
        u, s, _ = fnp.linalg.svd(cov)
        factor = fnp.multiply(u, fnp.expand_dims(fnp.sqrt(s), -2))
    z = _normal(key, tuple(shape) + tuple(mean.shape[-1:]), dt)
    return fnp.add(mean, fnp.squeeze(fnp.matmul(factor, fnp.expand_dims(z, -1)), -1))


__all__ = ["uniform", "normal", "truncated_normal", "exponential", "laplace", "logistic",
           "cauchy", "gumbel", "multivariate_normal"]
