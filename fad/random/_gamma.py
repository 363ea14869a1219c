"""Gamma numbers (Marsaglia and Tsang's rejection method, in a ``while_loop``)
with implicit reparameterisation gradients, and ``beta`` and ``dirichlet`` made
from them.

The derivative of a sample ``x`` in the shape ``a`` holds the CDF fixed:
``dx/da = -(dP/da)(a, x) / p(a, x)``, ``P`` the regularised lower incomplete gamma
function and ``p`` the density. From ``P(a, x) = sum_n e^-x x^(a+n) / Gamma(a+n+1)``,

    dx/da = -sum_{n>=0} r_n (log x - digamma(a + n + 1)),
    r_n = x^(n+1) Gamma(a) / Gamma(a + n + 1)

(the density divided out term by term). ``r_n`` peaks near ``n = x - a`` with a
width of about ``sqrt(x)``; ``_TERMS`` consecutive terms around the peak are
summed, enough for about 16 digits while ``x < 250``. Above the tail ``x > a``
the terms change sign and cancel: the relative error there is about
``1e-16 P(a, x) / (x p(a, x))`` (``1e-12`` at the 1 - 1e-4 quantile of
``a = 1``). For ``a >= _LARGE`` the derivative of the Wilson-Hilferty
approximation ``x = a (1 - 1/(9a) + z / (3 sqrt a))^3`` at fixed ``z`` is used
instead (relative error below ``1e-4`` there).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import lax
from .. import numpy as fnp
from ..core.trace import bind
from ..primitives.special_functions import digamma_p, gammaln_p
from ..transforms.custom import custom_jvp
from ._continuous import _bound, _normal, float_dtype, unit_uniform
from ._keys import check_key, fold_in, shape_tuple, split

_TERMS = 256
_LARGE = 200.0


def _marsaglia_tsang(key: Any, alpha: Any) -> Any:
    """Gamma(``alpha``) numbers, ``alpha >= 1``: proposals ``d (1 + c z)^3`` of
    normal ``z``, accepted when ``log u < z^2/2 + d - d v + d log v``; round ``i``
    draws fresh proposals for every element from ``fold_in(key, i)`` and keeps
    the first accepted one, so an element's number does not depend on the others."""
    dt = alpha.dtype
    d = fnp.subtract(alpha, 1.0 / 3.0)
    c = fnp.divide(1.0, fnp.sqrt(fnp.multiply(d, 9.0)))

    def body(carry: tuple) -> tuple:
        i, x, done = carry
        kz, ku = split(fold_in(key, i))
        z = _normal(kz, alpha.shape, dt)
        u = unit_uniform(ku, alpha.shape, dt)
        v = fnp.add(fnp.multiply(c, z), 1.0)
        v = fnp.multiply(fnp.multiply(v, v), v)
        pos = fnp.greater(v, 0.0)
        log_v = fnp.log(fnp.where(pos, v, 1.0))
        bound = 0.5 * z * z + d - d * v + d * log_v
        ok = fnp.logical_and(pos, fnp.less(fnp.log1p(fnp.negative(u)), bound))
        take = fnp.logical_and(ok, fnp.logical_not(done))
        return i + 1, fnp.where(take, fnp.multiply(d, v), x), fnp.logical_or(done, ok)

    init = (fnp.asarray(np.uint32(0)), fnp.zeros(alpha.shape, dt),
            fnp.zeros(alpha.shape, bool))
    _, x, _ = lax.while_loop(lambda c: fnp.logical_not(fnp.all(c[2])), body, init)
    return x


def _sample(key: Any, a: Any) -> Any:
    """Gamma(``a``) numbers of ``a``'s shape; ``a < 1`` draws Gamma(``a + 1``)
    times ``u^(1/a)`` (Marsaglia and Tsang's boost)."""
    small = fnp.less(a, 1.0)
    kg, kb = split(key)
    x = _marsaglia_tsang(kg, fnp.where(small, fnp.add(a, 1.0), a))
    u = unit_uniform(kb, a.shape, a.dtype)
    boost = fnp.exp(fnp.divide(fnp.log1p(fnp.negative(u)), fnp.where(small, a, 1.0)))
    return fnp.where(small, fnp.multiply(x, boost), x)


