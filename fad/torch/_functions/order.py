"""Order statistics and running reductions: ``median``, ``nanmedian``, ``kthvalue``,
``mode``, ``msort``, ``aminmax``, ``cummax``/``cummin``, ``cumprod``, ``logcumsumexp``,
``nanmean``. The positions are found on the host (they are not differentiable);
the values are gathered from ``input`` at them, so their gradient is the gather's."""

from __future__ import annotations

import collections
from typing import Any

import numpy as np

from ... import lax
from ... import numpy as fnp
from .. import _dtype
from .._graph import host
from .._recorder import Op, apply
from ..tensor import Tensor, _wrap_dim, wrap
from ._common import _dim_param, exported
from .conversions import to
from .indexing import where
from .reductions import _named, amax, amin
from .reductions import sort as _sort
from .reductions import sum as sum_
from .shapes import reshape

_values_indices = {n: collections.namedtuple(n, ["values", "indices"])
                   for n in ("median", "nanmedian", "kthvalue", "mode", "cummax", "cummin")}
_aminmax = collections.namedtuple("aminmax", ["min", "max"])


def _positions(a: np.ndarray, dim: int, pick: Any) -> np.ndarray:
    """Indices into ``a`` along ``dim`` (keeping it, length 1) of the sorted position
    ``pick(n_not_nan, n)`` (NaN sorts last, ties keep their order)."""
    order = np.argsort(a, axis=dim, kind="stable")
    kept = [1 if d == dim else s for d, s in enumerate(a.shape)]
    count = np.sum(~np.isnan(a), axis=dim, keepdims=True) if a.dtype.kind in "fc" else \
        np.full(kept, a.shape[dim])
    k = np.asarray(pick(count, a.shape[dim]), dtype=np.int64)
    return np.take_along_axis(order, k, axis=dim)


def _select(name: str, grad: str, input: Tensor, dim: Any, keepdim: bool, pick: Any) -> Any:
    if dim is None and input.numel() == 0:
        return wrap(np.array(np.nan, input.dtype.np))
    if input.numel() == 0 and input.shape[_wrap_dim(dim, input.dim())] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {0 if dim is None else dim} to "
                         f"have non-zero size.")
    if dim is None:  # (PyTorch shares the gradient among the entries equal to the result)
        a = np.asarray(host(input._value)).ravel()
        pos = _positions(a, 0, pick)
        if a.dtype.kind not in "fc":
            return reshape(_named(grad.replace("1", "0"), reshape(input, (-1,)), 0,
                                  wrap(pos)), ())
        m = a[pos][0]
        hit = wrap(np.isnan(a) if m != m else a == m)
        return sum_(where(hit, reshape(input, (-1,)), 0)) / sum_(hit)
    if input.dim() == 0:
        return _values_indices[name](input * 1, wrap(np.zeros((), np.int64)))
    dim = _wrap_dim(dim, input.dim())
    idx = wrap(_positions(np.asarray(host(input._value)), dim, pick))
    values = _named(grad, input, dim, idx)
    if not keepdim:
        values, idx = values.squeeze(dim), idx.squeeze(dim)
    return _values_indices[name](values, idx)


