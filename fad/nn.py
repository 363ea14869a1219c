"""Neural-network functions, numerically stable at extreme inputs.

Every function here gives finite values *and* finite gradients at logits of
±1000: maxima are subtracted (under ``stop_gradient``, which is exact because
these functions are shift-invariant) and ``softplus``/``sigmoid`` are primitives
whose implementations never exponentiate a positive number.

>>> import fad, fad.nn as nn, fad.numpy as fnp
>>> float(nn.logsumexp(fnp.array([1000.0, 1000.0])))
1000.6931471805599
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .core.trace import bind
from .numpy import _math as M
from .numpy import _reductions as R
from .numpy._base import asarray, promote
from .numpy._creation import arange
from .numpy._indexing import take_along_axis
from .numpy._shape import expand_dims, squeeze
from .numpy._statistics import mean
from .primitives import elementwise as E
from .transforms.autodiff import stop_gradient


def _float(x: Any) -> Any:
    x = asarray(x)
    return promote("exp", x)[1][0]


def relu(x: Any) -> Any:
    """``max(x, 0)`` with derivative 0 at 0 (as JAX and PyTorch).

    >>> import fad, fad.nn as nn
    >>> float(fad.grad(nn.relu)(0.0))
    0.0
    """
    x = asarray(x)
    return M.where(M.less_equal(x, 0), 0, x)  # (NaN stays NaN)


def sigmoid(x: Any) -> Any:
    """The logistic function ``1 / (1 + e^-x)``.

    >>> import fad.nn as nn
    >>> float(nn.sigmoid(0.0))
    0.5
    """
    return bind(E.logistic_p, _float(x))


def tanh(x: Any) -> Any:
    """Hyperbolic tangent."""
    return M.tanh(x)


def softplus(x: Any) -> Any:
    """``log(1 + e^x)``, computed without overflow; derivative ``sigmoid(x)``.

    >>> import fad.nn as nn
    >>> float(nn.softplus(1000.0))
    1000.0
    """
    return bind(E.softplus_p, _float(x))


def logsumexp(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """``log(sum(exp(x)))`` over ``axis``, stable for large and ``-inf`` entries.

    >>> import fad.nn as nn, fad.numpy as fnp
    >>> float(nn.logsumexp(fnp.array([0.0, 0.0])))
    0.6931471805599453
    """
    x = _float(x)
    m_raw = stop_gradient(R.max(x, axis=axis, keepdims=True))
    finite = M.isfinite(m_raw)
    m = M.where(finite, m_raw, 0.0)  # all -inf (or inf) rows: no shift
    s = R.sum(M.exp(M.subtract(x, m)), axis=axis, keepdims=True)
    # rows whose max is infinite: the value is that max, the gradient 0 (not 0 * inf)
    out = M.add(M.log(M.where(finite, s, 1.0)), m_raw)
    if not keepdims:
        out = squeeze(out, axis=axis) if axis is not None else R.sum(out)
    return out


def log_softmax(x: Any, axis: int = -1) -> Any:
    """``x - logsumexp(x)`` along ``axis``.

    >>> import fad.nn as nn, fad.numpy as fnp
    >>> [round(float(v), 4) for v in nn.log_softmax(fnp.array([1000.0, 0.0]))]
    [0.0, -1000.0]
    """
    x = _float(x)
    return M.subtract(x, logsumexp(x, axis=axis, keepdims=True))


def softmax(x: Any, axis: int = -1) -> Any:
    """``exp(x) / sum(exp(x))`` along ``axis``, shifted by the maximum.

    >>> import fad.nn as nn, fad.numpy as fnp
    >>> nn.softmax(fnp.array([0.0, 0.0])).tolist()
    [0.5, 0.5]
    """
    x = _float(x)
    e = M.exp(M.subtract(x, stop_gradient(R.max(x, axis=axis, keepdims=True))))
    return M.divide(e, R.sum(e, axis=axis, keepdims=True))


def _reduce(loss: Any, reduction: str) -> Any:
    if reduction == "mean":
        return mean(loss)
    if reduction == "sum":
        return R.sum(loss)
    if reduction == "none":
        return loss
    raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def binary_cross_entropy_with_logits(logits: Any, targets: Any, reduction: str = "mean"
                                     ) -> Any:
    """``-t log sigmoid(x) - (1 - t) log(1 - sigmoid(x)) = softplus(x) - t x``.

    >>> import fad.nn as nn, fad.numpy as fnp
    >>> round(float(nn.binary_cross_entropy_with_logits(fnp.array([0.0]), fnp.array([1.0]))), 4)
    0.6931
    """
    x = _float(logits)
    return _reduce(M.subtract(softplus(x), M.multiply(targets, x)), reduction)


def cross_entropy(logits: Any, labels: Any, reduction: str = "mean", axis: int = -1
                  ) -> Any:
    """Softmax cross-entropy. ``labels`` are class indices (integers) or
    probabilities with the logits' shape.

    >>> import fad.nn as nn, fad.numpy as fnp
    >>> round(float(nn.cross_entropy(fnp.array([[0.0, 0.0]]), fnp.array([1]))), 4)
    0.6931
    """
    logp = log_softmax(logits, axis=axis)
    labels = asarray(labels)
    if labels.dtype.kind in "iu":
        picked = take_along_axis(logp, expand_dims(labels, axis), axis=axis)
        return _reduce(M.negative(squeeze(picked, axis=axis)), reduction)
    return _reduce(M.negative(R.sum(M.multiply(labels, logp), axis=axis)), reduction)


def mse_loss(pred: Any, target: Any, reduction: str = "mean") -> Any:
    """Mean squared error.

    >>> import fad.nn as nn, fad.numpy as fnp
    >>> float(nn.mse_loss(fnp.array([1.0, 3.0]), fnp.array([0.0, 0.0])))
    5.0
    """
    d = M.subtract(pred, target)
    return _reduce(M.multiply(d, d), reduction)


def one_hot(x: Any, num_classes: int, dtype: Any = np.float64) -> Any:
    """One-hot encoding of integer class indices along a new last axis.

    >>> import fad.nn as nn, fad.numpy as fnp
    >>> nn.one_hot(fnp.array([0, 2]), 3).tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    """
    x = asarray(x)
    hot = M.equal(expand_dims(x, -1), arange(num_classes))
    from .primitives.structural import convert_element_type
    return convert_element_type(hot, np.dtype(dtype))


__all__ = ["relu", "sigmoid", "tanh", "softplus", "softmax", "log_softmax", "logsumexp",
           "binary_cross_entropy_with_logits", "cross_entropy", "mse_loss", "one_hot"]
