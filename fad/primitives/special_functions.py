"""Special functions: ``erf erfc erfinv gammaln digamma polygamma``.

They are computed by the backend's SciPy-like library: ``scipy.special`` for
NumPy arrays, ``cupyx.scipy.special`` for CuPy arrays (imported on first use:
importing ``scipy.special`` costs more than importing fad); any other namespace
raises ``NotImplementedError`` naming the primitive and the backend. Operands
are floats (``fad.scipy.special`` promotes integers to the default float, as
JAX does), and a result keeps its operand's dtype (SciPy computes float16 in
float32, and polygamma of float32 in float64: cast back).

Each derivative is another of these primitives, so derivatives of every order
work: gammaln' = digamma, digamma' = polygamma(1, .), polygamma(n, .)' =
polygamma(n + 1, .).
"""

from __future__ import annotations

import math
from typing import Any, Callable

from ..backends import backend_for
from ..core.ir import ShapedArray
from ..core.primitive import Primitive
from ..core.trace import bind
from . import shapes
from .builders import defjvp, elementwise_batch, unary
from .elementwise import exp

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
# the inverse function's derivative 1 / erf'(erfinv(x)) = sqrt(pi)/2 e^{erfinv(x)^2}
erfinv_p = unary("erfinv", _lookup("erfinv"),
                 lambda g, ans, x: g * (_SQRT_PI_OVER_TWO * exp(ans * ans)))
# gammaln' = digamma (the logarithmic derivative of gamma)
gammaln_p = unary("gammaln", _lookup("gammaln"),
                  lambda g, ans, x: g * bind(digamma_p, x))
# digamma' = polygamma(1, x) (the trigamma function)
digamma_p = unary("digamma", _lookup("digamma"),
                  lambda g, ans, x: g * bind(polygamma_p, 1, x))


# polygamma(n, x) = d^n/dx^n digamma(x); the order n is an integer operand (no
# derivative), broadcast with x; d/dx polygamma(n, x) = polygamma(n + 1, x)
def _polygamma_aval(n: ShapedArray, x: ShapedArray) -> ShapedArray:
    return ShapedArray(shapes.broadcast_shapes(n.shape, x.shape), x.dtype)


def _polygamma_kernel(xp: Any) -> Callable:
    def keep_dtype(fn: Callable) -> Callable:
        return lambda n, x: _same_dtype(fn(n, x), x)
    return _kernel_on(xp, "polygamma", keep_dtype)


polygamma_p = Primitive("polygamma", lambda xp, n, x: _polygamma_kernel(xp)(n, x),
                        _polygamma_aval)
defjvp(polygamma_p, None, lambda g, ans, n, x: g * bind(polygamma_p, n + 1, x))
polygamma_p.kernel = _polygamma_kernel

polygamma_p.batch = elementwise_batch(polygamma_p)

__all__ = ["erf_p", "erfc_p", "erfinv_p", "gammaln_p", "digamma_p", "polygamma_p"]
