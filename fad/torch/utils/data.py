"""``torch.utils.data``: ``Dataset``, ``TensorDataset``, ``DataLoader``, ``random_split``."""

from __future__ import annotations

import math
from typing import Any, Iterator, Sequence

import numpy as np

from .. import _functions as F
from .._creation import default_generator, tensor
from ..tensor import Tensor


class Dataset:
    """Map-style dataset: ``__getitem__`` and ``__len__``."""

    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError


class TensorDataset(Dataset):
    """Samples are the ``index``-th rows of each tensor."""

    def __init__(self, *tensors: Tensor):
        if any(t.shape[0] != tensors[0].shape[0] for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


class Subset(Dataset):
    def __init__(self, dataset: Dataset, indices: Sequence[int]):
        self.dataset, self.indices = dataset, list(indices)

    def __getitem__(self, index: int) -> Any:
        return self.dataset[self.indices[index]]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(dataset: Dataset, lengths: Sequence[Any], generator: Any = None) -> list:
    n = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        sizes = [int(math.floor(n * f)) for f in lengths]
        for i in range(n - sum(sizes)):
            sizes[i % len(sizes)] += 1
    else:
        sizes = list(lengths)
    perm = (generator or default_generator).rng.permutation(n).tolist()
    out, start = [], 0
    for s in sizes:
        out.append(Subset(dataset, perm[start:start + s]))
        start += s
    return out


def default_collate(batch: list) -> Any:
    first = batch[0]
    if isinstance(first, Tensor):
        return F.stack(batch)
    if isinstance(first, tuple | list):
        return type(first)(default_collate(list(items)) for items in zip(*batch))
    if isinstance(first, int | float | np.number):
        return tensor(batch)
    return batch


class DataLoader:
    """Batches of a dataset (optionally shuffled with the facade's generator)."""

    def __init__(self, dataset: Dataset, batch_size: int | None = 1, shuffle: bool = False,
                 drop_last: bool = False, collate_fn: Any = None, generator: Any = None,
                 **_: Any):
        self.dataset = dataset
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.drop_last = drop_last
        self.collate_fn = collate_fn or default_collate
        self.generator = generator

    def __iter__(self) -> Iterator[Any]:
        n = len(self.dataset)
        order = ((self.generator or default_generator).rng.permutation(n) if self.shuffle
                 else np.arange(n))
        bs = self.batch_size or 1
        fast = isinstance(self.dataset, TensorDataset) and self.collate_fn is default_collate
        for start in range(0, n, bs):
            idx = order[start:start + bs]
            if self.drop_last and len(idx) < bs:
                break
            if fast:  # one gather per tensor instead of stacking rows
                yield tuple(t[idx.astype(np.int64)] for t in self.dataset.tensors)
            else:
                yield self.collate_fn([self.dataset[int(i)] for i in idx])

    def __len__(self) -> int:
        n = len(self.dataset)
        bs = self.batch_size or 1
        return n // bs if self.drop_last else -(-n // bs)
