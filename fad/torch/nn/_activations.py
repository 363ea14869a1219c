"""More of ``torch.nn.functional``'s activations: each one ``fad.nn`` function
recorded under PyTorch's ``grad_fn`` name, or a few facade operations where
PyTorch composes it too (``softsign``, ``tanhshrink``, ``gumbel_softmax``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import nn as _nn
from ... import numpy as _fnp
from .. import _functions as F
from .._creation import _place, default_generator
from .._ops import _leaky_relu
from .._recorder import Op, apply
from ..tensor import Tensor, wrap
from ._common import _inplace

__all__ = ["selu", "celu", "mish", "hardswish", "hardsigmoid", "softsign", "glu", "prelu",
           "threshold", "tanhshrink", "softshrink", "hardshrink", "gumbel_softmax",
           "selu_", "celu_", "threshold_", "elu_", "leaky_relu_", "rrelu", "rrelu_"]


def _prelu(x: Any, w: Any) -> Any:
    """``x`` where positive, ``w x`` elsewhere; ``w`` (one slope or one per channel,
    dim 1) broadcast along the channels."""
    if w.size > 1 and x.ndim >= 2:
        w = _fnp.reshape(w, (-1,) + (1,) * (x.ndim - 2))
    elif w.ndim:
        w = _fnp.reshape(w, (-1,) if x.ndim else ())
    return _leaky_relu(x, w)


_OPS = {name: Op(name, fun, grad_fn) for name, fun, grad_fn in [
    ("selu", _nn.selu, "EluBackward0"),
    ("celu", lambda a, alpha=1.0: _nn.celu(a, alpha), "CeluBackward0"),
    ("mish", _nn.mish, "MishBackward0"),
    ("hardswish", _nn.hard_swish, "HardswishBackward0"),
    ("hardsigmoid", _nn.hard_sigmoid, "HardsigmoidBackward0"),
    ("glu", lambda a, dim=-1: _nn.glu(a, dim), "GluBackward0"),
    ("prelu", _prelu, "PreluKernelBackward0"),
    ("threshold", lambda a, threshold=0.0, value=0.0: _nn.threshold(a, threshold, value),
     "ThresholdBackward0"),
    ("softshrink", lambda a, lambd=0.5: _nn.soft_shrink(a, lambd), "SoftshrinkBackward0"),
    ("hardshrink", lambda a, lambd=0.5: _nn.hard_shrink(a, lambd), "HardshrinkBackward0"),
    ("rrelu", lambda a, slope=0.0: _leaky_relu(a, slope), "RreluWithNoiseBackward0"),
]}
# in place, PyTorch's node is another overload of the same backward
_OPS.update({name + "_": Op(name + "_", fun, grad_fn) for name, fun, grad_fn in [
    ("selu", _nn.selu, "EluBackward1"),
    ("elu", lambda a, alpha=1.0: _nn.elu(a, alpha), "EluBackward1"),
    ("celu", lambda a, alpha=1.0: _nn.celu(a, alpha), "CeluBackward1"),
    ("leaky_relu", _leaky_relu, "LeakyReluBackward1"),
    ("threshold", _OPS["threshold"].fun, "ThresholdBackward1"),
    ("rrelu", _OPS["rrelu"].fun, "RreluWithNoiseBackward1"),
]})


def _call(name: str, *args: Any, **params: Any) -> Tensor:
    return apply(_OPS[name], args, params)


def _maybe_inplace(name: str, input: Tensor, inplace: bool, **params: Any) -> Tensor:
    """Operation ``name`` of ``input``, written into ``input`` when ``inplace``."""
    if inplace:
        return F.inplace(input, lambda x: _call(name + "_", x, **params))
    return _call(name, input, **params)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """``scale * elu(x, alpha)`` with the self-normalising constants.

    >>> import fad.torch as torch
    >>> torch.nn.functional.selu(torch.tensor([-1.0, 2.0]))
    tensor([-1.1113,  2.1014])
    """
    return _maybe_inplace("selu", input, inplace)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``x`` where positive, ``alpha (e^(x/alpha) - 1)`` elsewhere.

    >>> import fad.torch as torch
    >>> torch.nn.functional.celu(torch.tensor([-1.0, 2.0]), 2.0)
    tensor([-0.7869,  2.0000])
    """
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    return _maybe_inplace("celu", input, inplace, alpha=float(alpha))


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * tanh(softplus(x))``.

    >>> import fad.torch as torch
    >>> torch.nn.functional.mish(torch.tensor([1.0]))
    tensor([0.8651])
    """
    return _inplace(lambda x: _call("mish", x), input, inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * relu6(x + 3) / 6``.

    >>> import fad.torch as torch
    >>> torch.nn.functional.hardswish(torch.tensor([-1.0, 1.0, 4.0]))
    tensor([-0.3333,  0.6667,  4.0000])
    """
    return _inplace(lambda x: _call("hardswish", x), input, inplace)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """``relu6(x + 3) / 6``.

    >>> import fad.torch as torch
    >>> torch.nn.functional.hardsigmoid(torch.tensor([-4.0, 0.0, 4.0]))
    tensor([0.0000, 0.5000, 1.0000])
    """
    return _inplace(lambda x: _call("hardsigmoid", x), input, inplace)


