"""Special functions: ``erf erfc erfcx erfinv gammaln digamma polygamma gamma i0e i1e
ndtri log_ndtr`` (one operand) and ``betaln beta gammainc gammaincc gammaincinv
gammainccinv betainc betaincinv betainccinv zeta`` (several, broadcast together).

They are computed by the backend's SciPy-like library: ``scipy.special`` for
NumPy arrays, ``cupyx.scipy.special`` for CuPy arrays (imported on first use:
importing ``scipy.special`` costs more than importing fad); any other namespace
raises ``NotImplementedError`` naming the primitive and the backend. Operands
are floats (``fad.scipy.special`` promotes integers to the default float, as
JAX does), and a result keeps its operand's dtype (SciPy computes float16 in
float32, and polygamma of float32 in float64: cast back).

Each derivative is written with these primitives and the elementwise ones, so
derivatives of every order work: gammaln' = digamma, digamma' = polygamma(1, .),
polygamma(n, .)' = polygamma(n + 1, .). ``gammainc`` in ``a`` and ``betainc`` in
``a`` and ``b`` (no closed form) sum their power series term by term (``gammainc``
switches to a Gauss-Laguerre rule for large ``x``). One partial raises
``NotImplementedError`` when asked for: ``zeta`` in ``x``.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Callable

import numpy as np

from ..backends import backend_for
from ..core.ir import ShapedArray
from ..core.primitive import Primitive
from ..core.trace import _np_dtype, bind
from . import shapes
from .builders import defjvp, elementwise_batch, unary
from .elementwise import eq, exp, log, log1p_p, select, sign
from .reductions import reduce_sum_p
from .structural import broadcast_to, reshape

_FOUND: dict[tuple[int, str], Callable] = {}


def _library_function(xp: Any, prim: str) -> Callable:
    """The function ``prim`` of the special-function library of namespace ``xp``
    (the libraries name them as the primitives are named)."""
    return backend_for(xp).special(prim)


def _same_dtype(result: Any, like: Any) -> Any:
    dtype = getattr(like, "dtype", None)  # None: a Python scalar (a folded literal)
    return result if dtype is None or result.dtype == dtype else result.astype(dtype)


def _kernel_on(xp: Any, prim: str, wrap: Callable) -> Callable:
    """``wrap(function)`` for namespace ``xp``, found once per namespace."""
    kernel = _FOUND.get((id(xp), prim))
    if kernel is None:
        kernel = _FOUND[id(xp), prim] = wrap(_library_function(xp, prim))
    return kernel


def _unary_kernel(ufunc: Callable) -> Callable:
    """A ufunc call that keeps its operand's dtype and accepts ``out=``."""
    def kernel(x: Any, out: Any = None) -> Any:
        return ufunc(x, out=out) if out is not None else _same_dtype(ufunc(x), x)
    return kernel


def _lookup(prim: str) -> Callable:
    """``lookup(xp)``: the kernel of the unary primitive ``prim`` on ``xp``."""
    return lambda xp: _kernel_on(xp, prim, _unary_kernel)


_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)
_SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2

# erf' = 2/sqrt(pi) e^{-x^2}
erf_p = unary("erf", _lookup("erf"),
              lambda g, ans, x: g * (_TWO_OVER_SQRT_PI * exp(-(x * x))))
# erfc = 1 - erf: erfc' = -erf'
erfc_p = unary("erfc", _lookup("erfc"),
               lambda g, ans, x: g * (-_TWO_OVER_SQRT_PI * exp(-(x * x))))
# the scaled complement erfcx = e^{x^2} erfc(x): erfcx' = 2 x erfcx - 2/sqrt(pi)
erfcx_p = unary("erfcx", _lookup("erfcx"),
                lambda g, ans, x: g * (2 * x * ans - _TWO_OVER_SQRT_PI))
