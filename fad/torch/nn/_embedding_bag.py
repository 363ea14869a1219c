"""``F.embedding_bag``: the rows of an embedding table looked up for each bag of
indices and reduced (sum, mean or max) without materialising the bags, as
PyTorch's; written with the facade's embedding lookup and scatter reductions."""

from __future__ import annotations

import numpy as np

from .._graph import host
from ..tensor import Tensor, wrap


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None,
                  max_norm: float | None = None, norm_type: float = 2.0,
                  scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """For each bag (a row of the 2-d ``input``, or ``input[offsets[i]:offsets[i+1]]``
    of the 1-d one), the ``mode`` (``sum``, ``mean`` or ``max``) of the rows of
    ``weight`` it indexes (``padding_idx`` ones left out; an empty bag gives zeros);
    ``per_sample_weights`` scales each row (``sum`` only).

    >>> import fad.torch as torch
    >>> w = torch.arange(6.0).reshape(3, 2)
    >>> torch.nn.functional.embedding_bag(torch.tensor([0, 2, 1]), w, torch.tensor([0, 2]))
    tensor([[2., 3.],
            [2., 3.]])
    """
    from .functional import _padding_index, embedding
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "GitHub.")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found offsets "
                             f"of type {type(offsets)}")
        bags, length = input.shape
        bag_of = np.repeat(np.arange(bags), length)
        flat = input.reshape(-1)
        weights = None if per_sample_weights is None else per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None or offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor but got None" if offsets is None
                             else f"offsets has to be a 1D Tensor but got {offsets.dim()}D")
        starts = np.asarray(host(offsets._value)).astype(np.int64)
        if include_last_offset:
            starts = starts[:-1]
        bags = len(starts)
        bag_of = np.searchsorted(starts, np.arange(input.shape[0]), side="right") - 1
        flat, weights = input, per_sample_weights
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    keep = np.ones(flat.shape[0], bool)
    if padding_idx is not None:
        keep = np.asarray(host(flat._value)) != _padding_index(padding_idx, weight.shape[0])
    rows = embedding(flat, weight, None, max_norm, norm_type, scale_grad_by_freq)
    if weights is not None:
        rows = rows * weights.unsqueeze(-1)
    kept = wrap(np.flatnonzero(keep))
    rows, segment = rows[kept], wrap(bag_of[keep].astype(np.int64))
    out = weight.new_zeros((bags, weight.shape[1]))
    if mode == "max":
        index = segment.unsqueeze(-1).expand(-1, weight.shape[1])
        return out.scatter_reduce(0, index, rows, "amax", include_self=False)
    total = out.index_add(0, segment, rows)
    if mode == "sum":
        return total
    counts = np.bincount(bag_of[keep], minlength=bags).astype(weight.dtype.np)
    return total / wrap(np.maximum(counts, 1)[:, None])
