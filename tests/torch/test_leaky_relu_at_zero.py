"""``fad.torch``'s ``leaky_relu`` and ``prelu`` keep PyTorch's derivative at 0
(the slope), while ``fad.nn.leaky_relu`` has JAX's (1)."""

import numpy as np
import pytest

import fad
import fad.nn as fnn
import fad.torch as ft


def _grads(lib):
    x = lib.zeros(3, dtype=lib.float64, requires_grad=True)
    y = (lib.nn.functional.leaky_relu(x, 0.2) * 1.0
         + lib.nn.functional.prelu(x, lib.tensor([0.3], dtype=lib.float64)) * 10.0)
    y.sum().backward()
    return x.grad.numpy()


def test_leaky_relu_and_prelu_at_zero_match_pytorch():
    torch = pytest.importorskip("torch")
    np.testing.assert_allclose(_grads(ft), _grads(torch), rtol=1e-15)
    np.testing.assert_allclose(_grads(ft), 3.2)
    assert fad.grad(lambda x: fnn.leaky_relu(x, 0.2))(0.0) == 1.0


def test_in_place_leaky_relu_at_zero_matches_pytorch():
    torch = pytest.importorskip("torch")
    grads = []
    for lib in (ft, torch):
        x = lib.zeros(2, dtype=lib.float64, requires_grad=True)
        y = x * 1.0
        lib.nn.functional.leaky_relu_(y, 0.2)
        y.sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-15)
