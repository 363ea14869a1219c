"""``torch.utils.data`` against PyTorch's (skipped without it): collation of every
kind of sample, batching by size, by sampler and by batch sampler, iterable
datasets, concatenation, lengths and the argument errors (the reprs compared
whole); the random samplers by their statistics."""

from __future__ import annotations

import collections
from typing import Any, Callable

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
import fad.torch as ftorch  # noqa: E402

P = collections.namedtuple("P", "x y")


def cases(t: Any) -> dict[str, Callable[[], Any]]:
    D = t.utils.data
    ds = D.TensorDataset(t.arange(5), t.arange(5) * 10)

    class It(D.IterableDataset):
        def __iter__(self):
            return iter(range(5))

    class Sized(D.IterableDataset):
        def __iter__(self):
            return iter(range(5))

        def __len__(self):
            return 5

    class Dicts(D.Dataset):
        def __getitem__(self, i):
            return {"a": i, "b": np.ones(2) * i, "s": str(i)}

        def __len__(self):
            return 3

    return {
        "collate": lambda: D.default_collate([(1, 2.0), (3, 4.0)]),
        "collate_dict": lambda: D.default_collate(
            [{"a": 1, "b": np.ones(2)}, {"a": 2, "b": np.zeros(2)}]
        ),
        "collate_str": lambda: D.default_collate(["x", "y"]),
        "collate_list": lambda: D.default_collate([[1, 2], [3, 4]]),
        "collate_bool": lambda: D.default_collate([True, False]),
        "collate_nt": lambda: D.default_collate([P(1, 2.0), P(3, 4.0)]),
        "collate_ragged": lambda: D.default_collate([[1, 2], [3]]),
        "loader": lambda: list(D.DataLoader(ds, batch_size=2)),
        "loader_type": lambda: type(next(iter(D.DataLoader(ds, batch_size=2)))).__name__,
        "loader_none": lambda: list(D.DataLoader(ds, batch_size=None))[:2],
        "loader_drop": lambda: (
            list(D.DataLoader(ds, batch_size=2, drop_last=True)),
            len(D.DataLoader(ds, batch_size=2, drop_last=True)),
        ),
        "batch_sampler": lambda: (
            list(D.BatchSampler(D.SequentialSampler(range(5)), 2, True)),
            len(D.BatchSampler(range(5), 2, False)),
        ),
        "err_sampler_shuffle": lambda: D.DataLoader(ds, sampler=[0, 1], shuffle=True),
        "err_batch_sampler": lambda: D.DataLoader(ds, batch_sampler=[[0]], batch_size=2),
        "err_none_drop": lambda: D.DataLoader(ds, batch_size=None, drop_last=True),
        "iterable": lambda: list(D.DataLoader(It(), batch_size=2)),
        "iterable_none": lambda: list(D.DataLoader(It(), batch_size=None)),
        "iterable_shuffle": lambda: D.DataLoader(It(), shuffle=True),
        "iterable_len": lambda: len(D.DataLoader(It(), batch_size=2)),
        "iterable_sized_len": lambda: (
            len(D.DataLoader(Sized(), batch_size=2)),
            len(D.DataLoader(Sized(), batch_size=2, drop_last=True)),
        ),
        "concat": lambda: (
            len(D.ConcatDataset([ds, ds])),
            D.ConcatDataset([ds, ds])[6],
            (ds + ds)[7],
            D.ConcatDataset([ds, ds]).cumulative_sizes,
            D.ConcatDataset([ds, ds])[-1],
        ),
        "chain": lambda: list(D.ChainDataset([It(), It()]))[3:7],
        "given_batches": lambda: (
            list(D.DataLoader(ds, batch_sampler=[[4, 0], [2]])),
            len(D.DataLoader(ds, batch_sampler=[[4, 0], [2]])),
        ),
        "lens": lambda: (
            len(D.RandomSampler(range(5), num_samples=8, replacement=True)),
            len(D.WeightedRandomSampler([0.1, 0.9], 10)),
            len(D.SubsetRandomSampler([3, 4])),
            len(D.RandomSampler(range(5), num_samples=8)),
        ),
        "numpy_samples": lambda: list(D.DataLoader([np.ones(2), np.zeros(2)], batch_size=2)),
        "dict_samples": lambda: list(D.DataLoader(Dicts(), batch_size=2)),
        "sampler": lambda: list(
            D.DataLoader(ds, batch_size=2, sampler=D.SequentialSampler(range(3)))
        ),
        "len_none": lambda: len(D.DataLoader(ds, batch_size=None)),
        "err_num_samples": lambda: D.RandomSampler(range(5), num_samples=0),
        "err_weights": lambda: D.WeightedRandomSampler([[0.1]], 2),
        "err_bs": lambda: D.BatchSampler(range(3), 0, False),
        "random_split": lambda: [len(s) for s in D.random_split(range(10), [0.5, 0.3, 0.2])],
        "random_split_bad": lambda: D.random_split(range(10), [3, 3]),
        "worker": lambda: D.get_worker_info(),
    }


def result(f: Callable[[], Any]) -> str:
    try:
        r = f()
    except Exception as e:  # noqa: BLE001  (the exception is the result compared)
        return type(e).__name__ + ": " + str(e)
    return repr(r).replace("fad.torch", "torch")


@pytest.mark.parametrize("name", sorted(cases(ftorch)))
def test_as_pytorch(name):
    assert result(cases(ftorch)[name]) == result(cases(real_torch)[name])


def test_random_samplers_draw_as_they_should():
    D = ftorch.utils.data
    g = ftorch.Generator().manual_seed(3)
    shuffled = [
        int(i)
        for b in D.DataLoader(
            D.TensorDataset(ftorch.arange(50)), batch_size=7, shuffle=True, generator=g
        )
        for i in b[0]
    ]
    assert sorted(shuffled) == list(range(50)) and shuffled != list(range(50))
    counts = np.bincount(
        list(D.WeightedRandomSampler([1.0, 3.0, 0.0], 8000, generator=g)), minlength=3
    )
    assert counts[2] == 0 and abs(counts[1] / 8000 - 0.75) < 0.03
    assert sorted(D.WeightedRandomSampler([1.0, 1.0, 2.0], 3, replacement=False)) == [0, 1, 2]
    assert sorted(D.SubsetRandomSampler([3, 9, 4])) == [3, 4, 9]
    many = list(D.RandomSampler(range(4), num_samples=8, generator=g))
    assert sorted(many[:4]) == sorted(many[4:]) == [0, 1, 2, 3]
