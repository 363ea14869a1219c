"""Samplers made from the others by a transformation (each differentiable in its
parameters where the ones it is made from are): ``chisquare t f lognormal
pareto weibull_min rayleigh maxwell triangular wald geometric rademacher
orthogonal``."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import numpy as fnp
from ._continuous import _bound, _normal, float_dtype, unit_uniform
from ._discrete import _int_dtype
from ._gamma import gamma
from ._keys import check_key, shape_tuple, split


def _params(key: Any, fname: str, dtype: Any, shape: Any, *params: Any) -> tuple:
    """The checked key, the float dtype, the parameters in it and the shape
    (``None``: the parameters' broadcast shape)."""
    key = check_key(key, fname)
    dt = float_dtype(dtype, fname)
    ps = [_bound(p, dt) for p in params]
    shape = (fnp.broadcast_shapes(*(p.shape for p in ps)) if shape is None
             else shape_tuple(shape, fname))
    return key, dt, ps, tuple(shape)


def _exponential(key: Any, shape: tuple, dt: np.dtype) -> Any:
    return fnp.negative(fnp.log1p(fnp.negative(unit_uniform(key, shape, dt))))


def chisquare(key: Any, df: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Chi-square numbers with ``df`` degrees of freedom: ``2 gamma(df / 2)``.

    >>> import fad.random as fr
    >>> fr.chisquare(fr.key(0), 3.0, (5,)).shape
    (5,)
    """
    key, dt, (df,), shape = _params(key, "chisquare", dtype, shape, df)
    return fnp.multiply(gamma(key, fnp.multiply(df, 0.5), shape, dt), 2.0)


def t(key: Any, df: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Student's t numbers: ``z sqrt(df / c)``, ``z`` normal, ``c`` chi-square.

    >>> import fad.random as fr
    >>> fr.t(fr.key(0), 5.0, (2, 2)).shape
    (2, 2)
    """
    key, dt, (df,), shape = _params(key, "t", dtype, shape, df)
    kz, kc = split(key)
    c = chisquare(kc, df, shape, dt)
    return fnp.multiply(_normal(kz, shape, dt), fnp.sqrt(fnp.divide(df, c)))


def f(key: Any, dfnum: Any, dfden: Any, shape: Any = None, dtype: Any = None) -> Any:
    """F numbers: the ratio of two chi-square numbers, each over its degrees of
    freedom.

    >>> import fad.random as fr
    >>> bool((fr.f(fr.key(0), 4.0, 7.0, (10,)) > 0).all())
    True
    """
    key, dt, (dn, dd), shape = _params(key, "f", dtype, shape, dfnum, dfden)
    kn, kd = split(key)
    num = fnp.divide(chisquare(kn, dn, shape, dt), dn)
    return fnp.divide(num, fnp.divide(chisquare(kd, dd, shape, dt), dd))


def lognormal(key: Any, sigma: Any = 1.0, shape: Any = None, dtype: Any = None) -> Any:
    """Log-normal numbers: ``exp(sigma z)``.

    >>> import fad.random as fr
    >>> bool((fr.lognormal(fr.key(0), 0.5, (10,)) > 0).all())
    True
    """
    key, dt, (sigma,), shape = _params(key, "lognormal", dtype, shape, sigma)
    return fnp.exp(fnp.multiply(sigma, _normal(key, shape, dt)))


def pareto(key: Any, b: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Pareto numbers of shape ``b`` (support ``x >= 1``): ``exp(e / b)``, ``e``
    exponential.

    >>> import fad.random as fr
    >>> bool((fr.pareto(fr.key(0), 3.0, (10,)) >= 1).all())
    True
    """
    key, dt, (b,), shape = _params(key, "pareto", dtype, shape, b)
    return fnp.exp(fnp.divide(_exponential(key, shape, dt), b))


def weibull_min(key: Any, scale: Any, concentration: Any, shape: Any = (),
                dtype: Any = None) -> Any:
    """Weibull numbers: ``scale e^(1 / concentration)``, ``e`` exponential.

    >>> import fad.random as fr
    >>> fr.weibull_min(fr.key(0), 2.0, 1.5, (3,)).shape
    (3,)
    """
    key, dt, (sc, k), shape = _params(key, "weibull_min", dtype, shape, scale, concentration)
    return fnp.multiply(sc, fnp.power(_exponential(key, shape, dt), fnp.divide(1.0, k)))


def rayleigh(key: Any, scale: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Rayleigh numbers: ``scale sqrt(2 e)``, ``e`` exponential.

    >>> import fad.random as fr
    >>> fr.rayleigh(fr.key(0), 2.0, (3,)).shape
    (3,)
    """
    key, dt, (scale,), shape = _params(key, "rayleigh", dtype, shape, scale)
    return fnp.multiply(scale, fnp.sqrt(fnp.multiply(_exponential(key, shape, dt), 2.0)))


def maxwell(key: Any, shape: Any = (), dtype: Any = None) -> Any:
    """Maxwell numbers: the length of a standard normal 3-vector.

    >>> import fad.random as fr
    >>> fr.maxwell(fr.key(0), (4,)).shape
    (4,)
    """
    key, dt, _, shape = _params(key, "maxwell", dtype, shape)
    z = _normal(key, shape + (3,), dt)
    return fnp.sqrt(fnp.sum(fnp.multiply(z, z), axis=-1))


def triangular(key: Any, left: Any, mode: Any, right: Any, shape: Any = None,
               dtype: Any = None) -> Any:
    """Triangular numbers on ``[left, right]`` peaking at ``mode``, by the
    inverse CDF.

    >>> import fad.random as fr
    >>> x = fr.triangular(fr.key(0), 0.0, 1.0, 3.0, (100,))
    >>> bool((x >= 0).all() and (x <= 3).all())
    True
    """
    key, dt, (lo, mo, hi), shape = _params(key, "triangular", dtype, shape, left, mode, right)
    u = unit_uniform(key, shape, dt)
    width = fnp.subtract(hi, lo)
    below = fnp.less(u, fnp.divide(fnp.subtract(mo, lo), width))
    left_arm = fnp.add(lo, fnp.sqrt(u * width * fnp.subtract(mo, lo)))
    right_arm = fnp.subtract(hi, fnp.sqrt((1.0 - u) * width * fnp.subtract(hi, mo)))
    return fnp.where(below, left_arm, right_arm)


def wald(key: Any, mean: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Wald (inverse Gaussian) numbers of ``mean`` and shape 1 (Michael, Schucany
    and Haas's transformation of a chi-square(1) number, with a coin).

    >>> import fad.random as fr
    >>> bool((fr.wald(fr.key(0), 0.7, (10,)) > 0).all())
    True
    """
    key, dt, (mu,), shape = _params(key, "wald", dtype, shape, mean)
    kz, ku = split(key)
    z = _normal(kz, shape, dt)
    y = fnp.multiply(z, z)
    my = fnp.multiply(mu, y)
    x = mu + 0.5 * mu * my - 0.5 * mu * fnp.sqrt(4.0 * my + my * my)
    u = unit_uniform(ku, shape, dt)
    return fnp.where(fnp.less_equal(u, fnp.divide(mu, fnp.add(mu, x))), x,
                     fnp.divide(fnp.multiply(mu, mu), x))


def geometric(key: Any, p: Any, shape: Any = None, dtype: Any = None) -> Any:
    """The number of Bernoulli(``p``) trials up to the first success (1, 2, ...):
    ``floor(log(1 - u) / log(1 - p)) + 1``.

    >>> import fad.random as fr
    >>> bool((fr.geometric(fr.key(0), 0.3, (10,)) >= 1).all())
    True
    """
    dt = _int_dtype(dtype, "geometric")
    key, fdt, (p,), shape = _params(key, "geometric", None, shape, p)
    certain = fnp.greater_equal(p, 1.0)
    log_q = fnp.log1p(fnp.negative(fnp.where(certain, 0.5, p)))
    trials = fnp.floor(fnp.divide(fnp.log1p(fnp.negative(unit_uniform(key, shape, fdt))),
                                  log_q))
    return fnp.astype(fnp.where(certain, 1.0, fnp.add(trials, 1.0)), dt)


def rademacher(key: Any, shape: Any = (), dtype: Any = None) -> Any:
    """Random signs, -1 or 1 with equal probability.

    >>> import fad.random as fr
    >>> sorted(set(fr.rademacher(fr.key(0), (50,)).tolist()))
    [-1, 1]
    """
    key, _, _, shape = _params(key, "rademacher", None, shape)
    dt = _int_dtype(dtype, "rademacher")
    heads = fnp.less(unit_uniform(key, shape, np.dtype(np.float32)), 0.5)
    return fnp.astype(fnp.where(heads, 1, -1), dt)


def orthogonal(key: Any, n: int, shape: Any = (), dtype: Any = None, m: int | None = None
               ) -> Any:
    """Uniformly (Haar) distributed ``n x m`` matrices with orthonormal columns
    (rows if ``m > n``; ``m`` defaults to ``n``): the ``Q`` of a normal matrix's
    QR decomposition, its columns' signs set by ``R``'s diagonal.

    >>> import fad.random as fr, numpy as np
    >>> q = fr.orthogonal(fr.key(0), 3)
    >>> bool(np.allclose(q @ q.T, np.eye(3)))
    True
    """
    key, dt, _, shape = _params(key, "orthogonal", dtype, shape)
    m = n if m is None else m
    rows, cols = max(n, m), min(n, m)
    q, r = fnp.linalg.qr(_normal(key, shape + (rows, cols), dt))
    q = fnp.multiply(q, fnp.expand_dims(fnp.sign(fnp.diagonal(r, axis1=-2, axis2=-1)), -2))
    return q if n >= m else fnp.swapaxes(q, -1, -2)


__all__ = ["chisquare", "t", "f", "lognormal", "pareto", "weibull_min", "rayleigh", "maxwell",
           "triangular", "wald", "geometric", "rademacher", "orthogonal"]
