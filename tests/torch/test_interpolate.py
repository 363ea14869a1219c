"""``F.interpolate`` (nearest, linear, bilinear) against PyTorch: values, input
gradients and ``grad_fn`` names."""

from __future__ import annotations

import numpy as np
import pytest

import fad.torch as torch

real = pytest.importorskip("torch")

X4 = np.random.default_rng(0).standard_normal((2, 3, 4, 5))
X3 = X4[:, :, 0]


@pytest.mark.parametrize("x, kwargs", [
    (X4, dict(scale_factor=2)), (X4, dict(size=(7, 3))), (X4, dict(size=(3, 8), mode="nearest")),
    (X4, dict(size=(7, 9), mode="bilinear")), (X4, dict(scale_factor=1.5, mode="bilinear")),
    (X4, dict(size=(7, 9), mode="bilinear", align_corners=True)),
    (X4, dict(size=(2, 3), mode="bilinear")), (X3, dict(size=9, mode="linear")),
    (X3, dict(scale_factor=0.5, mode="linear", align_corners=True)),
])
def test_values_and_gradients_match_pytorch(x, kwargs):
    results = []
    for lib in (torch, real):
        t = lib.tensor(x, requires_grad=True)
        y = lib.nn.functional.interpolate(t, **kwargs)
        weights = lib.tensor(np.arange(1.0, y.numel() + 1).reshape(tuple(y.shape)))
        (y * weights).sum().backward()
        results.append((y.detach().numpy(), t.grad.numpy(), type(y.grad_fn).__name__))
    (a, ga, na), (b, gb, nb) = results
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ga, gb, rtol=1e-12, atol=1e-12)
    assert na == nb


def test_errors_as_pytorch():
    F = torch.nn.functional
    with pytest.raises(NotImplementedError, match="Got 3D input, but bilinear mode needs 4D"):
        F.interpolate(torch.tensor(X3), size=4, mode="bilinear")
    with pytest.raises(ValueError, match="only one of size or scale_factor"):
        F.interpolate(torch.tensor(X4))
    with pytest.raises(ValueError, match="align_corners option can only be set"):
        F.interpolate(torch.tensor(X4), scale_factor=2, align_corners=True)
