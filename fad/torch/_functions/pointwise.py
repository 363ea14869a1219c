"""More elementwise ``torch.*`` functions under PyTorch's names: inverse hyperbolic
functions, angle conversions, ``hypot``, ``logaddexp``, ``copysign``, ``lerp``,
``addcmul``/``addcdiv``, NaN and sign tests. Each is a ``fad.numpy`` function
recorded as one operation (its derivative is fad's), with PyTorch's dtype rules,
errors and ``grad_fn`` names (``out=`` is added where ``fad.torch`` exports them)."""

from __future__ import annotations

from typing import Any, Callable

from ... import numpy as fnp
from ...scipy import special as sp
from .. import _dtype
from .._recorder import EW, EWF, UF, Op, apply
from ..tensor import Tensor, _wrap_dim
from ._common import exported, refuse_complex
from .indexing import where


def _unary_op(name: str, fun: Callable, grad_fn: str | None, kind: int | None = UF,
              doc: str = "") -> Callable:
    """``torch.<name>(input)`` recording ``fun`` (``grad_fn`` ``None``: a result that
    never requires grad)."""
    op = Op(name, fun, grad_fn or "NotDifferentiable", kind, grad_fn is not None)

    def fn(input: Tensor) -> Tensor:
        return apply(op, (input,))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc or f"Elementwise ``{name}`` (``grad_fn`` {op.grad_fn})."
    return fn


def _float_only(kernel: str, *args: Any) -> None:
    """PyTorch's error for a function without an integer kernel, when no operand is
    floating (the result's dtype is then an integer one)."""
    tensors = [a for a in args if isinstance(a, Tensor)]
    if tensors and all(a.dtype.np.kind in "biu" for a in tensors) and \
            not any(isinstance(a, float | complex) for a in args):
        word = _dtype.type_word(max(tensors, key=lambda a: a.dtype.np.itemsize).dtype)
        raise NotImplementedError(f'"{kernel}" not implemented for \'{word}\'')


def _binary_op(name: str, fun: Callable, grad_fn: str | None, kind: int, floats: bool = False,
               doc: str = "", real: bool = False) -> Callable:
    """``torch.<name>(input, other)``, broadcast; ``floats``: integer inputs refused,
    as PyTorch has no integer kernel; ``real``: complex ones refused (no order)."""
    op = Op(name, fun, grad_fn or "NotDifferentiable", kind, grad_fn is not None)

    def fn(input: Any, other: Any) -> Tensor:
        if floats:
            _float_only(name + "_cpu", input, other)
        if real:
            refuse_complex(name, input, other)
        return apply(op, (input, other))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc or f"Elementwise ``{name}`` of two operands, broadcast."
    return fn


asinh = arcsinh = _unary_op("asinh", fnp.arcsinh, "AsinhBackward0")
acosh = arccosh = _unary_op("acosh", fnp.arccosh, "AcoshBackward0")
atanh = arctanh = _unary_op("atanh", fnp.arctanh, "AtanhBackward0", doc="""\
The inverse hyperbolic tangent (integers become floats).

>>> import fad.torch as torch
>>> torch.atanh(torch.tensor([0.0, 0.5]))
tensor([0.0000, 0.5493])
""")
deg2rad = _unary_op("deg2rad", fnp.deg2rad, "Deg2RadBackward0")
rad2deg = _unary_op("rad2deg", fnp.rad2deg, "Rad2DegBackward0")
i0 = _unary_op("i0", fnp.i0, "I0Backward0")
sinc = _unary_op("sinc", fnp.sinc, "SincBackward0", doc="""\
The normalised sinc, ``sin(pi x) / (pi x)`` (1 at 0).

>>> import fad.torch as torch
>>> torch.sinc(torch.tensor([0.0, 0.5]))
tensor([1.0000, 0.6366])
""")
def _angle(a: Any) -> Any:
    if fnp.iscomplexobj(a):
        return fnp.angle(a)
    # PyTorch's for a real x: pi where x < 0, else 0 (-0.0 included), NaN kept
    return fnp.where(fnp.isnan(a), a, fnp.where(a < 0, fnp.full_like(a, fnp.pi),
                                                  fnp.zeros_like(a)))


angle = _unary_op("angle", _angle, "AngleBackward0", doc="""\
The argument of each complex element; ``0`` or ``pi`` for a real one.

>>> import fad.torch as torch
>>> torch.angle(torch.tensor([1j, -2.0]))
tensor([1.5708, 3.1416])
""")
signbit = _unary_op("signbit", fnp.signbit, None, None)
isneginf = _unary_op("isneginf", fnp.isneginf, None, None)
isposinf = _unary_op("isposinf", fnp.isposinf, None, None)
isreal = _unary_op("isreal", fnp.isreal, None, None)

