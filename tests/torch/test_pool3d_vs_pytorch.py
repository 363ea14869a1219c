"""3-d pooling and transposed convolution (``F.max_pool3d``, ``F.avg_pool3d``,
``F.conv_transpose3d`` and their modules) against PyTorch (skipped without it):
values, max positions and input gradients, ``state_dict``, reprs and errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
from torch_compare import runs_alike  # noqa: E402

import fad.torch as ftorch  # noqa: E402

rng = np.random.default_rng(2)
X = rng.standard_normal((2, 3, 5, 6, 4))
W = rng.standard_normal((3, 2, 2, 3, 2))


def run(t: Any) -> list:
    out = []
    cases = [
        lambda x: t.nn.functional.max_pool3d(x, 2),
        lambda x: t.nn.functional.max_pool3d(x, (2, 3, 2), 1, (1, 1, 0), ceil_mode=True),
        lambda x: t.nn.functional.max_pool3d(x, 2, return_indices=True)[1].double(),
        lambda x: t.nn.functional.avg_pool3d(x, 2),
        lambda x: t.nn.functional.avg_pool3d(x, 3, 2, 1, count_include_pad=False),
        lambda x: t.nn.functional.avg_pool3d(x, 2, ceil_mode=True, divisor_override=3),
        lambda x: t.nn.functional.conv_transpose3d(
            x, t.tensor(W), stride=2, padding=1, output_padding=1
        ),
        lambda x: t.nn.functional.conv_transpose3d(x, t.tensor(W), stride=(1, 2, 1), dilation=2),
        lambda x: t.nn.MaxPool3d(2, 2)(x),
        lambda x: t.nn.AvgPool3d(2)(x),
    ]
    for f in cases:
        x = t.tensor(X, requires_grad=True)
        y = f(x)
        if y.requires_grad:
            (y * y).sum().backward()
        out.append((y.detach().numpy(), None if x.grad is None else x.grad.numpy()))
    m = t.nn.ConvTranspose3d(3, 2, 2, stride=2)
    out.append(
        (
            list(m.state_dict()),
            tuple(m.weight.shape),
            repr(m),
            repr(t.nn.MaxPool3d(2)),
            repr(t.nn.AvgPool3d(2)),
        )
    )
    try:
        t.nn.functional.max_pool3d(t.ones(2, 2), 2)
    except RuntimeError as e:
        out.append(str(e))
    return out


def _check(got: Any, want: Any) -> None:
    if isinstance(want, tuple) and isinstance(want[0], np.ndarray):
        np.testing.assert_allclose(got[0], want[0], rtol=1e-10, atol=1e-12)
        if want[1] is None:
            assert got[1] is None
        else:
            np.testing.assert_allclose(got[1], want[1], rtol=1e-10, atol=1e-12)
    else:
        assert got == want


def test_as_pytorch():
    runs_alike(run, ftorch, real_torch, _check)
