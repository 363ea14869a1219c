"""Elementwise functions of ``fad.numpy``: promotion, then one primitive."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..core.trace import bind
from ..primitives import elementwise as E
from ._base import asarray, cast, no_out, operand, promote


def _ufunc_kwargs(out: Any, dtype: Any, xs: list) -> list:
    """NumPy's ``out=`` (rejected: arrays are immutable) and ``dtype=`` (compute in it)."""
    no_out(out)
    return xs if dtype is None else [cast(asarray(x), np.dtype(dtype)) for x in xs]


def _unary(prim: Any, ufunc: str, example: float = 1.0) -> Callable:
    def fn(x: Any, /, out: Any = None, *, dtype: Any = None) -> Any:
        x = asarray(x)
        _, (x,) = promote(ufunc, x)
        if out is not None or dtype is not None:
            (x,) = _ufunc_kwargs(out, dtype, [x])
        return bind(prim, x)
    fn.__name__ = ufunc
    fn.__doc__ = (f"Elementwise ``{ufunc}``, as ``numpy.{ufunc}`` (differentiable).\n\n"
                  f"    >>> import fad.numpy as fnp\n    >>> fnp.{ufunc}(fnp.full(2, {example}))"
                  ".shape\n    (2,)\n")
    return fn


def _binary(prim: Any, ufunc: str, promote_as: str | None = None) -> Callable:
    def fn(x: Any, y: Any, /, out: Any = None, *, dtype: Any = None) -> Any:
        x, y = operand(x), operand(y)
        _, (x, y) = promote(promote_as or ufunc, x, y)
        if out is not None or dtype is not None:
            x, y = _ufunc_kwargs(out, dtype, [x, y])
        return bind(prim, x, y)
    fn.__name__ = ufunc
    fn.__doc__ = (f"Elementwise ``{ufunc}`` with NumPy broadcasting and promotion.\n\n"
                  f"    >>> import fad.numpy as fnp\n"
                  f"    >>> fnp.{ufunc}(fnp.ones((2, 1)), fnp.ones(3)).shape\n    (2, 3)\n")
    return fn


negative = _unary(E.neg_p, "negative")
sin = _unary(E.sin_p, "sin")
cos = _unary(E.cos_p, "cos")
tan = _unary(E.tan_p, "tan")
arcsin = _unary(E.asin_p, "arcsin")
arccos = _unary(E.acos_p, "arccos")
arctan = _unary(E.atan_p, "arctan")
sinh = _unary(E.sinh_p, "sinh")
cosh = _unary(E.cosh_p, "cosh")
tanh = _unary(E.tanh_p, "tanh")
exp = _unary(E.exp_p, "exp")
expm1 = _unary(E.expm1_p, "expm1")
log = _unary(E.log_p, "log")
log1p = _unary(E.log1p_p, "log1p")
sqrt = _unary(E.sqrt_p, "sqrt")
_real_abs = _unary(E.abs_p, "absolute")


def absolute(x: Any) -> Any:
    """``|x|``; for complex ``x`` the modulus (a real array). The derivative at 0
    is 0 (a zero subgradient).

    >>> import fad.numpy as fnp
    >>> float(fnp.abs(fnp.asarray(3 + 4j)))
    5.0
    """
    x = asarray(x)
    if x.dtype.kind == "c":
        from ._complex import complex_abs
        return complex_abs(x)
    return _real_abs(x)


abs = absolute
_real_sign = _unary(E.sign_p, "sign")


def sign(x: Any, /, out: Any = None, *, dtype: Any = None) -> Any:
    """Elementwise sign; for complex ``x`` NumPy's ``z / |z|`` (0 at 0), which is
    differentiable away from 0 (real ``sign`` is piecewise constant: derivative 0).

    >>> import fad.numpy as fnp
    >>> complex(fnp.sign(fnp.asarray(4j)))
    1j
    """
    x = asarray(x)
    if x.dtype.kind != "c" or out is not None or dtype is not None:
        return _real_sign(x, out, dtype=dtype)
    from ._complex import complex_abs
    r = complex_abs(x)
    nonzero = greater(r, 0)
    return where(nonzero, divide(x, where(nonzero, r, 1.0)), 0.0)
floor = _unary(E.floor_p, "floor")
ceil = _unary(E.ceil_p, "ceil")
isnan = _unary(E.isnan_p, "isnan")
isfinite = _unary(E.isfinite_p, "isfinite")
logical_not = _unary(E.logical_not_p, "logical_not")

