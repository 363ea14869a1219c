"""``torch.nn.utils``: gradient clipping, parameter vectors, ``rnn`` (padded and
packed sequences), ``parametrize`` and ``parametrizations``, pruning, spectral and
weight normalisation hooks, batch-norm fusion and ``skip_init``."""

from __future__ import annotations

import inspect
import math
import types
import warnings
from typing import Any

import numpy as np

from ... import _functions as F
from ..._grad_mode import no_grad
from ..._graph import host
from ...tensor import Tensor, wrap


def _params(parameters: Any) -> list:
    """The parameters (one tensor or an iterable of them) that have a gradient."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p for p in parameters if p._grad is not None]


def get_total_norm(tensors: Any, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: Any = None) -> Tensor:
    """The ``norm_type``-norm of ``tensors`` taken together: the norm of their norms
    (``error_if_nonfinite``: raise when it is NaN or infinite).

    >>> import fad.torch as torch
    >>> torch.nn.utils.get_total_norm([torch.tensor([3.0]), torch.tensor([4.0])])
    tensor(5.)
    """
    from ...linalg import vector_norm

    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)  # (also the strings "inf" and "-inf")
    if not tensors:
        return wrap(np.asarray(0.0, np.float32))
    with no_grad():
        total = vector_norm(F.stack([vector_norm(t, norm_type) for t in tensors]), norm_type)
    if error_if_nonfinite and not math.isfinite(total.item()):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from "
                           "`parameters` is non-finite, so it cannot be clipped. To disable "
                           "this error and scale the gradients by the non-finite norm anyway, "
                           "set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters: Any, max_norm: float, total_norm: Tensor,
                          foreach: Any = None) -> None:
    """Scale the gradients in place by ``max_norm / (total_norm + 1e-6)`` when that is
    below 1 (``total_norm``: their joint norm, as ``get_total_norm`` gives)."""
    grads = [p.grad for p in _params(parameters)]
    if not grads:
        return
    with no_grad():
        coef = F.clamp(float(max_norm) / (total_norm + 1e-6), max=1.0)
        for g in grads:
            g.mul_(coef.to(dtype=g.dtype))


def clip_grad_norm_(parameters: Any, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: Any = None) -> Tensor:
    """Scale the gradients in place so that their joint norm is at most ``max_norm``;
    returns the norm before clipping (``error_if_nonfinite``: raise when it is NaN
    or infinite).

    >>> import fad.torch as torch
    >>> p = torch.ones(2, requires_grad=True)
    >>> p.grad = torch.tensor([3.0, 4.0])
    >>> torch.nn.utils.clip_grad_norm_(p, max_norm=1.0)
    tensor(5.)
    >>> p.grad
    tensor([0.6000, 0.8000])
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will "
                          "occur.", stacklevel=2)
    total = get_total_norm([p.grad for p in _params(parameters)], norm_type,
                           error_if_nonfinite)
    clip_grads_with_norm_(parameters, max_norm, total)
    return total


def clip_grad_norm(parameters: Any, max_norm: float, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach: Any = None) -> Tensor:
    """Deprecated name of ``clip_grad_norm_`` (with PyTorch's warning)."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters: Any, clip_value: float, foreach: Any = None) -> None:
    """Clamp the gradients in place to ``[-clip_value, clip_value]``.

    >>> import fad.torch as torch
    >>> p = torch.ones(2, requires_grad=True)
    >>> p.grad = torch.tensor([3.0, -0.5])
    >>> torch.nn.utils.clip_grad_value_(p, 1.0)
    >>> p.grad
    tensor([ 1.0000, -0.5000])
    """
    for p in _params(parameters):
        p.grad._write(np.clip(host(p.grad._value), -clip_value, clip_value))


def skip_init(module_cls: type, *args: Any, **kwargs: Any) -> Any:
    """``module_cls(*args, **kwargs)`` with its parameters and buffers left
    uninitialised (the facade's uninitialised tensors are zeros), as PyTorch's.

    >>> import fad.torch as torch
    >>> torch.nn.utils.skip_init(torch.nn.Linear, 2, 1).weight
    Parameter containing:
    tensor([[0., 0.]], requires_grad=True)
    """
    from ..modules.module import Module

    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    device = kwargs.pop("device", "cpu")
    return module_cls(*args, **kwargs).to_empty(device=device)


def remove_hook(module: Any, matches: Any, missing: str) -> Any:
    """Undo the forward pre-hook of ``module`` that ``matches`` (a reparametrization:
    pruning, spectral or weight normalisation), or raise ``ValueError(missing)``."""
    for k, hook in module._forward_pre_hooks.items():
        if matches(hook):
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(missing)


def parameters_to_vector(parameters: Any) -> Tensor:
    return F.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters: Any) -> None:
    start = 0
    with no_grad():
        for p in parameters:
            n = p.numel()
            p.copy_(vec[start:start + n].reshape(tuple(p.shape)))
            start += n


from . import parametrizations, parametrize, prune, rnn  # noqa: E402,F401  (``.rnn``...)
from .fusion import (  # noqa: E402,F401
    fuse_conv_bn_eval,
    fuse_conv_bn_weights,
    fuse_linear_bn_eval,
    fuse_linear_bn_weights,
)
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: E402,F401
from .weight_norm import remove_weight_norm, weight_norm  # noqa: E402,F401
