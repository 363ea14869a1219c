"""``F.max_unpool1d``/``max_unpool2d`` and ``nn.MaxUnpool1d``/``MaxUnpool2d`` against
PyTorch (skipped without it): values, gradients, ``output_size``, reprs and errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
import fad.torch as ftorch  # noqa: E402


def run(t: Any) -> list:
    out = []
    x = t.tensor(np.random.default_rng(4).standard_normal((2, 3, 4, 6)), requires_grad=True)
    o, i = t.nn.functional.max_pool2d(x, 2, return_indices=True)
    u = t.nn.functional.max_unpool2d(o, i, 2)
    (u * t.arange(u.numel(), dtype=u.dtype).reshape(u.shape)).sum().backward()
    out.append((u.detach().numpy().tolist(), x.grad.numpy().tolist()))
    out.append(tuple(t.nn.functional.max_unpool2d(o, i, 2, output_size=(5, 7)).shape))
    out.append(tuple(t.nn.MaxUnpool2d(2)(o, i, output_size=x.shape).shape))
    out.append((repr(t.nn.MaxUnpool2d(2)), repr(t.nn.MaxUnpool1d(3, 2, 1))))
    o1, i1 = t.nn.functional.max_pool1d(t.arange(6.0).reshape(1, 1, 6), 2, return_indices=True)
    out.append(t.nn.functional.max_unpool1d(o1, i1, 2).tolist())
    try:
        t.nn.functional.max_unpool2d(o, i, 2, output_size=(9, 9))
    except Exception as e:
        out.append((type(e).__name__, str(e)))
    return out


def test_as_pytorch():
    assert run(ftorch) == run(real_torch)
