"""Elementwise functions of ``fad.numpy``, NumPy's mathematical functions: the
ufuncs (arithmetic, powers, exponentials, trigonometry, comparisons, logical and
bitwise operators) and the ufunc-likes (rounding, ``sinc``, ``nan_to_num``,
``fmax``...). Each is promotion then one primitive, or an exact composite of
primitives.

Conventions at kinks and ties (tested in ``tests/numpy/test_derivative_conventions.py``):

* ``abs``, ``sign``-like kinks: derivative 0 at 0 (``abs'(0) = sign(0) = 0``).
* ``maximum``/``minimum``/``max``/``min`` at ties: the derivative is shared
  equally (1/2 each for ``maximum``); ``clip`` passes it inside the closed
  interval; ``sort`` passes tied tangents in stable order.
* ``sqrt'(0) = +inf`` and ``cbrt'(0) = +inf`` (the true one-sided limits).
* ``hypot`` and ``norm`` at 0: a zero subgradient (never NaN); ``logaddexp``
  at ``x == y`` (infinities included): 1/2 each; ``sinc`` is smooth at 0 with
  its exact derivatives of every order.
* ``where(c, x, y)``: no derivative reaches the unselected branch, but a NaN
  produced *inside* that branch's own derivative still does (0 * NaN): guard the
  input too ("double where"). The library functions already do.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from ..core.trace import bind
from ..primitives import elementwise as E
from ..primitives import special as Sp
from ..primitives import special_functions as SF
from ._base import asarray, cast, dtype_of, no_out, operand, promote


def _ufunc_kwargs(out: Any, dtype: Any, xs: list) -> list:
    """NumPy's ``out=`` (rejected: arrays are immutable) and ``dtype=`` (compute in it)."""
    no_out(out)
    return xs if dtype is None else [cast(asarray(x), np.dtype(dtype)) for x in xs]


def _unary(prim: Any, ufunc: str, example: float = 1.0, predicate: bool = False) -> Callable:
    """``predicate``: a test of any dtype's values (``isnan``), whose operand keeps
    its dtype (promoting to the result's dtype, bool, would cast it)."""
    def fn(x: Any, /, out: Any = None, *, dtype: Any = None) -> Any:
        x = asarray(x)
        if not predicate:
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
    if dtype_of(x).kind == "c":
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
    if dtype_of(x).kind != "c" or out is not None or dtype is not None:
        return _real_sign(x, out, dtype=dtype)
    from ._complex import complex_abs
    r = complex_abs(x)
    nonzero = greater(r, 0)
    return where(nonzero, divide(x, where(nonzero, r, 1.0)), 0.0)
floor = _unary(E.floor_p, "floor")
ceil = _unary(E.ceil_p, "ceil")
isnan = _unary(E.isnan_p, "isnan", predicate=True)
isfinite = _unary(E.isfinite_p, "isfinite", predicate=True)
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
    return divide(1, x) if dtype_of(x).kind in "fc" else divide(1.0, x)


log2 = _unary(E.log2_p, "log2", 2.0)
log10 = _unary(E.log10_p, "log10", 10.0)


def sigmoid(x: Any) -> Any:
    """The logistic function ``1 / (1 + exp(-x))``, finite for every ``x``.

    >>> import fad.numpy as fnp
    >>> float(fnp.sigmoid(0.0)), float(fnp.sigmoid(-1000.0))
    (0.5, 0.0)
    """
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


def _float(x: Any) -> Any:
    """``x`` as an array of the float type a NumPy ufunc gives ``x`` (``sin``'s:
    int8 / uint8 -> float16, int16 -> float32, wider ints -> float64)."""
    return promote("sin", asarray(x))[1][0]


def _stat_float(x: Any) -> Any:
    """``x`` as NumPy's statistics functions (``median``, ``nanmean``, ``sinc``...)
    see it: integers and booleans as float64, floats unchanged."""
    a = asarray(x)
    return cast(a, np.dtype(np.float64)) if dtype_of(a).kind in "biu" else a


hypot = _binary(Sp.hypot_p, "hypot")
logaddexp = _binary(Sp.logaddexp_p, "logaddexp")
logaddexp2 = _binary(Sp.logaddexp2_p, "logaddexp2")
fmod = _binary(Sp.fmod_p, "fmod")
arcsinh = _unary(Sp.asinh_p, "arcsinh")
arccosh = _unary(Sp.acosh_p, "arccosh")
arctanh = _unary(Sp.atanh_p, "arctanh", 0.5)
cbrt = _unary(Sp.cbrt_p, "cbrt")
asinh, acosh, atanh = arcsinh, arccosh, arctanh
asin, acos, atan, atan2 = arcsin, arccos, arctan, arctan2
pow = power


