"""Double backward through piecewise functions, against PyTorch: a gradient computed
from an input's values without a derivative (``relu``'s mask, max pooling's
positions, ``clamp``'s bounds) still requires grad when that input does, as
PyTorch's backward formulas reference the input they saved, so a Hessian-vector
product of a ReLU network gives PyTorch's numbers (zeros where the function is
piecewise linear) instead of an error (skipped without torch)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
import fad.torch as ftorch  # noqa: E402

X = np.random.default_rng(0).standard_normal((1, 1, 4, 4))
W = np.random.default_rng(1).standard_normal((16, 8))

CASES: dict[str, Callable[[Any, Any], Any]] = {
    "relu": lambda t, x: t.nn.functional.relu(x),
    "leaky_relu": lambda t, x: t.nn.functional.leaky_relu(x, 0.1),
    "hardtanh": lambda t, x: t.nn.functional.hardtanh(x, -0.5, 0.5),
    "max_pool2d": lambda t, x: t.nn.functional.max_pool2d(x, 2),
    "abs": lambda t, x: x.abs(),
    "relu_network": lambda t, x: t.nn.functional.relu(x.reshape(1, 16) @ t.tensor(W)) ** 2,
}


def _second(lib: Any, name: str) -> tuple:
    x = lib.tensor(X, requires_grad=True)
    (g,) = lib.autograd.grad(CASES[name](lib, x).sum(), x, create_graph=True)
    v = lib.tensor(np.cos(np.arange(16.0)).reshape(X.shape))
    (hv,) = lib.autograd.grad((g * v).sum(), x)
    return g.requires_grad, np.asarray((g + 0).tolist()), np.asarray((hv + 0).tolist())


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_of_piecewise_functions_differentiate_again_as_in_pytorch(name: str
                                                                             ) -> None:
    ours, theirs = _second(ftorch, name), _second(real_torch, name)
    assert ours[0] == theirs[0]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-12, atol=1e-12)


def test_a_linear_function_stays_disconnected_as_in_pytorch() -> None:
    """The gradient of ``3 x`` does not depend on ``x`` at all: differentiating it
    again is PyTorch's error in both."""
    for lib in (real_torch, ftorch):
        x = lib.tensor(X, requires_grad=True)
        (g,) = lib.autograd.grad((x * 3).sum(), x, create_graph=True)
        assert not g.requires_grad
        with pytest.raises(RuntimeError, match="does not require grad"):
            lib.autograd.grad(g.sum(), x)


@pytest.mark.parametrize("name", ["clamp", "maximum"])
def test_clamp_and_maximum_gradients_stay_connected_with_zero_derivative(name: str) -> None:
    """``clamp``'s and ``maximum``'s gradients are computed from the input's values too,
    so here they require grad and differentiate again to zeros; PyTorch's backward
    formulas for these two happen not to keep the input, so there a second
    differentiation of the bare gradient is an error (a documented difference)."""
    f = {"clamp": lambda t, x: x.clamp(-0.5, 0.5),
         "maximum": lambda t, x: t.maximum(x, x.flip(-1))}[name]
    x = ftorch.tensor(X, requires_grad=True)
    (g,) = ftorch.autograd.grad(f(ftorch, x).sum(), x, create_graph=True)
    (h,) = ftorch.autograd.grad(g.sum(), x)
    assert g.requires_grad and not h.any()
    xt = real_torch.tensor(X, requires_grad=True)
    (gt,) = real_torch.autograd.grad(f(real_torch, xt).sum(), xt, create_graph=True)
    assert not gt.requires_grad
    np.testing.assert_array_equal(g.detach().numpy(), gt.numpy())


def test_a_sum_hands_its_cotangent_on_as_pytorch() -> None:
    """``AddBackward0``'s gradients are the cotangent itself, also while a graph is
    recorded: no operation is recorded for them, and they are differentiated as the
    cotangent is."""
    for lib in (real_torch, ftorch):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0], requires_grad=True)
        w = lib.tensor([1.0, 5.0], requires_grad=True)
        ga, gb = lib.autograd.grad(a + b, [a, b], grad_outputs=w, create_graph=True)
        assert ga is w and gb is w
        (h,) = lib.autograd.grad((ga * gb).sum(), w)
        assert h.tolist() == [2.0, 10.0]
