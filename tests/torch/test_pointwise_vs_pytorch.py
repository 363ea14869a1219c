"""The elementwise functions of ``fad/torch/_functions/pointwise.py`` against PyTorch
(skipped without it): result dtypes for integer and boolean inputs, values at NaN
and infinities, PyTorch's errors, ``out=`` and the in-place forms. Their values and
gradients at floats are in ``test_torch_vs_pytorch.py``'s table."""

from __future__ import annotations

import math
from typing import Any

import pytest

real_torch = pytest.importorskip("torch")
from torch_compare import outcome  # noqa: E402

import fad.torch as ftorch  # noqa: E402

UNARY = ["asinh", "acosh", "atanh", "arcsinh", "arccosh", "arctanh", "deg2rad", "rad2deg", "i0",
         "sinc", "angle", "signbit", "isneginf", "isposinf", "isreal", "nan_to_num", "logit",
         "positive", "ravel"]
BINARY = ["hypot", "logaddexp", "logaddexp2", "copysign", "xlogy", "heaviside",
          "ldexp", "fmax", "fmin"]
INPUTS = {
    "float": lambda t: t.tensor([0.5, -2.0, 0.0, -0.0, math.inf, -math.inf, math.nan]),
    "int": lambda t: t.tensor([1, -2, 0, 3]),
    "bool": lambda t: t.tensor([True, False, True, True]),
    "float64": lambda t: t.tensor([0.25, -1.5, 3.0, 0.0], dtype=t.float64),
}


@pytest.mark.parametrize("kind", sorted(INPUTS))
@pytest.mark.parametrize("name", UNARY)
def test_unary_as_pytorch(name, kind):
    def run(t: Any) -> Any:
        return outcome(lambda lib: getattr(lib, name)(INPUTS[kind](lib)), t)
    assert run(ftorch) == run(real_torch)


@pytest.mark.parametrize("kinds", [("float", "float"), ("int", "int"), ("float64", "int"),
                                   ("int", "float64"), ("bool", "bool")])
@pytest.mark.parametrize("name", BINARY)
def test_binary_as_pytorch(name, kinds):
    def run(t: Any) -> Any:
        a, b = (INPUTS[k](t)[:4] for k in kinds)
        return outcome(lambda lib: getattr(lib, name)(a, b), t)
    assert run(ftorch) == run(real_torch)


@pytest.mark.parametrize("case", [
    lambda t: t.lerp(t.tensor([1.0, 2.0]), t.tensor([3.0, 5.0]), t.tensor([0.0, 1.0])),
    lambda t: t.lerp(t.tensor([1.0, 2.0]), t.tensor([3.0, 5.0]), t.tensor([0.5, 1.5],
                                                                         dtype=t.float64)),
    lambda t: t.lerp(t.tensor([1, 2]), t.tensor([3, 5]), 0.5),
    lambda t: t.addcmul(t.tensor([1, 2]), t.tensor([3, 4]), t.tensor([5, 6]), value=2),
    lambda t: t.addcdiv(t.tensor([1, 2]), t.tensor([3, 4]), t.tensor([5, 6])),
    lambda t: t.addcdiv(t.tensor([1.0, 2.0]), t.tensor([3, 4]), t.tensor([5.0, 8.0]), value=3),
    lambda t: t.nan_to_num(t.tensor([math.nan, math.inf, -math.inf]), 1.0, 2.0, -2.0),
    lambda t: t.nan_to_num(t.tensor([math.inf, -math.inf], dtype=t.float64)),
    lambda t: t.logit(t.tensor([0.0, 0.1, 0.95, 1.0]), eps=0.2),
    lambda t: t.positive(t.tensor([True])),
    lambda t: t.hypot(t.tensor([3.0]), t.tensor([4.0]), out=t.zeros(1)),
    lambda t: t.tensor([0.5, 0.2]).sinc_(),
    lambda t: t.tensor([1.0, 2.0]).lerp_(t.tensor([3.0, 3.0]), 0.5),
    lambda t: t.tensor([1.0, 2.0]).addcdiv_(t.tensor([1.0, 1.0]), t.tensor([2.0, 4.0])),
    lambda t: t.tensor([1, 2]).deg2rad_(),
    lambda t: t.arange(6.0).reshape(2, 3).t().ravel(),
    lambda t: t.arange(6.0).reshape(2, 3).t().reshape(3, 2).is_contiguous(),
])
def test_more_cases_as_pytorch(case):
    assert outcome(case, ftorch) == outcome(case, real_torch)


def test_gradients_at_special_points_as_pytorch():
    """``nan_to_num`` passes no gradient where it replaced a value; ``fmax`` passes it
    to the operand it picked, the other one where one is NaN."""
    def run(t: Any) -> tuple:
        x = t.tensor([1.0, math.nan, math.inf, -2.0], requires_grad=True)
        y = t.tensor([math.nan, 0.5, 1.0, -3.0], requires_grad=True)
        (t.nan_to_num(x) * 2 + t.fmax(x, y) + t.fmin(x, y)).sum().backward()
        return x.grad.tolist(), y.grad.tolist()
    assert run(ftorch) == run(real_torch)
