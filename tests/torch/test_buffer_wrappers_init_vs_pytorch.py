"""``nn.Buffer``, ``nn.DataParallel``, ``nn.LazyLinear`` and the initialisers
``dirac_``, ``sparse_`` and the deprecated underscore-less names, against PyTorch
(skipped without it)."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

real_torch = pytest.importorskip("torch")
from torch_compare import runs_alike  # noqa: E402

import fad.torch as ftorch  # noqa: E402


def run(t: Any) -> list:
    class M(t.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.b = t.nn.Buffer(t.ones(2))
            self.c = t.nn.Buffer(t.zeros(1), persistent=False)
            self.lin = t.nn.Linear(2, 2)

    m = M()
    out: list = [
        list(m.state_dict()),
        [n for n, _ in m.named_buffers()],
        isinstance(m.b, t.nn.Buffer),
        isinstance(t.ones(1), t.nn.Buffer),
    ]
    d = t.nn.DataParallel(t.nn.Linear(2, 3))
    out += [list(d.state_dict()), tuple(d(t.ones(4, 2)).shape), type(d.module).__name__]
    lazy = t.nn.LazyLinear(3)
    out += [repr(lazy), repr(lazy.weight)]
    y = lazy(t.ones(2, 5))
    out += [
        repr(lazy),
        tuple(lazy.weight.shape),
        type(lazy).__name__,
        tuple(y.shape),
        [n for n, _ in lazy.named_parameters()],
    ]
    w = t.empty(6, 2, 3, 3)
    t.nn.init.dirac_(w, groups=2)
    out.append(w.tolist())
    out.append((t.nn.init.sparse_(t.empty(5, 3), 0.4) == 0).sum(0).tolist())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t.nn.init.xavier_uniform(t.empty(2, 2))
        t.nn.init.normal(t.empty(2))
    out.append([(c.category.__name__, str(c.message)) for c in caught])
    for bad in (
        lambda: t.nn.init.dirac_(t.empty(2, 2)),
        lambda: t.nn.init.sparse_(t.empty(2), 0.5),
    ):
        try:
            bad()
        except ValueError as e:
            out.append(str(e))
    return out


def test_as_pytorch():
    runs_alike(run, ftorch, real_torch)
