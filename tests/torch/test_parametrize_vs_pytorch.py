"""``torch.nn.utils.parametrize`` and ``parametrizations.weight_norm`` against
PyTorch's (skipped without it): the class swap, ``state_dict`` and parameter names,
values and gradients through chained parametrizations, ``right_inverse`` on
assignment, ``cached``, removal and the errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
from torch_compare import runs_alike  # noqa: E402

import fad.torch as ftorch  # noqa: E402


def run(t: Any) -> list:
    P = t.nn.utils.parametrize

    class Symmetric(t.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

    class MatrixExponential(t.nn.Module):
        def forward(self, X):
            return t.matrix_exp(X)

    class Scale(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("s", t.tensor(2.0, dtype=t.float64))

        def forward(self, X):
            return X * self.s

        def right_inverse(self, X):
            return X / self.s

    out = []
    t.manual_seed(0)
    layer = t.nn.Linear(3, 3).double()
    with t.no_grad():
        layer.weight.copy_(t.tensor(np.arange(9.0).reshape(3, 3) / 10))
        layer.bias.fill_(0.5)
    P.register_parametrization(layer, "weight", Symmetric())
    out.append(
        (
            type(layer).__name__,
            P.is_parametrized(layer),
            P.is_parametrized(layer, "bias"),
            list(layer.state_dict()),
            [n for n, _ in layer.named_parameters()],
            t.nn.utils.parametrize.type_before_parametrizations(layer).__name__,
        )
    )
    out.append(layer.weight.tolist())
    P.register_parametrization(layer, "weight", Scale())
    out.append((layer.weight.tolist(), list(layer.state_dict())))
    x = t.tensor(np.ones((2, 3)), requires_grad=True)
    layer(x).pow(2).sum().backward()
    out.append((layer.parametrizations.weight.original.grad.tolist(), x.grad.tolist()))
    try:
        layer.weight = t.tensor(np.eye(3) * 4)
    except RuntimeError as e:
        out.append(str(e))
    lone = t.nn.Linear(2, 2).double()
    P.register_parametrization(lone, "weight", Scale())
    lone.weight = t.tensor(np.eye(2) * 4)
    out.append((lone.parametrizations.weight.original.tolist(), lone.weight.tolist()))
    with P.cached():
        out.append(layer.weight is layer.weight)
    P.remove_parametrizations(layer, "weight", leave_parametrized=True)
    out.append(
        (
            type(layer).__name__,
            list(layer.state_dict()),
            layer.weight.tolist(),
            hasattr(layer, "parametrizations"),
        )
    )
    m = t.nn.Linear(3, 2).double()
    with t.no_grad():
        m.weight.copy_(t.tensor(np.arange(6.0).reshape(2, 3) - 2))
    t.nn.utils.parametrizations.weight_norm(m)
    out.append(
        (list(m.state_dict()), m.parametrizations.weight.original0.tolist(), m.weight.tolist())
    )
    m(t.tensor(np.ones((1, 3)))).sum().backward()
    out.append(
        (
            m.parametrizations.weight.original0.grad.tolist(),
            np.round(m.parametrizations.weight.original1.grad.numpy(), 12).tolist(),
        )
    )
    try:
        P.register_parametrization(t.nn.Linear(2, 2), "nothing", Symmetric())
    except Exception as e:
        out.append((type(e).__name__, str(e).split("'")[2] if "'" in str(e) else str(e)))
    try:
        P.remove_parametrizations(t.nn.Linear(2, 2), "weight")
    except Exception as e:
        out.append(type(e).__name__)
    e2 = t.nn.Linear(3, 3).double()
    P.register_parametrization(e2, "weight", MatrixExponential())
    out.append(len(list(e2.parameters())))
    return out


def test_as_pytorch():
    runs_alike(run, ftorch, real_torch)


def test_registration_evaluates_once_and_keeps_the_original_tensor():
    def run(t: Any) -> tuple:
        P = t.nn.utils.parametrize
        calls = []

        class Noisy(t.nn.Module):
            def forward(self, X):
                calls.append("forward")
                return X

            def right_inverse(self, A):
                calls.append("right_inverse")
                return A

        layer = t.nn.Linear(3, 3)
        weight = layer.weight
        P.register_parametrization(layer, "weight", Noisy())
        same = layer.parametrizations.weight.original is weight
        P.register_parametrization(layer, "weight", Noisy())  # (chained: checked too)
        P.register_parametrization(t.nn.Linear(2, 2), "weight", Noisy(), unsafe=True)
        return calls, same
    assert run(ftorch) == run(real_torch)


class _Widen:
    """Parametrizations that change the shape or dtype (refused unless unsafe)."""

    @staticmethod
    def make(t: Any, kind: str) -> Any:
        class Bad(t.nn.Module):
            def forward(self, X):
                if kind == "shape":
                    return X[:1]
                if kind == "dtype":
                    return X.double()
                return 1.0

            def right_inverse(self, A):
                return A.double() if kind == "inverse_dtype" else A
        return Bad()


@pytest.mark.parametrize("kind", ["shape", "dtype", "not_a_tensor", "inverse_dtype"])
@pytest.mark.parametrize("chained", [False, True])
def test_registration_checks_are_pytorchs(kind: str, chained: bool):
    def call(t: Any) -> Any:
        P = t.nn.utils.parametrize
        layer = t.nn.Linear(2, 2)
        if chained:
            P.register_parametrization(layer, "weight", t.nn.Identity())
        P.register_parametrization(layer, "weight", _Widen.make(t, kind))

    messages = []
    for t in (real_torch, ftorch):
        with pytest.raises(ValueError) as e:
            call(t)
        messages.append(str(e.value))
    assert messages[0] == messages[1]