def softsign(input: Tensor) -> Tensor:
    """``x / (|x| + 1)`` (``DivBackward0``, as PyTorch composes it).

    >>> import fad.torch as torch
    >>> torch.nn.functional.softsign(torch.tensor([-3.0, 1.0]))
    tensor([-0.7500,  0.5000])
    """
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:
    """``x - tanh(x)`` (``SubBackward0``).

    >>> import fad.torch as torch
    >>> torch.nn.functional.tanhshrink(torch.tensor([0.0, 1.0]))
    tensor([0.0000, 0.2384])
    """
    return input - input.tanh()


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """The first half of ``input`` along ``dim`` times the sigmoid of the second.

    >>> import fad.torch as torch
    >>> torch.nn.functional.glu(torch.tensor([2.0, 0.0]))
    tensor([1.])
    """
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = dim % input.dim() if -input.dim() <= dim < input.dim() else dim
    if input.shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size "
                           f"{input.shape[d]}")
    return _call("glu", input, dim=d)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``x`` where positive, ``weight * x`` elsewhere; ``weight`` has one slope, or
    one per channel (dim 1).

    >>> import fad.torch as torch
    >>> torch.nn.functional.prelu(torch.tensor([[-2.0, 3.0]]), torch.tensor([0.25]))
    tensor([[-0.5000,  3.0000]])
    """
    n = weight.numel()
    if n != 1:
        if input.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.dim() >= 2 else 1
        if n != channels:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {n} and channel size = {channels}.")
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.dim()}")
    return _call("prelu", input, weight)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False
              ) -> Tensor:
    """``x`` where ``x > threshold``, ``value`` elsewhere.

    >>> import fad.torch as torch
    >>> torch.nn.functional.threshold(torch.tensor([-1.0, 2.0]), 0.5, 9.0)
    tensor([9., 2.])
    """
    return _maybe_inplace("threshold", input, inplace, threshold=threshold, value=value)


_LIMITS = {"float16": ("Half", "65504"), "bfloat16": ("BFloat16", "3.38953e+38"),
           "float32": ("Float", "3.40282e+38"), "float64": ("Double", "1.79769e+308")}


def _lambd(lambd: float, input: Tensor) -> float:
    if lambd < 0:
        word, top = _LIMITS.get(input.dtype.name, (input.dtype.name, "inf"))
        raise RuntimeError(f"lambda must be in range [0, {top}] for input dtype {word}, but "
                           f"found {lambd:g}")
    return lambd


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, 0 between.

    >>> import fad.torch as torch
    >>> torch.nn.functional.softshrink(torch.tensor([-2.0, 0.25, 1.5]))
    tensor([-1.5000,  0.0000,  1.0000])
    """
    return _call("softshrink", input, lambd=_lambd(lambd, input))


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x`` outside ``[-lambd, lambd]``, 0 inside.

    >>> import fad.torch as torch
    >>> torch.nn.functional.hardshrink(torch.tensor([-2.0, 0.25, 1.5]))
    tensor([-2.0000,  0.0000,  1.5000])
    """
    return _call("hardshrink", input, lambd=lambd)


def gumbel_softmax(logits: Tensor, tau: float = 1.0, hard: bool = False, eps: float = 1e-10,
                   dim: int = -1) -> Tensor:
    """A sample of the Gumbel-softmax distribution over ``dim``: ``softmax((logits + g)
    / tau)`` with Gumbel noise ``g``; ``hard``: the one-hot of its maximum, with the
    soft sample's gradient (straight-through).

    >>> import fad.torch as torch
    >>> _ = torch.manual_seed(0)
    >>> y = torch.nn.functional.gumbel_softmax(torch.zeros(2, 3), hard=True)
    >>> y.sum(-1).tolist()
    [1.0, 1.0]
    """
    g = default_generator.rng.exponential(size=tuple(logits.shape))
    gumbels = -F.log(wrap(_place(g.astype(logits.dtype.np))))
    y = F.softmax((logits + gumbels) / tau, dim)
    if not hard:
        return y
    index = y.argmax(dim, keepdim=True)
    zeros = wrap(_place(np.zeros(tuple(y.shape), y.dtype.np)))
    return F.scatter(zeros, dim, index, 1.0) - y.detach() + y


def selu_(input: Tensor) -> Tensor:
    """``selu`` in place.

    >>> import fad.torch as torch
    >>> torch.nn.functional.selu_(torch.tensor([0.0, 1.0]))
    tensor([0.0000, 1.0507])
    """
    return selu(input, inplace=True)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """``celu`` in place.

    >>> import fad.torch as torch
    >>> torch.nn.functional.celu_(torch.tensor([0.0, 1.0]))
    tensor([0., 1.])
    """
    return celu(input, alpha, inplace=True)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """``threshold`` in place.

    >>> import fad.torch as torch
    >>> torch.nn.functional.threshold_(torch.tensor([-1.0, 1.0]), 0.0, 5.0)
    tensor([5., 1.])
    """
    return globals()["threshold"](input, threshold, value, inplace=True)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """``elu`` in place.

    >>> import fad.torch as torch
    >>> torch.nn.functional.elu_(torch.tensor([0.0, 1.0]))
    tensor([0., 1.])
    """
    return _maybe_inplace("elu", input, True, alpha=alpha)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """``leaky_relu`` in place.

    >>> import fad.torch as torch
    >>> torch.nn.functional.leaky_relu_(torch.tensor([-1.0, 1.0]), 0.5)
    tensor([-0.5000,  1.0000])
    """
    return _maybe_inplace("leaky_relu", input, True, negative_slope=negative_slope)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
          training: bool = False, inplace: bool = False) -> Tensor:
    """``x`` where positive, ``a x`` elsewhere: in training ``a`` drawn uniformly from
    ``[lower, upper]`` for each element, else ``(lower + upper) / 2``.

    >>> import fad.torch as torch
    >>> torch.nn.functional.rrelu(torch.tensor([-2.0, 1.0]), 0.25, 0.75)
    tensor([-1.,  1.])
    """
    if training:
        draws = default_generator.rng.uniform(lower, upper, tuple(input.shape))
        slope: Any = _place(draws.astype(input.dtype.np))
    else:
        slope = (lower + upper) / 2
    return _maybe_inplace("rrelu", input, inplace, slope=slope)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
           training: bool = False) -> Tensor:
    """``rrelu`` in place.

    >>> import fad.torch as torch
    >>> torch.nn.functional.rrelu_(torch.tensor([-2.0, 1.0]), 0.25, 0.75)
    tensor([-1.,  1.])
    """
    return rrelu(input, lower, upper, training, inplace=True)
