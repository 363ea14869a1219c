"""Selections by masks and flat indices: ``take``, ``masked_select``, ``argwhere``,
``index_fill``, ``index_copy``, ``masked_scatter``, written with indexing and the
``index_put`` operation (their gradients are those operations')."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._dtype import type_word
from .._graph import host
from .._ops import call
from ..tensor import Tensor, _wrap_dim, wrap
from ._common import exported
from .indexing import getitem, masked_fill, nonzero, repeats
from .shapes import reshape


def take(input: Tensor, index: Tensor) -> Tensor:
    """``input`` read as one dimension at ``index`` (which gives the result's shape).

    >>> import fad.torch as torch
    >>> torch.take(torch.tensor([[1, 2], [3, 4]]), torch.tensor([[0, 3]]))
    tensor([[1, 4]])
    """
    if index.dtype.name != "int64":
        raise RuntimeError(f"take(): Expected a long tensor for index, but got "
                           f"{type_word(index.dtype)}")
    n = input.numel()
    idx = np.asarray(host(index._value))
    wrong = idx[(idx < -n) | (idx >= n)]
    if wrong.size:
        raise IndexError(f"out of range: tried to access index {int(wrong[0])} on a tensor "
                         f"of {n} elements.")
    return getitem(reshape(input, (-1,)), index)


def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    """The entries of ``input`` where ``mask`` (broadcast with it) is true, in one
    dimension.

    >>> import fad.torch as torch
    >>> torch.masked_select(torch.tensor([[1, 2], [3, 4]]), torch.tensor([True, False]))
    tensor([1, 3])
    """
    if mask.dtype.name != "bool":
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = np.broadcast_shapes(tuple(input.shape), tuple(mask.shape))
    return getitem(input.expand(*shape), mask.expand(*shape))


def argwhere(input: Tensor) -> Tensor:
    """The indices of the non-zero entries, one row each (``nonzero``).

    >>> import fad.torch as torch
    >>> torch.argwhere(torch.tensor([0, 2, 3])).tolist()
    [[1], [2]]
    """
    return nonzero(input)


def _along(input: Tensor, dim: int, index: Tensor) -> tuple:
    dim = _wrap_dim(dim, input.dim())
    return dim, (slice(None),) * dim + (np.asarray(host(index._value)).reshape(-1),)


def index_fill(input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """``input`` with the slices at ``index`` along ``dim`` set to ``value``.

    >>> import fad.torch as torch
    >>> torch.zeros(2, 3).index_fill(1, torch.tensor([0, 2]), 1.5)
    tensor([[1.5000, 0.0000, 1.5000],
            [1.5000, 0.0000, 1.5000]])
    """
    dim, where = _along(input, dim, index)
    mask = np.zeros(tuple(input.shape), bool)
    mask[where] = True
    return masked_fill(input, wrap(mask), value)


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """``input`` with the slices at ``index`` along ``dim`` replaced by ``source``'s.

    >>> import fad.torch as torch
    >>> torch.zeros(3).index_copy(0, torch.tensor([2, 0]), torch.tensor([5.0, 6.0]))
    tensor([6., 0., 5.])
    """
    dim, where = _along(input, dim, index)
    if source.requires_grad and repeats(input.shape, where):
        return call("index_put", input, source, index=where, repeated=True)
    return call("index_put", input, source, index=where, accumulate=False)


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """``input`` with its entries where ``mask`` is true replaced, in order, by the
    first entries of ``source``.

    >>> import fad.torch as torch
    >>> torch.zeros(4).masked_scatter(torch.tensor([True, False, True, False]),
    ...                               torch.tensor([7.0, 8.0, 9.0]))
    tensor([7., 0., 8., 0.])
    """
    if mask.dtype.name != "bool":
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with "
                           f"dtype {type_word(mask.dtype)}")
    m = np.broadcast_to(np.asarray(host(mask._value)), tuple(input.shape))
    k = int(m.sum())
    if k > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    values = getitem(reshape(source, (-1,)), slice(0, k))
    return call("index_put", input, values, index=(np.ascontiguousarray(m),),
                accumulate=False)


__all__ = exported(globals())
