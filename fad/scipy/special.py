"""``scipy.special``'s functions, traced and differentiable (as ``jax.scipy.special``).

``erf erfc erfinv gammaln digamma polygamma gamma i0e i1e ndtri log_ndtr betaln
beta gammainc gammaincc gammaincinv gammainccinv betainc betaincinv betainccinv
zeta`` are primitives
(computed by ``scipy.special`` on NumPy arrays, ``cupyx.scipy.special`` on CuPy
arrays), with derivatives of every order. The others are compositions of
``fad.numpy`` and ``fad.nn``. ``zeta``'s derivative in ``x`` (no closed form)
raises ``NotImplementedError``; ``gammainc``'s derivative in ``a`` sums a series
(for ``x <= a + 20``) or a Gauss-Laguerre rule (above), accurate to about 1e-8
for ``a`` up to 2000;
``betainc``'s in ``a`` and ``b`` sums the power series of ``I_x(a, b)`` or of
``1 - I_{1-x}(b, a)``, whichever converges sooner (1024 terms), accurate to
about 1e-9 for ``a, b`` up to a few thousand, and ``betaincinv``'s follow by
the implicit function theorem (so do ``gammainccinv``'s and ``betainccinv``'s).
As in JAX, arguments are real: integers and booleans become the
default float (float64), a float keeps its dtype (float32 in, float32 out), and
complex numbers are rejected.

>>> import fad, fad.scipy.special as fsp
>>> round(float(fad.grad(fsp.gammaln)(3.0)), 6)  # digamma(3) = 3/2 - Euler's gamma
0.922784
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import nn
from .. import numpy as fnp
from ..core.trace import Tracer, _np_dtype, bind
from ..primitives import special_functions as S
from ..transforms.autodiff import stop_gradient
from ..transforms.custom import custom_jvp
from ._args import real, reals


def _real(x: Any, fn: str) -> Any:
    return real(x, f"fad.scipy.special.{fn}")


def _reals(fn: str, *args: Any) -> list:
    return reals(f"fad.scipy.special.{fn}", *args)


def _nary(prim: Any, fn: str, doc: str) -> Callable:
    """The public function of a primitive of several real operands."""
    def f(*args: Any) -> Any:
        return bind(prim, *_reals(fn, *args))
    f.__name__ = f.__qualname__ = fn
    f.__doc__ = doc
    return f


def _unary(prim: Any, fn: str, doc: str) -> Callable:
    def f(x: Any) -> Any:
        return bind(prim, _real(x, fn))
    f.__name__ = f.__qualname__ = fn
    f.__doc__ = doc
    return f


erf = _unary(S.erf_p, "erf", """The error function ``2/sqrt(pi) int_0^x e^{-t^2} dt``.

    >>> import fad, fad.scipy.special as fsp
    >>> round(float(fsp.erf(0.5)), 6), round(float(fad.grad(fsp.erf)(0.0)), 12)  # 2/sqrt(pi)
    (0.5205, 1.128379167096)
    """)
erfc = _unary(S.erfc_p, "erfc", """The complementary error function ``1 - erf(x)``,
    accurate where ``erf(x)`` is close to 1.

    >>> import fad.scipy.special as fsp
    >>> float(fsp.erfc(10.0)) > 0  # 1 - erf(10.0) rounds to 0
    True
    """)
erfinv = _unary(S.erfinv_p, "erfinv", """The inverse of ``erf`` on ``(-1, 1)``
    (``±inf`` at ``±1``, NaN outside).

    >>> import fad, fad.scipy.special as fsp
    >>> round(float(fsp.erfinv(fsp.erf(0.3))), 12)
    0.3
    >>> round(float(fad.grad(fsp.erfinv)(0.0)), 12)  # sqrt(pi) / 2
    0.886226925453
    """)
gammaln = _unary(S.gammaln_p, "gammaln", """``log |Gamma(x)|``; its derivative is
    ``digamma``.

    >>> import fad.scipy.special as fsp
    >>> round(float(fsp.gammaln(5.0)), 12)  # log(4!)
    3.178053830348
    """)
digamma = _unary(S.digamma_p, "digamma", """``psi(x) = Gamma'(x) / Gamma(x)``; its
    derivative is ``polygamma(1, x)``.

    >>> import fad, fad.scipy.special as fsp
    >>> round(float(fsp.digamma(1.0)), 12)  # minus Euler's constant
    -0.577215664902
    >>> round(float(fad.grad(fsp.digamma)(1.0)), 12)  # pi^2 / 6
    1.644934066848
    """)
psi = digamma


def polygamma(n: Any, x: Any) -> Any:
    """The ``n``-th derivative of ``digamma`` (``polygamma(0, x) = digamma(x)``);
    ``n`` is an integer order (a Python int or an integer array, broadcast with
    ``x``), differentiable in ``x`` only.

    >>> import fad, fad.scipy.special as fsp
    >>> round(float(fsp.polygamma(1, 1.0)), 12)  # pi^2 / 6
    1.644934066848
    >>> round(float(fad.grad(lambda x: fsp.polygamma(2, x))(1.0)), 12)  # 6 zeta(4)
    6.493939402267
    """
    x = _real(x, "polygamma")
    if not isinstance(n, int | np.integer):
        if not isinstance(n, Tracer):
            n = np.asarray(n)
            if n.dtype.kind == "f" and np.all(n == np.round(n)):
                n = n.astype(np.int64)
        if _np_dtype(n.dtype).kind not in "iu":
            raise TypeError(f"fad.scipy.special.polygamma: the order n must be integers "
                            f"(got {n.dtype})")
    return bind(S.polygamma_p, int(n) if isinstance(n, np.integer) else n, x)


def logit(p: Any) -> Any:
    """``log(p / (1 - p))``, the inverse of ``expit``.

    >>> import fad.scipy.special as fsp
    >>> float(fsp.logit(0.5)), round(float(fsp.logit(fsp.expit(2.0))), 12)
    (0.0, 2.0)
    """
    p = _real(p, "logit")
    return fnp.log(p) - fnp.log1p(-p)


def expit(x: Any) -> Any:
    """The logistic sigmoid ``1 / (1 + e^-x)`` (``fad.nn.sigmoid``).

    >>> import fad.scipy.special as fsp
    >>> float(fsp.expit(0.0)), float(fsp.expit(-1000.0))
    (0.5, 0.0)
    """
    return nn.sigmoid(_real(x, "expit"))


def logsumexp(a: Any, axis: Any = None, b: Any = None, keepdims: bool = False,
              return_sign: bool = False) -> Any:
    """``log(sum(b * exp(a)))`` over ``axis`` (``fad.nn.logsumexp`` without ``b``),
    stable for large and ``-inf`` entries, ``-inf`` for an empty sum. With weights
    ``b`` (broadcast with ``a``; entries of weight 0 ignored) the sum may be
    negative: ``return_sign=True`` returns ``(log|sum|, sign(sum))``, and without
    it a negative sum gives NaN, as SciPy's and JAX's.

    >>> import fad.numpy as fnp, fad.scipy.special as fsp
    >>> float(fsp.logsumexp(fnp.array([1000.0, 1000.0])))
    1000.6931471805599
    >>> float(fsp.logsumexp(fnp.array([0.0, 0.0]), b=fnp.array([1.0, 3.0])))  # log 4
    1.3862943611198906
    >>> [round(float(v), 6) for v in fsp.logsumexp(fnp.array([1.0, 2.0]),
    ...                                             b=fnp.array([1.0, -1.0]), return_sign=True)]
    [1.541325, -1.0]
    """
    a = _real(a, "logsumexp")
    if b is None and not return_sign:
        return nn.logsumexp(a, axis=axis, keepdims=keepdims)
    b = fnp.ones_like(a) if b is None else _real(b, "logsumexp")
    a, b = fnp.broadcast_arrays(a, b)
    if a.size == 0:
        out = nn.logsumexp(a, axis=axis, keepdims=keepdims)
        return (out, fnp.zeros_like(out)) if return_sign else out
    a = fnp.where(fnp.equal(b, 0), -np.inf, a)
    m_raw = stop_gradient(fnp.max(a, axis=axis, keepdims=True))
    finite = fnp.isfinite(m_raw)
    s = fnp.sum(b * fnp.exp(a - fnp.where(finite, m_raw, 0.0)), axis=axis, keepdims=True)
    sign = fnp.sign(s)
    out = fnp.log(fnp.abs(fnp.where(finite, s, 1.0))) + m_raw
    if not keepdims:
        out, sign = (fnp.squeeze(v, axis=axis) if axis is not None else fnp.sum(v)
                     for v in (out, sign))
    if return_sign:
        return out, sign
    return fnp.where(fnp.less(sign, 0), np.nan, out)


def softmax(x: Any, axis: Any = None) -> Any:
    """``exp(x) / sum(exp(x))`` over ``axis`` (default: all elements, as SciPy).

    >>> import fad.numpy as fnp, fad.scipy.special as fsp
    >>> fsp.softmax(fnp.array([0.0, 0.0])).tolist()
    [0.5, 0.5]
    """
    return nn.softmax(_real(x, "softmax"), axis=axis)


def log_softmax(x: Any, axis: Any = None) -> Any:
    """``x - logsumexp(x)`` over ``axis`` (default: all elements, as SciPy).

    >>> import fad.numpy as fnp, fad.scipy.special as fsp
    >>> [round(float(v), 4) for v in fsp.log_softmax(fnp.array([1000.0, 0.0]))]
    [0.0, -1000.0]
    """
    return nn.log_softmax(_real(x, "log_softmax"), axis=axis)


def _x_times(log: Callable, dlog: Callable, edge: float, name: str, doc: str) -> Callable:
    """``x * log(y)``, taken as 0 where ``x == 0`` (unless ``y`` is NaN); derivatives
    ``log(y)`` in ``x`` (0 where ``x == 0`` and ``y <= edge``, the end of ``log``'s
    domain, as PyTorch's) and ``x dlog(y)`` in ``y`` (the factor ``x`` not cut at 0)."""
    @custom_jvp
    def times(x: Any, y: Any) -> Any:
        zero = (x == 0) & ~fnp.isnan(y)
        return fnp.where(zero, 0.0, x * log(fnp.where(zero, 1.0, y)))

    @times.defjvp
    def times_jvp(primals: Any, tangents: Any) -> Any:
        (x, y), (tx, ty) = primals, tangents
        cut = (x == 0) & (y <= edge)
        dx = fnp.where(cut, 0.0, log(fnp.where(cut, 1.0, y)))
        return times(x, y), tx * dx + ty * (x * dlog(y))

    def f(x: Any, y: Any) -> Any:
        return times(*_reals(name, x, y))
    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


xlogy = _x_times(fnp.log, lambda y: 1 / y, 0.0, "xlogy",
                 """``x * log(y)``, 0 where ``x == 0`` (NaN where ``y`` is).

    >>> import fad, fad.scipy.special as fsp
    >>> float(fsp.xlogy(0.0, 0.0)), float(fad.grad(fsp.xlogy)(0.0, 2.0))  # log 2
    (0.0, 0.6931471805599453)
    >>> float(fsp.xlogy(0.0, float("nan"))), float(fad.grad(fsp.xlogy)(0.0, 0.0))
    (nan, 0.0)
    """)
xlog1py = _x_times(fnp.log1p, lambda y: 1 / (1 + y), -1.0, "xlog1py",
                   """``x * log1p(y)``, 0 where ``x == 0`` (NaN where ``y`` is).

    >>> import fad.scipy.special as fsp
    >>> float(fsp.xlog1py(0.0, -1.0)), round(float(fsp.xlog1py(2.0, 1e-20)), 30)
    (0.0, 2e-20)
    """)

gamma = _unary(S.gamma_p, "gamma", """The gamma function; its derivative is
    ``gamma(x) digamma(x)``.

    >>> import fad, fad.scipy.special as fsp
    >>> float(fsp.gamma(5.0)), round(float(fad.grad(fsp.gamma)(1.0)), 12)  # 4!, -Euler's gamma
    (24.0, -0.577215664902)
    """)
erfcx = _unary(S.erfcx_p, "erfcx", """The scaled complementary error function
    ``e^{x^2} erfc(x)`` (finite where ``erfc`` underflows); its derivative is
    ``2 x erfcx(x) - 2 / sqrt(pi)``.

    >>> import fad, fad.scipy.special as fsp
    >>> round(float(fsp.erfcx(30.0)), 12), round(float(fad.grad(fsp.erfcx)(0.0)), 12)
    (0.018795888861, -1.128379167096)
    """)
i0e = _unary(S.i0e_p, "i0e", """The exponentially scaled modified Bessel function of
    order 0, ``e^-|x| I0(x)``; its derivative is ``i1e(x) - sign(x) i0e(x)``.

    >>> import fad.scipy.special as fsp
    >>> round(float(fsp.i0e(1000.0)), 12)  # I0(1000) overflows, i0e does not
    0.012617240456
    """)
i1e = _unary(S.i1e_p, "i1e", """The exponentially scaled modified Bessel function of
    order 1, ``e^-|x| I1(x)``.

    >>> import fad, fad.scipy.special as fsp
    >>> round(float(fsp.i1e(1.0)), 12), float(fad.grad(fsp.i1e)(0.0))
    (0.20791041535, 0.5)
    """)
ndtri = _unary(S.ndtri_p, "ndtri", """The inverse of ``ndtr`` (the standard normal
    quantile function); its derivative is ``sqrt(2 pi) exp(ndtri(p)^2 / 2)``.

    >>> import fad, fad.scipy.special as fsp
    >>> round(float(fsp.ndtri(0.975)), 10), round(float(fad.grad(fsp.ndtri)(0.5)), 12)
    (1.9599639845, 2.506628274631)
    """)
log_ndtr = _unary(S.log_ndtr_p, "log_ndtr", """``log(ndtr(x))``, accurate in both
    tails (an asymptotic series where ``ndtr`` underflows); its derivative
    ``phi(x) / ndtr(x)`` is computed without overflow.

    >>> import fad, fad.scipy.special as fsp
    >>> round(float(fsp.log_ndtr(-40.0)), 6), round(float(fad.grad(fsp.log_ndtr)(-40.0)), 6)
    (-804.608442, 40.024969)
    """)


def i0(x: Any) -> Any:
    """The modified Bessel function of order 0, ``i0e(x) e^|x|`` (``fad.numpy.i0``);
    its derivative is ``i1``.

    >>> import fad, fad.scipy.special as fsp
    >>> round(float(fsp.i0(1.0)), 12), round(float(fad.grad(fsp.i0)(1.0)), 12)
    (1.266065877752, 0.565159103992)
    """
    return fnp.i0(_real(x, "i0"))


def i1(x: Any) -> Any:
    """The modified Bessel function of order 1, ``i1e(x) e^|x|``.

    >>> import fad, fad.scipy.special as fsp
    >>> round(float(fsp.i1(1.0)), 12), round(float(fad.grad(fsp.i1)(0.0)), 12)
    (0.565159103992, 0.5)
    """
    x = _real(x, "i1")
    return i1e(x) * fnp.exp(fnp.abs(x))


_SQRT1_2 = float(np.sqrt(0.5))


def ndtr(x: Any) -> Any:
    """The standard normal cumulative distribution function,
    ``erfc(-x / sqrt(2)) / 2`` (accurate in the lower tail, as SciPy's).

    >>> import fad, fad.scipy.special as fsp
    >>> float(fsp.ndtr(0.0)), float(fsp.ndtr(-5.0))
    (0.5, 2.866515718791933e-07)
    """
    return 0.5 * erfc(_real(x, "ndtr") * -_SQRT1_2)


betaln = _nary(S.betaln_p, "betaln", """``log |B(a, b)|``, the logarithm of the beta
    function, accurate where ``gammaln`` would cancel.

    >>> import fad.scipy.special as fsp
    >>> round(float(fsp.betaln(2.0, 3.0)), 12)  # log(1/12)
    -2.484906649788
    """)
beta = _nary(S.beta_p, "beta", """The beta function ``Gamma(a) Gamma(b) / Gamma(a + b)``.

    >>> import fad, fad.scipy.special as fsp
    >>> round(float(fsp.beta(2.0, 3.0)), 12), round(float(fad.grad(fsp.beta)(1.0, 1.0)), 12)
    (0.083333333333, -1.0)
    """)
gammainc = _nary(S.gammainc_p, "gammainc", """The regularised lower incomplete gamma
    function ``P(a, x)``. Its derivative in ``x`` is the gamma density; in ``a``
    a series or a quadrature, accurate to about 1e-8 for ``a`` up to 2000.

    >>> import fad, fad.scipy.special as fsp
    >>> round(float(fsp.gammainc(1.0, 2.0)), 12)  # 1 - e^-2
    0.864664716763
    >>> round(float(fad.grad(fsp.gammainc)(1.0, 2.0)), 9)
    -0.220825426
    """)
gammaincc = _nary(S.gammaincc_p, "gammaincc", """The regularised upper incomplete gamma
    function ``Q(a, x) = 1 - P(a, x)``, accurate where ``P`` is close to 1.

    >>> import fad.scipy.special as fsp
    >>> round(float(fsp.gammaincc(1.0, 2.0)), 12)  # e^-2
    0.135335283237
    """)
betainc = _nary(S.betainc_p, "betainc", """The regularised incomplete beta function
    ``I_x(a, b)``, differentiable in ``a``, ``b`` (a series) and ``x``.

    >>> import fad, fad.scipy.special as fsp
    >>> round(float(fsp.betainc(2.0, 1.0, 0.5)), 12)  # x^2
    0.25
    >>> float(fad.grad(fsp.betainc, argnums=2)(2.0, 1.0, 0.5))  # 2x
    1.0
    """)

gammaincinv = _nary(S.gammaincinv_p, "gammaincinv", """The inverse of ``gammainc`` in
    ``x``: the ``x`` with ``gammainc(a, x) = p``; differentiable in ``a`` and ``p``.

    >>> import fad, fad.scipy.special as fsp
    >>> round(float(fsp.gammaincinv(1.0, 0.5)), 12)  # log 2
    0.69314718056
    >>> round(float(fad.grad(fsp.gammaincinv, argnums=1)(1.0, 0.5)), 12)  # e^x
    2.0
    """)
betaincinv = _nary(S.betaincinv_p, "betaincinv", """The inverse of ``betainc`` in
    ``x``: the ``x`` with ``betainc(a, b, x) = y``; differentiable in ``y``.

    >>> import fad, fad.scipy.special as fsp
    >>> round(float(fsp.betaincinv(2.0, 1.0, 0.25)), 12)  # sqrt(y)
    0.5
    >>> round(float(fad.grad(fsp.betaincinv, argnums=2)(2.0, 1.0, 0.25)), 12)
    1.0
    """)
gammainccinv = _nary(S.gammainccinv_p, "gammainccinv", """The inverse of ``gammaincc``
    in ``x``: the ``x`` with ``gammaincc(a, x) = q``, accurate for tiny ``q`` (where
    ``gammaincinv(a, 1 - q)`` loses its digits); differentiable in ``a`` and ``q``.

    >>> import fad, fad.scipy.special as fsp
    >>> round(float(fsp.gammainccinv(1.0, 1e-20)), 9)  # -log(q)
    46.05170186
    >>> round(float(fad.grad(fsp.gammainccinv, argnums=1)(1.0, 0.5)), 12)  # -1/q
    -2.0
    """)
betainccinv = _nary(S.betainccinv_p, "betainccinv", """The inverse of ``1 - betainc``
    in ``x``: the ``x`` with ``1 - betainc(a, b, x) = y``, accurate for tiny ``y``;
    differentiable in ``a``, ``b`` and ``y``.

    >>> import fad, fad.scipy.special as fsp
    >>> round(float(fsp.betainccinv(2.0, 1.0, 0.75)), 12)  # sqrt(1 - y)
    0.5
    >>> round(float(fad.grad(fsp.betainccinv, argnums=2)(2.0, 1.0, 0.75)), 12)
    -1.0
    """)


def zeta(x: Any, q: Any = None) -> Any:
    """The Hurwitz zeta function ``sum_k (k + q)^-x``, differentiable in ``q``
    (its derivative in ``x`` has no closed form: ``NotImplementedError``). As in
    JAX, ``q`` is required; ``zeta(x, 1.0)`` is Riemann's for ``x > 1``.

    >>> import fad, fad.scipy.special as fsp
    >>> round(float(fsp.zeta(2.0, 1.0)), 12)  # pi^2 / 6
    1.644934066848
    >>> round(float(fad.grad(fsp.zeta, argnums=1)(2.0, 1.0)), 12)  # -2 zeta(3)
    -2.404113806319
    """
    if q is None:
        raise NotImplementedError("fad.scipy.special.zeta: Riemann's zeta (q=None) is not "
                                  "implemented; pass q=1.0 for x > 1 (as jax.scipy.special)")
    return bind(S.zeta_p, *_reals("zeta", x, q))


def multigammaln(a: Any, d: int) -> Any:
    """The log of the multivariate gamma function of dimension ``d`` (an int):
    ``d (d - 1) / 4 log(pi) + sum_j gammaln(a - j / 2)``, ``j < d``.

    >>> import fad.scipy.special as fsp
    >>> round(float(fsp.multigammaln(3.0, 2)), 12)
    1.550194993958
    """
    if not isinstance(d, int | np.integer) or isinstance(d, bool) or d < 1:
        raise ValueError(f"fad.scipy.special.multigammaln: d must be a positive int (got {d!r})")
    a = _real(a, "multigammaln")
    out = gammaln(a)
    for j in range(1, int(d)):
        out = out + gammaln(a - j / 2)
    return out + d * (d - 1) / 4 * float(np.log(np.pi))


def _guarded(fn: str, x: Any, y: Any | None, inside: Callable, edge: Callable,
             outside: float) -> Any:
    """``inside(x, y)`` where ``x > 0`` (and ``y > 0``), ``edge(y)`` where ``x == 0``
    (and ``y >= 0``), ``outside`` elsewhere, NaN for NaN input; the inside's
    operands are guarded (double where), so no NaN reaches a derivative."""
    if y is None:
        x, = _reals(fn, x)
        ok, at_edge, y = x > 0, x == 0, x
    else:
        x, y = _reals(fn, x, y)
        ok, at_edge = (x > 0) & (y > 0), (x == 0) & (y >= 0)
    one = fnp.ones_like(x + y)
    value = inside(fnp.where(ok, x, one), fnp.where(ok, y, one))
    value = fnp.where(ok, value, fnp.where(at_edge, edge(y), outside))
    return fnp.where((x != x) | (y != y), np.nan, value)  # NaN in, NaN out


def entr(x: Any) -> Any:
    """``-x log(x)`` for ``x > 0``, 0 at 0, ``-inf`` below.

    >>> import fad.numpy as fnp, fad.scipy.special as fsp
    >>> [round(float(v), 6) for v in fsp.entr(fnp.array([0.5, 0.0, -1.0]))]
    [0.346574, 0.0, -inf]
    """
    return _guarded("entr", x, None, lambda x, y: -(x * fnp.log(x)), lambda y: 0 * y, -np.inf)


def rel_entr(x: Any, y: Any) -> Any:
    """``x log(x / y)`` for ``x, y > 0``; 0 where ``x == 0`` and ``y >= 0``; ``inf``
    elsewhere.

    >>> import fad.scipy.special as fsp
    >>> round(float(fsp.rel_entr(2.0, 1.0)), 12), float(fsp.rel_entr(0.0, 3.0))
    (1.38629436112, 0.0)
    """
    return _guarded("rel_entr", x, y, lambda x, y: x * fnp.log(x / y), lambda y: 0 * y, np.inf)


def kl_div(x: Any, y: Any) -> Any:
    """``x log(x / y) - x + y`` for ``x, y > 0``; ``y`` where ``x == 0`` and
    ``y >= 0``; ``inf`` elsewhere.

    >>> import fad.scipy.special as fsp
    >>> round(float(fsp.kl_div(2.0, 1.0)), 12), float(fsp.kl_div(0.0, 3.0))
    (0.38629436112, 3.0)
    """
    return _guarded("kl_div", x, y, lambda x, y: x * fnp.log(x / y) - x + y, lambda y: y,
                    np.inf)


__all__ = ["erf", "erfc", "erfcx", "erfinv", "gammaln", "digamma", "psi", "polygamma", "logit",
           "expit", "logsumexp", "softmax", "log_softmax", "xlogy", "xlog1py", "gamma",
           "i0", "i0e", "i1", "i1e", "ndtr", "ndtri", "log_ndtr", "beta", "betaln",
           "gammainc", "gammaincc", "gammaincinv", "gammainccinv", "betainc", "betaincinv",
           "betainccinv", "zeta",
           "multigammaln", "entr", "rel_entr", "kl_div"]


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
