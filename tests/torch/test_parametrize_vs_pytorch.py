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