# the inverse function's derivative 1 / erf'(erfinv(x)) = sqrt(pi)/2 e^{erfinv(x)^2}
erfinv_p = unary("erfinv", _lookup("erfinv"),
                 lambda g, ans, x: g * (_SQRT_PI_OVER_TWO * exp(ans * ans)))
# gammaln' = digamma (the logarithmic derivative of gamma)
gammaln_p = unary("gammaln", _lookup("gammaln"),
                  lambda g, ans, x: g * bind(digamma_p, x))
# digamma' = polygamma(1, x) (the trigamma function)
digamma_p = unary("digamma", _lookup("digamma"),
                  lambda g, ans, x: g * bind(polygamma_p, 1, x))


def _library_nary(name: str, *partials: Callable | None) -> Primitive:
    """An elementwise primitive of several operands (broadcast together) computed
    by the library's function ``name``; its result has the last operand's dtype
    (the front ends pass floats of one dtype, or an integer order first)."""
    def aval(*xs: ShapedArray) -> ShapedArray:
        return ShapedArray(shapes.broadcast_shapes(*(x.shape for x in xs)), xs[-1].dtype)

    def keep_dtype(fn: Callable) -> Callable:
        return lambda *xs: _same_dtype(fn(*xs), xs[-1])

    def kernel(xp: Any) -> Callable:
        return _kernel_on(xp, name, keep_dtype)

    prim = Primitive(name, lambda xp, *xs: kernel(xp)(*xs), aval)
    defjvp(prim, *partials)
    prim.kernel = kernel
    prim.batch = elementwise_batch(prim)
    return prim


def _no_partial(prim: str, operand: str, why: str) -> Callable:
    """The partial of an operand that has no derivative rule: raises on use."""
    def partial(*args: Any, **params: Any) -> Any:
        raise NotImplementedError(f"the derivative of {prim} in {operand} is not "
                                  f"implemented ({why}); differentiate in the other operands")
    return partial


def _where_zero(x: Any, at_zero: float, f: Callable) -> Any:
    """``f(x)``, with ``at_zero`` (the limit) where ``x == 0``; ``f`` sees 1 there
    (the double where: no NaN reaches the derivative)."""
    zero = eq(x, 0.0)
    return select(zero, at_zero + 0 * x, f(select(zero, 1.0 + 0 * x, x)))


# polygamma(n, x) = d^n/dx^n digamma(x); the order n is an integer operand (no
# derivative), broadcast with x; d/dx polygamma(n, x) = polygamma(n + 1, x)
polygamma_p = _library_nary("polygamma", None,
                            lambda g, ans, n, x: g * bind(polygamma_p, n + 1, x))

# gamma' = gamma digamma
gamma_p = unary("gamma", _lookup("gamma"), lambda g, ans, x: g * (ans * bind(digamma_p, x)))

# the exponentially scaled modified Bessel functions i0e = e^{-|x|} I0, i1e = e^{-|x|} I1:
# I0' = I1 gives i0e' = i1e - sign(x) i0e; I1' = I0 - I1 / x gives
# i1e' = i0e - i1e (sign(x) + 1/x), whose limit at 0 is 1/2
i0e_p = unary("i0e", _lookup("i0e"),
              lambda g, ans, x: g * (bind(i1e_p, x) - sign(x) * ans))
i1e_p = unary("i1e", _lookup("i1e"), lambda g, ans, x: g * (
    bind(i0e_p, x) - sign(x) * ans - _where_zero(x, 0.5, lambda s: bind(i1e_p, s) / s)))

_SQRT_2PI = math.sqrt(2 * math.pi)
# ndtri is the inverse of ndtr, whose derivative is the normal density
ndtri_p = unary("ndtri", _lookup("ndtri"),
                lambda g, ans, x: g * (_SQRT_2PI * exp(ans * ans * 0.5)))
# log_ndtr' = phi(x) / ndtr(x) = exp(-x^2/2 - log_ndtr(x)) / sqrt(2 pi): no overflow
# in either tail
log_ndtr_p = unary("log_ndtr", _lookup("log_ndtr"),
                   lambda g, ans, x: g * (exp(-(x * x) * 0.5 - ans) * (1 / _SQRT_2PI)))


