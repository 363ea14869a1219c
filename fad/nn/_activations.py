"""More of ``jax.nn``'s activations, written in ``fad.numpy`` operations (so that
each is differentiable to any order), with JAX's derivative at the kinks."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import numpy as fnp
from ..core.trace import bind
from ..numpy._base import promote
from ..primitives import elementwise as E
from ..primitives.structural import convert_element_type

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _float(x: Any) -> Any:
    return promote("exp", fnp.asarray(x))[1][0]


def _elu(x: Any, alpha: float, inner: float = 1.0) -> Any:
    """``x`` where positive, ``alpha (e^(inner x) - 1)`` elsewhere (``e^`` taken of
    the non-positive entries only)."""
    pos = fnp.greater(x, 0)
    neg = fnp.where(pos, 0.0, x)
    return fnp.where(pos, x, alpha * fnp.expm1(neg if inner == 1.0 else neg * inner))


def celu(x: Any, alpha: float = 1.0) -> Any:
    """Continuously-differentiable ELU: ``x`` where positive, ``alpha (e^(x/alpha) - 1)``
    elsewhere.

    >>> import fad.nn as nn, fad.numpy as fnp
    >>> [round(v, 4) for v in nn.celu(fnp.array([-1.0, 2.0]), 2.0).tolist()]
    [-0.7869, 2.0]
    """
    # (JAX's form: max(x, 0) + alpha expm1(min(x, 0) / alpha), whose ties at 0
    # give JAX's second derivative there, 1 / (4 alpha))
    x = _float(x)
    return fnp.maximum(x, 0.0) + alpha * fnp.expm1(fnp.minimum(x, 0.0) / alpha)


def selu(x: Any) -> Any:
    """Scaled ELU: ``scale * elu(x, alpha)`` with the self-normalising constants
    ``alpha = 1.6733``, ``scale = 1.0507``.

    >>> import fad.nn as nn
    >>> round(float(nn.selu(-1.0)), 4)
    -1.1113
    """
    return _SELU_SCALE * _elu(_float(x), _SELU_ALPHA)


def glu(x: Any, axis: int = -1) -> Any:
    """Gated linear unit: ``x`` split in two halves ``a, b`` along ``axis``,
    ``a * sigmoid(b)``.

    >>> import fad.nn as nn, fad.numpy as fnp
    >>> nn.glu(fnp.array([2.0, 0.0])).tolist()
    [1.0]
    """
    x = _float(x)
    n = x.shape[axis]
    if n % 2:
        raise ValueError(f"glu: the axis {axis} of length {n} must have an even length "
                         "(it is split into two halves)")
    a, b = fnp.split(x, 2, axis=axis)
    return a * bind(E.logistic_p, b)


def hard_tanh(x: Any) -> Any:
    """``x`` clipped to ``[-1, 1]``; derivative 1 at ``±1`` (as JAX's).

    >>> import fad.nn as nn, fad.numpy as fnp
    >>> nn.hard_tanh(fnp.array([-3.0, 0.5, 3.0])).tolist()
    [-1.0, 0.5, 1.0]
    """
    x = _float(x)
    return fnp.where(fnp.greater(x, 1), 1.0, fnp.where(fnp.less(x, -1), -1.0, x))


def relu6(x: Any) -> Any:
    """``min(max(x, 0), 6)``; derivative 0 at 0 and at 6 (as JAX's).

    >>> import fad, fad.nn as nn, fad.numpy as fnp
    >>> nn.relu6(fnp.array([-1.0, 3.0, 9.0])).tolist()
    [0.0, 3.0, 6.0]
    >>> float(fad.grad(nn.relu6)(6.0)), float(fad.grad(nn.relu6)(0.0))
    (0.0, 0.0)
    """
    x = _float(x)
    inside = fnp.logical_and(fnp.greater(x, 0), fnp.less(x, 6))
    # outside (0, 6) a constant, so the derivative at both kinks is 0 (NaN stays NaN)
    return fnp.where(inside, x, fnp.where(fnp.greater_equal(x, 6), 6.0,
                                          fnp.where(fnp.less_equal(x, 0), 0.0, x)))


def hard_sigmoid(x: Any) -> Any:
    """``relu6(x + 3) / 6``.

    >>> import fad.nn as nn, fad.numpy as fnp
    >>> nn.hard_sigmoid(fnp.array([-4.0, 0.0, 4.0])).tolist()
    [0.0, 0.5, 1.0]
    """
    return relu6(_float(x) + 3.0) / 6.0


def hard_silu(x: Any) -> Any:
    """``x * hard_sigmoid(x)`` (``hard_swish`` is the same function).

    >>> import fad.nn as nn, fad.numpy as fnp
    >>> nn.hard_silu(fnp.array([-4.0, 0.0, 4.0])).tolist()
    [-0.0, 0.0, 4.0]
    """
    x = _float(x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


def soft_sign(x: Any) -> Any:
    """``x / (|x| + 1)``.

    >>> import fad.nn as nn
    >>> float(nn.soft_sign(-3.0))
    -0.75
    """
    x = _float(x)
    # (|x| with the derivative 1 at 0, as JAX's: the second derivative at 0 is -2)
    return x / (fnp.where(fnp.greater_equal(x, 0.0), x, fnp.negative(x)) + 1.0)


def squareplus(x: Any, b: float = 4) -> Any:
    """``(x + sqrt(x^2 + b)) / 2``, a smooth ``relu``.

    >>> import fad.nn as nn
    >>> float(nn.squareplus(0.0))
    1.0
    """
    x = _float(x)
    return (x + fnp.sqrt(x * x + b)) / 2.0


def mish(x: Any) -> Any:
    """``x * tanh(softplus(x))``.

    >>> import fad.nn as nn
    >>> round(float(nn.mish(1.0)), 4)
    0.8651
    """
    x = _float(x)
    return x * fnp.tanh(bind(E.softplus_p, x))


def soft_shrink(x: Any, lambd: float = 0.5) -> Any:
    """``x`` moved towards 0 by ``lambd``, and 0 inside ``[-lambd, lambd]``;
    derivative 0 at ``±lambd`` (as PyTorch's ``softshrink``).

    >>> import fad.nn as nn, fad.numpy as fnp
    >>> nn.soft_shrink(fnp.array([-2.0, 0.25, 1.5])).tolist()
    [-1.5, 0.0, 1.0]
    """
    x = _float(x)
    return fnp.where(fnp.less_equal(fnp.abs(x), lambd), 0.0, x - fnp.sign(x) * lambd)


def hard_shrink(x: Any, lambd: float = 0.5) -> Any:
    """``x``, and 0 inside ``[-lambd, lambd]``; derivative 0 at ``±lambd`` (as
    PyTorch's ``hardshrink``).

    >>> import fad.nn as nn, fad.numpy as fnp
    >>> nn.hard_shrink(fnp.array([-2.0, 0.5, 1.5])).tolist()
    [-2.0, 0.0, 1.5]
    """
    x = _float(x)
    return fnp.where(fnp.less_equal(fnp.abs(x), lambd), 0.0, x)


def threshold(x: Any, threshold: float, value: float) -> Any:
    """``x`` where it exceeds ``threshold``, ``value`` elsewhere (NaN stays NaN);
    derivative 0 at ``threshold`` (as PyTorch's).

    >>> import fad.nn as nn, fad.numpy as fnp
    >>> nn.threshold(fnp.array([-1.0, 0.5, 2.0]), 0.5, -9.0).tolist()
    [-9.0, -9.0, 2.0]
    """
    x = fnp.asarray(x)
    return fnp.where(fnp.less_equal(x, threshold), fnp.asarray(value, x.dtype), x)


def standardize(x: Any, axis: Any = -1, mean: Any = None, variance: Any = None,
                epsilon: float = 1e-5, where: Any = None) -> Any:
    """``(x - mean) / sqrt(variance + epsilon)`` along ``axis``; the mean and the
    variance (``mean(x^2) - mean(x)^2``, clipped at 0, as JAX's) of ``x`` over the
    entries ``where`` selects unless given.

    >>> import fad.nn as nn, fad.numpy as fnp
    >>> nn.standardize(fnp.array([1.0, 3.0]), epsilon=0.0).tolist()
    [-1.0, 1.0]
    """
    x = _float(x)
    if mean is None:
        mean = _mean(x, axis, where)
    if variance is None:
        variance = fnp.maximum(_mean(x * x, axis, where) - mean * mean, 0.0)
    return (x - mean) / fnp.sqrt(variance + epsilon)


def _mean(x: Any, axis: Any, where: Any) -> Any:
    """The mean over ``axis`` (kept) of the entries of ``x`` that ``where`` selects."""
    if where is None:
        return fnp.mean(x, axis=axis, keepdims=True)
    where = fnp.broadcast_to(where, x.shape)
    total = fnp.sum(fnp.where(where, x, 0.0), axis=axis, keepdims=True)
    return total / fnp.sum(fnp.asarray(where, x.dtype), axis=axis, keepdims=True)


def one_hot(x: Any, num_classes: int, *, dtype: Any = None, axis: int = -1) -> Any:
    """One-hot encoding of integer class indices along a new axis ``axis``; an index
    outside ``[0, num_classes)`` gives a row of zeros (as JAX's).

    >>> import fad.nn as nn, fad.numpy as fnp
    >>> nn.one_hot(fnp.array([0, 2]), 3).tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    >>> nn.one_hot(fnp.array([0, 5]), 2, axis=0, dtype="int32").tolist()
    [[1, 0], [0, 0]]
    """
    if not isinstance(num_classes, int | np.integer) or num_classes < 0:
        raise TypeError(f"one_hot: num_classes must be a non-negative int, got {num_classes!r}")
    x = fnp.asarray(x)
    ax = axis % (x.ndim + 1)
    shape = [1] * (x.ndim + 1)
    shape[ax] = num_classes
    hot = fnp.equal(fnp.expand_dims(x, ax), fnp.reshape(fnp.arange(num_classes), shape))
    return convert_element_type(hot, np.dtype(float if dtype is None else dtype))


__all__ = ["celu", "selu", "glu", "hard_tanh", "relu6", "hard_sigmoid", "hard_silu",
           "hard_swish", "soft_sign", "squareplus", "mish", "standardize", "one_hot",
           "soft_shrink", "hard_shrink", "threshold"]
