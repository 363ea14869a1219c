"""Student's t distribution (``scipy.stats.t``) with ``df`` degrees of freedom.

Every function is differentiable in every argument (``x`` or ``q``, ``df``,
``loc``, ``scale``); ``cdf logcdf sf logsf`` go through the incomplete beta
function, ``ppf`` through its inverse (derivatives by the implicit function
theorem).

>>> import fad, fad.scipy.stats as fst
>>> round(float(fst.t.cdf(1.0, 1.0)), 12)  # Cauchy: 1/2 + atan(1)/pi
0.75
>>> round(float(fad.grad(fst.t.cdf)(0.0, 1.0)), 12)  # the density at 0: 1/pi
0.318309886184
>>> round(float(fad.grad(fst.t.cdf, argnums=1)(1.0, 1.0)), 12)
0.066202980469
"""

from __future__ import annotations

import math
from typing import Any

from ... import numpy as fnp
from ...transforms.autodiff import jvp
from ...transforms.custom import custom_jvp
from .. import special
from ._common import arguments, location_scale, log_probability, nan_unless
from ._family import exponential_of

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def _finite_df(df: Any) -> tuple:
    """Whether ``df`` is infinite (the normal distribution, as SciPy's), and ``df``
    with 1 there (so that the t formulas, unused there, stay finite)."""
    inf = fnp.isinf(df)
    return inf, fnp.where(inf, 1.0, df)


def _standard_logpdf(z: Any, df: Any) -> Any:
    """``-(df+1)/2 log(1 + z^2/df) - log(sqrt(df) B(df/2, 1/2))``; the normal's
    ``-z^2/2 - log sqrt(2 pi)`` at ``df = inf``."""
    inf, df = _finite_df(df)
    t = (-(df + 1) / 2 * fnp.log1p(z * z / df) - 0.5 * fnp.log(df)
         - special.betaln(df / 2, 0.5 + 0 * df))
    return fnp.where(inf, -(z * z) / 2 - _LOG_SQRT_2PI, t)


def _lower_tail(z: Any, df: Any) -> Any:
    """``P(T < -|z|) = I_{df / (df + z^2)}(df/2, 1/2) / 2``."""
    return 0.5 * special.betainc(df / 2, 0.5 + 0 * df, df / (df + z * z))


def _standard_cdf_values(z: Any, df: Any) -> Any:
    inf, df = _finite_df(df)
    tail = _lower_tail(z, df)
    return fnp.where(inf, special.ndtr(z), fnp.where(z < 0, tail, 1 - tail))


def _df_tangent(z: Any, df: Any, t: Any) -> Any:
    """The tangent of the cdf along ``t`` in ``df``, through the incomplete beta
    function at ``z != 0`` (its own derivative in ``x`` is infinite at ``z = 0``,
    where the cdf is 1/2 whatever ``df``: there it is 0)."""
    zero = z == 0
    inf, df = _finite_df(df)
    _, tail = jvp(lambda d: _lower_tail(fnp.where(zero, 1.0, z), d), (df,), (t,))
    return fnp.where(zero | inf, 0.0, fnp.where(z < 0, tail, -tail))


# its derivative in z is the density (the incomplete beta's own derivative is
# infinite at z = 0, times a zero)
_standard_cdf = custom_jvp(_standard_cdf_values)
_standard_cdf.defjvps(lambda t, ans, z, df: t * fnp.exp(_standard_logpdf(z, df)),
                      lambda t, ans, z, df: _df_tangent(z, df, t))


def _standard_ppf_values(q: Any, df: Any) -> Any:
    """The quantile from the inverse incomplete beta function, in the form that
    keeps its digits: ``|z| = sqrt(df (1 - x) / x)`` with ``x = I^-1(df/2, 1/2; 2p)``
    in the tails (``p = min(q, 1 - q)``), ``|z| = sqrt(df y / (1 - y))`` with
    ``y = I^-1(1/2, df/2; |2q - 1|)`` near the median."""
    tail = fnp.minimum(q, 1 - q)
    near = tail > 0.25
    x = special.betaincinv(df / 2, 0.5 + 0 * df, 2 * fnp.where(near, 0.1, tail))
    y = special.betaincinv(0.5 + 0 * df, df / 2, fnp.where(near, fnp.abs(2 * q - 1), 0.2))
    size = fnp.where(near, fnp.sqrt(df * y / (1 - y)), fnp.sqrt(df * (1 - x) / x))
    return fnp.where(q < 0.5, -size, size)


