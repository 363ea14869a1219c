"""Elementwise primitives, one line of maths each.

Each entry: the name, the Array API function that computes it, and one partial
derivative per operand, ``partial(g, ans, *operands) -> tangent contribution``
(the identity it uses is the usual calculus one, so only the non-obvious ones
are commented); ``unary`` and ``binary`` (``builders.py``) add the batching rule
and jit's kernel. Operands arrive already promoted to one dtype by fad.numpy;
Python scalars are weak operands and may appear in place of arrays.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..core.linear import is_undefined
from ..core.primitive import Primitive
from ..core.trace import _np_dtype, bind
from . import shapes
from .builders import (
    binary,
    chunkwise,
    defjvp,
    elementwise_batch,
    negated,
    unary,
    unary_batch,
    unbroadcast,
    zeros_like,
)
from .structural import convert_element_type


def _op(prim: Primitive) -> Callable:
    def op(*args: Any) -> Any:
        return bind(prim, *args)
    op.__name__ = prim.name
    op.__doc__ = f"Apply the ``{prim.name}`` primitive."
    return op


# ------------------------------------------------------------------ unary
neg_p = unary("neg", "negative", lambda g, ans, x: -g)
sin_p = unary("sin", "sin", lambda g, ans, x: g * cos(x))
cos_p = unary("cos", "cos", lambda g, ans, x: g * -sin(x))
tan_p = unary("tan", "tan", lambda g, ans, x: g * (1 + ans * ans))
asin_p = unary("asin", "asin", lambda g, ans, x: g * rsqrt(1 - x * x))
acos_p = unary("acos", "acos", lambda g, ans, x: g * -rsqrt(1 - x * x))
atan_p = unary("atan", "atan", lambda g, ans, x: g / (1 + x * x))
sinh_p = unary("sinh", "sinh", lambda g, ans, x: g * cosh(x))
cosh_p = unary("cosh", "cosh", lambda g, ans, x: g * sinh(x))
tanh_p = unary("tanh", "tanh", lambda g, ans, x: g * (1 - ans * ans))
exp_p = unary("exp", "exp", lambda g, ans, x: g * ans)
expm1_p = unary("expm1", "expm1", lambda g, ans, x: g * (ans + 1))
log_p = unary("log", "log", lambda g, ans, x: g / x)
log1p_p = unary("log1p", "log1p", lambda g, ans, x: g / (1 + x))
log2_p = unary("log2", "log2", lambda g, ans, x: g / (x * 0.6931471805599453))  # ln 2
log10_p = unary("log10", "log10", lambda g, ans, x: g / (x * 2.302585092994046))  # ln 10
sqrt_p = unary("sqrt", "sqrt", lambda g, ans, x: g * (0.5 / ans))
abs_p = unary("abs", "abs", lambda g, ans, x: g * sign(x))  # 0 at the kink
sign_p = unary("sign", "sign", None)
floor_p = unary("floor", "floor", None)
ceil_p = unary("ceil", "ceil", None)
round_p = unary("round", "round", None)
isnan_p = unary("isnan", "isnan", None, "bool")
isfinite_p = unary("isfinite", "isfinite", None, "bool")
logical_not_p = unary("not", "logical_not", None, "bool")
# logistic(x) = 1 / (1 + e^-x); d/dx = ans (1 - ans)
logistic_p = Primitive("logistic", chunkwise(lambda xp, x: _logistic(xp, x)), shapes.same)
defjvp(logistic_p, lambda g, ans, x: g * (ans * (1 - ans)))
logistic_p.batch = unary_batch(logistic_p)




# softplus(x) = log(1 + e^x) = max(x, 0) + log1p(e^-|x|); d/dx = logistic(x)
softplus_p = Primitive(
    "softplus", chunkwise(lambda xp, x: xp.maximum(x, 0) + xp.log1p(xp.exp(-xp.abs(x)))),
    shapes.same)
defjvp(softplus_p, lambda g, ans, x: g * bind(logistic_p, x))
softplus_p.batch = unary_batch(softplus_p)


# below these (per itemsize) e^-x would overflow; there logistic(x) = e^x to the
# dtype's precision (1 + e^x rounds to 1)
_LOGISTIC_FLOOR = {8: -709.0, 4: -88.0, 2: -11.0}


def _logistic(xp: Any, x: Any) -> Any:
    # 1 / (1 + e^-x): accurate in relative terms on both tails (1 + e^-x never cancels)
    dtype = _np_dtype(x.dtype)
    if dtype.kind == "c":
        return 1 / (1 + xp.exp(-x))
    if xp is np:  # in place, in the one buffer negative() or maximum() allocates
        floor = _LOGISTIC_FLOOR.get(dtype.itemsize, -88.0)
        # no far left tail (where e^-x overflows) and no NaN: nothing to clamp
        clean = x.ndim and x.size and np.minimum.reduce(x, None) >= floor
        t = np.negative(x) if clean else np.maximum(x, floor)
        if type(t) is not np.ndarray:  # a 0-d input
            return 1 / (1 + np.exp(-t)) if t > floor else np.exp(x)
        if not clean:
            np.negative(t, t)  # (positional outputs: cheaper calls on small arrays)
        np.exp(t, t)
        np.add(t, 1.0, t)
        np.reciprocal(t, t)
        if not clean:  # the far left tail: e^x, accurate where 1 + e^-x overflows
            np.exp(x, out=t, where=x < floor)
        return t
    # other namespaces: e^-|x| never overflows
    e = xp.exp(-xp.abs(x))
    return xp.where(x >= 0, 1 / (1 + e), e / (1 + e))


def rsqrt(x: Any) -> Any:
    return 1 / sqrt(x)


# ------------------------------------------------------------------ binary
add_p = binary("add", "add", lambda g, ans, x, y: g, lambda g, ans, x, y: g)
sub_p = binary("sub", "subtract", lambda g, ans, x, y: g, negated)
mul_p = binary("mul", "multiply", lambda g, ans, x, y: g * y, lambda g, ans, x, y: x * g)
div_p = binary("div", "divide", lambda g, ans, x, y: g / y,
               lambda g, ans, x, y: g * (-ans / y))


def _pow_dx(g: Any, ans: Any, x: Any, y: Any) -> Any:
    if isinstance(y, int | float):  # a constant exponent: the common case, x ** 2
        if y in (0, 1):
            return g * 0 if y == 0 else g
        return g * (y * (x if y == 2 else x ** (y - 1)))
    # y x^(y-1), taken as 0 where x == y == 0 (so that 0 ** 0 has derivative 0; a
    # "double where" keeps 0 ** -1 out). Elsewhere y == 0 is no special case, so the
    # derivative in y of this (x^-1 at y = 0) is right.
    origin = eq(y, 0) & eq(x, 0)
    return g * select(origin, 0.0, y * x ** select(origin, 1.0, y - 1))


def _pow_dy(g: Any, ans: Any, x: Any, y: Any) -> Any:
    # d/dy x^y = log(x) x^y, taken as 0 where x == 0 ("double where" keeps it finite)
    if isinstance(x, int | float):  # a constant base (2.0 ** y): stay in y's dtype
        return g * 0 if x == 0 else g * (ans * float(np.log(x)))
    safe_x = select(eq(x, 0), 1.0, x)
    return g * select(eq(x, 0), 0.0, log(safe_x) * ans)


def _numpy_power(x: Any, y: Any) -> Any:
    # x ** 2 of a float array as a square: NumPy's general pow loop is 2x slower
    if (type(y) is int or type(y) is float) and y == 2 and type(x) is np.ndarray \
            and x.dtype.kind == "f":
        return np.square(x)
    return np.power(x, y)


pow_p = binary("pow", "pow", _pow_dx, _pow_dy)
pow_p.numpy_fn = _numpy_power


def _tie_weight(x: Any, y: Any, ans: Any) -> Any:
    """1 where x wins, 0.5 at a tie, 0 where y wins (JAX's convention at ties)."""
    gt_ = convert_element_type(greater(x, y), ans.dtype)
    eq_ = convert_element_type(eq(x, y), ans.dtype)
    return gt_ + 0.5 * eq_


max_p = binary("max", "maximum", lambda g, ans, x, y: g * _tie_weight(x, y, ans),
               lambda g, ans, x, y: g * _tie_weight(y, x, ans))
min_p = binary("min", "minimum", lambda g, ans, x, y: g * _tie_weight(y, x, ans),
               lambda g, ans, x, y: g * _tie_weight(x, y, ans))
atan2_p = binary("atan2", "atan2", lambda g, ans, x, y: g * (y / (x * x + y * y)),
                 lambda g, ans, x, y: g * (-x / (x * x + y * y)))
# floor_divide has derivative 0 almost everywhere; x mod y = x - y floor(x / y)
floor_divide_p = binary("floor_divide", "floor_divide")
rem_p = binary("rem", "remainder", lambda g, ans, x, y: g,
               lambda g, ans, x, y: g * -floor_divide(x, y))

_BOOL = "bool"
eq_p = binary("eq", "equal", out_dtype=_BOOL)
ne_p = binary("ne", "not_equal", out_dtype=_BOOL)
lt_p = binary("lt", "less", out_dtype=_BOOL)
le_p = binary("le", "less_equal", out_dtype=_BOOL)
gt_p = binary("gt", "greater", out_dtype=_BOOL)
ge_p = binary("ge", "greater_equal", out_dtype=_BOOL)
and_p = binary("and", "logical_and", out_dtype=_BOOL)
or_p = binary("or", "logical_or", out_dtype=_BOOL)
xor_p = binary("xor", "logical_xor", out_dtype=_BOOL)


# ------------------------------------------------------------------ transposes
def _add_transpose(ct: Any, x: Any, y: Any) -> list:
    return [unbroadcast(ct, x.aval.shape) if is_undefined(x) else None,
            unbroadcast(ct, y.aval.shape) if is_undefined(y) else None]


def _sub_transpose(ct: Any, x: Any, y: Any) -> list:
    return [unbroadcast(ct, x.aval.shape) if is_undefined(x) else None,
            unbroadcast(-ct, y.aval.shape) if is_undefined(y) else None]


def _mul_transpose(ct: Any, x: Any, y: Any) -> list:
    if is_undefined(x) and is_undefined(y):
        raise ValueError("mul of two tangents is not linear")
    if is_undefined(x):
        return [unbroadcast(ct * y, x.aval.shape), None]
    return [None, unbroadcast(x * ct, y.aval.shape)]


def _div_transpose(ct: Any, x: Any, y: Any) -> list:
    if is_undefined(y):
        raise ValueError("division by a tangent is not linear")
    return [unbroadcast(ct / y, x.aval.shape), None]


def _neg_transpose(ct: Any, x: Any) -> list:
    return [-ct]


add_p.transpose = _add_transpose
sub_p.transpose = _sub_transpose
mul_p.transpose = _mul_transpose
div_p.transpose = _div_transpose
neg_p.transpose = _neg_transpose


# ------------------------------------------------------------------ select
def _select_aval(pred, x, y):
    shape = shapes.broadcast_shapes(pred.shape, x.shape, y.shape)
    return shapes.elementwise(x, y).__class__(shape, x.dtype)


_BITS = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def _blend_operand(v: Any, like: np.ndarray) -> Any:
    """``v`` as ``like``'s bits: an array of its shape and dtype, or a Python scalar."""
    if type(v) is np.ndarray:
        return v.view(_BITS[v.itemsize]) if v.dtype == like.dtype and v.shape == like.shape \
            else None
    return like.dtype.type(v).view(_BITS[like.itemsize]) if type(v) in (int, float) else None


def _select_impl(xp: Any, c: Any, x: Any, y: Any) -> Any:
    # NumPy's where branches on each element (slow on a mixed condition such as
    # ReLU's); large real arrays blend the bits under a mask of the condition instead
    big = x if type(x) is np.ndarray else y
    if xp is np and type(big) is np.ndarray and big.size >= 4096 and type(c) is np.ndarray \
            and c.dtype == np.bool_ and c.shape == big.shape and big.dtype.kind == "f" \
            and big.itemsize in _BITS:
        a, b = _blend_operand(x, big), _blend_operand(y, big)
        if a is not None and b is not None:
            mask = c.view(np.uint8).astype(_BITS[big.itemsize])
            if type(a) is np.ndarray or a:  # (a zero scalar: only b's part)
                np.negative(mask, out=mask)  # all ones where c
                out = np.bitwise_and(a, mask)
                if type(b) is not np.ndarray and not b:  # (a zero scalar: no b part)
                    return out.view(big.dtype)
                np.invert(mask, out=mask)
                out |= np.bitwise_and(b, mask)
            else:
                mask -= 1  # all ones where not c
                out = np.bitwise_and(b, mask)
            return out.view(big.dtype)
    if xp is not np and type(x) in (int, float, complex, bool) and type(y) is type(x):
        x = xp.asarray(x)  # (the standard's where takes one Python scalar at most)
    return xp.where(c, x, y)


select_p = Primitive("select", _select_impl, _select_aval)
defjvp(select_p, None, lambda g, ans, c, x, y: select(c, g, 0.0),
       lambda g, ans, c, x, y: select(c, 0.0, g))


def _select_transpose(ct: Any, c: Any, x: Any, y: Any) -> list:
    return [None,
            unbroadcast(select(c, ct, 0.0), x.aval.shape) if is_undefined(x) else None,
            unbroadcast(select(c, 0.0, ct), y.aval.shape) if is_undefined(y) else None]


select_p.transpose = _select_transpose
select_p.batch = elementwise_batch(select_p)


# ------------------------------------------------------------------ the ops
neg, sin, cos, tan, tanh, exp, log, sqrt, sign = map(
    _op, (neg_p, sin_p, cos_p, tan_p, tanh_p, exp_p, log_p, sqrt_p, sign_p))
sinh, cosh, floor_divide = _op(sinh_p), _op(cosh_p), _op(floor_divide_p)
eq, greater = _op(eq_p), _op(gt_p)
select = _op(select_p)


# relu(x) = max(x, 0) with derivative 0 at 0 (JAX's, PyTorch's): one kernel; its
# partial reads the output (what PyTorch's ReluBackward0 saves): g where not ans <= 0
# (a NaN passes g on, as PyTorch's threshold_backward and as where(x <= 0, 0, x))
def _relu_kernel(xp: Any) -> Callable:
    if xp is np or xp.__name__ == "cupy":
        return lambda x, out=None: xp.maximum(x, 0, out=out)
    return lambda x: xp.maximum(x, xp.zeros_like(x))


relu_p = unary("relu", _relu_kernel,
               lambda g, ans, x: select(bind(le_p, ans, 0), zeros_like(g), g))
relu_p.numpy_fn = _relu_kernel(np)
