"""``torch.nn.init``: in-place initialisers (run without recording gradients)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._creation import _place, default_generator
from .._grad_mode import no_grad
from ..tensor import Tensor, wrap


def _fill(t: Tensor, values: np.ndarray) -> Tensor:
    with no_grad():
        t.copy_(_wrap(values.astype(t.dtype.np)))
    return t


def _wrap(a: np.ndarray) -> Tensor:
    return wrap(_place(a))


def _rng(generator: Any) -> np.random.Generator:
    return (generator or default_generator).rng


def calculate_gain(nonlinearity: str, param: Any = None) -> float:
    if nonlinearity in ("linear", "conv1d", "conv2d", "conv3d", "sigmoid"):
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _fans(t: Tensor) -> tuple[int, int]:
    if t.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    receptive = math.prod(t.shape[2:]) if t.dim() > 2 else 1
    return t.shape[1] * receptive, t.shape[0] * receptive


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    return _fill(tensor, _rng(generator).uniform(a, b, tuple(tensor.shape)))


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None
            ) -> Tensor:
    return _fill(tensor, _rng(generator).normal(mean, std, tuple(tensor.shape)))


def constant_(tensor: Tensor, val: float) -> Tensor:
    return _fill(tensor, np.full(tuple(tensor.shape), val))


def zeros_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 0.0)


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1.0)


def eye_(tensor: Tensor) -> Tensor:
    return _fill(tensor, np.eye(*tensor.shape))


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    fan_in, fan_out = _fans(tensor)
    a = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    fan_in, fan_out = _fans(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)), generator)


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu", generator: Any = None) -> Tensor:
    fan_in, fan_out = _fans(tensor)
    fan = fan_in if mode == "fan_in" else fan_out
    if fan == 0:
        return tensor
    bound = math.sqrt(3.0) * calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", generator: Any = None) -> Tensor:
    fan_in, fan_out = _fans(tensor)
    fan = fan_in if mode == "fan_in" else fan_out
    return normal_(tensor, 0.0, calculate_gain(nonlinearity, a) / math.sqrt(fan), generator)


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0,
                  b: float = 2.0, generator: Any = None) -> Tensor:
    """Draws of ``N(mean, std^2)`` conditioned on ``[a, b]`` (values outside are
    drawn again).

    >>> import fad.torch as torch
    >>> w = torch.nn.init.trunc_normal_(torch.empty(1000), std=3.0, a=-1.0, b=2.0)
    >>> bool((w >= -1).all() and (w <= 2).all())
    True
    """
    rng, shape = _rng(generator), tuple(tensor.shape)
    out = rng.normal(mean, std, shape)
    bad = (out < a) | (out > b)
    while bad.any():
        out[bad] = rng.normal(mean, std, int(bad.sum()))
        bad = (out < a) | (out > b)
    return _fill(tensor, out)


def orthogonal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """A (semi-)orthogonal matrix times ``gain``: the Q of the QR factorisation of
    a Gaussian matrix, the columns' signs fixed by R's diagonal (a tensor of more
    than 2 dimensions is flattened after the first).

    >>> import fad.torch as torch
    >>> w = torch.nn.init.orthogonal_(torch.empty(2, 3))
    >>> torch.allclose(w @ w.T, torch.eye(2), atol=1e-6)
    True
    """
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = _rng(generator).normal(0.0, 1.0, (rows, cols))
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return _fill(tensor, (gain * q).reshape(tuple(tensor.shape)))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """The identity of a convolution: for each group, output channel ``k`` reads input
    channel ``k`` at the kernel's centre (3, 4 or 5 dimensions).

    >>> import fad.torch as torch
    >>> torch.nn.init.dirac_(torch.empty(2, 2, 3))[:, :, 1]
    tensor([[1., 0.],
            [0., 1.]])
    """
    if tensor.dim() not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    out_per_group = tensor.shape[0] // groups
    if tensor.shape[0] % groups:
        raise ValueError("dim 0 must be divisible by groups")
    values = np.zeros(tuple(tensor.shape))
    centre = tuple(n // 2 for n in tensor.shape[2:])
    for g in range(groups):
        for k in range(min(out_per_group, tensor.shape[1])):
            values[(g * out_per_group + k, k) + centre] = 1.0
    return _fill(tensor, values)


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator: Any = None
            ) -> Tensor:
    """A 2-D tensor drawn from ``N(0, std)`` with ``ceil(sparsity * rows)`` zeros in
    each column, at random rows.

    >>> import fad.torch as torch
    >>> w = torch.nn.init.sparse_(torch.empty(4, 3), 0.5)
    >>> (w == 0).sum(0).tolist()
    [2, 2, 2]
    """
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    rng = _rng(generator)
    values = rng.normal(0.0, std, (rows, cols))
    zeros = int(math.ceil(sparsity * rows))
    for c in range(cols):
        values[rng.permutation(rows)[:zeros], c] = 0.0
    return _fill(tensor, values)


def _deprecated(method: Any) -> Any:
    """The old name (without ``_``) of an initialiser, with PyTorch's warning."""
    old = method.__name__[:-1]

    def deprecated(*args: Any, **kwargs: Any) -> Tensor:
        import warnings
        warnings.warn(f"`nn.init.{old}` is now deprecated in favor of `nn.init.{old}_`.",
                      FutureWarning, stacklevel=2)
        return method(*args, **kwargs)
    deprecated.__name__ = deprecated.__qualname__ = old
    deprecated.__doc__ = f"``{method.__name__}`` under its former name (deprecated)."
    return deprecated


uniform, normal, constant, eye, dirac = (_deprecated(f) for f in (uniform_, normal_, constant_,
                                                                   eye_, dirac_))
xavier_uniform, xavier_normal = _deprecated(xavier_uniform_), _deprecated(xavier_normal_)
kaiming_uniform, kaiming_normal = _deprecated(kaiming_uniform_), _deprecated(kaiming_normal_)
orthogonal, sparse = _deprecated(orthogonal_), _deprecated(sparse_)