def _int_or(x: Any, prim: Any, ufunc: str) -> Any:
    x = asarray(x)
    if dtype_of(x).kind in "iub":
        return x
    return bind(prim, promote(ufunc, x)[1][0])


def trunc(x: Any, /, out: Any = None) -> Any:
    """Round towards zero (derivative 0).

    >>> import fad.numpy as fnp
    >>> fnp.trunc(fnp.array([-1.5, 1.5])).tolist()
    [-1.0, 1.0]
    """
    no_out(out)
    return _int_or(x, Sp.trunc_p, "trunc")


fix = trunc


def rint(x: Any, /, out: Any = None) -> Any:
    """Round to the nearest integer, halves to even (derivative 0).

    >>> import fad.numpy as fnp
    >>> fnp.rint(fnp.array([0.5, 1.5, -2.5])).tolist()
    [0.0, 2.0, -2.0]
    """
    no_out(out)
    return _int_or(x, E.round_p, "rint")


def round(a: Any, decimals: int = 0, out: Any = None) -> Any:
    """Round to ``decimals`` places as NumPy does (scale, ``rint``, unscale);
    derivative 0.

    >>> import fad.numpy as fnp
    >>> fnp.round(fnp.array([1.234, -5.678]), 1).tolist()
    [1.2, -5.7]
    """
    no_out(out)
    a = asarray(a)
    if decimals == 0 or dtype_of(a).kind in "iub" and decimals > 0:
        return rint(a)
    if dtype_of(a).kind in "iub":  # in float64 (exact below 2^53), halves to even
        f = 10.0 ** -decimals
        return cast(multiply(rint(divide(cast(a, np.dtype(np.float64)), f)), f),
                    dtype_of(a))
    if decimals > 0:
        f = 10.0 ** decimals
        return divide(rint(multiply(a, f)), f)
    f = 10.0 ** -decimals
    return multiply(rint(divide(a, f)), f)


around = round


def signbit(x: Any, /, out: Any = None) -> Any:
    """Whether the sign bit is set (``-0.0`` included); a bool array.

    >>> import fad.numpy as fnp
    >>> fnp.signbit(fnp.array([-0.0, 1.0])).tolist()
    [True, False]
    """
    no_out(out)
    return bind(Sp.signbit_p, _float(x))


def copysign(x1: Any, x2: Any, /, out: Any = None) -> Any:
    """``|x1|`` with the sign of ``x2``; no derivative flows to ``x2``.

    >>> import fad.numpy as fnp
    >>> fnp.copysign(fnp.array([1.0, 2.0]), -1.0).tolist()
    [-1.0, -2.0]
    """
    no_out(out)
    _, (x, y) = promote("copysign", operand(x1), operand(x2))
    a = absolute(x)
    return where(signbit(y), negative(a), a)


def sinc(x: Any) -> Any:
    """``sin(pi x) / (pi x)``, 1 at 0, with exact derivatives of every order there:
    near 0 it is its Taylor polynomial (to ``y^12``, exact in float64 for
    ``|pi x| < 1/2``); elsewhere the quotient, whose input is guarded (double
    where) so that no NaN reaches any derivative.

    >>> import fad, fad.numpy as fnp
    >>> float(fnp.sinc(0.0)), float(fad.grad(fnp.sinc)(0.0))
    (1.0, 0.0)
    >>> print(f"{float(fad.grad(fad.grad(fnp.sinc))(0.0)):.6f}")  # -pi^2 / 3
    -3.289868
    """
    x = _stat_float(x)
    y = multiply(x, np.pi)
    small = less(absolute(y), 0.5)
    ys = where(small, 1.0, y)
    y2 = multiply(y, y)
    poly = 0.0
    for n in range(6, -1, -1):  # sum_n (-1)^n y^2n / (2n+1)!
        poly = add(multiply(poly, y2), (-1) ** n / math.factorial(2 * n + 1))
    return where(small, poly, divide(sin(ys), ys))