add = _binary(E.add_p, "add")
subtract = _binary(E.sub_p, "subtract")
multiply = _binary(E.mul_p, "multiply")
divide = true_divide = _binary(E.div_p, "divide")
power = _binary(E.pow_p, "power")
maximum = _binary(E.max_p, "maximum")
minimum = _binary(E.min_p, "minimum")
arctan2 = _binary(E.atan2_p, "arctan2")
floor_divide = _binary(E.floor_divide_p, "floor_divide")
remainder = mod = _binary(E.rem_p, "remainder")
equal = _binary(E.eq_p, "equal", "add")
not_equal = _binary(E.ne_p, "not_equal", "add")
less = _binary(E.lt_p, "less", "add")
less_equal = _binary(E.le_p, "less_equal", "add")
greater = _binary(E.gt_p, "greater", "add")
greater_equal = _binary(E.ge_p, "greater_equal", "add")
logical_and = _binary(E.and_p, "logical_and")
logical_or = _binary(E.or_p, "logical_or")
logical_xor = _binary(E.xor_p, "logical_xor")


def square(x: Any) -> Any:
    """``x * x``.

    >>> import fad.numpy as fnp
    >>> float(fnp.square(3.0))
    9.0
    """
    x = asarray(x)
    return multiply(x, x)


def reciprocal(x: Any) -> Any:
    """``1 / x`` (in ``x``'s dtype).

    >>> import fad.numpy as fnp
    >>> float(fnp.reciprocal(4.0))
    0.25
    """
    x = asarray(x)
    return divide(1, x) if x.dtype.kind in "fc" else divide(1.0, x)


def _scaled_log(name: str, x: Any, scale: float) -> Any:
    x = asarray(x)
    _, (x,) = promote(name, x)
    out = log(x)
    if out.dtype.kind == "c":  # scale each part: (-inf+0j) * (c+0j) would give a NaN
        from ._complex import imag, make_complex, real
        return make_complex(real(out) * scale, imag(out) * scale)
    return out * scale


def log2(x: Any) -> Any:
    """Base-2 logarithm, ``log(x) / log(2)``."""
    return _scaled_log("log2", x, 1.0 / 0.6931471805599453)


def log10(x: Any) -> Any:
    """Base-10 logarithm, ``log(x) / log(10)``."""
    return _scaled_log("log10", x, 1.0 / 2.302585092994046)


def sigmoid(x: Any) -> Any:
    """The logistic function ``1 / (1 + exp(-x))``, finite for every ``x``."""
    x = asarray(x)
    _, (x,) = promote("exp", x)
    return bind(E.logistic_p, x)


def where(condition: Any, x: Any = None, y: Any = None) -> Any:
    """Elementwise ``x if condition else y`` with broadcasting.

    The derivative flows to the selected operand only. If the unselected
    branch is NaN/inf its derivative is still zero, but a NaN *inside* that
    branch's own derivative would leak: guard it with a second ``where`` on the
    input (the "double where" pattern, see the README).

    >>> import fad.numpy as fnp
    >>> fnp.where(fnp.array([True, False]), 1.0, 2.0).tolist()
    [1.0, 2.0]
    """
    if x is None and y is None:
        from ._indexing import nonzero
        return nonzero(condition)
    c = asarray(condition)
    if c.dtype != bool:
        c = not_equal(c, 0)
    x, y = operand(x), operand(y)
    _, (x, y) = promote("add", x, y)
    return bind(E.select_p, c, x, y)


def clip(a: Any, a_min: Any = None, a_max: Any = None, *, min: Any = None,
         max: Any = None) -> Any:
    """Limit values to ``[a_min, a_max]``; the derivative is 1 inside the interval
    *including* its ends (PyTorch's convention) and flows to the bound outside.

    >>> import fad.numpy as fnp
    >>> fnp.clip(fnp.array([-2.0, 0.5, 3.0]), 0.0, 1.0).tolist()
    [0.0, 0.5, 1.0]
    """
    lo = a_min if a_min is not None else min
    hi = a_max if a_max is not None else max
    out = asarray(a)
    if lo is not None:
        out = where(less(out, lo), lo, out)
    if hi is not None:
        out = where(greater(out, hi), hi, out)
    return out
