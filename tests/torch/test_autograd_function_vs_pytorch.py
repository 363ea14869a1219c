"""``torch.autograd.function`` against PyTorch (skipped without it): the module's
names, and ``once_differentiable``: its backward runs with gradients off, gives a
plain gradient when no graph of it was asked for, and, when the incoming gradient
requires grad under ``create_graph=True``, a result whose differentiation raises
PyTorch's error."""

from __future__ import annotations

from typing import Any

import pytest

real_torch = pytest.importorskip("torch")
from torch_compare import outcome  # noqa: E402

import fad.torch as ftorch  # noqa: E402


def square(t: Any) -> Any:
    once = t.autograd.function.once_differentiable

    class Square(t.autograd.function.Function):
        grad_modes: list = []

        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once
        def backward(ctx: Any, g: Any) -> Any:
            Square.grad_modes.append(t.is_grad_enabled())
            (x,) = ctx.saved_tensors
            return 2 * x * g
    return Square


def test_module_names_are_pytorchs():
    f = ftorch.autograd.function
    assert f.Function is ftorch.autograd.Function
    assert {"Function", "FunctionCtx", "InplaceFunction", "once_differentiable"} <= set(dir(f))
    from fad.torch.autograd.function import once_differentiable  # noqa: F401


@pytest.mark.parametrize("create_graph", [False, True])
def test_plain_gradient_and_grad_mode(create_graph: bool):
    def run(t: Any) -> tuple:
        sq = square(t)
        x = t.tensor([3.0, -1.5], requires_grad=True)
        (g,) = t.autograd.grad(sq.apply(x).sum(), x, create_graph=create_graph)
        return g, g.requires_grad, g.grad_fn is None, tuple(sq.grad_modes)
    assert outcome(run, ftorch) == outcome(run, real_torch)


@pytest.mark.parametrize("then", ["backward", "grad", "none"])
def test_differentiating_twice_raises(then: str):
    def run(t: Any) -> tuple:
        sq = square(t)
        x = t.tensor([3.0, -1.5], requires_grad=True)
        v = t.tensor([1.0, 2.0], requires_grad=True)
        (g,) = t.autograd.grad(sq.apply(x), x, grad_outputs=v, create_graph=True)
        head = (g, g.requires_grad, g.grad_fn.name())
        if then == "backward":
            g.sum().backward()
        elif then == "grad":
            t.autograd.grad(g.sum(), v)
        return head
    assert outcome(run, ftorch) == outcome(run, real_torch)
