"""Elementwise ``torch.*`` functions: arithmetic, unary maths, clamping, softmax,
comparisons and logic."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import numpy as fnp
from ...core.trace import Tracer
from ...primitives.complex import as_complex, as_real
from .. import _dtype, _graph
from .._graph import host
from .._ops import OPS, call
from .._recorder import Op, apply
from ..tensor import Tensor, _wrap_dim
from ._common import _t, exported, is_complex_operand, refuse_complex
from .conversions import _float_if_int, to
from .writes import into

_MUL, _DIV = OPS["mul"], OPS["div"]


def _additive(name: str) -> Any:
    """``torch.add`` / ``torch.sub``: ``input ± alpha * other``."""
    op = OPS[name]

    subtracts = name == "sub"

    def fn(input: Any, other: Any, *, alpha: Any = 1, out: Any = None) -> Tensor:
        if subtracts:
            refuse_bool_subtraction(input, other)
        if type(alpha) is float and _integral(input) and _integral(other):
            raise RuntimeError("For integral input tensors, argument alpha must not be a "
                               "floating point number.")
        if out is not None:
            return into(name, out, (input, other), lambda: fn(input, other, alpha=alpha))
        if type(input) is int or type(other) is int:
            input, other = _wrap_scalars(input, other)
        if alpha == 1:
            return apply(op, (input, other))
        return apply(op, (input, other), {"alpha": alpha})
    fn.__name__ = fn.__qualname__ = name
    return fn


add = _additive("add")
sub = subtract = _additive("sub")


def _binary(name: str, integer_division: bool = False) -> Any:
    op = OPS[name]
    ordered = name in ("maximum", "minimum")

    def fn(input: Any, other: Any) -> Tensor:
        if ordered:
            refuse_complex(name, input, other)
        if integer_division:
            if _is_bool(input) and _is_bool(other):
                kernel = "div_floor" if name == "floor_divide" else "remainder"
                raise NotImplementedError(f"\"{kernel}_cpu\" not implemented for 'Bool'")
            refuse_integer_zero(input, other)
            input, other = _wrap_scalars(input, other)
        return apply(op, (input, other))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}`` of two operands (broadcast)."
    return fn


def _kind(t: Tensor) -> str:
    """The NumPy kind letter of a Tensor's dtype (read off a NumPy array directly: this
    runs on every arithmetic call)."""
    v = t._value
    return v.dtype.kind if type(v) is np.ndarray else t.dtype.np.kind


def _integral(x: Any) -> bool:
    if isinstance(x, Tensor):
        return _kind(x) in "biu"
    return isinstance(x, int | np.integer)  # (bool is an int)


def refuse_integer_zero(dividend: Any, divisor: Any) -> None:
    """PyTorch's integer division (floor, truncating, remainder) by zero is an error,
    where NumPy's gives 0 with a warning.

    >>> import fad.torch as torch
    >>> torch.tensor([1, 2]) // torch.tensor([0, 1])
    Traceback (most recent call last):
    RuntimeError: ZeroDivisionError
    """
    if _integral(dividend) and _integral(divisor):
        v = divisor._value if isinstance(divisor, Tensor) else divisor
        if not isinstance(v, Tracer) and not np.all(np.asarray(host(v)) != 0):
            raise RuntimeError("ZeroDivisionError")


def _is_bool(x: Any) -> bool:
    if type(x) is Tensor and type(x._value) is np.ndarray:  # (the usual case, read fast)
        return x._value.dtype.kind == "b"
    return isinstance(x, bool) or isinstance(x, Tensor) and _kind(x) == "b"


def refuse_bool_subtraction(input: Any, other: Any) -> None:
    """PyTorch refuses ``-`` with a bool operand (NumPy's would count).

    >>> import fad.torch as torch
    >>> torch.tensor([1, 2]) - torch.tensor([True, False])
    Traceback (most recent call last):
    RuntimeError: Subtraction, the `-` operator, with a bool tensor is not supported. \
If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.
    """
    bool_input, bool_other = _is_bool(input), _is_bool(other)
    if bool_input and bool_other:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if bool_input or bool_other:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not "
                           "supported. If you are trying to invert a mask, use the `~` or "
                           "`logical_not()` operator instead.")


_RSUB = OPS["rsub"]


def rsub(input: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    if type(other) is float and alpha == 1 and type(input) is Tensor and \
            type(input._value) is np.ndarray and input._value.dtype.kind == "f":
        return apply(_RSUB, (input,), {"other": other, "alpha": 1})  # (the common case)
    refuse_bool_subtraction(input, other)
    if isinstance(other, Tensor) or isinstance(other, np.ndarray):
        return call("rsub_t", input, other, alpha=alpha)
    input = _float_if_int(input, other)
    other = _integer_scalar(other, input)
    return call("rsub", input, other=other, alpha=alpha)


def mul(input: Any, other: Any, *, out: Any = None) -> Tensor:
    if out is not None:
        return into("mul", out, (input, other), lambda: mul(input, other))
    if type(input) is int or type(other) is int:
        return apply(_MUL, _wrap_scalars(input, other))
    return apply(_MUL, (input, other))


multiply = mul


def div(input: Any, other: Any, *, rounding_mode: str | None = None, out: Any = None
        ) -> Tensor:
    if out is not None:
        return into("div", out, (input, other),
                    lambda: div(input, other, rounding_mode=rounding_mode))
    if rounding_mode is None:
        return apply(_DIV, (input, other))
    if rounding_mode in ("floor", "trunc"):
        refuse_integer_zero(input, other)
    if rounding_mode == "floor":
        return call("floor_divide", input, other)
    if rounding_mode == "trunc":
        r = trunc(apply(_DIV, (input, other)))
        ints = all(isinstance(x, int) or isinstance(x, Tensor) and
                   x.dtype.np.kind in "biu" for x in (input, other))
        return to(r, _dtype.int64) if ints else r
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                       f"but found '{rounding_mode}'")


divide = true_divide = div
floor_divide = _binary("floor_divide", integer_division=True)
remainder = _binary("remainder", integer_division=True)


def fmod(input: Any, other: Any) -> Tensor:
    """C's remainder (the sign of ``input``); integer in, integer out.

    >>> import fad.torch as torch
    >>> torch.fmod(torch.tensor([-3.0, 3.0]), 2)
    tensor([-1.,  1.])
    """
    vals = [x._value if isinstance(x, Tensor) else x for x in (input, other)]
    result = _dtype.of_np(_dtype.result_type(vals))
    if result.np.kind in "bc":
        raise NotImplementedError(f"\"fmod_cpu\" not implemented for '{_dtype.type_word(result)}'")
    if isinstance(input, Tensor) and _kind(input) == "b":  # (computed in the result dtype)
        input = to(input, result)
    return sub(input, mul(div(input, other, rounding_mode="trunc"), other))


_POW_SCALAR = OPS["pow_scalar"]


def pow(input: Any, exponent: Any) -> Tensor:
    te = type(exponent)
    if (te is int or te is float) and type(input) is Tensor and \
            type(input._value) is np.ndarray and input._value.dtype.kind == "f":
        return apply(_POW_SCALAR, (input,), {"exponent": exponent})  # (the common case)
    if not isinstance(input, Tensor):
        return rpow(exponent, input)
    if input.dtype.np.kind == "b" and _is_bool(exponent):
        if isinstance(exponent, Tensor):
            raise NotImplementedError("\"pow\" not implemented for 'Bool'")
        return to(pow(to(input, _dtype.int64), int(exponent)), _dtype.bool)
    if input.dtype.np.kind == "b" and type(exponent) is int:
        input = to(input, _dtype.int64)
    if type(exponent) is int and exponent < 0 and input.dtype.np.kind in "iu":
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    if isinstance(exponent, Tensor):
        if _kind(input) in "biu" and _kind(exponent) in "biu":  # (negative exponents too)
            return call("int_pow", input, exponent)
        return call("pow", input, exponent)
    return call("pow_scalar", _float_if_int(input, exponent), exponent=exponent)


def rpow(input: Tensor, base: Any) -> Tensor:
    if _is_bool(input) and _is_bool(base):
        raise NotImplementedError("\"pow\" not implemented for 'Bool'")
    if type(base) is int and _kind(input) in "iu":  # (negative exponents too)
        return call("int_rpow", input, base=base)
    return call("rpow", _float_if_int(input, base), base=base)


def float_power(input: Any, exponent: Any) -> Tensor:
    """``input ** exponent`` in double precision: ``float64``, or ``complex128`` when
    either is complex.

    >>> import fad.torch as torch
    >>> torch.float_power(torch.tensor([1 + 2j]), 2)
    tensor([-3.+4.j], dtype=torch.complex128)
    """
    x = _t(input)
    cplx = is_complex_operand(x) or is_complex_operand(exponent)
    dt = _dtype.complex128 if cplx else _dtype.float64
    if isinstance(exponent, Tensor):
        exponent = to(exponent, dt)
    return pow(to(x, dt), exponent)


maximum = _binary("maximum")
minimum = _binary("minimum")
atan2 = arctan2 = _binary("atan2")


# (PyTorch has no kernel for these dtypes; NumPy's would return a value)
_REFUSED = {("abs", "b"): '"abs_cpu" not implemented for \'Bool\'',
            ("floor", "b"): '"floor_vml_cpu" not implemented for \'Bool\'',
            ("ceil", "b"): '"ceil_vml_cpu" not implemented for \'Bool\'',
            ("trunc", "b"): '"trunc_vml_cpu" not implemented for \'Bool\'',
            ("round", "b"): '"round_vml_cpu" not implemented for \'Bool\'',
            ("floor", "c"): "floor is not supported for complex inputs",
            ("ceil", "c"): "ceil is not supported for complex inputs",
            ("trunc", "c"): "trunc is not supported for complex inputs",
            ("round", "c"): '"round_vml_cpu" not implemented for \'ComplexFloat\'',
            ("sign", "c"): "Unlike NumPy, torch.sign is not intended to support complex "
                           "numbers. Please use torch.sgn instead."}


def _refuse_unary(name: str, input: Tensor) -> None:
    msg = _REFUSED.get((name, _kind(input)))
    if msg is not None:
        raise NotImplementedError(msg)


def _unary(name: str) -> Any:
    op = OPS[name]
    refuses = any(n == name for n, _ in _REFUSED)  # (checked per call only where needed)
    square = name == "square"

    def fn(input: Tensor, *, out: Any = None) -> Tensor:
        if refuses and isinstance(input, Tensor):
            _refuse_unary(name, input)
            if name == "sign" and _kind(input) == "b":  # (its own sign: a copy, as PyTorch's)
                input = to(input, _dtype.int8)
                return to(apply(op, (input,)) if out is None else
                          into(name, out, (input,), lambda: apply(op, (input,))), _dtype.bool)
        if square and isinstance(input, Tensor) and _kind(input) == "b":
            input = to(input, _dtype.int64)
        if out is not None:
            return into(name, out, (input,), lambda: apply(op, (input,)))
        return apply(op, (input,))
    fn.__name__ = name
    fn.__doc__ = f"Elementwise ``{name}`` (``grad_fn`` {op.grad_fn})."
    return fn


neg = negative = _unary("neg")
abs = absolute = _unary("abs")
sign = _unary("sign")


def sgn(input: Tensor) -> Tensor:
    """``x / |x|`` for complex ``x`` (0 at 0), the sign for real ``x``.

    >>> import fad.torch as torch
    >>> torch.sgn(torch.tensor([3j, -2.0]))
    tensor([ 0.+1.j, -1.+0.j])
    """
    if isinstance(input, Tensor) and _kind(input) == "b":
        return sign(input)
    return apply(OPS["sign"], (input,))


floor = _unary("floor")
ceil = _unary("ceil")
trunc = fix = _unary("trunc")
frac = _unary("frac")
exp = _unary("exp")
exp2 = _unary("exp2")
expm1 = _unary("expm1")
log = _unary("log")
log2 = _unary("log2")
log10 = _unary("log10")
log1p = _unary("log1p")
sqrt = _unary("sqrt")
rsqrt = _unary("rsqrt")
square = _unary("square")
reciprocal = _unary("reciprocal")
sin = _unary("sin")
cos = _unary("cos")
tan = _unary("tan")
asin = arcsin = _unary("asin")
acos = arccos = _unary("acos")
atan = arctan = _unary("atan")
sinh = _unary("sinh")
cosh = _unary("cosh")
tanh = _unary("tanh")
sigmoid = _unary("sigmoid")
erf = _unary("erf")
erfc = _unary("erfc")
erfinv = _unary("erfinv")
lgamma = _unary("lgamma")
digamma = _unary("digamma")
relu = _unary("relu")
isnan = _unary("isnan")
isfinite = _unary("isfinite")
isinf = _unary("isinf")
logical_not = _unary("logical_not")


def round(input: Tensor, *, decimals: int = 0) -> Tensor:
    _refuse_unary("round", input)
    if decimals:
        scale = 10.0 ** decimals
        return div(call("round", mul(input, scale)), scale)
    return call("round", input)


def clamp(input: Tensor, min: Any = None, max: Any = None) -> Tensor:
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if input.dtype.is_complex:
        raise NotImplementedError("clamp is not supported for complex types")
    input = _float_if_int(_float_if_int(input, min), max)
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        lo = min._value if isinstance(min, Tensor) else min
        hi = max._value if isinstance(max, Tensor) else max
        return call("clamp_t", input, min=lo, max=hi)
    return call("clamp", input, min=min, max=max)


clip = clamp


def clamp_min(input: Tensor, min: Any) -> Tensor:
    if isinstance(min, Tensor) or input.dtype.is_complex or isinstance(min, float):
        return clamp(input, min=min)
    return call("clamp_min", input, min=min)


def clamp_max(input: Tensor, max: Any) -> Tensor:
    if isinstance(max, Tensor) or input.dtype.is_complex or isinstance(max, float):
        return clamp(input, max=max)
    return call("clamp_max", input, max=max)


def _softmax_like(name: str) -> Any:
    """``softmax`` / ``log_softmax`` with PyTorch's implicit ``dim`` (0 for 0-, 1- and
    3-d inputs, 1 otherwise)."""
    def fn(input: Tensor, dim: int | None = None, dtype: Any = None) -> Tensor:
        if dtype is not None:
            input = to(input, dtype)
        if dim is None:
            dim = 0 if input.dim() in (0, 1, 3) else 1
        return call(name, input, dim=_wrap_dim(dim, input.dim()))
    fn.__name__ = fn.__qualname__ = name
    return fn


softmax = _softmax_like("softmax")
log_softmax = _softmax_like("log_softmax")


def _cmp(name: str) -> Any:
    op = OPS[name]

    ordering = name not in ("eq", "ne")

    def fn(input: Any, other: Any) -> Tensor:
        if other is None:
            return NotImplemented
        if ordering:
            for x in (input, other):
                if isinstance(x, complex) or isinstance(x, Tensor) and _kind(x) == "c":
                    raise NotImplementedError(f"\"{name}_cpu\" not implemented for "
                                              "'ComplexFloat'")
        if type(input) is int or type(other) is int:
            return apply(op, _wrap_scalars(input, other))
        return apply(op, (input, other))
    fn.__name__ = name
    return fn


def _wrap_scalars(input: Any, other: Any) -> tuple:
    return _integer_scalar(input, other), _integer_scalar(other, input)


def _integer_scalar(scalar: Any, t: Any) -> Any:
    """A Python integer combined with an integer tensor (arithmetic, comparisons) is
    converted to the tensor's dtype first, wrapping around as PyTorch's conversion
    does (``uint8`` ``< -1`` compares with 255, ``uint8 + 300`` adds 44)."""
    if not isinstance(t, Tensor) or type(scalar) is not int or _kind(t) not in "iu":
        return scalar
    info = np.iinfo(t.dtype.np)
    if info.min <= scalar <= info.max or info.bits == 64:
        return scalar
    return (scalar - int(info.min)) % (1 << info.bits) + int(info.min)


eq = _cmp("eq")
ne = not_equal = _cmp("ne")
lt = less = _cmp("lt")
le = less_equal = _cmp("le")
gt = greater = _cmp("gt")
ge = greater_equal = _cmp("ge")
logical_and = _binary("logical_and")
logical_or = _binary("logical_or")
logical_xor = _binary("logical_xor")


def _bitwise(name: str) -> Any:
    """``torch.bitwise_<name>``: integer and bool tensors only, as PyTorch.

    >>> import fad.torch as torch
    >>> torch.bitwise_and(torch.tensor([12]), torch.tensor([10])), ~torch.tensor([12])
    (tensor([8]), tensor([-13]))
    """
    op = OPS["bitwise_" + name]

    def fn(input: Any, other: Any = None) -> Tensor:
        args = (input,) if name == "not" else (input, other)
        for a in args:
            if isinstance(a, Tensor) and a.dtype.np.kind not in "biu" or isinstance(a, float):
                dt = a.dtype if isinstance(a, Tensor) else _dtype.float32
                raise NotImplementedError(f'"bitwise_{name}_cpu" not implemented for '
                                   f"'{_dtype.type_word(dt)}'")
        return apply(op, args if name == "not" else _wrap_scalars(input, other))
    fn.__name__ = fn.__qualname__ = "bitwise_" + name
    fn.__doc__ = f"Elementwise bitwise ``{name}`` of integer or bool tensors."
    return fn


_SHIFTS = {n: Op(f"bitwise_{n}_shift", getattr(fnp, f"{n}_shift"), "NotDifferentiable",
                 None, False) for n in ("left", "right")}


def _shift(side: str) -> Any:
    def fn(input: Any, other: Any) -> Tensor:
        if isinstance(other, Tensor) and not other.dim() and isinstance(input, Tensor) \
                and input.dim():
            other = other.item()  # (a 0-d tensor counts as a number in the promotion)
        if _is_bool(input) and _is_bool(other):
            raise NotImplementedError(f"\"{side[0]}shift_cpu\" not implemented for 'Bool'")
        for a in (input, other):
            if isinstance(a, Tensor) and a.dtype.np.kind not in "biu" or \
                    isinstance(a, float | complex):
                dt = a.dtype if isinstance(a, Tensor) else _dtype.float32 if isinstance(
                    a, float) else _dtype.complex64
                raise NotImplementedError(f'"{side[0]}shift_cpu" not implemented for '
                                          f"'{_dtype.type_word(dt)}'")
        return apply(_SHIFTS[side], _wrap_scalars(input, other))
    fn.__name__ = fn.__qualname__ = f"bitwise_{side}_shift"
    fn.__doc__ = f"""Elementwise {side} shift of integer tensors (``{'<<' if side == 'left'
                                                                   else '>>'}``).

    >>> import fad.torch as torch
    >>> torch.bitwise_{side}_shift(torch.tensor([8, -8]), 1)
    {'tensor([ 16, -16])' if side == 'left' else 'tensor([ 4, -4])'}
    """
    return fn


bitwise_left_shift = _shift("left")
bitwise_right_shift = _shift("right")
bitwise_and = _bitwise("and")
bitwise_or = _bitwise("or")
bitwise_xor = _bitwise("xor")
bitwise_not = _bitwise("not")


def polar(abs: Tensor, angle: Tensor) -> Tensor:
    """The complex tensor ``abs * (cos(angle) + i sin(angle))``.

    >>> import fad.torch as torch
    >>> torch.polar(torch.tensor([2.0]), torch.tensor([0.0]))
    tensor([2.+0.j])
    """
    if abs.dtype != angle.dtype:
        raise RuntimeError(f"Expected object of scalar type {_dtype.type_word(abs.dtype)} but "
                           f"got scalar type {_dtype.type_word(angle.dtype)} for second "
                           f"argument")
    if abs.dtype not in (_dtype.float32, _dtype.float64):
        raise RuntimeError("Expected both inputs to be Half, Float or Double tensors but got "
                           f"{_dtype.type_word(abs.dtype)} and {_dtype.type_word(angle.dtype)}")
    return call("polar", abs, angle)


def conj(input: Tensor) -> Tensor:
    """The complex conjugate (a real tensor is its own).

    >>> import fad.torch as torch
    >>> torch.conj(torch.tensor([1 + 2j]))
    tensor([1.-2.j])
    """
    return call("conj", input) if input.is_complex() else input


_graph.CONJ = conj  # (the backward pass conjugates complex cotangents it records)


def conj_physical(input: Tensor) -> Tensor:
    """The complex conjugate, computed now (as ``conj``: fad has no lazy views).

    >>> import fad.torch as torch
    >>> torch.conj_physical(torch.tensor([1 - 1j]))
    tensor([1.+1.j])
    """
    return conj(input)


def resolve_conj(input: Tensor) -> Tensor:
    """``input`` itself: a conjugation here is never lazy.

    >>> import fad.torch as torch
    >>> torch.resolve_conj(torch.tensor([1 + 1j]))
    tensor([1.+1.j])
    """
    return input


def is_conj(input: Tensor) -> bool:
    """False: conjugations are computed at once, never lazy bits.

    >>> import fad.torch as torch
    >>> torch.is_conj(torch.tensor([1j]).conj())
    False
    """
    return False


def real(input: Tensor) -> Tensor:
    """The real part (a real tensor is its own real part).

    >>> import fad.torch as torch
    >>> torch.real(torch.tensor([1 + 2j]))
    tensor([1.])
    """
    return call("real", input) if input.is_complex() else input


def imag(input: Tensor) -> Tensor:
    """The imaginary part of a complex tensor.

    >>> import fad.torch as torch
    >>> torch.tensor([1 + 2j]).imag
    tensor([2.])
    """
    if not input.is_complex():
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return call("imag", input)


_VIEW_AS_REAL = Op("view_as_real", as_real, "ViewAsRealBackward0", None, False)
_VIEW_AS_COMPLEX = Op("view_as_complex", as_complex, "ViewAsComplexBackward0", None, False)


def view_as_real(input: Tensor) -> Tensor:
    """A complex tensor as pairs of reals on a new last dimension, sharing its memory.

    >>> import fad.torch as torch
    >>> torch.view_as_real(torch.tensor([1 + 2j]))
    tensor([[1., 2.]])
    """
    if not input.is_complex():
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return apply(_VIEW_AS_REAL, (input,))


def view_as_complex(input: Tensor) -> Tensor:
    """Pairs of reals on the last dimension (of size 2, stride 1) as a complex tensor
    sharing their memory.

    >>> import fad.torch as torch
    >>> torch.view_as_complex(torch.tensor([[1.0, 2.0]]))
    tensor([1.+2.j])
    """
    if input.dtype not in (_dtype.float32, _dtype.float64):
        raise RuntimeError("view_as_complex is only supported for half, float and double "
                           f"tensors, but got a tensor of scalar type: "
                           f"{_dtype.type_word(input.dtype)}")
    if input.dim() == 0 or input.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    strides = input.stride()
    if strides[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s in strides[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last "
                           "dimension")
    v = input._value
    if type(v) is np.ndarray and v.base is not None and \
            (v.__array_interface__["data"][0] - v.base.__array_interface__["data"][0]) \
            % (2 * v.itemsize):
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    return apply(_VIEW_AS_COMPLEX, (input,))


def equal(input: Tensor, other: Tensor) -> bool:
    a, b = _t(input), _t(other)
    return a.shape == b.shape and bool(eq(a, b).all().item())


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:
    a, b = _t(input).detach(), _t(other).detach()
    if a.dtype != b.dtype:
        raise RuntimeError(f"{_dtype.type_word(a.dtype)} did not match "
                           f"{_dtype.type_word(b.dtype)}")
    if a.dtype.np.kind in "biu":
        return eq(a, b)
    close = le(abs(sub(a, b)), add(mul(abs(b), rtol), atol))
    if equal_nan:
        close = logical_or(close, logical_and(isnan(a), isnan(b)))
    return close


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    return bool(isclose(input, other, rtol, atol, equal_nan).all().item())


__all__ = exported(globals())
