"""``torch.nn.utils``: gradient clipping, parameter vectors, ``rnn`` (padded and
packed sequences), ``parametrize`` and ``parametrizations``."""

from __future__ import annotations

import math
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
    params = _params(parameters)
    if not params:
        return wrap(np.asarray(0.0, np.float32))
    grads = [host(p.grad._value) for p in params]
    norm_type = float(norm_type)  # (also the strings "inf" and "-inf")
    if norm_type == math.inf:
        total = max(float(np.max(np.abs(g))) for g in grads)
    elif norm_type == -math.inf:
        total = min(float(np.min(np.abs(g))) for g in grads)
    else:
        total = float(sum(float(np.sum(np.abs(g) ** norm_type)) for g in grads)
                      ** (1.0 / norm_type))
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from "
                           "`parameters` is non-finite, so it cannot be clipped.")
    coef = max_norm / (total + 1e-6)
    if coef < 1:
        for p in params:
            p.grad._write(p.grad._value * coef)
    return wrap(np.asarray(total, dtype=params[0].grad.dtype.np))


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
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: E402,F401