def _digamma_sum(a: Any, b: Any) -> Any:
    return bind(digamma_p, a) - bind(digamma_p, a + b)


# betaln(a, b) = gammaln(a) + gammaln(b) - gammaln(a + b), computed without the
# cancellation; beta = exp(betaln) up to sign: d/da log|B| = digamma(a) - digamma(a + b)
betaln_p = _library_nary("betaln", lambda g, ans, a, b: g * _digamma_sum(a, b),
                         lambda g, ans, a, b: g * _digamma_sum(b, a))
beta_p = _library_nary("beta", lambda g, ans, a, b: g * (ans * _digamma_sum(a, b)),
                       lambda g, ans, a, b: g * (ans * _digamma_sum(b, a)))


def _xlogy(x: Any, y: Any) -> Any:
    """``x log(y)``, 0 where ``x == 0`` (also at ``y == 0``)."""
    return _where_zero(x, 0.0, lambda s: s * log(y))


def _gamma_density(a: Any, x: Any) -> Any:
    """``d/dx gammainc(a, x) = x^(a-1) e^-x / Gamma(a)``."""
    return exp(_xlogy(a - 1, x) - x - bind(gammaln_p, a))


# d/da gammainc sums a series of this many terms where x <= a + 20, and uses a
# Gauss-Laguerre rule of this many nodes above (where the series would need more)
GAMMAINC_SERIES_TERMS = 256
LAGUERRE_NODES = 64


@functools.cache
def _laguerre_rule(dtype: np.dtype) -> tuple:
    """The Gauss-Laguerre nodes and weights in ``dtype`` (computed on first use)."""
    nodes, weights = np.polynomial.laguerre.laggauss(LAGUERRE_NODES)
    return nodes.astype(dtype), weights.astype(dtype)


def _as_column(v: Any, shape: tuple) -> Any:
    return reshape(broadcast_to(v, shape), shape + (1,))


def _gammainc_da_series(a: Any, x: Any, shape: tuple) -> Any:
    """``d/da P(a, x)`` from ``P(a, x) = sum_n x^(a+n) e^-x / Gamma(a+n+1)``
    differentiated term by term: each term times ``log x - digamma(a + n + 1)``."""
    a, x = _as_column(a, shape), _as_column(x, shape)
    an = a + np.arange(1, GAMMAINC_SERIES_TERMS + 1, dtype=_np_dtype(a.dtype))
    log_x = log(x)
    term = exp((an - 1) * log_x - x - bind(gammaln_p, an))
    return bind(reduce_sum_p, term * (log_x - bind(digamma_p, an)), axes=(len(shape),))


def _gammainc_da_quadrature(a: Any, x: Any, shape: tuple) -> Any:
    """``d/da P = -d/da Q`` with ``Q = int_x^inf t^(a-1) e^-t dt / Gamma(a)``:
    ``-x^(a-1) e^-x / Gamma(a) int_0^inf e^-u (1 + u/x)^(a-1) (log(x + u) - digamma(a)) du``,
    by Gauss-Laguerre after the change ``u = s / lam``, ``lam = 1 - (a-1)/x`` (the
    integrand's own decay rate, so that the rule sees a slowly varying factor)."""
    nodes, weights = _laguerre_rule(_np_dtype(a.dtype))
    prefactor = exp((a - 1) * log(x) - x - bind(gammaln_p, a))
    lam = 1 - (a - 1) / x
    a_, x_, lam_ = _as_column(a, shape), _as_column(x, shape), _as_column(lam, shape)
    u = nodes / lam_
    ratio = u / x_
    weight = exp((a_ - 1) * (bind(log1p_p, ratio) - ratio))  # e^{(1-lam) u} (1 + u/x)^(a-1)
    integrand = weight * (log(x_ + u) - bind(digamma_p, a_))
    integral = bind(reduce_sum_p, integrand * weights,
                    axes=(len(shape),)) / lam
    return -(prefactor * integral)