hypot = _binary_op("hypot", fnp.hypot, "HypotBackward0", EW, floats=True, doc="""\
``sqrt(input**2 + other**2)``, without overflow for large values.

>>> import fad.torch as torch
>>> torch.hypot(torch.tensor([3.0]), torch.tensor([4.0]))
tensor([5.])
""")
logaddexp = _binary_op("logaddexp", fnp.logaddexp, "LogaddexpBackward0", EW, floats=True)
logaddexp2 = _binary_op("logaddexp2", fnp.logaddexp2, "Logaddexp2Backward0", EW, floats=True)
copysign = _binary_op("copysign", fnp.copysign, "CopysignBackward0", EWF)
fmax = _binary_op("fmax", fnp.fmax, "FmaxBackward0", EW, real=True, doc="""\
The larger of two elements, ignoring NaN (NaN only where both are NaN).

>>> import fad.torch as torch
>>> torch.fmax(torch.tensor([float("nan"), 1.0]), torch.tensor([2.0, float("nan")]))
tensor([2., 1.])
""")
fmin = _binary_op("fmin", fnp.fmin, "FminBackward0", EW, real=True)
# (a step: PyTorch records it and raises on backward; here its result is a constant)
xlogy = _binary_op("xlogy", sp.xlogy, "XlogyBackward0", EWF, doc="""\
``input * log(other)``, 0 where ``input == 0``.

>>> import fad.torch as torch
>>> torch.xlogy(torch.tensor([0.0, 2.0]), torch.tensor([0.0, 1.0]))
tensor([0., 0.])
""")
igamma = _binary_op("igamma", sp.gammainc, "IgammaBackward0", EWF, doc="""\
The regularised lower incomplete gamma function ``P(input, other)``.

>>> import fad.torch as torch
>>> torch.igamma(torch.tensor([2.0]), torch.tensor([1.0]))
tensor([0.2642])
""")
igammac = _binary_op("igammac", sp.gammaincc, "IgammacBackward0", EWF)
_POLYGAMMA = Op("polygamma", lambda a, n=0: sp.polygamma(n, a), "PolygammaBackward0", UF, True)
_MVLGAMMA = Op("mvlgamma", lambda a, p=1: sp.multigammaln(a, p), "MvlgammaBackward0", UF, True)


def polygamma(n: int, input: Tensor) -> Tensor:
    """The ``n``-th derivative of the digamma function.

    >>> import fad.torch as torch
    >>> torch.polygamma(1, torch.tensor([1.0]))
    tensor([1.6449])
    """
    return apply(_POLYGAMMA, (input,), {"n": int(n)})


def mvlgamma(input: Tensor, p: int) -> Tensor:
    """The log of the multivariate gamma function of dimension ``p``.

    >>> import fad.torch as torch
    >>> torch.mvlgamma(torch.tensor([2.5]), 2)
    tensor([0.8570])
    """
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    return apply(_MVLGAMMA, (input,), {"p": int(p)})


def renorm(input: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    """``input`` with each slice along ``dim`` whose ``p``-norm exceeds ``maxnorm``
    scaled down to norm ``maxnorm``.

    >>> import fad.torch as torch
    >>> torch.renorm(torch.tensor([[3.0, 4.0], [0.3, 0.4]]), 2, 0, 1.0)
    tensor([[0.6000, 0.8000],
            [0.3000, 0.4000]])
    """
    d = _wrap_dim(dim, input.dim())
    others = tuple(k for k in range(input.dim()) if k != d)
    norms = input.norm(p, dim=others, keepdim=True)
    # (PyTorch's factor, with its 1e-7 guard)
    return input * where(norms > maxnorm, maxnorm / (norms + 1e-7), norms.new_ones(()))


_HEAVISIDE = Op("heaviside", lambda a, b: fnp.where(a == 0, b, (a > 0).astype(b.dtype)),
                "NotDifferentiable", EW, False)


def heaviside(input: Tensor, values: Tensor) -> Tensor:
    """The step ``0`` below 0, ``1`` above, ``values`` at 0 (NaN counts as below).

    >>> import fad.torch as torch
    >>> torch.heaviside(torch.tensor([-1.5, 0.0, 2.0]), torch.tensor([0.5]))
    tensor([0.0000, 0.5000, 1.0000])
    """
    if any(isinstance(a, Tensor) and a.is_complex() for a in (input, values)):
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if isinstance(values, Tensor) and values.dtype != input.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different "
                           "dtypes.")
    return apply(_HEAVISIDE, (input, values))

ldexp = _binary_op("ldexp", lambda a, b: a * fnp.exp2(b), "LdexpBackward0", EWF, doc="""\
``input * 2 ** other``.

>>> import fad.torch as torch
>>> torch.ldexp(torch.tensor([1.5]), torch.tensor([3]))
tensor([12.])
""")


def _nan_to_num(a: Any, nan: float = 0.0, posinf: Any = None, neginf: Any = None) -> Any:
    return fnp.nan_to_num(a, nan=nan, posinf=posinf, neginf=neginf)


_NAN_TO_NUM = Op("nan_to_num", _nan_to_num, "NanToNumBackward0", None, False)


