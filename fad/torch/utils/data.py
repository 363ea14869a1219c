"""``torch.utils.data``: datasets (map-style and iterable, concatenated, subsets),
samplers (sequential, random, weighted, batched), ``default_collate`` and
``DataLoader``, with PyTorch's batching, collation and argument checks. The
loader reads the dataset in the calling process (``num_workers`` is accepted and
ignored); randomness comes from the facade's generators."""

from __future__ import annotations

import bisect
import collections.abc as abc
import math
from typing import Any, Iterator, Sequence

import numpy as np

from .. import _functions as F
from .._creation import default_generator, tensor
from ..tensor import Tensor


# ------------------------------------------------------------------ datasets
class Dataset:
    """Map-style dataset: ``__getitem__`` and ``__len__``; ``a + b`` concatenates."""

    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError

    def __add__(self, other: "Dataset") -> "ConcatDataset":
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A dataset read as a stream: ``__iter__``.

    >>> from fad.torch.utils.data import DataLoader, IterableDataset
    >>> class Count(IterableDataset):
    ...     def __iter__(self):
    ...         return iter(range(5))
    >>> [b.tolist() for b in DataLoader(Count(), batch_size=2)]
    [[0, 1], [2, 3], [4]]
    """

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError

    def __add__(self, other: Any) -> "ChainDataset":
        return ChainDataset([self, other])


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


class ConcatDataset(Dataset):
    """The datasets one after the other.

    >>> from fad.torch.utils.data import ConcatDataset
    >>> d = ConcatDataset([[1, 2], [3]])
    >>> len(d), d[2], d.cumulative_sizes
    (3, 3, [2, 3])
    """

    def __init__(self, datasets: Sequence[Any]):
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = list(np.cumsum([len(d) for d in self.datasets]).tolist())

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, index: int) -> Any:
        if index < 0:
            if -index > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            index += len(self)
        k = bisect.bisect_right(self.cumulative_sizes, index)
        return self.datasets[k][index - (self.cumulative_sizes[k - 1] if k else 0)]


class ChainDataset(IterableDataset):
    """Iterable datasets read one after the other."""

    def __init__(self, datasets: Sequence[Any]):
        self.datasets = list(datasets)

    def __iter__(self) -> Iterator[Any]:
        for d in self.datasets:
            yield from d

    def __len__(self) -> int:
        return sum(len(d) for d in self.datasets)


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``."""

    def __init__(self, dataset: Dataset, indices: Sequence[int]):
        self.dataset, self.indices = dataset, list(indices)

    def __getitem__(self, index: int) -> Any:
        return self.dataset[self.indices[index]]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(dataset: Dataset, lengths: Sequence[Any], generator: Any = None) -> list:
    """``dataset`` split at random into subsets of ``lengths`` (counts, or fractions
    summing to 1, the remainder spread one by one).

    >>> import fad.torch as torch
    >>> [len(s) for s in torch.utils.data.random_split(range(10), [0.5, 0.3, 0.2])]
    [5, 3, 2]
    """
    n = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        sizes = [int(math.floor(n * f)) for f in lengths]
        for i in range(n - sum(sizes)):
            sizes[i % len(sizes)] += 1
    else:
        sizes = list(lengths)
    if sum(sizes) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    perm = _rng(generator).permutation(n).tolist()
    out, start = [], 0
    for s in sizes:
        out.append(Subset(dataset, perm[start:start + s]))
        start += s
    return out


def _rng(generator: Any) -> np.random.Generator:
    return (generator or default_generator).rng


# ------------------------------------------------------------------ samplers
class Sampler:
    """An iterable of dataset indices (or of batches of them)."""

    def __init__(self, data_source: Any = None):
        pass

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError


class SequentialSampler(Sampler):
    """``0, 1, ..., len(data_source) - 1``."""

    def __init__(self, data_source: Any):
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """The indices shuffled (``num_samples`` of them: more than the dataset draws
    successive permutations), or drawn with ``replacement``."""

    def __init__(self, data_source: Any, replacement: bool = False,
                 num_samples: int | None = None, generator: Any = None):
        self.data_source, self.replacement = data_source, replacement
        self._num_samples, self.generator = num_samples, generator
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n, rng = len(self.data_source), _rng(self.generator)
        if self.replacement:
            return iter(rng.integers(0, n, self.num_samples).tolist())
        rounds = -(-self.num_samples // n)
        order = np.concatenate([rng.permutation(n) for _ in range(rounds)])
        return iter(order[:self.num_samples].tolist())

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given ``indices``, shuffled."""

    def __init__(self, indices: Sequence[int], generator: Any = None):
        self.indices, self.generator = indices, generator

    def __iter__(self) -> Iterator[int]:
        return iter([self.indices[i] for i in _rng(self.generator).permutation(
            len(self.indices))])

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights``
    (with ``replacement``, or without)."""

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True,
                 generator: Any = None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or \
                num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        w = np.asarray(weights.tolist() if isinstance(weights, Tensor) else weights,
                       dtype=np.float64)
        if w.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape "
                             f"{tuple(w.shape)}")
        self.weights, self.num_samples = w, num_samples
        self.replacement, self.generator = replacement, generator

    def __iter__(self) -> Iterator[int]:
        p = self.weights / self.weights.sum()
        got = _rng(self.generator).choice(len(p), self.num_samples, replace=self.replacement,
                                          p=p)
        return iter(got.tolist())

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """The indices of ``sampler`` in lists of ``batch_size`` (the last shorter,
    unless ``drop_last``).

    >>> from fad.torch.utils.data import BatchSampler, SequentialSampler
    >>> list(BatchSampler(SequentialSampler(range(5)), 2, False))
    [[0, 1], [2, 3], [4]]
    """

    def __init__(self, sampler: Any, batch_size: int, drop_last: bool):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self) -> Iterator[list]:
        batch: list = []
        for i in self.sampler:
            batch.append(i)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)