def _gammainc_da(a: Any, x: Any) -> Any:
    """``d/da P(a, x)``: 0 at ``x = 0``, a series up to ``x = a + 20``, quadrature
    above; each branch sees only arguments in its own range (the double where)."""
    shape = shapes.broadcast_shapes(a.shape, x.shape)
    positive, above = x > 0, x > a + 20
    one = 1.0 + 0 * x
    series = _gammainc_da_series(a, select(positive & ~above, x, one), shape)
    quadrature = _gammainc_da_quadrature(a, select(above, x, a + 30 + 0 * x), shape)
    return select(above, quadrature, select(positive, series, 0 * series))


# gammainc(a, x) = P(a, x), the regularised lower incomplete gamma function;
# gammaincc = Q = 1 - P
gammainc_p = _library_nary("gammainc", lambda g, ans, a, x: g * _gammainc_da(a, x),
                           lambda g, ans, a, x: g * _gamma_density(a, x))
gammaincc_p = _library_nary("gammaincc", lambda g, ans, a, x: -(g * _gammainc_da(a, x)),
                            lambda g, ans, a, x: -(g * _gamma_density(a, x)))

# gammaincinv(a, p) = x with P(a, x) = p: the inverse function's derivatives,
# dx/dp = 1 / (dP/dx) and dx/da = -(dP/da) / (dP/dx), at x = the answer
gammaincinv_p = _library_nary(
    "gammaincinv", lambda g, ans, a, p: -(g * _gammainc_da(a, ans) / _gamma_density(a, ans)),
    lambda g, ans, a, p: g / _gamma_density(a, ans))
# gammainccinv(a, q) = x with Q(a, x) = q: dQ/dx = -density and dQ/da = -dP/da,
# so dx/dq = -1 / density and dx/da is gammaincinv's
gammainccinv_p = _library_nary(
    "gammainccinv", lambda g, ans, a, q: -(g * _gammainc_da(a, ans) / _gamma_density(a, ans)),
    lambda g, ans, a, q: -(g / _gamma_density(a, ans)))


def _beta_density(a: Any, b: Any, x: Any) -> Any:
    """``d/dx betainc(a, b, x) = x^(a-1) (1-x)^(b-1) / B(a, b)``."""
    return exp(_xlogy(a - 1, x) + _where_zero(b - 1, 0.0, lambda s: s * bind(log1p_p, -x))
               - bind(betaln_p, a, b))


# d/da and d/db betainc sum this many terms of the series below (of I_x(a, b)
# or of 1 - I_{1-x}(b, a), whichever converges sooner)
BETAINC_SERIES_TERMS = 1024


def _betainc_dab_series(a: Any, b: Any, x: Any, shape: tuple) -> tuple:
    """``(dI/da, dI/db)`` of ``I_x(a, b) = sum_m T_m``, with
    ``T_m = x^(a+m) (1-x)^b Gamma(a+b+m) / (Gamma(b) Gamma(a+m+1))`` (the power
    series of the incomplete beta function), differentiated term by term:
    ``d log T_m / da = log x + digamma(a+b+m) - digamma(a+m+1)`` and
    ``d log T_m / db = log(1-x) + digamma(a+b+m) - digamma(b)``."""
    a, b, x = _as_column(a, shape), _as_column(b, shape), _as_column(x, shape)
    m = np.arange(BETAINC_SERIES_TERMS, dtype=_np_dtype(a.dtype))
    am, abm = a + m, a + b + m
    log_x, log_1mx = log(x), bind(log1p_p, -x)
    term = exp(am * log_x + b * log_1mx + bind(gammaln_p, abm) - bind(gammaln_p, b)
               - bind(gammaln_p, am + 1))
    psi_abm = bind(digamma_p, abm)
    axes = (len(shape),)
    da = bind(reduce_sum_p, term * (log_x + psi_abm - bind(digamma_p, am + 1)), axes=axes)
    db = bind(reduce_sum_p, term * (log_1mx + psi_abm - bind(digamma_p, b)), axes=axes)
    return da, db


