"""``jax.lax``'s elementwise functions (``add mul max exp ...``): each binds the
primitive that ``fad.numpy``'s function of the same maths binds, so they share its
derivative, batching rule and kernel; only the argument rules are ``lax``'s.

``lax``'s rules: no implicit promotion or broadcasting. Two array operands must
have the same shape and dtype (a ``TypeError`` otherwise); a Python scalar takes
the dtype of the other operand (it is weakly typed). Integer ``div`` and ``rem``
round towards zero, as C's (``lax.rem`` is ``fmod``: the sign of the dividend).
Derivatives at kinks are the primitives' (``fad.numpy``'s): ``max``/``min`` split
a tie half and half, as JAX's; ``abs`` has derivative 0 at 0 (JAX's is 1).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..core.trace import Tracer, aval_of, bind
from . import elementwise as E
from . import special as S
from . import special_functions as F
from .structural import convert_element_type as _convert

_SCALARS = (bool, int, float, complex, np.generic)


def _operand(x: Any, name: str) -> Any:
    if isinstance(x, (Tracer,) + _SCALARS) or hasattr(x, "shape"):
        return x
    raise TypeError(f"lax.{name}: expected an array or a scalar, got {type(x).__name__} "
                    "(lax functions do not convert lists; use fad.numpy.asarray)")


def _binary_operands(name: str, x: Any, y: Any) -> tuple:
    x, y = _operand(x, name), _operand(y, name)
    weak_x, weak_y = isinstance(x, _SCALARS[:4]), isinstance(y, _SCALARS[:4])
    if weak_x and weak_y:
        x, y = np.asarray(x), np.asarray(y)
        dt = np.result_type(x, y)
        return x.astype(dt), y.astype(dt)
    if weak_x or weak_y:  # the scalar takes the array's dtype
        arr, scalar = (y, x) if weak_x else (x, y)
        scalar = np.asarray(scalar, aval_of(arr).dtype)
        return (scalar, arr) if weak_x else (arr, scalar)
    ax, ay = aval_of(x), aval_of(y)
    if ax.dtype != ay.dtype:
        raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                        f"{ax.dtype}, {ay.dtype}")
    if ax.shape != ay.shape:
        raise TypeError(f"lax.{name} requires arguments to have the same shape, got "
                        f"{ax.shape}, {ay.shape} (lax does not broadcast)")
    return x, y


def _unary(name: str, prim: Any, example: str, doc: str) -> Callable:
    def fn(x: Any) -> Any:
        x = _operand(x, name)
        return bind(prim, np.asarray(x) if isinstance(x, _SCALARS) else x)
    return _named(fn, name, doc, example)


def _binary(name: str, prim: Any, example: str, doc: str) -> Callable:
    def fn(x: Any, y: Any) -> Any:
        return bind(prim, *_binary_operands(name, x, y))
    return _named(fn, name, doc, example)


def _named(fn: Callable, name: str, doc: str, example: str) -> Callable:
    fn.__name__ = fn.__qualname__ = name
    call, result = example.split(" -> ")
    fn.__doc__ = (f"{doc} (``jax.lax.{name}``; see the module's argument rules).\n\n"
                  f"    >>> import fad.lax as lax, numpy as np\n    >>> {call}\n    {result}\n")
    return fn


_ARR = "np.array([1.0, 4.0])"
_UNARY = [
    ("neg", E.neg_p, f"lax.neg({_ARR}).tolist() -> [-1.0, -4.0]", "``-x``"),
    ("sign", E.sign_p, "lax.sign(np.array([-2.0, 0.0, 3.0])).tolist() -> [-1.0, 0.0, 1.0]",
     "The sign of ``x``"),
    ("floor", E.floor_p, "lax.floor(np.array([-1.5, 1.5])).tolist() -> [-2.0, 1.0]",
     "Round down"),
    ("ceil", E.ceil_p, "lax.ceil(np.array([-1.5, 1.5])).tolist() -> [-1.0, 2.0]", "Round up"),
    ("is_finite", E.isfinite_p, "lax.is_finite(np.array([1.0, np.inf])).tolist() -> "
     "[True, False]", "Whether ``x`` is finite"),
    ("exp", E.exp_p, "float(lax.exp(0.0)) -> 1.0", "``e^x``"),
    ("expm1", E.expm1_p, "float(lax.expm1(0.0)) -> 0.0", "``e^x - 1``"),
    ("log", E.log_p, "float(lax.log(1.0)) -> 0.0", "The natural logarithm"),
    ("log1p", E.log1p_p, "float(lax.log1p(0.0)) -> 0.0", "``log(1 + x)``"),
    ("sin", E.sin_p, "float(lax.sin(0.0)) -> 0.0", "The sine"),
    ("cos", E.cos_p, "float(lax.cos(0.0)) -> 1.0", "The cosine"),
    ("tan", E.tan_p, "float(lax.tan(0.0)) -> 0.0", "The tangent"),
    ("asin", E.asin_p, "float(lax.asin(0.0)) -> 0.0", "The inverse sine"),
    ("acos", E.acos_p, "float(lax.acos(1.0)) -> 0.0", "The inverse cosine"),
    ("atan", E.atan_p, "float(lax.atan(0.0)) -> 0.0", "The inverse tangent"),
    ("sinh", E.sinh_p, "float(lax.sinh(0.0)) -> 0.0", "The hyperbolic sine"),
    ("cosh", E.cosh_p, "float(lax.cosh(0.0)) -> 1.0", "The hyperbolic cosine"),
    ("tanh", E.tanh_p, "float(lax.tanh(0.0)) -> 0.0", "The hyperbolic tangent"),
    ("asinh", S.asinh_p, "float(lax.asinh(0.0)) -> 0.0", "The inverse hyperbolic sine"),
    ("acosh", S.acosh_p, "float(lax.acosh(1.0)) -> 0.0", "The inverse hyperbolic cosine"),
    ("atanh", S.atanh_p, "float(lax.atanh(0.0)) -> 0.0", "The inverse hyperbolic tangent"),
    ("logistic", E.logistic_p, "float(lax.logistic(0.0)) -> 0.5", "``1 / (1 + e^-x)``"),
    ("sqrt", E.sqrt_p, f"lax.sqrt({_ARR}).tolist() -> [1.0, 2.0]", "The square root"),
    ("cbrt", S.cbrt_p, "float(lax.cbrt(8.0)) -> 2.0", "The cube root"),
    ("abs", E.abs_p, "lax.abs(np.array([-2.0, 3.0])).tolist() -> [2.0, 3.0]",
     "The absolute value"),
    ("erf", F.erf_p, "float(lax.erf(0.0)) -> 0.0", "The error function"),
    ("erfc", F.erfc_p, "float(lax.erfc(0.0)) -> 1.0", "``1 - erf(x)``"),
    ("erf_inv", F.erfinv_p, "float(lax.erf_inv(0.0)) -> 0.0", "The inverse of ``erf``"),
    ("lgamma", F.gammaln_p, "float(lax.lgamma(1.0)) -> 0.0",
     "The logarithm of the absolute value of the gamma function"),
    ("digamma", F.digamma_p, "round(float(lax.digamma(1.0)), 6) -> -0.577216",
     "The logarithmic derivative of the gamma function"),
    ("not_", E.logical_not_p, "lax.not_(np.array([True, False])).tolist() -> [False, True]",
     "Logical not (of booleans)"),
]
_BINARY = [
    ("add", E.add_p, f"lax.add({_ARR}, 1.0).tolist() -> [2.0, 5.0]", "``x + y``"),
    ("sub", E.sub_p, f"lax.sub({_ARR}, 1.0).tolist() -> [0.0, 3.0]", "``x - y``"),
    ("mul", E.mul_p, f"lax.mul({_ARR}, 2.0).tolist() -> [2.0, 8.0]", "``x * y``"),
    ("max", E.max_p, f"lax.max({_ARR}, 2.0).tolist() -> [2.0, 4.0]",
     "The elementwise maximum (NaN-propagating)"),
    ("min", E.min_p, f"lax.min({_ARR}, 2.0).tolist() -> [1.0, 2.0]",
     "The elementwise minimum (NaN-propagating)"),
    ("pow", E.pow_p, f"lax.pow({_ARR}, 0.5).tolist() -> [1.0, 2.0]", "``x ** y``"),
    ("atan2", E.atan2_p, "float(lax.atan2(0.0, 1.0)) -> 0.0", "The angle of ``(y, x)``"),
    ("eq", E.eq_p, f"lax.eq({_ARR}, 1.0).tolist() -> [True, False]", "``x == y``"),
    ("ne", E.ne_p, f"lax.ne({_ARR}, 1.0).tolist() -> [False, True]", "``x != y``"),
    ("lt", E.lt_p, f"lax.lt({_ARR}, 2.0).tolist() -> [True, False]", "``x < y``"),
    ("le", E.le_p, f"lax.le({_ARR}, 1.0).tolist() -> [True, False]", "``x <= y``"),
    ("gt", E.gt_p, f"lax.gt({_ARR}, 2.0).tolist() -> [False, True]", "``x > y``"),
    ("ge", E.ge_p, f"lax.ge({_ARR}, 4.0).tolist() -> [False, True]", "``x >= y``"),
]
_FUNCTIONS = {name: _unary(name, p, ex, doc) for name, p, ex, doc in _UNARY}
_FUNCTIONS.update({name: _binary(name, p, ex, doc) for name, p, ex, doc in _BINARY})
globals().update(_FUNCTIONS)


def _is_int(x: Any) -> bool:
    return aval_of(x).dtype.kind in "iu"


def div(x: Any, y: Any) -> Any:
    """``x / y``; for integers the quotient rounded towards zero, as C's
    (``jax.lax.div``; see the module's argument rules).

    >>> import fad.lax as lax, numpy as np
    >>> lax.div(np.array([-7, 7]), np.array([2, 2])).tolist(), float(lax.div(1.0, 4.0))
    ([-3, 3], 0.25)
    """
    x, y = _binary_operands("div", x, y)
    if not _is_int(x):
        return bind(E.div_p, x, y)
    q = bind(E.floor_divide_p, x, y)  # (floor; one up where the exact quotient is negative)
    inexact = bind(E.ne_p, bind(E.mul_p, q, y), x)
    negative = bind(E.ne_p, bind(E.lt_p, x, np.asarray(0, aval_of(x).dtype)),
                    bind(E.lt_p, y, np.asarray(0, aval_of(y).dtype)))
    one = np.asarray(1, aval_of(x).dtype)
    return bind(E.select_p, bind(E.and_p, inexact, negative), bind(E.add_p, q, one), q)


def rem(x: Any, y: Any) -> Any:
    """The remainder of ``x / y`` with the sign of ``x`` (C's ``fmod``,
    ``jax.lax.rem``; see the module's argument rules).

    >>> import fad.lax as lax, numpy as np
    >>> lax.rem(np.array([-7.0, 7.0]), 2.0).tolist()
    [-1.0, 1.0]
    """
    return bind(S.fmod_p, *_binary_operands("rem", x, y))


def square(x: Any) -> Any:
    """``x * x`` (``jax.lax.square``).

    >>> import fad.lax as lax, numpy as np
    >>> lax.square(np.array([-2.0, 3.0])).tolist()
    [4.0, 9.0]
    """
    return _FUNCTIONS["mul"](x, x)


def rsqrt(x: Any) -> Any:
    """``1 / sqrt(x)`` (``jax.lax.rsqrt``).

    >>> import fad.lax as lax
    >>> float(lax.rsqrt(4.0))
    0.5
    """
    s = _FUNCTIONS["sqrt"](x)
    return bind(E.div_p, np.asarray(1, aval_of(s).dtype), s)


def integer_pow(x: Any, y: int) -> Any:
    """``x ** y`` for a static Python integer ``y`` (``jax.lax.integer_pow``).

    >>> import fad, fad.lax as lax
    >>> float(lax.integer_pow(3.0, 2)), float(fad.grad(lambda x: lax.integer_pow(x, 3))(2.0))
    (9.0, 12.0)
    """
    if not isinstance(y, int | np.integer) or isinstance(y, bool):
        raise TypeError(f"lax.integer_pow: the exponent must be a Python int, got {y!r}")
    x = _operand(x, "integer_pow")
    return bind(E.pow_p, np.asarray(x) if isinstance(x, _SCALARS) else x, int(y))


def convert_element_type(operand: Any, new_dtype: Any) -> Any:
    """``operand`` cast to ``new_dtype`` (``jax.lax.convert_element_type``;
    differentiable between float dtypes).

    >>> import fad.lax as lax, numpy as np
    >>> lax.convert_element_type(np.array([1.7, -1.7]), np.int32).tolist()
    [1, -1]
    """
    x = _operand(operand, "convert_element_type")
    return _convert(np.asarray(x) if isinstance(x, _SCALARS) else x, new_dtype)


__all__ = sorted(list(_FUNCTIONS) + ["div", "rem", "square", "rsqrt", "integer_pow",
                                     "convert_element_type"])
