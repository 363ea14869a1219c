"""``scipy.special``'s functions, traced and differentiable (as ``jax.scipy.special``).

``erf erfc erfinv gammaln digamma polygamma`` are primitives (computed by
``scipy.special`` on NumPy arrays, ``cupyx.scipy.special`` on CuPy arrays), with
derivatives of every order. The others are compositions of ``fad.numpy`` and
``fad.nn``. As in JAX, arguments are real: integers and booleans become the
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
from ..transforms.custom import custom_jvp


def _real(x: Any, fn: str) -> Any:
    """``x`` as an array of real floats: integers and booleans become float64."""
    x = fnp.asarray(x)
    kind = _np_dtype(x.dtype).kind
    if kind == "f":
        return x
    if kind == "c":
        raise TypeError(f"fad.scipy.special.{fn} takes real numbers, not {x.dtype} "
                        "(as jax.scipy.special)")
    return fnp.asarray(x, np.float64)


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
    """``log(sum(b * exp(a)))`` over ``axis`` (``fad.nn.logsumexp``), stable for large
    and ``-inf`` entries; weights ``b`` must be non-negative (``return_sign`` is
    not supported).

    >>> import fad.numpy as fnp, fad.scipy.special as fsp
    >>> float(fsp.logsumexp(fnp.array([1000.0, 1000.0])))
    1000.6931471805599
    >>> float(fsp.logsumexp(fnp.array([0.0, 0.0]), b=fnp.array([1.0, 3.0])))  # log 4
    1.3862943611198906
    """
    if return_sign:
        raise NotImplementedError("fad.scipy.special.logsumexp: return_sign=True is not "
                                  "supported (weights b must be non-negative)")
    a = _real(a, "logsumexp")
    if b is not None:
        a = a + fnp.log(_real(b, "logsumexp"))
    return nn.logsumexp(a, axis=axis, keepdims=keepdims)


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


def _x_times(log: Callable, dlog: Callable, name: str, doc: str) -> Callable:
    """``x * log(y)``, taken as 0 where ``x == 0``; derivatives ``log(y)`` in ``x``
    and ``x dlog(y)`` in ``y`` (JAX's rule: the factor ``x`` is not cut at 0)."""
    @custom_jvp
    def times(x: Any, y: Any) -> Any:
        zero = x == 0
        return fnp.where(zero, 0.0, x * log(fnp.where(zero, 1.0, y)))

    @times.defjvp
    def times_jvp(primals: Any, tangents: Any) -> Any:
        (x, y), (tx, ty) = primals, tangents
        return times(x, y), tx * log(y) + ty * (x * dlog(y))

    def f(x: Any, y: Any) -> Any:
        return times(_real(x, name), _real(y, name))
    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


xlogy = _x_times(fnp.log, lambda y: 1 / y, "xlogy", """``x * log(y)``, 0 where ``x == 0``.

    >>> import fad, fad.scipy.special as fsp
    >>> float(fsp.xlogy(0.0, 0.0)), float(fad.grad(fsp.xlogy)(0.0, 2.0))  # log 2
    (0.0, 0.6931471805599453)
    """)
xlog1py = _x_times(fnp.log1p, lambda y: 1 / (1 + y), "xlog1py",
                   """``x * log1p(y)``, 0 where ``x == 0``.

    >>> import fad.scipy.special as fsp
    >>> float(fsp.xlog1py(0.0, -1.0)), round(float(fsp.xlog1py(2.0, 1e-20)), 30)
    (0.0, 2e-20)
    """)

__all__ = ["erf", "erfc", "erfinv", "gammaln", "digamma", "psi", "polygamma", "logit",
           "expit", "logsumexp", "softmax", "log_softmax", "xlogy", "xlog1py"]


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
