"""More elementwise primitives (NumPy ufuncs that are not exact composites of the
core ones), built with the same ``unary`` / ``binary`` builders as
``elementwise.py``: one line of maths each.
"""

from __future__ import annotations

from typing import Any

from ..core.primitive import Primitive
from ..core.trace import bind
from . import elementwise as E
from . import shapes
from .builders import binary, chunkwise, defjvp, elementwise_batch, unary
from .elementwise import select, sqrt

_LN2 = 0.6931471805599453


def _safe_div(x: Any, h: Any) -> Any:
    """``x / h`` taken as 0 where ``h == 0`` (there ``x == 0`` too): the double where
    keeps the unselected 0/0 out of every derivative."""
    zero = E.eq(h, 0)
    return select(zero, 0.0, x / select(zero, 1.0, h))


def _logistic(x: Any) -> Any:
    return bind(E.logistic_p, x)


def _weight(x: Any, y: Any, scale: float = 1.0) -> Any:
    """d logaddexp(x, y) / dx = e^x / (e^x + e^y) = logistic(x - y); 1/2 where x == y
    (also when both are the same infinity: the tie convention of ``maximum``)."""
    d = x - y  # NaN only for the same infinity twice; a finite tie keeps d = 0, so
    return _logistic(select(bind(E.isnan_p, d), 0.0, d) * scale)  # it stays differentiable


# hypot(x, y) = sqrt(x^2 + y^2) without overflow; d/dx = x / hypot: 0 at the origin
hypot_p = binary("hypot", "hypot", lambda g, ans, x, y: g * _safe_div(x, ans),
                 lambda g, ans, x, y: g * _safe_div(y, ans))
logaddexp_p = binary("logaddexp", "logaddexp", lambda g, ans, x, y: g * _weight(x, y),
                     lambda g, ans, x, y: g * _weight(y, x))
# logaddexp2(x, y) = log2(2^x + 2^y); d/dx = 2^x / (2^x + 2^y) = logistic((x - y) ln 2)
logaddexp2_p = binary("logaddexp2", "logaddexp2",
                      lambda g, ans, x, y: g * _weight(x, y, _LN2),
                      lambda g, ans, x, y: g * _weight(y, x, _LN2))


def _fmod_impl(xp: Any, x: Any, y: Any) -> Any:
    f = getattr(xp, "fmod", None)
    return f(x, y) if f is not None else x - y * xp.trunc(x / y)


# fmod(x, y) = x - y trunc(x / y) (the sign of x); d/dy = -trunc(x / y)
fmod_p = Primitive("fmod", chunkwise(_fmod_impl), lambda x, y: shapes.elementwise(x, y))
defjvp(fmod_p, lambda g, ans, x, y: g, lambda g, ans, x, y: g * -bind(trunc_p, x / y))
fmod_p.batch = elementwise_batch(fmod_p)

asinh_p = unary("asinh", "asinh", lambda g, ans, x: g / sqrt(x * x + 1))
acosh_p = unary("acosh", "acosh", lambda g, ans, x: g / sqrt(x * x - 1))
atanh_p = unary("atanh", "atanh", lambda g, ans, x: g / (1 - x * x))
# cbrt' = 1 / (3 cbrt(x)^2): +inf at 0, as the derivative of sqrt at 0
cbrt_p = unary("cbrt", "cbrt", lambda g, ans, x: g / (3 * (ans * ans)))
trunc_p = unary("trunc", "trunc", None)
signbit_p = unary("signbit", "signbit", None, "bool")

# integer ufuncs, no derivative
INT_BINARY = {n: binary(n, n) for n in ("bitwise_and", "bitwise_or", "bitwise_xor",
                                        "left_shift", "right_shift", "gcd", "lcm")}
invert_p = unary("invert", "invert", None)

__all__ = ["hypot_p", "logaddexp_p", "logaddexp2_p", "fmod_p", "asinh_p", "acosh_p",
           "atanh_p", "cbrt_p", "trunc_p", "signbit_p", "invert_p", "INT_BINARY"]
