"""``torch.autograd.gradcheck`` and ``gradgradcheck`` against PyTorch's (skipped
without it): passes, a wrong custom ``backward`` caught with PyTorch's error and
message, ``raise_exception=False``, second derivatives, and the float32 warning."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

real_torch = pytest.importorskip("torch")
import fad.torch as ftorch  # noqa: E402


def square(t: Any, slope: float) -> Any:
    """A custom ``Function`` ``x ** 2`` whose backward is ``slope * g * x``: right
    with slope 2."""
    class Square(t.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x**2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (x,) = ctx.saved_tensors
            return slope * g * x
    return Square


def run(t: Any) -> list:
    res = []
    x = t.tensor([0.3, -1.2, 0.8], dtype=t.float64, requires_grad=True)
    y = t.tensor([[1.0, 2.0], [0.5, -1.0]], dtype=t.float64, requires_grad=True)
    res.append(t.autograd.gradcheck(lambda x: x.sin() * 2, (x,)))
    res.append(t.autograd.gradcheck(lambda x, y: (x[:2] @ y, y.sum() * x), (x, y)))

    Bad, Good = square(t, 1.0), square(t, 2.0)

    try:
        t.autograd.gradcheck(Bad.apply, (x,))
    except Exception as e:
        res.append((type(e).__name__, isinstance(e, RuntimeError), str(e).splitlines()[0]))
    res.append(t.autograd.gradcheck(Bad.apply, (x,), raise_exception=False))
    res.append(t.autograd.gradcheck(Good.apply, (x,)))
    res.append(t.autograd.gradgradcheck(Good.apply, (x,)))
    res.append(t.autograd.gradgradcheck(lambda x, y: (x[:2] @ y).exp(), (x, y)))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        t.autograd.gradcheck(lambda x: x * 2, (t.tensor([1.0, 2.0], requires_grad=True),), atol=0.2)
        res.append([str(i.message) for i in w])
    return res


def test_as_pytorch():
    assert run(ftorch) == run(real_torch)


def test_the_numerical_jacobian_is_reported():
    x = ftorch.tensor([0.3, 2.0], dtype=ftorch.float64, requires_grad=True)
    with pytest.raises(ftorch.autograd.gradcheck.GradcheckError, match="numerical:tensor"):
        ftorch.autograd.gradcheck(lambda x: x.detach() * x, (x,))
