"""``torch.nn.grad``: the gradients of a convolution with respect to its input
(``conv{1,2,3}d_input``) and to its weight (``conv{1,2,3}d_weight``) for a given
gradient of its output, as custom ``Function`` backward passes call them.

Each is the facade's own backward pass through the convolution: the convolution
is linear in each of its two operands, so its vector-Jacobian product in one of
them does not depend on the value the other is taken at (zeros here). The result
is recorded like any gradient taken with ``create_graph=True``: it is
differentiable in the weight (or input) and in ``grad_output``.

>>> import fad.torch as torch
>>> w = torch.ones(1, 1, 2)
>>> torch.nn.grad.conv1d_input((1, 1, 4), w, torch.tensor([[[1.0, 2.0, 3.0]]]))
tensor([[[1., 3., 5., 3.]]])
"""

from __future__ import annotations

from typing import Any

from .._creation import zeros
from .._grad_mode import enable_grad, is_grad_enabled
from ..autograd import grad
from ..tensor import Tensor
from . import functional as F

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight",
           "conv3d_input", "conv3d_weight"]

_CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}


def _pull(d: int, x: Tensor, w: Tensor, wrt: Tensor, grad_output: Tensor, stride: Any,
          padding: Any, dilation: Any, groups: int) -> Tensor:
    """The gradient of ``convNd(x, w)`` with respect to ``wrt`` (``x`` or ``w``),
    recorded when gradients are on and it depends on a tensor that requires grad."""
    graph = is_grad_enabled() and (grad_output.requires_grad
                                   or (x if wrt is w else w).requires_grad)
    with enable_grad():
        out = _CONV[d](x, w, None, stride, padding, dilation, groups)
        (g,) = grad(out, wrt, grad_output, create_graph=graph)
    return g


def _named(fn: Any, d: int, wrt: str) -> Any:
    fn.__name__ = fn.__qualname__ = f"conv{d}d_{wrt}"
    fn.__doc__ = (f"The gradient of ``conv{d}d`` with respect to its {wrt} (of shape "
                  f"``{wrt}_size``) for the gradient ``grad_output`` of its output.")
    return fn


def _input_grad(d: int) -> Any:
    def conv_input(input_size: Any, weight: Tensor, grad_output: Tensor, stride: Any = 1,
                   padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
        x = zeros(*input_size, dtype=grad_output.dtype, requires_grad=True)
        return _pull(d, x, weight, x, grad_output, stride, padding, dilation, groups)
    return _named(conv_input, d, "input")


def _weight_grad(d: int) -> Any:
    def conv_weight(input: Tensor, weight_size: Any, grad_output: Tensor, stride: Any = 1,
                    padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
        w = zeros(*weight_size, dtype=grad_output.dtype, requires_grad=True)
        return _pull(d, input, w, w, grad_output, stride, padding, dilation, groups)
    return _named(conv_weight, d, "weight")


conv1d_input, conv2d_input, conv3d_input = (_input_grad(d) for d in (1, 2, 3))
conv1d_weight, conv2d_weight, conv3d_weight = (_weight_grad(d) for d in (1, 2, 3))