# ------------------------------------------------------------------ collation
def default_convert(data: Any) -> Any:
    """NumPy arrays (and numbers) inside ``data`` as tensors, containers kept (tuples
    become lists, as PyTorch's); for a loader that does not batch."""
    if isinstance(data, Tensor):
        return data
    if isinstance(data, np.ndarray) and data.dtype.kind in "biufc":
        return tensor(data)
    if isinstance(data, np.number):
        return tensor(data.item())
    if isinstance(data, abc.Mapping):
        return type(data)({k: default_convert(v) for k, v in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, abc.Sequence) and not isinstance(data, str | bytes):
        return [default_convert(d) for d in data]
    return data


def default_collate(batch: list) -> Any:
    """A list of samples as one batch: tensors and NumPy arrays stacked, numbers as a
    tensor (float64 for Python floats, int64 for ints), strings kept as a list, and
    dicts, named tuples and sequences collated field by field (a tuple's fields come
    back as a list, as PyTorch's).

    >>> import fad.torch as torch
    >>> torch.utils.data.default_collate([{"x": 1, "y": 2.0}, {"x": 3, "y": 4.0}])
    {'x': tensor([1, 3]), 'y': tensor([2., 4.], dtype=torch.float64)}
    """
    first = batch[0]
    if isinstance(first, Tensor):
        return F.stack(batch)
    if isinstance(first, np.ndarray) and first.dtype.kind in "biufc":
        return F.stack([tensor(b) for b in batch])
    if isinstance(first, np.number):
        return tensor([b.item() for b in batch])
    if isinstance(first, bool | int | float):
        return tensor(batch) if not isinstance(first, float) else tensor(batch, dtype=_f64())
    if isinstance(first, str | bytes):
        return batch
    if isinstance(first, abc.Mapping):
        return type(first)({k: default_collate([d[k] for d in batch]) for k in first})
    if isinstance(first, tuple) and hasattr(first, "_fields"):
        return type(first)(*(default_collate(list(s)) for s in zip(*batch)))
    if isinstance(first, abc.Sequence):
        if any(len(s) != len(first) for s in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [default_collate(list(s)) for s in zip(*batch)]
        return columns if isinstance(first, tuple) else type(first)(columns)
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, "
                    f"dicts or lists; found {type(first)}")


def _f64() -> Any:
    from .. import _dtype
    return _dtype.float64


def get_worker_info() -> None:
    """``None``: the loader reads the dataset in the calling process."""
    return None


# ------------------------------------------------------------------ the loader
class DataLoader:
    """Batches of a dataset: indices from ``sampler`` (sequential, or shuffled with
    ``shuffle=True``) grouped by ``batch_size`` (or given by ``batch_sampler``),
    samples collated by ``collate_fn``; ``batch_size=None`` yields single samples.

    >>> import fad.torch as torch
    >>> ds = torch.utils.data.TensorDataset(torch.arange(5))
    >>> [b[0].tolist() for b in torch.utils.data.DataLoader(ds, batch_size=2)]
    [[0, 1], [2, 3], [4]]
    """

    def __init__(self, dataset: Any, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Any = None, batch_sampler: Any = None, num_workers: int = 0,
                 collate_fn: Any = None, pin_memory: bool = False, drop_last: bool = False,
                 timeout: float = 0, worker_init_fn: Any = None,
                 multiprocessing_context: Any = None, generator: Any = None, *,
                 prefetch_factor: int | None = None, persistent_workers: bool = False,
                 pin_memory_device: str = "",
                 in_order: bool = True):
        self.dataset, self.num_workers, self.generator = dataset, num_workers, generator
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in (None, False):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified "
                                 f"shuffle option, but got shuffle={shuffle}")
            for name, value in (("sampler", sampler), ("batch_sampler", batch_sampler)):
                if value is not None:
                    raise ValueError(f"DataLoader with IterableDataset: expected unspecified "
                                     f"{name} option, but got {name}={value}")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None and not self._iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else \
                SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size, self.drop_last = batch_size, drop_last
        self.sampler, self.batch_sampler = sampler, batch_sampler
        self._auto = batch_size is not None or batch_sampler is not None
        self.collate_fn = collate_fn or (default_collate if self._auto else default_convert)

    def __iter__(self) -> Iterator[Any]:
        if self._iterable:
            yield from self._stream()
            return
        if not self._auto:
            for i in self.sampler:
                yield self.collate_fn(self.dataset[i])
            return
        fast = type(self.dataset) is TensorDataset and self.collate_fn is default_collate
        for batch in self.batch_sampler:
            if fast:  # one gather per tensor instead of stacking rows
                idx = np.asarray(batch, dtype=np.int64)
                yield [t[idx] for t in self.dataset.tensors]
            else:
                yield self.collate_fn([self.dataset[i] for i in batch])

    def _stream(self) -> Iterator[Any]:
        if not self._auto:
            for sample in self.dataset:
                yield self.collate_fn(sample)
            return
        batch: list = []
        for sample in self.dataset:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def __len__(self) -> int:
        if self._iterable:
            n = len(self.dataset)  # (a TypeError without __len__, as PyTorch's)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        return len(self.batch_sampler) if self._auto else len(self.sampler)


__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ConcatDataset", "ChainDataset",
           "Subset", "random_split", "Sampler", "SequentialSampler", "RandomSampler",
           "SubsetRandomSampler", "WeightedRandomSampler", "BatchSampler", "default_collate",
           "default_convert", "get_worker_info", "DataLoader"]