def _betainc_series_cost(a: Any, b: Any, x: Any) -> Any:
    """About how many terms the series of ``I_x(a, b)`` needs: its terms grow while
    their ratio ``x (a+b+m) / (a+m+1)`` exceeds 1, up to ``m = (x (a+b) - a - 1) / (1-x)``,
    then fall like ``x^m``."""
    peak = (x * (a + b) - a - 1) / (1 - x)
    return select(peak > 0, peak, 0 * peak) - 40 / log(x)


def _betainc_dab(a: Any, b: Any, x: Any) -> tuple:
    """``(dI/da, dI/db)`` of ``I_x(a, b)``: 0 at ``x = 0`` and ``x = 1``; elsewhere
    the series of ``I_x(a, b)`` or of ``1 - I_{1-x}(b, a)``, whichever converges
    sooner (each branch sees only its own range)."""
    shape = shapes.broadcast_shapes(a.shape, b.shape, x.shape)
    inside = (x > 0) & (x < 1)
    half = 0.5 + 0 * x
    y = select(inside, x, half)
    direct = _betainc_series_cost(a, b, y) <= _betainc_series_cost(b, a, 1 - y)
    da, db = _betainc_dab_series(a, b, select(inside & direct, x, half), shape)
    db_swapped, da_swapped = _betainc_dab_series(b, a, select(inside & ~direct, 1 - x, half),
                                                 shape)
    zero = 0 * da
    return (select(inside, select(direct, da, -da_swapped), zero),
            select(inside, select(direct, db, -db_swapped), zero))


# betainc(a, b, x) = I_x(a, b), the regularised incomplete beta function, and its
# inverse in x, betaincinv: dy/dx = 1 / (dI/dx) and dy/da = -(dI/da) / (dI/dx) at
# the answer (implicit functions)
betainc_p = _library_nary(
    "betainc", lambda g, ans, a, b, x: g * _betainc_dab(a, b, x)[0],
    lambda g, ans, a, b, x: g * _betainc_dab(a, b, x)[1],
    lambda g, ans, a, b, x: g * _beta_density(a, b, x))
betaincinv_p = _library_nary(
    "betaincinv",
    lambda g, ans, a, b, y: -(g * _betainc_dab(a, b, ans)[0] / _beta_density(a, b, ans)),
    lambda g, ans, a, b, y: -(g * _betainc_dab(a, b, ans)[1] / _beta_density(a, b, ans)),
    lambda g, ans, a, b, y: g / _beta_density(a, b, ans))
# betainccinv(a, b, y) = x with 1 - I_x(a, b) = y: the same implicit derivatives
# with the sign of dI/dx flipped
betainccinv_p = _library_nary(
    "betainccinv",
    lambda g, ans, a, b, y: -(g * _betainc_dab(a, b, ans)[0] / _beta_density(a, b, ans)),
    lambda g, ans, a, b, y: -(g * _betainc_dab(a, b, ans)[1] / _beta_density(a, b, ans)),
    lambda g, ans, a, b, y: -(g / _beta_density(a, b, ans)))

# the Hurwitz zeta function sum_k (k + q)^-x; d/dq = -x zeta(x + 1, q)
zeta_p = _library_nary("zeta", _no_partial("zeta", "x", "no closed form in SciPy's functions"),
                       lambda g, ans, x, q: g * (-x * bind(zeta_p, x + 1, q)))

__all__ = ["erf_p", "erfc_p", "erfcx_p", "erfinv_p", "gammaln_p", "digamma_p", "polygamma_p",
           "gamma_p", "i0e_p", "i1e_p", "ndtri_p", "log_ndtr_p", "betaln_p", "beta_p", "gammainc_p",
           "gammaincc_p", "gammaincinv_p", "gammainccinv_p", "betainc_p", "betaincinv_p",
           "betainccinv_p", "zeta_p"]
