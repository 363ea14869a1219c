"""``torch.nn.utils.fusion``: fold an evaluation-mode batch normalisation into the
convolution or linear layer before it.

In evaluation mode batch norm is the affine map
``y = (x - mean) * w / sqrt(var + eps) + b``; after a layer ``x = W z + c`` it is
again such a layer, with ``W' = W * s`` (``s = w / sqrt(var + eps)`` scaling each
output channel) and ``c' = (c - mean) * s + b``.

>>> import fad.torch as torch
>>> conv, bn = torch.nn.Conv2d(1, 2, 3).eval(), torch.nn.BatchNorm2d(2).eval()
>>> x = torch.randn(1, 1, 5, 5)
>>> fused = torch.nn.utils.fuse_conv_bn_eval(conv, bn)
>>> torch.allclose(fused(x), bn(conv(x)), atol=1e-6)
True
"""

from __future__ import annotations

import copy

from ... import _functions as F
from ..._creation import ones_like, zeros_like
from ...tensor import Tensor
from ..modules.module import Module, Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights"]


def fuse_conv_bn_eval(conv: Module, bn: Module, transpose: bool = False) -> Module:
    """A copy of ``conv`` that computes ``bn(conv(x))`` (both in eval mode);
    ``transpose`` for a transposed convolution (output channels on axis 1)."""
    assert not (conv.training or bn.training), "Fusion only for eval!"
    fused = copy.deepcopy(conv)
    assert bn.running_mean is not None and bn.running_var is not None
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias,
        transpose)
    return fused


def fuse_conv_bn_weights(conv_w: Tensor, conv_b: Tensor | None, bn_rm: Tensor, bn_rv: Tensor,
                         bn_eps: float, bn_w: Tensor | None, bn_b: Tensor | None,
                         transpose: bool = False) -> tuple:
    """The fused convolution's ``(weight, bias)`` parameters."""
    shape = [1, -1] if transpose else [-1, 1]
    shape += [1] * (conv_w.dim() - 2)
    return _fused(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, shape)


def fuse_linear_bn_eval(linear: Module, bn: Module) -> Module:
    """A copy of ``linear`` that computes ``bn(linear(x))`` (both in eval mode; the
    batch norm over the linear layer's outputs, or over one feature)."""
    assert not (linear.training or bn.training), "Fusion only for eval!"
    fused = copy.deepcopy(linear)
    assert linear.out_features == bn.num_features or bn.num_features == 1, \
        "To fuse, linear.out_features == bn.num_features or bn.num_features == 1"
    assert bn.running_mean is not None and bn.running_var is not None
    fused.weight, fused.bias = fuse_linear_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias)
    return fused


def fuse_linear_bn_weights(linear_w: Tensor, linear_b: Tensor | None, bn_rm: Tensor,
                           bn_rv: Tensor, bn_eps: float, bn_w: Tensor, bn_b: Tensor) -> tuple:
    """The fused linear layer's ``(weight, bias)`` parameters."""
    return _fused(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, [-1, 1])


def _fused(w: Tensor, b: Tensor | None, rm: Tensor, rv: Tensor, eps: float,
           bn_w: Tensor | None, bn_b: Tensor | None, shape: list) -> tuple:
    """``(W * s, (c - mean) * s + b)`` with ``s = bn_w / sqrt(var + eps)``, ``s``
    reshaped to ``shape`` against ``W``; each in its layer's dtype."""
    b_dtype = b.dtype if b is not None else w.dtype
    b = zeros_like(rm) if b is None else b
    bn_w = ones_like(rm) if bn_w is None else bn_w
    bn_b = zeros_like(rm) if bn_b is None else bn_b
    scale = bn_w * F.rsqrt(rv + eps)
    fused_w = (w * scale.reshape(shape)).to(dtype=w.dtype)
    fused_b = ((b - rm) * scale + bn_b).to(dtype=b_dtype)
    return Parameter(fused_w, w.requires_grad), Parameter(fused_b, b.requires_grad)
