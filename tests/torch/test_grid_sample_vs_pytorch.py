"""``F.affine_grid`` and ``F.grid_sample`` against PyTorch (skipped without it): every
mode, padding mode and ``align_corners``, on a random grid and on an affine one:
values, ``grad_fn`` and the gradients in the image, the grid and ``theta``; the
``align_corners`` warning and the errors."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
import fad.torch as ftorch  # noqa: E402

rng = np.random.default_rng(9)
X = rng.standard_normal((2, 3, 5, 4))
TH = np.array([[[0.8, -0.2, 0.1], [0.3, 1.1, -0.2]], [[1.3, 0.4, -0.5], [-0.6, 0.9, 0.7]]])
G = rng.uniform(-1.4, 1.4, (2, 3, 6, 2))


def run(t: Any, mode: str, pm: str, ac: bool, use_affine: bool) -> tuple:
    x = t.tensor(X, requires_grad=True)
    th = t.tensor(TH, requires_grad=True)
    g0 = t.tensor(G, requires_grad=True)
    g = t.nn.functional.affine_grid(th, (2, 3, 4, 3), align_corners=ac) if use_affine else g0
    y = t.nn.functional.grid_sample(x, g, mode=mode, padding_mode=pm, align_corners=ac)
    (y * y).sum().backward()
    return (
        y.detach().numpy(),
        x.grad.numpy(),
        (th.grad if use_affine else g0.grad).numpy(),
        g.detach().numpy(),
        y.grad_fn.name(),
    )


@pytest.mark.parametrize("use_affine", [False, True])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_as_pytorch(mode, padding_mode, align_corners, use_affine):
    got = run(ftorch, mode, padding_mode, align_corners, use_affine)
    want = run(real_torch, mode, padding_mode, align_corners, use_affine)
    assert got[4] == want[4]
    for g, w in zip(got[:4], want[:4]):
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-10)


def test_warning_and_errors_as_pytorch():
    def run_errors(t: Any) -> list:
        out = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t.nn.functional.grid_sample(t.ones(1, 1, 2, 2), t.zeros(1, 1, 1, 2))
            out.append([str(c.message) for c in caught])
        for bad in (
            lambda: t.nn.functional.grid_sample(
                t.ones(1, 1, 2, 2), t.zeros(1, 1, 1, 2), padding_mode="wrap", align_corners=True
            ),
            lambda: t.nn.functional.affine_grid(t.zeros(1, 3, 3), (1, 1, 2, 2), align_corners=True),
        ):
            try:
                bad()
            except ValueError as e:
                out.append(str(e))
        return out

    assert run_errors(ftorch) == run_errors(real_torch)