def nan_to_num(input: Tensor, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None) -> Tensor:
    """``input`` with NaN replaced by ``nan`` and infinities by ``posinf``/``neginf``
    (the dtype's largest and lowest values by default); the gradient is 0 there.

    >>> import fad.torch as torch
    >>> torch.nan_to_num(torch.tensor([float("nan"), 1.0, float("-inf")]), neginf=-9.0)
    tensor([ 0.,  1., -9.])
    """
    return apply(_NAN_TO_NUM, (input,), {"nan": nan, "posinf": posinf, "neginf": neginf})


_LOGIT = Op("logit", lambda a, eps=None: sp.logit(a if eps is None else fnp.clip(a, eps, 1 - eps)),
            "LogitBackward0", UF, True)


def logit(input: Tensor, eps: float | None = None) -> Tensor:
    """``log(p / (1 - p))``, ``p`` clamped to ``[eps, 1 - eps]`` when ``eps`` is given.

    >>> import fad.torch as torch
    >>> torch.logit(torch.tensor([0.5]))
    tensor([0.])
    """
    return apply(_LOGIT, (input,), {"eps": eps})


def positive(input: Tensor) -> Tensor:
    """``input`` itself (``+input``); refused for booleans, as PyTorch's.

    >>> import fad.torch as torch
    >>> x = torch.tensor([1.0, -2.0])
    >>> torch.positive(x) is x
    True
    """
    if input.dtype == _dtype.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def _lerp(a: Any, end: Any, weight: Any = 0.5) -> Any:
    # PyTorch's two-sided form: exact at both ends (weight 0 gives start, 1 gives end)
    step = end - a
    return fnp.where(fnp.abs(weight) < 0.5, a + weight * step, end - step * (1 - weight))


_LERP = Op("lerp", _lerp, "LerpBackward0", EW, True)
_LERP_T = Op("lerp", _lerp, "LerpBackward1", EW, True)


def lerp(input: Tensor, end: Tensor, weight: Any) -> Tensor:
    """``input + weight * (end - input)`` (``weight`` a number or a tensor).

    >>> import fad.torch as torch
    >>> torch.lerp(torch.tensor([0.0, 10.0]), torch.tensor([10.0, 20.0]), 0.25)
    tensor([ 2.5000, 12.5000])
    """
    if isinstance(end, Tensor) and end.dtype != input.dtype:
        raise RuntimeError(f"expected dtype {_dtype.cpp_name(input.dtype)} for `end` but got "
                           f"dtype {_dtype.cpp_name(end.dtype)}")
    _float_only("lerp_kernel_scalar" if not isinstance(weight, Tensor) else "lerp_kernel_tensor",
                input, end)
    if isinstance(weight, Tensor):
        if weight.dtype != input.dtype:
            raise RuntimeError(f"expected dtype {_dtype.cpp_name(input.dtype)} for `weight` "
                               f"but got dtype {_dtype.cpp_name(weight.dtype)}")
        return apply(_LERP_T, (input, end, weight))
    return apply(_LERP, (input, end), {"weight": weight})


def _addcmul(a: Any, t1: Any, t2: Any, value: Any = 1) -> Any:
    return a + value * t1 * t2  # (PyTorch's order of operations: (value * t1) * t2)


def _addcdiv(a: Any, t1: Any, t2: Any, value: Any = 1) -> Any:
    return a + value * t1 / t2


_ADDCMUL = Op("addcmul", _addcmul, "AddcmulBackward0", EW, True)
_ADDCDIV = Op("addcdiv", _addcdiv, "AddcdivBackward0", EW, True)


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """``input + value * tensor1 * tensor2`` (broadcast).

    >>> import fad.torch as torch
    >>> torch.addcmul(torch.ones(2), torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]), value=0.5)
    tensor([2.5000, 5.0000])
    """
    return apply(_ADDCMUL, (input, tensor1, tensor2), {"value": value})


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """``input + value * tensor1 / tensor2`` (broadcast; true division, so integer
    tensors are refused, as PyTorch's).

    >>> import fad.torch as torch
    >>> torch.addcdiv(torch.ones(2), torch.tensor([1.0, 2.0]), torch.tensor([4.0, 4.0]), value=2)
    tensor([1.5000, 2.0000])
    """
    if all(isinstance(t, Tensor) and t.dtype.np.kind in "biu" for t in (tensor1, tensor2)):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
            "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))"
            ".to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) "
            "for float inputs. The future addcdiv behavior is just the latter implementation: "
            "(input + value * tensor1 / tensor2), for all dtypes.")
    return apply(_ADDCDIV, (input, tensor1, tensor2), {"value": value})


def ravel(input: Tensor) -> Tensor:
    """The elements in one dimension, row by row (a view when ``input`` is contiguous).

    >>> import fad.torch as torch
    >>> torch.arange(4.0).reshape(2, 2).t().ravel()
    tensor([0., 2., 1., 3.])
    """
    return input.reshape(-1)


__all__ = exported(globals())