def i0(x: Any) -> Any:
    """The modified Bessel function of the first kind of order 0,
    ``i0e(x) e^|x|`` (the scaled function is a primitive computed by
    ``scipy.special.i0e``); its derivative is ``I1``. Real input only.

    >>> import fad, fad.numpy as fnp
    >>> print(f"{float(fnp.i0(1.0)):.12f} {float(fad.grad(fnp.i0)(1.0)):.12f}")  # I0(1), I1(1)
    1.266065877752 0.565159103992
    """
    x = _stat_float(x)
    if dtype_of(x).kind == "c":
        raise TypeError("fad.numpy.i0 takes real numbers (as numpy.i0): got a complex array")
    return multiply(bind(SF.i0e_p, x), exp(absolute(x)))


def deg2rad(x: Any, /, out: Any = None) -> Any:
    """Degrees to radians, ``x * (pi / 180)`` as NumPy computes it.

    >>> import fad.numpy as fnp
    >>> float(fnp.deg2rad(180.0))
    3.141592653589793
    """
    no_out(out)
    return multiply(_float(x), np.pi / 180.0)


def rad2deg(x: Any, /, out: Any = None) -> Any:
    """Radians to degrees, ``x * (180 / pi)``.

    >>> import fad.numpy as fnp
    >>> float(fnp.rad2deg(fnp.pi))
    180.0
    """
    no_out(out)
    return multiply(_float(x), 180.0 / np.pi)


radians, degrees = deg2rad, rad2deg


def exp2(x: Any, /, out: Any = None) -> Any:
    """``2 ** x``.

    >>> import fad.numpy as fnp
    >>> float(fnp.exp2(3.0))
    8.0
    """
    no_out(out)
    return power(2.0, _float(x))


def float_power(x1: Any, x2: Any, /, out: Any = None) -> Any:
    """``x1 ** x2`` computed in float64.

    >>> import fad.numpy as fnp
    >>> fnp.float_power(fnp.array([2], dtype=fnp.int32), 2).dtype
    dtype('float64')
    """
    no_out(out)
    return power(asarray(x1, np.float64), asarray(x2, np.float64))


def positive(x: Any, /, out: Any = None) -> Any:
    """``+x``.

    >>> import fad.numpy as fnp
    >>> fnp.positive(fnp.array([-1.0])).tolist()
    [-1.0]
    """
    no_out(out)
    return asarray(x)


def fabs(x: Any, /, out: Any = None) -> Any:
    """Absolute value as a float.

    >>> import fad.numpy as fnp
    >>> fnp.fabs(fnp.array([-2])).tolist()
    [2.0]
    """
    no_out(out)
    return absolute(_float(x))


def heaviside(x1: Any, x2: Any, /, out: Any = None) -> Any:
    """Step function: 0 below 0, ``x2`` at 0, 1 above (derivative in ``x2`` only).

    >>> import fad.numpy as fnp
    >>> fnp.heaviside(fnp.array([-1.0, 0.0, 2.0]), 0.5).tolist()
    [0.0, 0.5, 1.0]
    """
    no_out(out)
    _, (x, h) = promote("heaviside", operand(x1), operand(x2))
    step = where(less(x, 0), 0.0, where(greater(x, 0), 1.0, h))
    return where(isnan(x), x, step)  # (NaN in, NaN out)


def isinf(x: Any, /, out: Any = None) -> Any:
    """Whether each element is infinite.

    >>> import fad.numpy as fnp
    >>> fnp.isinf(fnp.array([1.0, fnp.inf, fnp.nan])).tolist()
    [False, True, False]
    """
    no_out(out)
    x = asarray(x)
    return logical_not(logical_or(isfinite(x), isnan(x)))


def isposinf(x: Any, out: Any = None) -> Any:
    """Whether each element is ``+inf``.

    >>> import fad.numpy as fnp
    >>> fnp.isposinf(fnp.array([-fnp.inf, fnp.inf])).tolist()
    [False, True]
    """
    no_out(out)
    x = asarray(x)
    return logical_and(isinf(x), greater(x, 0))


def isneginf(x: Any, out: Any = None) -> Any:
    """Whether each element is ``-inf``.

    >>> import fad.numpy as fnp
    >>> fnp.isneginf(fnp.array([-fnp.inf, fnp.inf])).tolist()
    [True, False]
    """
    no_out(out)
    x = asarray(x)
    return logical_and(isinf(x), less(x, 0))


