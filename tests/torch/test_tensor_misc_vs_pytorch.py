"""``Tensor.resize_``/``resize_as_``, ``put``/``put_`` (differentiated), ``map_`` and
``share_memory_``/``is_shared`` against PyTorch (skipped without it)."""

from __future__ import annotations

from typing import Any

import pytest

real_torch = pytest.importorskip("torch")
import fad.torch as ftorch  # noqa: E402


def run(t: Any) -> list:
    out = []
    x = t.arange(6.0)
    out.append(
        (
            x.resize_(2, 2).tolist(),
            tuple(x.shape),
            tuple(t.arange(4.0).resize_as_(t.ones(2, 2)).shape),
        )
    )
    out.append(t.arange(3.0).resize_(5)[:3].tolist())
    y = t.arange(6.0, requires_grad=True) * 1
    try:
        y.resize_(2, 3)
    except Exception as e:
        out.append(str(e))
    z = t.arange(4.0)
    out.append((z.is_shared(), z.share_memory_() is z, z.is_shared()))
    a = t.zeros(2, 3)
    out.append(
        (
            a.put_(t.tensor([1, 5]), t.tensor([9.0, 8.0])).tolist(),
            t.zeros(2, 2).put(t.tensor([0, 0]), t.tensor([1.0, 2.0]), accumulate=True).tolist(),
        )
    )
    b = t.ones(3)
    out.append(b.map_(t.tensor([1.0, 2.0, 3.0]), lambda u, v: u + v).tolist())
    w = t.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    v = w * 1
    v.put_(t.tensor([3, 0]), t.tensor([10.0, 20.0]) * w[0, 1])
    v.sum().backward()
    out.append((w.grad.tolist()))
    return out


def test_as_pytorch():
    assert run(ftorch) == run(real_torch)