def _dx_da_series(a: Any, x: Any) -> Any:
    pos = fnp.greater(x, 0.0)
    xs = fnp.where(pos, x, 1.0)
    log_x = fnp.expand_dims(fnp.log(xs), -1)
    start = fnp.maximum(fnp.floor(xs - a) - _TERMS // 2, 0.0)
    n = fnp.expand_dims(start, -1) + fnp.arange(_TERMS, dtype=a.dtype)
    a_ = fnp.expand_dims(a, -1)
    an1 = a_ + n + 1.0
    log_r = (n + 1.0) * log_x + bind(gammaln_p, a_) - bind(gammaln_p, an1)
    terms = fnp.exp(log_r) * (log_x - bind(digamma_p, an1))
    return fnp.where(pos, fnp.negative(fnp.sum(terms, axis=-1)), 0.0)


def _dx_da_wilson_hilferty(a: Any, x: Any) -> Any:
    # x = a w^3, w = 1 - 1/(9a) + z/(3 sqrt a); at fixed z,
    # dw/da = 1/(9a^2) - z/(6 a^1.5) and dx/da = w^3 + 3 a w^2 dw/da
    w = fnp.cbrt(fnp.divide(x, a))
    z = (w - 1.0 + 1.0 / (9.0 * a)) * 3.0 * fnp.sqrt(a)
    dw = 1.0 / (9.0 * a * a) - z / (6.0 * a * fnp.sqrt(a))
    return w * w * w + 3.0 * a * w * w * dw


def _dx_da(a: Any, x: Any) -> Any:
    large = fnp.greater_equal(a, _LARGE)
    return fnp.where(large, _dx_da_wilson_hilferty(fnp.where(large, a, _LARGE), x),
                     _dx_da_series(fnp.where(large, 1.0, a), fnp.where(large, 1.0, x)))


@custom_jvp
def _gamma(key: Any, a: Any) -> Any:
    return _sample(key, a)


@_gamma.defjvp
def _gamma_jvp(primals: tuple, tangents: tuple) -> tuple:
    key, a = primals
    x = _gamma(key, a)
    return x, fnp.multiply(tangents[1], _dx_da(a, x))


def _shape_param(x: Any, dt: np.dtype, shape: Any, fname: str) -> tuple:
    x = _bound(x, dt)
    shape = x.shape if shape is None else shape_tuple(shape, fname)
    return (x if x.shape == shape else fnp.broadcast_to(x, shape)), shape


def gamma(key: Any, a: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Gamma numbers of shape parameter ``a`` (scale 1); differentiable in ``a``
    by implicit reparameterisation (see the module's notes for the accuracy).

    >>> import fad, fad.random as fr
    >>> k = fr.key(0)
    >>> bool(fr.gamma(k, 2.0, (1000,)).mean() > 1.8)
    True
    >>> bool(fad.grad(lambda a: fr.gamma(k, a))(3.0) > 0)
    True
    """
    key = check_key(key, "gamma")
    a, _ = _shape_param(a, float_dtype(dtype, "gamma"), shape, "gamma")
    return _gamma(key, a)


def beta(key: Any, a: Any, b: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Beta(``a``, ``b``) numbers ``X / (X + Y)`` of gamma numbers ``X``, ``Y``;
    differentiable in ``a`` and ``b``.

    >>> import fad.random as fr
    >>> x = fr.beta(fr.key(0), 2.0, 3.0, (500,))
    >>> bool((x > 0).all() and (x < 1).all())
    True
    """
    key = check_key(key, "beta")
    dt = float_dtype(dtype, "beta")
    a, b = _bound(a, dt), _bound(b, dt)
    if shape is None:
        shape = fnp.broadcast_shapes(a.shape, b.shape)
    ka, kb = split(key)
    x = gamma(ka, a, shape, dt)
    y = gamma(kb, b, shape, dt)
    return fnp.divide(x, fnp.add(x, y))


def dirichlet(key: Any, alpha: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Dirichlet(``alpha``) vectors (along the last axis): gamma numbers divided by
    their sum; differentiable in ``alpha``.

    >>> import fad.random as fr, numpy as np
    >>> p = fr.dirichlet(fr.key(0), np.ones(3), (4,))
    >>> p.shape, bool(np.allclose(p.sum(-1), 1))
    ((4, 3), True)
    """
    key = check_key(key, "dirichlet")
    dt = float_dtype(dtype, "dirichlet")
    alpha = _bound(alpha, dt)
    if alpha.ndim < 1:
        raise ValueError("fad.random.dirichlet: alpha must have at least one axis (the "
                         "categories), got a scalar")
    batch = alpha.shape[:-1] if shape is None else shape_tuple(shape, "dirichlet")
    g = gamma(key, alpha, tuple(batch) + tuple(alpha.shape[-1:]), dt)
    return fnp.divide(g, fnp.sum(g, axis=-1, keepdims=True))


__all__ = ["gamma", "beta", "dirichlet"]