def median(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    """The lower of the two middle values (PyTorch does not average them); NaN if
    any; with ``dim``, ``(values, indices)``.

    >>> import fad.torch as torch
    >>> torch.median(torch.tensor([4.0, 1.0, 3.0, 2.0]))
    tensor(2.)
    """
    return _select("median", "MedianBackward1", input, dim, keepdim,
                   lambda c, n: np.where(c < n, c, (n - 1) // 2))


def nanmedian(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    """``median`` of the values that are not NaN (NaN where all are).

    >>> import fad.torch as torch
    >>> torch.nanmedian(torch.tensor([4.0, float("nan"), 1.0]))
    tensor(1.)
    """
    return _select("nanmedian", "NanmedianBackward1", input, dim, keepdim,
                   lambda c, n: np.maximum(c - 1, 0) // 2)


def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> Any:
    """The ``k``-th smallest value along ``dim`` (from 1) and its index.

    >>> import fad.torch as torch
    >>> torch.kthvalue(torch.tensor([4.0, 1.0, 3.0]), 2).values
    tensor(3.)
    """
    size = input.shape[_wrap_dim(dim, input.dim())] if input.dim() else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}")
    return _select("kthvalue", "KthvalueBackward0", input, dim, keepdim,
                   lambda c, n: np.full_like(c, k - 1))


def mode(input: Tensor, dim: int = -1, keepdim: bool = False) -> Any:
    """The most frequent value along ``dim`` (the smallest of equally frequent ones)
    and the index of its last occurrence.

    >>> import fad.torch as torch
    >>> torch.mode(torch.tensor([1, 3, 3, 1, 2]))
    mode(values=tensor(1), indices=tensor(3))
    """
    if input.dim() == 0:
        return _values_indices["mode"](input * 1, wrap(np.zeros((), np.int64)))
    dim = _wrap_dim(dim, input.dim())
    if input.shape[dim] == 0:
        raise IndexError(f"mode(): Expected reduction dim {dim} to have non-zero size.")
    a = np.moveaxis(np.asarray(host(input._value)), dim, -1)
    rows = a.reshape(-1, a.shape[-1])
    best = np.zeros(len(rows), np.int64)
    for r, row in enumerate(rows):
        vals, counts = np.unique(row, return_counts=True)
        value = vals[np.argmax(counts)]
        best[r] = np.nonzero((row == value) | (row != row) & (value != value))[0][-1]
    idx = wrap(np.moveaxis(best.reshape(a.shape[:-1] + (1,)), -1, dim))
    values = _named("ModeBackward0", input, dim, idx)
    if not keepdim:
        values, idx = values.squeeze(dim), idx.squeeze(dim)
    return _values_indices["mode"](values, idx)


def msort(input: Tensor) -> Tensor:
    """``input`` sorted along its first dimension.

    >>> import fad.torch as torch
    >>> torch.msort(torch.tensor([3, 1, 2]))
    tensor([1, 2, 3])
    """
    return _sort(input, 0).values


def aminmax(input: Tensor, *, dim: int | None = None, keepdim: bool = False) -> Any:
    """``(amin, amax)`` of ``input`` (along ``dim``).

    >>> import fad.torch as torch
    >>> torch.aminmax(torch.tensor([3, 1, 2]))
    aminmax(min=tensor(1), max=tensor(3))
    """
    if input.numel() == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity.")
    d = () if dim is None else dim
    return _aminmax(amin(input, d, keepdim), amax(input, d, keepdim))


def _running(name: str, better: Any) -> Any:
    def fn(input: Tensor, dim: int) -> Any:
        if input.dim() == 0:
            return _values_indices[name](input * 1, wrap(np.zeros((), np.int64)))
        dim = _wrap_dim(dim, input.dim())
        a = np.moveaxis(np.asarray(host(input._value)), dim, 0)
        idx = np.zeros(a.shape, np.int64)
        best = a[0].copy() if a.shape[0] else a[:0]
        for i in range(1, a.shape[0]):
            take = better(a[i], best) | (a[i] == best)
            if a.dtype.kind in "fc":
                take |= np.isnan(a[i]) | np.isnan(best) & np.isnan(a[i])
                take &= ~(np.isnan(best) & ~np.isnan(a[i]))
            best = np.where(take, a[i], best)
            idx[i] = np.where(take, i, idx[i - 1])
        idx = wrap(np.ascontiguousarray(np.moveaxis(idx, 0, dim)))
        grad = "CummaxBackward0" if name == "cummax" else "CumminBackward0"
        return _values_indices[name](_named(grad, input, dim, idx), idx)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"""Running {name[3:]}imum along ``dim`` and the index where it was reached
    (the latest of equal values; NaN propagates).

    >>> import fad.torch as torch
    >>> torch.{name}(torch.tensor([1, 3, 2, 3]), 0).indices
    {'tensor([0, 1, 1, 3])' if name == 'cummax' else 'tensor([0, 0, 0, 0])'}
    """
    return fn


cummax = _running("cummax", np.greater)
cummin = _running("cummin", np.less)

_CUMPROD = Op("cumprod", lambda a, dim=0: a if a.ndim == 0 else fnp.cumprod(a, axis=dim),
              "CumprodBackward0", None, True)
_LOGCUMSUMEXP = Op("logcumsumexp", lambda a, dim=0: a if a.ndim == 0 else
                   lax.cumlogsumexp(a, axis=dim), "LogcumsumexpBackward0", None, True)
_NANMEAN = Op("nanmean", lambda a, dim=None, keepdim=False: fnp.nanmean(
    a, axis=dim, keepdims=keepdim), "NanmeanBackward0", None, True)


def cumprod(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """Running product along ``dim`` (int64 for integers, as PyTorch).

    >>> import fad.torch as torch
    >>> torch.cumprod(torch.tensor([1, 2, 3]), 0)
    tensor([1, 2, 6])
    """
    if dtype is not None:
        input = to(input, dtype)
    elif input.dtype.np.kind in "biu":
        input = to(input, _dtype.int64)
    out = apply(_CUMPROD, (input,), {"dim": _wrap_dim(dim, input.dim())})
    return out if dtype is None else to(out, dtype)


def logcumsumexp(input: Tensor, dim: int) -> Tensor:
    """``log(cumsum(exp(input)))`` along ``dim``, computed stably.

    >>> import fad.torch as torch
    >>> torch.logcumsumexp(torch.tensor([0.0, 0.0]), 0)
    tensor([0.0000, 0.6931])
    """
    if input.dtype.np.kind not in "fc":
        raise RuntimeError(f"logcumsumexp(): expected input to have floating point or "
                           f"complex dtype but got {_dtype.type_word(input.dtype)}")
    return apply(_LOGCUMSUMEXP, (input,), {"dim": _wrap_dim(dim, input.dim())})


def nanmean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None
            ) -> Tensor:
    """The mean of the values that are not NaN.

    >>> import fad.torch as torch
    >>> torch.nanmean(torch.tensor([1.0, float("nan"), 3.0]))
    tensor(2.)
    """
    if dtype is not None:
        input = to(input, dtype)
    if input.dtype.np.kind not in "fc":
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex "
                           f"dtype but got {_dtype.type_word(input.dtype)}")
    return apply(_NANMEAN, (input,), {"dim": _dim_param(dim, input.dim()),
                                      "keepdim": keepdim})


__all__ = exported(globals())