# the implicit function z(q, df) of cdf(z, df) = q: dz/dq = 1 / density and
# dz/ddf = -(dcdf/ddf) / density (the square root's own derivative is infinite at
# the median, times a zero)
_standard_ppf = custom_jvp(_standard_ppf_values)
_standard_ppf.defjvps(
    lambda t, ans, q, df: t * fnp.exp(-_standard_logpdf(ans, df)),
    lambda t, ans, q, df: -(_df_tangent(ans, df, t) * fnp.exp(-_standard_logpdf(ans, df))))


def _valid(name: str, x: Any, df: Any, loc: Any, scale: Any) -> tuple:
    z, scale, ok, (df,) = location_scale(f"t.{name}", x, loc, scale, df)
    return z, df, scale, ok & (df > 0)


def logpdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The log density.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.t.logpdf(0.0, 1.0)), 12)  # -log(pi)
    -1.144729885849
    """
    z, df, scale, ok = _valid("logpdf", x, df, loc, scale)
    return nan_unless(ok, _standard_logpdf(z, df) - fnp.log(scale))


pdf = exponential_of(logpdf, "pdf", "The density ``exp(logpdf)``.",
                     "round(float(fst.t.pdf(0.0, 1.0)), 12)  # 1/pi", "0.318309886184")


def cdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The distribution function.

    >>> import fad.scipy.stats as fst
    >>> float(fst.t.cdf(0.0, 3.0))
    0.5
    """
    z, df, _, ok = _valid("cdf", x, df, loc, scale)
    return nan_unless(ok, _standard_cdf(z, df))


def logcdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``log(cdf)``, accurate in both tails.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.t.logcdf(-40.0, 3.0)), 9)
    -10.971162937
    """
    z, df, _, ok = _valid("logcdf", x, df, loc, scale)
    return nan_unless(ok, log_probability(_standard_cdf(z, df), _standard_cdf(-z, df)))


def sf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The survival function ``cdf(-z)`` (the distribution is symmetric).

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.t.sf(1.0, 1.0)), 12)
    0.25
    """
    z, df, _, ok = _valid("sf", x, df, loc, scale)
    return nan_unless(ok, _standard_cdf(-z, df))


def logsf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``log(sf)``, accurate in both tails.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.t.logsf(40.0, 3.0)), 9)
    -10.971162937
    """
    z, df, _, ok = _valid("logsf", x, df, loc, scale)
    return nan_unless(ok, log_probability(_standard_cdf(-z, df), _standard_cdf(z, df)))


def ppf(q: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The quantile function, the inverse of ``cdf``.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.t.ppf(0.75, 1.0)), 12)  # Cauchy: tan(pi/4)
    1.0
    """
    q, df, loc, scale = arguments("t.ppf", q, df, loc, scale)
    ok = (scale > 0) & (df > 0) & (q >= 0) & (q <= 1)
    return nan_unless(ok, loc + scale * _standard_ppf(q, df))


def isf(q: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The inverse of ``sf``: ``loc - scale ppf_standard(q)`` (the standard t is
    symmetric), as accurate for tiny ``q`` as ``ppf``.

    >>> import fad.scipy.stats as fst
    >>> round(float(fst.t.isf(0.25, 1.0)), 12)  # Cauchy: tan(pi/4)
    1.0
    """
    q, df, loc, scale = arguments("t.isf", q, df, loc, scale)
    ok = (scale > 0) & (df > 0) & (q >= 0) & (q <= 1)
    return nan_unless(ok, loc - scale * _standard_ppf(q, df))


__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
