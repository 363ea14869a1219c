"""``F.embedding_bag`` and ``nn.EmbeddingBag`` against PyTorch (skipped without it):
sum, mean and max bags from offsets or from rows, empty bags, ``include_last_offset``,
``per_sample_weights``, ``padding_idx``: values and weight gradients; errors, reprs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
from torch_compare import runs_alike  # noqa: E402

import fad.torch as ftorch  # noqa: E402

W = np.random.default_rng(6).standard_normal((10, 3))


def run(t: Any) -> list:
    out = []
    f = t.nn.functional.embedding_bag
    inp, off = t.tensor([1, 2, 4, 5, 4, 3, 2, 9]), t.tensor([0, 4])
    cases = [
        lambda w: f(inp, w, off, mode="mean"),
        lambda w: f(inp, w, off, mode="sum"),
        lambda w: f(inp, w, off, mode="max"),
        lambda w: f(t.tensor([[1, 2], [3, 3]]), w, mode="max"),
        lambda w: f(t.tensor([[1, 2], [3, 3]]), w),
        lambda w: f(inp, w, t.tensor([0, 4, 4]), mode="mean"),
        lambda w: f(inp, w, t.tensor([0, 4, 4]), mode="max"),
        lambda w: f(inp, w, t.tensor([0, 4, 8]), mode="sum", include_last_offset=True),
        lambda w: f(inp, w, off, mode="sum", per_sample_weights=t.arange(8.0, dtype=t.float64)),
        lambda w: f(inp, w, off, mode="mean", padding_idx=4),
        lambda w: f(inp, w, off, mode="max", padding_idx=2),
    ]
    for c in cases:
        w = t.tensor(W, requires_grad=True)
        y = c(w)
        (y * y).sum().backward()
        out.append(
            (np.round(y.detach().numpy(), 10).tolist(), np.round(w.grad.numpy(), 10).tolist())
        )
    for kw in [dict(mode="mean", per_sample_weights=t.ones(8)), dict(mode="foo")]:
        try:
            f(inp, t.tensor(W), off, **kw)
        except Exception as e:
            out.append((type(e).__name__, str(e)))
    try:
        f(t.tensor([[1, 2]]), t.tensor(W), off)
    except Exception as e:
        out.append((type(e).__name__, str(e).replace("fad.torch", "torch")))
    out.append(
        (
            repr(t.nn.EmbeddingBag(10, 3, mode="sum")),
            repr(t.nn.EmbeddingBag(10, 3, padding_idx=2)),
            list(t.nn.EmbeddingBag(10, 3).state_dict()),
        )
    )
    return out


def test_as_pytorch():
    runs_alike(run, ftorch, real_torch)