def nan_to_num(x: Any, copy: bool = True, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None) -> Any:
    """NaN -> ``nan``, infinities -> the largest finite values (or those given).

    >>> import fad.numpy as fnp
    >>> fnp.nan_to_num(fnp.array([fnp.nan, 1.0])).tolist()
    [0.0, 1.0]
    """
    x = asarray(x)
    if dtype_of(x).kind not in "fc":
        return x
    big = float(np.finfo(dtype_of(x)).max)
    x = where(isnan(x), nan, x)
    x = where(isposinf(x), big if posinf is None else posinf, x)
    return where(isneginf(x), -big if neginf is None else neginf, x)


def divmod(x1: Any, x2: Any, /) -> tuple:
    """``(x1 // x2, x1 % x2)``.

    >>> import fad.numpy as fnp
    >>> [v.tolist() for v in fnp.divmod(fnp.array([7.0]), 2.0)]
    [[3.0], [1.0]]
    """
    return floor_divide(x1, x2), remainder(x1, x2)


def modf(x: Any, /) -> tuple:
    """``(fractional part, integral part)``, both with the sign of ``x``.

    >>> import fad.numpy as fnp
    >>> [v.tolist() for v in fnp.modf(fnp.array([-1.5]))]
    [[-0.5], [-1.0]]
    """
    x = _float(x)
    t = trunc(x)
    return subtract(x, t), t


def _nondiff_binary(name: str) -> Any:
    fn = _binary(Sp.INT_BINARY[name], name)  # promotion, out= and dtype= as every ufunc
    fn.__module__ = __name__  # (its doctest runs with this module's)
    fn.__doc__ = (f"Elementwise ``numpy.{name}`` on integers (no derivative).\n\n"
                  f"    >>> import fad.numpy as fnp\n"
                  f"    >>> fnp.{name}(fnp.array([12, 6]), 4).dtype.kind\n    'i'\n")
    return fn


bitwise_and = _nondiff_binary("bitwise_and")
bitwise_or = _nondiff_binary("bitwise_or")
bitwise_xor = _nondiff_binary("bitwise_xor")
left_shift = _nondiff_binary("left_shift")
right_shift = _nondiff_binary("right_shift")
gcd = _nondiff_binary("gcd")
lcm = _nondiff_binary("lcm")
bitwise_left_shift, bitwise_right_shift = left_shift, right_shift


def invert(x: Any, /, out: Any = None) -> Any:
    """Bitwise not (logical not for booleans).

    >>> import fad.numpy as fnp
    >>> fnp.invert(fnp.array([True, False])).tolist()
    [False, True]
    """
    no_out(out)
    return bind(Sp.invert_p, asarray(x))


bitwise_not = bitwise_invert = invert


def fmax(x1: Any, x2: Any, /, out: Any = None) -> Any:
    """Elementwise maximum ignoring NaN (NaN only where both are NaN); ties as
    ``maximum`` (1/2 each).

    >>> import fad.numpy as fnp
    >>> fnp.fmax(fnp.array([1.0, fnp.nan]), fnp.array([fnp.nan, 2.0])).tolist()
    [1.0, 2.0]
    """
    no_out(out)
    _, (x, y) = promote("fmax", operand(x1), operand(x2))
    return where(isnan(x), y, where(isnan(y), x, maximum(x, y)))


def fmin(x1: Any, x2: Any, /, out: Any = None) -> Any:
    """Elementwise minimum ignoring NaN.

    >>> import fad.numpy as fnp
    >>> fnp.fmin(fnp.array([1.0, fnp.nan]), 0.5).tolist()
    [0.5, 0.5]
    """
    no_out(out)
    _, (x, y) = promote("fmin", operand(x1), operand(x2))
    return where(isnan(x), y, where(isnan(y), x, minimum(x, y)))


def ldexp(x1: Any, x2: Any, /, out: Any = None) -> Any:
    """``x1 * 2 ** x2`` for integer ``x2`` (exact: a power of two).

    >>> import fad.numpy as fnp
    >>> fnp.ldexp(fnp.array([1.5]), 3).tolist()
    [12.0]
    """
    no_out(out)
    x = _float(x1)
    e = asarray(x2)
    half = floor_divide(e, 2)  # two exact powers of two: neither overflows where the
    for part in (half, subtract(e, half)):  # result does not (2 ** 1024 would)
        x = multiply(x, cast(power(2.0, cast(part, dtype_of(x))), dtype_of(x)))
    return x
